package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/drafts"
	"mailsift/internal/app/event"
)

// An idle TUI does no work until a key, an event or a timer the user can
// see. idleRun delivers every message a command produces back to the
// model, like the program does (cursor blinks included), and fails when
// the model does not come to rest: a message type that keeps recurring is
// a periodic timer, and a command still pending after idleTimeout is a
// slow one (a clock or an age refresh).
type idleRun struct {
	t    *testing.T
	m    Model
	seen map[string]int
}

const (
	idleTimeout = 10 * time.Second
	// idleRepeats bounds how often one message type may recur while the
	// model settles after one input (reloads and page loads come a few
	// times; a spinner or a clock would come forever).
	idleRepeats = 20
)

// input delivers one message (a key, an event) and waits until the model
// is at rest again.
func (r *idleRun) input(msg tea.Msg) {
	r.t.Helper()
	r.seen = map[string]int{}
	r.deliver(msg)
}

func (r *idleRun) deliver(msg tea.Msg) {
	r.t.Helper()
	name := reflect.TypeOf(msg).String()
	if r.seen[name]++; r.seen[name] > idleRepeats {
		r.t.Fatalf("the model keeps scheduling %s: it is not idle (screen:\n%s)", name, r.m.View())
	}
	nm, cmd := r.m.Update(msg)
	r.m = nm.(Model)
	r.run(cmd)
}

func (r *idleRun) run(cmd tea.Cmd) {
	r.t.Helper()
	if cmd == nil {
		return
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(idleTimeout):
		r.t.Fatalf("a command is still pending after %v: the idle model keeps a timer (screen:\n%s)", idleTimeout, r.m.View())
	}
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			r.run(c)
		}
	default:
		r.deliver(msg)
	}
}

func (r *idleRun) keys(ks ...string) {
	r.t.Helper()
	for _, k := range ks {
		r.input(keyMsg(k))
	}
}

// TestIdleSchedulesNothing walks through every screen with a timer (the
// search debounce, the draft and confirm spinners, the autosave) and
// after each step requires the model to come to rest: no timer keeps
// running once nothing visible needs it.
func TestIdleSchedulesNothing(t *testing.T) {
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	events := make(chan event.Event, 8)
	for _, ev := range []event.Event{
		event.SyncProgress{Account: "test", Mailbox: "INBOX", Phase: "messages", Done: 1, Total: 2},
		event.SyncProgress{Account: "test", Phase: "done"},
		event.Conn{Account: "test", State: event.ConnLocal},
		event.TriageProgress{Done: 1, Total: 2, Model: "m"},
		event.TriageProgress{Done: 2, Total: 2, Model: "m"},
		event.ThreadsChanged{},
	} {
		events <- ev
	}
	close(events) // the last wait ends instead of blocking: the model must rest after it
	r := &idleRun{t: t, m: New(Options{Store: st, Drafts: eng, Principal: me, Account: "test", Now: clock, Events: events})}
	r.seen = map[string]int{}
	r.run(r.m.Init())
	r.input(tea.WindowSizeMsg{Width: 100, Height: 30})
	if v := r.m.View(); !strings.Contains(v, "local") || !strings.Contains(v, "triaged · m") {
		t.Fatalf("events not applied:\n%s", v)
	}

	r.keys("/", "l", "u", "n", "c", "h") // each key arms the debounce once
	if !strings.Contains(r.m.View(), "results for lunch") {
		t.Fatalf("search did not run:\n%s", r.m.View())
	}
	r.keys("enter") // the thread view
	if !strings.Contains(r.m.View(), "Lunch tomorrow?") {
		t.Fatalf("thread not open:\n%s", r.m.View())
	}
	r.keys("r") // the draft spinner stops once the draft is there
	if !strings.Contains(r.m.View(), "Draft reply") {
		t.Fatalf("draft review not shown:\n%s", r.m.View())
	}
	r.keys("e", "o", "k", "esc") // typing arms the autosave once
	r.keys("s")                  // the confirm spinner stops once the approval is there
	if !strings.Contains(r.m.View(), "send this message") {
		t.Fatalf("confirm screen not shown:\n%s", r.m.View())
	}
	r.keys("n", "esc", "esc", "esc") // back to the draft, the thread, the search, the inbox
	if !strings.Contains(r.m.View(), "Urgent (") {
		t.Fatalf("not back on the inbox:\n%s", r.m.View())
	}
}
