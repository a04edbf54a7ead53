package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/termsafe"
	"mailsift/store"
)

// confirmView is the confirm screen: the exact message of one pending
// approval. y sends it; any other key goes back and denies the approval.
type confirmView struct {
	seq     int // bumped whenever the screen is left: late approvals are denied
	loading bool
	a       *store.Approval
	err     error
	bcc     []string
	via     string
	sends   bool   // the transport delivers
	reason  string // why it does not
	undo    time.Duration
}

type (
	approvalMsg struct {
		seq int
		a   *store.Approval
		err error
	}
	confirmedMsg struct {
		item   *store.OutboxItem
		undo   time.Duration
		sends  bool
		reason string
		err    error
	}
	undoneMsg struct {
		id  int64
		err error
	}
	undoTickMsg struct{ id int64 }
)

func (approvalMsg) isDraftMsg()  {}
func (confirmedMsg) isDraftMsg() {}
func (undoneMsg) isDraftMsg()    {}
func (undoTickMsg) isDraftMsg()  {}

// sendable reports whether y may send: a pending approval is on screen,
// whole.
func (cv *confirmView) sendable(m *Model) bool {
	if cv.loading || cv.err != nil || cv.a == nil || cv.a.Status != store.ApprovalPending {
		return false
	}
	_, _, fits := m.confirmLines()
	return fits
}

// openConfirm saves pending edits and asks the engine for the approval of
// the exact message, in a command.
func (m *Model) openConfirm() tea.Cmd {
	f := &m.drafts
	dr := m.opts.Drafts
	via, sends, reason := dr.Delivery(f.d.Account)
	var bcc []string
	for _, a := range f.d.Bcc {
		bcc = append(bcc, a.Email)
	}
	f.confirm = confirmView{seq: f.confirm.seq + 1, loading: true, via: via, sends: sends, reason: reason,
		undo: dr.UndoWindow(), bcc: bcc}
	m.screen = stateConfirm
	save := f.dirty || f.saving
	f.dirty = false
	cp, ctx, seq := *f.d, m.ctx(), f.confirm.seq
	approve := func() tea.Msg {
		if save {
			if err := dr.SaveDraft(ctx, &cp); err != nil {
				return approvalMsg{seq: seq, err: fmt.Errorf("save before confirming: %w", err)}
			}
		}
		a, err := dr.Approve(ctx, cp.ID, 0)
		return approvalMsg{seq: seq, a: a, err: err}
	}
	return tea.Batch(approve, f.spinTick())
}

// denyCmd records that the user went back without sending.
func denyCmd(ctx context.Context, dr Drafter, id, reason string) tea.Cmd {
	return func() tea.Msg {
		if err := dr.Deny(ctx, id, reason); err != nil && !errors.Is(err, store.ErrApprovalNotApproved) {
			return errMsg{fmt.Errorf("record the refusal: %w", err)}
		}
		return nil
	}
}

func (m *Model) handleConfirmKey(msg tea.KeyMsg) tea.Cmd {
	f := &m.drafts
	cv := &f.confirm
	if key.Matches(msg, m.c.keys.Send) && cv.sendable(m) {
		a := cv.a
		cv.a, cv.seq = nil, cv.seq+1 // one y, one confirmation
		m.screen = f.returnTo
		m.note = "queuing…"
		f.d = nil
		dr, ctx := m.opts.Drafts, m.ctx()
		undo, sends, reason := cv.undo, cv.sends, cv.reason
		return func() tea.Msg {
			item, err := dr.Confirm(ctx, a.ID)
			return confirmedMsg{item: item, undo: undo, sends: sends, reason: reason, err: err}
		}
	}
	// Any other key: back to the review, nothing sent.
	a := cv.a
	cv.a, cv.loading, cv.seq = nil, false, cv.seq+1
	m.screen = stateDraft
	m.note = "not sent: back to the draft"
	if a != nil && a.Status == store.ApprovalPending {
		return denyCmd(m.ctx(), m.opts.Drafts, a.ID, "went back with "+termsafe.SanitizeLine(msg.String()))
	}
	return nil
}

func (m *Model) handleConfirmMsg(msg draftMsg) tea.Cmd {
	f := &m.drafts
	cv := &f.confirm
	switch msg := msg.(type) {
	case approvalMsg:
		if msg.seq != cv.seq || m.screen != stateConfirm {
			if msg.a != nil { // the user left before it arrived
				return denyCmd(m.ctx(), m.opts.Drafts, msg.a.ID, "left the confirm screen before it was shown")
			}
			return nil
		}
		cv.loading, cv.a, cv.err = false, msg.a, msg.err
		return nil
	case confirmedMsg:
		if msg.err != nil {
			m.note = ""
			m.setError(fmt.Errorf("not sent: %w", msg.err))
			return nil
		}
		f.undoID, f.undoUntil = msg.item.ID, m.c.now().Add(msg.undo)
		if msg.undo <= 0 {
			f.undoID = 0
		}
		switch {
		case !msg.sends:
			m.note = termsafe.SanitizeLine(msg.reason) + "; the message stays in the outbox"
			if f.undoID != 0 {
				m.note += " (u to undo)"
			}
			f.undoNote = m.note
		case f.undoID == 0:
			m.note = "queued: sending now"
		default:
			m.note = m.undoText()
			f.undoNote = m.note
		}
		if f.undoID == 0 {
			return nil
		}
		return f.undoTick(f.undoID)
	case undoTickMsg:
		if msg.id != f.undoID {
			return nil
		}
		ours := m.note == f.undoNote
		if !m.c.now().Before(f.undoUntil) {
			f.undoID = 0
			if ours && strings.HasPrefix(m.note, "queued: sending in") {
				m.note = "queued: sending…"
			}
			return nil
		}
		if ours && strings.HasPrefix(m.note, "queued: sending in") {
			m.note = m.undoText()
			f.undoNote = m.note
		}
		return f.undoTick(msg.id)
	case undoneMsg:
		if msg.err != nil {
			m.setError(fmt.Errorf("undo: %w (it may have left already: see mailsift outbox)", msg.err))
			return nil
		}
		m.note = "send cancelled; the draft is open again (r to edit)"
		return storeChangedCmd()
	}
	return nil
}

// undoText is the status note during the undo window.
func (m *Model) undoText() string {
	left := m.drafts.undoUntil.Sub(m.c.now())
	secs := int((left + time.Second - 1) / time.Second)
	return fmt.Sprintf("queued: sending in %d s — u to undo", secs)
}

func (f *draftFlow) undoTick(id int64) tea.Cmd {
	if f.manualTicks {
		return nil
	}
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return undoTickMsg{id: id} })
}

// undoSend cancels the last confirmed send within its undo window.
func (m *Model) undoSend() tea.Cmd {
	f := &m.drafts
	if f.undoID == 0 || !m.c.now().Before(f.undoUntil) {
		return nil
	}
	id, dr, ctx := f.undoID, m.opts.Drafts, m.ctx()
	f.undoID = 0
	m.note = "cancelling…"
	return func() tea.Msg { return undoneMsg{id: id, err: dr.Cancel(ctx, id)} }
}

// confirmLines renders the confirm screen: the fixed lines, the message
// lines, and whether everything fits on the screen.
func (m *Model) confirmLines() (head, msgLines []string, fits bool) {
	c := &m.c
	cv := &m.drafts.confirm
	a := cv.a
	label := func(s string) string { return c.st.label.Render(fmt.Sprintf("%-9s ", s)) }
	head = append(head, c.st.header.Render("Confirm send")+c.st.dim.Render(" · exactly the message below leaves, to the envelope recipients"))
	head = append(head, label("Envelope:")+"MAIL FROM "+termsafe.SanitizeLine(a.What.EnvelopeFrom)+" · RCPT TO "+termsafe.SanitizeLine(strings.Join(a.What.Recipients, ", ")))
	if len(cv.bcc) > 0 {
		head = append(head, label("Bcc:")+termsafe.SanitizeLine(strings.Join(cv.bcc, ", "))+c.st.dim.Render(" (envelope only, not in the headers)"))
	}
	if cv.sends {
		head = append(head, label("Via:")+termsafe.SanitizeLine(cv.via))
	} else {
		head = append(head, label("Via:")+c.st.danger.Render(termsafe.SanitizeLine(cv.reason)+"; the message stays in the outbox"))
	}
	undo := "none: it leaves at once"
	if cv.undo > 0 {
		undo = cv.undo.String() + " after y (u to undo)"
	}
	head = append(head, label("Approval:")+fmt.Sprintf("expires %s UTC (valid %s) · undo window %s",
		a.ExpiresAt.UTC().Format("15:04:05"), a.ExpiresAt.Sub(a.CreatedAt).Round(time.Second), undo))
	raw := strings.TrimSuffix(strings.ReplaceAll(a.What.Message, "\r\n", "\n"), "\n")
	raw = strings.ReplaceAll(termsafe.Sanitize(raw), "\t", "    ")
	w := max(10, m.width-2)
	for _, l := range strings.Split(raw, "\n") {
		for i, part := range strings.Split(ansi.Hardwrap(l, w, true), "\n") {
			gutter := "│ "
			if i > 0 {
				gutter = "┆ "
			}
			msgLines = append(msgLines, c.st.dim.Render(gutter)+part)
		}
	}
	// head + 2 rules + message + hint line
	fits = len(head)+2+len(msgLines)+1 <= m.bodyHeight()
	return head, msgLines, fits
}

// confirmView draws the confirm screen.
func (m *Model) confirmView() string {
	c := &m.c
	cv := &m.drafts.confirm
	h := m.bodyHeight()
	back := c.st.dim.Render("any key: back to the draft")
	switch {
	case cv.loading:
		return padLines(m.drafts.spin.View()+" preparing the exact message…\n\n"+back, h)
	case cv.err != nil:
		return padLines(c.st.danger.Render("cannot send: "+termsafe.SanitizeLine(cv.err.Error()))+"\n\n"+back, h)
	case cv.a == nil:
		return padLines(back, h)
	}
	head, msgLines, fits := m.confirmLines()
	rule := func(s string) string {
		return c.st.dim.Render(s + strings.Repeat("─", max(0, m.width-ansi.StringWidth(s))))
	}
	hint := m.help.ShortHelpView([]key.Binding{c.keys.Send}) + c.st.dim.Render(" · any other key: back to the draft (nothing is sent)")
	if !fits {
		room := max(0, h-len(head)-2-2)
		hidden := len(msgLines) - room
		msgLines = append(msgLines[:room:room], c.st.danger.Render(fmt.Sprintf("▼ %d more line%s not shown: make the terminal taller to send (y is off until the whole message is on screen)", hidden, plural(hidden))))
		hint = back
	}
	out := strings.Join(head, "\n") + "\n" + rule(fmt.Sprintf("── message, exact bytes (%d lines) ", len(strings.Split(strings.TrimSuffix(cv.a.What.Message, "\r\n"), "\r\n")))) + "\n" +
		strings.Join(msgLines, "\n") + "\n" + rule("") + "\n" + hint
	return padLines(out, h)
}
