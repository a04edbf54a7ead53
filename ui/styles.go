package ui

import "github.com/charmbracelet/lipgloss"

// styles are the lipgloss styles of every screen. Colours adapt to light
// and dark terminals; with NO_COLOR (or a dumb terminal) lipgloss draws
// none, so every state is also visible as text (cursor mark, brackets).
type styles struct {
	title, section, sectionCount, row, cursor, unread, dim, badge, danger,
	warn, status, statusErr, statusNote, header, label, quote, prompt lipgloss.Style
}

func newStyles() styles {
	accent := lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#A99CFF"}
	dim := lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8A8A8A"}
	red := lipgloss.AdaptiveColor{Light: "#B00020", Dark: "#FF6B6B"}
	amber := lipgloss.AdaptiveColor{Light: "#8A5A00", Dark: "#FFC857"}
	barBg := lipgloss.AdaptiveColor{Light: "#E4E4E4", Dark: "#303030"}
	barFg := lipgloss.AdaptiveColor{Light: "#202020", Dark: "#DADADA"}
	selBg := lipgloss.AdaptiveColor{Light: "#D8D2FF", Dark: "#3C3466"}
	return styles{
		title:        lipgloss.NewStyle().Bold(true).Foreground(accent),
		section:      lipgloss.NewStyle().Bold(true).Foreground(accent),
		sectionCount: lipgloss.NewStyle().Foreground(dim),
		row:          lipgloss.NewStyle(),
		cursor:       lipgloss.NewStyle().Background(selBg),
		unread:       lipgloss.NewStyle().Bold(true),
		dim:          lipgloss.NewStyle().Foreground(dim),
		badge:        lipgloss.NewStyle().Foreground(accent),
		danger:       lipgloss.NewStyle().Bold(true).Foreground(red),
		warn:         lipgloss.NewStyle().Foreground(amber),
		status:       lipgloss.NewStyle().Background(barBg).Foreground(barFg),
		statusErr:    lipgloss.NewStyle().Background(barBg).Foreground(red).Bold(true),
		statusNote:   lipgloss.NewStyle().Background(barBg).Foreground(amber),
		header:       lipgloss.NewStyle().Bold(true),
		label:        lipgloss.NewStyle().Foreground(dim),
		quote:        lipgloss.NewStyle().Foreground(dim),
		prompt:       lipgloss.NewStyle().Foreground(accent).Bold(true),
	}
}
