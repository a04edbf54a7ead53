package ui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/snooze"
)

// snoozePicker chooses when snoozed threads come back: a preset (moved
// with ↑/↓ or tab, taken with enter) or a date or time typed in the
// user's time zone.
type snoozePicker struct {
	acts    actions
	ids     []int64
	presets []snooze.Preset
	cursor  int
	input   textinput.Model
	err     string
}

func newSnoozePicker(acts actions, ids []int64) *snoozePicker {
	in := textinput.New()
	in.Prompt = "or type: "
	in.Placeholder = "2026-12-01 09:00, 17:30, fri 14:00, 3d"
	in.CharLimit = 64
	in.Focus()
	return &snoozePicker{acts: acts, ids: ids, presets: snooze.Presets(acts.c.now()), input: in}
}

func (p *snoozePicker) update(msg tea.Msg) (overlay, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	switch k.String() {
	case "esc", "ctrl+c":
		return nil, func() tea.Msg { return noteMsg("snooze cancelled") }
	case "up", "shift+tab", "ctrl+p":
		p.cursor = (p.cursor + len(p.presets) - 1) % len(p.presets)
		return p, nil
	case "down", "tab", "ctrl+n":
		p.cursor = (p.cursor + 1) % len(p.presets)
		return p, nil
	case "enter":
		at := p.presets[p.cursor].At
		if p.input.Value() != "" {
			t, err := snooze.Parse(p.input.Value(), p.acts.c.now())
			if err != nil {
				p.err = err.Error()
				return p, nil
			}
			at = t
		}
		ids, svc := p.ids, p.acts.svc
		return nil, p.acts.runAction(ids, true, true, "snooze", func(ctx context.Context) (string, error) {
			return svc.Snooze(ctx, ids, at)
		})
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.err = ""
	return p, cmd
}

func (p *snoozePicker) view(c *common, width int) []string {
	lines := []string{c.st.header.Render(fmt.Sprintf("Snooze %s until", threadCount(len(p.ids))))}
	for i, pr := range p.presets {
		mark := "  "
		if i == p.cursor && p.input.Value() == "" {
			mark = "> "
		}
		lines = append(lines, mark+fmt.Sprintf("%-17s %s", pr.Label, pr.At.Format("Mon Jan 2 15:04")))
	}
	lines = append(lines, p.input.View())
	switch {
	case p.err != "":
		lines = append(lines, c.st.statusErr.Render(p.err))
	case p.input.Value() != "":
		if t, err := snooze.Parse(p.input.Value(), c.now()); err == nil {
			lines = append(lines, c.st.dim.Render("until "+t.Format("Mon Jan 2 2006 15:04 MST")))
		} else {
			lines = append(lines, c.st.dim.Render("…"))
		}
	default:
		lines = append(lines, c.st.dim.Render("↑/↓ pick · enter snooze · esc cancel · times are "+zoneName(c.now())))
	}
	return lines
}

func zoneName(t time.Time) string {
	name, _ := t.Zone()
	return name
}
