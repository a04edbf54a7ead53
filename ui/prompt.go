package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// promptKind says what the bottom-line input is for.
type promptKind int

const (
	promptNone promptKind = iota
	promptCommand
	promptSave
)

// openPrompt shows the bottom-line input.
func (m *Model) openPrompt(kind promptKind, prompt, value string) tea.Cmd {
	m.promptKind = kind
	m.prompt.Prompt = prompt
	m.prompt.Placeholder = ""
	if kind == promptCommand {
		m.prompt.Placeholder = commandPlaceholder // nlcommand.go
	}
	m.prompt.SetValue(value)
	m.prompt.CursorEnd()
	return m.prompt.Focus()
}

func (m *Model) openSavePrompt() tea.Cmd {
	tv := &m.thread
	a := tv.attachments[tv.saveIdx]
	label := fmt.Sprintf("save %d/%d (tab: next) to: ", tv.saveIdx+1, len(tv.attachments))
	return m.openPrompt(promptSave, label, filepath.Join(m.opts.SaveDir, safeFilename(a.att.Filename)))
}

func (m *Model) closePrompt() {
	m.promptKind = promptNone
	m.prompt.Blur()
	m.prompt.SetValue("")
}

func (m *Model) handlePrompt(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEsc:
		m.closePrompt()
		return nil
	case tea.KeyTab:
		if m.promptKind == promptSave {
			m.thread.saveIdx = (m.thread.saveIdx + 1) % len(m.thread.attachments)
			return m.openSavePrompt()
		}
	case tea.KeyEnter:
		kind, value := m.promptKind, strings.TrimSpace(m.prompt.Value())
		m.closePrompt()
		switch kind {
		case promptCommand:
			return m.runCommand(value)
		case promptSave:
			if value == "" {
				return nil
			}
			ref := m.thread.attachments[m.thread.saveIdx]
			return saveAttachmentCmd(m.ctx(), m.opts.Store, ref, value)
		}
		return nil
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	return cmd
}
