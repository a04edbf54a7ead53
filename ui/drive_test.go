package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"
)

// driver runs a Model synchronously: each Update's commands are executed
// and their messages fed back until nothing is left, so tests see the
// state after all IO settled. Commands that take longer than cmdTimeout
// (cursor blinks) are dropped.
type driver struct {
	t testing.TB
	m Model
}

const cmdTimeout = 3 * time.Second

func newDriver(t testing.TB, opts Options, w, h int) *driver {
	t.Helper()
	if opts.Now == nil {
		opts.Now = clock
	}
	if opts.Account == "" {
		opts.Account = "test"
	}
	d := &driver{t: t, m: New(opts)}
	// Blinking cursors would make every keystroke wait for cmdTimeout.
	d.m.prompt.Cursor.SetMode(cursor.CursorStatic)
	d.m.search.input.Cursor.SetMode(cursor.CursorStatic)
	d.run(d.m.Init())
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	return d
}

// send delivers one message and settles.
func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	nm, cmd := d.m.Update(msg)
	d.m = nm.(Model)
	d.run(cmd)
}

// keys sends key presses: single characters, or names like "enter", "esc",
// "tab", "shift+tab", "ctrl+d", "up", "down".
func (d *driver) keys(ks ...string) {
	d.t.Helper()
	for _, k := range ks {
		d.send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "ctrl+d":
		return tea.KeyMsg{Type: tea.KeyCtrlD}
	case "ctrl+u":
		return tea.KeyMsg{Type: tea.KeyCtrlU}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// typeText sends each rune of s as a key.
func (d *driver) typeText(s string) {
	d.t.Helper()
	for _, r := range s {
		d.send(keyMsg(string(r)))
	}
}

func (d *driver) run(cmd tea.Cmd) {
	d.t.Helper()
	if cmd == nil {
		return
	}
	msg, ok := runCmd(cmd)
	if !ok || msg == nil {
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	case tea.QuitMsg:
		// the driver does not stop; tests check for quitting with isQuit
	default:
		if !ownMsg(msg) {
			return
		}
		d.send(msg)
	}
}

// ownMsg reports whether msg is one of this package's messages (others,
// like cursor blinks, are dropped).
func ownMsg(msg tea.Msg) bool {
	return strings.HasPrefix(reflect.TypeOf(msg).PkgPath(), "mailsift/")
}

func runCmd(cmd tea.Cmd) (tea.Msg, bool) { return runCmdFor(cmd, cmdTimeout) }

// runCmdFor runs cmd and returns its message, or false when it takes
// longer than d.
func runCmdFor(cmd tea.Cmd, d time.Duration) (tea.Msg, bool) {
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case msg := <-ch:
		return msg, true
	case <-t.C:
		return nil, false
	}
}

// isQuit reports whether cmd (or a batch it returns) quits.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	msg, ok := runCmd(cmd)
	if !ok {
		return false
	}
	switch msg := msg.(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if isQuit(c) {
				return true
			}
		}
	}
	return false
}

func (d *driver) view() string { return d.m.View() }

// current returns the subject under the inbox cursor.
func (d *driver) current() string {
	ts, ok := d.m.inbox.current()
	if !ok {
		return ""
	}
	return ts.Subject
}

// currentSection returns the section title under the inbox cursor.
func (d *driver) currentSection() string {
	return sectionTitle(allSections[d.m.inbox.cursorSec])
}
