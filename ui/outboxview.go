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
	f := &m.drafts
	if ev.ID == f.undoID && ev.State != store.OutboxQueued {
		f.undoID = 0
	}
	switch ev.State {
	case store.OutboxSent:
		m.note = termsafe.SanitizeLine("sent <" + ev.MessageID + ">")
	case store.OutboxFailed:
		if !ev.NextAttempt.IsZero() {
			m.setError(fmt.Errorf("send failed, retrying at %s: %s", ev.NextAttempt.Local().Format("15:04:05"), ev.Err))
		} else {
			m.setError(fmt.Errorf("send failed: %s (the draft is open again; see mailsift outbox)", ev.Err))
		}
	case store.OutboxUnknown:
		m.setError(errors.New("send outcome unknown: " + ev.Err + " (see mailsift outbox)"))
	}
	if m.screen == stateOutbox {
		return m.loadOutbox()
	}
	return nil
}

// auditReader is implemented by a Backend that keeps the audit log
// (*store.Store); the outbox screen then shows each item's trail.
type auditReader interface {
	AuditEvents(ctx context.Context, traceID string, limit int) ([]store.AuditEvent, error)
}

// outboxScreen lists the outbox, newest first, with the audit trail of
// the item under the cursor.
type outboxScreen struct {
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

func (o *outboxScreen) current() (store.OutboxItem, bool) {
	if o.cursor < 0 || o.cursor >= len(o.items) {
		return store.OutboxItem{}, false
	}
	return o.items[o.cursor], true
}

// cancellable reports whether the item under the cursor can be cancelled.
func (o *outboxScreen) cancellable() bool {
	it, ok := o.current()
	return ok && (it.State == store.OutboxQueued || it.State == store.OutboxFailed || it.State == store.OutboxUnknown)
}

func (m *Model) openOutbox() tea.Cmd {
	o := &m.drafts.outbox
	if m.screen != stateOutbox {
		o.returnTo = m.screen
	}
	m.screen = stateOutbox
	return m.loadOutbox()
}

func (m *Model) loadOutbox() tea.Cmd {
	dr, ctx := m.opts.Drafts, m.ctx()
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
func (m *Model) loadAudit() tea.Cmd {
	o := &m.drafts.outbox
	it, ok := o.current()
	ar, has := m.opts.Store.(auditReader)
	if !ok || !has || it.TraceID == o.trace {
		return nil
	}
	ctx, trace := m.ctx(), it.TraceID
	return func() tea.Msg {
		evs, err := ar.AuditEvents(ctx, trace, 50)
		return auditLoadedMsg{trace: trace, events: evs, err: err}
	}
}

func (m *Model) handleOutboxMsg(msg draftMsg) tea.Cmd {
	o := &m.drafts.outbox
	switch msg := msg.(type) {
	case outboxLoadedMsg:
		o.loaded, o.err = true, msg.err
		if msg.err == nil {
			o.items = msg.items
			o.cursor = min(max(0, o.cursor), max(0, len(o.items)-1))
			o.trace = "" // reload the trail too
		}
		return m.loadAudit()
	case auditLoadedMsg:
		if it, ok := o.current(); ok && it.TraceID == msg.trace && msg.err == nil {
			o.trace, o.events = msg.trace, msg.events
		}
		return nil
	case outboxCancelledMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("cancel: %w", msg.err))
		} else {
			m.note = "send cancelled; the draft is open again"
		}
		return m.loadOutbox()
	}
	return nil
}

func (m *Model) handleOutboxKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.c.keys
	o := &m.drafts.outbox
	switch {
	case key.Matches(msg, k.Back):
		m.screen = o.returnTo
		return nil
	case key.Matches(msg, k.Outbox):
		return m.loadOutbox()
	case key.Matches(msg, k.Undo):
		return m.undoSend()
	case key.Matches(msg, k.Down):
		if o.cursor < len(o.items)-1 {
			o.cursor++
		}
		return m.loadAudit()
	case key.Matches(msg, k.Up):
		if o.cursor > 0 {
			o.cursor--
		}
		return m.loadAudit()
	case key.Matches(msg, k.CancelSend):
		it, ok := o.current()
		if !ok || !o.cancellable() {
			return nil
		}
		dr, ctx, id := m.opts.Drafts, m.ctx(), it.ID
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

// outboxView draws the outbox list and the trail of the selected item.
func (m *Model) outboxView() string {
	c := &m.c
	o := &m.drafts.outbox
	h := m.bodyHeight()
	switch {
	case o.err != nil:
		return padLines(c.st.danger.Render(termsafe.SanitizeLine(o.err.Error())), h)
	case !o.loaded:
		return padLines("loading the outbox…", h)
	case len(o.items) == 0:
		return padLines(c.st.dim.Render("The outbox is empty: nothing was confirmed yet.")+"\n\n"+
			m.help.ShortHelpView([]key.Binding{c.keys.Back}), h)
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
		lines = append(lines, c.st.dim.Render(strings.Repeat("─", max(1, m.width))))
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
	hints := m.help.ShortHelpView([]key.Binding{k.Up, k.Down, k.CancelSend, k.Undo, k.Outbox, k.Back})
	body := padLines(strings.Join(lines, "\n"), h-1)
	return body + "\n" + hints
}
