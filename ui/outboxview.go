package ui

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/app/event"
	"mailsift/internal/termsafe"
	"mailsift/store"
)

// handleOutboxEvent shows an outbox change in the status bar (and
// refreshes the outbox screen when it is open).
func (m *Model) handleOutboxEvent(ev event.Outbox) tea.Cmd {
	if ev.ID == m.undo.id && ev.State != store.OutboxQueued {
		m.undo.id = 0
	}
	switch ev.State {
	case store.OutboxSent:
		m.c.note = termsafe.SanitizeLine("sent <" + ev.MessageID + ">")
	case store.OutboxFailed:
		if !ev.NextAttempt.IsZero() {
			m.c.setError(fmt.Errorf("send failed, retrying at %s: %s", ev.NextAttempt.Local().Format("15:04:05"), ev.Err))
		} else {
			m.c.setError(fmt.Errorf("send failed: %s (the draft is open again; see mailsift outbox)", ev.Err))
		}
	case store.OutboxUnknown:
		m.c.setError(errors.New("send outcome unknown: " + ev.Err + " (see mailsift outbox)"))
	}
	if m.screen == stateOutbox {
		return m.outbox.load()
	}
	return nil
}

// auditReader is implemented by a Backend that keeps the audit log
// (*store.Store); the outbox screen then shows each item's trail.
type auditReader interface {
	AuditEvents(ctx context.Context, traceID string, limit int) ([]store.AuditEvent, error)
}

// outboxModel is the outbox screen: the outbox, newest first, with the
// audit trail of the item under the cursor.
type outboxModel struct {
	c        *common
	dr       Drafter
	b        Backend
	returnTo state
	items    []store.OutboxItem
	cursor   int
	loaded   bool
	err      error
	trace    string
	events   []store.AuditEvent
}

type (
	outboxLoadedMsg struct {
		items []store.OutboxItem
		err   error
	}
	auditLoadedMsg struct {
		trace  string
		events []store.AuditEvent
		err    error
	}
	outboxCancelledMsg struct{ err error }
)

func (outboxLoadedMsg) isDraftMsg()    {}
func (auditLoadedMsg) isDraftMsg()     {}
func (outboxCancelledMsg) isDraftMsg() {}

func newOutboxModel(c *common, dr Drafter, b Backend) outboxModel {
	return outboxModel{c: c, dr: dr, b: b}
}

func (o *outboxModel) current() (store.OutboxItem, bool) {
	if o.cursor < 0 || o.cursor >= len(o.items) {
		return store.OutboxItem{}, false
	}
	return o.items[o.cursor], true
}

// cancellable reports whether the item under the cursor can be cancelled.
func (o *outboxModel) cancellable() bool {
	it, ok := o.current()
	return ok && (it.State == store.OutboxQueued || it.State == store.OutboxFailed || it.State == store.OutboxUnknown)
}

// setKeys enables the outbox bindings; it runs after KeyMap.setState.
// undo says whether a send can still be undone.
func (o *outboxModel) setKeys(undo bool) {
	k := &o.c.keys
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Back, &k.Outbox} {
		b.SetEnabled(true)
	}
	k.CancelSend.SetEnabled(o.cancellable())
	k.Undo.SetEnabled(undo)
}

// open shows the outbox (from returnTo) and loads it.
func (o outboxModel) open(returnTo state) (outboxModel, tea.Cmd) {
	o.returnTo = returnTo
	return o, o.load()
}

func (o *outboxModel) load() tea.Cmd {
	dr, ctx := o.dr, o.c.ctx
	return func() tea.Msg {
		items, err := dr.Outbox(ctx)
		if err != nil {
			return outboxLoadedMsg{err: fmt.Errorf("outbox: %w", err)}
		}
		// newest first
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
		return outboxLoadedMsg{items: items}
	}
}

// loadAudit reads the trail of the item under the cursor.
func (o *outboxModel) loadAudit() tea.Cmd {
	it, ok := o.current()
	ar, has := o.b.(auditReader)
	if !ok || !has || it.TraceID == o.trace {
		return nil
	}
	ctx, trace := o.c.ctx, it.TraceID
	return func() tea.Msg {
		evs, err := ar.AuditEvents(ctx, trace, 50)
		return auditLoadedMsg{trace: trace, events: evs, err: err}
	}
}

// update applies a message of the outbox screen (a key while it shows).
func (o outboxModel) update(msg tea.Msg) (outboxModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd := o.handleKey(msg)
		return o, cmd
	case outboxLoadedMsg:
		o.loaded, o.err = true, msg.err
		if msg.err == nil {
			o.items = msg.items
			o.cursor = min(max(0, o.cursor), max(0, len(o.items)-1))
			o.trace = "" // reload the trail too
		}
		return o, o.loadAudit()
	case auditLoadedMsg:
		if it, ok := o.current(); ok && it.TraceID == msg.trace && msg.err == nil {
			o.trace, o.events = msg.trace, msg.events
		}
	case outboxCancelledMsg:
		if msg.err != nil {
			o.c.setError(fmt.Errorf("cancel: %w", msg.err))
		} else {
			o.c.note = "send cancelled; the draft is open again"
		}
		return o, o.load()
	}
	return o, nil
}

func (o *outboxModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &o.c.keys
	switch {
	case key.Matches(msg, k.Back):
		o.c.show(o.returnTo)
		return nil
	case key.Matches(msg, k.Outbox):
		return o.load()
	case key.Matches(msg, k.Down):
		if o.cursor < len(o.items)-1 {
			o.cursor++
		}
		return o.loadAudit()
	case key.Matches(msg, k.Up):
		if o.cursor > 0 {
			o.cursor--
		}
		return o.loadAudit()
	case key.Matches(msg, k.CancelSend):
		it, ok := o.current()
		if !ok || !o.cancellable() {
			return nil
		}
		dr, ctx, id := o.dr, o.c.ctx, it.ID
		return func() tea.Msg { return outboxCancelledMsg{err: dr.Cancel(ctx, id)} }
	}
	return nil
}

// headerOf returns one header of a raw message ("" when absent or broken).
func headerOf(raw []byte, name string) string {
	msg, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		return ""
	}
	v := msg.Header.Get(name)
	if dec, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
		v = dec
	}
	return v
}

// View draws the outbox list and the trail of the selected item.
func (o outboxModel) View() string {
	c := o.c
	h := c.height
	switch {
	case o.err != nil:
		return padLines(c.st.danger.Render(termsafe.SanitizeLine(o.err.Error())), h)
	case !o.loaded:
		return padLines("loading the outbox…", h)
	case len(o.items) == 0:
		return padLines(c.st.dim.Render("The outbox is empty: nothing was confirmed yet.")+"\n\n"+
			c.help.ShortHelpView([]key.Binding{c.keys.Back}), h)
	}
	var lines []string
	lines = append(lines, c.st.header.Render(fmt.Sprintf("Outbox (%d)", len(o.items))))
	listRows := min(len(o.items), max(3, h/2-2))
	top := 0
	if o.cursor >= listRows {
		top = o.cursor - listRows + 1
	}
	for i := top; i < min(len(o.items), top+listRows); i++ {
		it := o.items[i]
		mark := "  "
		if i == o.cursor {
			mark = "> "
		}
		state := fmt.Sprintf("%-9s", it.State)
		switch it.State {
		case store.OutboxFailed, store.OutboxUnknown:
			state = c.st.danger.Render(state)
		case store.OutboxQueued, store.OutboxSending:
			state = c.st.warn.Render(state)
		}
		row := mark + state + " " + it.CreatedAt.Local().Format("Jan 02 15:04") + "  " +
			termsafe.SanitizeLine(strings.Join(it.Recipients, ", ")) + " · " + termsafe.SanitizeLine(headerOf(it.Raw, "Subject"))
		if it.Attempts > 0 {
			row += c.st.dim.Render(fmt.Sprintf(" · %d attempt%s", it.Attempts, plural(it.Attempts)))
		}
		if i == o.cursor {
			row = c.st.cursor.Render(row)
		}
		lines = append(lines, row)
	}
	if it, ok := o.current(); ok {
		lines = append(lines, c.st.dim.Render(strings.Repeat("─", max(1, c.width))))
		lines = append(lines, c.st.label.Render("Message-ID: ")+termsafe.SanitizeLine("<"+it.MessageID+">")+c.st.label.Render("  key: ")+termsafe.SanitizeLine(it.IdempotencyKey))
		if it.LastError != "" {
			lines = append(lines, c.st.danger.Render("last error: "+termsafe.SanitizeLine(it.LastError)))
		}
		lines = append(lines, c.st.header.Render("Audit trail"))
		for _, e := range o.events {
			lines = append(lines, fmt.Sprintf("%s  %-9s %-22s %-10s %s", e.Timestamp.Local().Format("15:04:05"),
				termsafe.SanitizeLine(e.Stage), termsafe.SanitizeLine(e.Type), termsafe.SanitizeLine(e.Outcome), termsafe.SanitizeLine(e.Summary)))
		}
	}
	k := c.keys
	hints := c.help.ShortHelpView([]key.Binding{k.Up, k.Down, k.CancelSend, k.Undo, k.Outbox, k.Back})
	body := padLines(strings.Join(lines, "\n"), h-1)
	return body + "\n" + hints
}
