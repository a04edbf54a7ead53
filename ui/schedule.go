package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/termsafe"
	"mailsift/schedule"
	"mailsift/store"
)

// Scheduling is the scheduling assistant the thread view's panel uses.
// *app.Scheduler satisfies it. Every call runs in a tea.Cmd.
type Scheduling interface {
	// Panel returns a thread's scheduling panel (nil: not a meeting thread).
	Panel(ctx context.Context, threadID int64) (*schedule.Panel, error)
	// AnswerInvitation drafts the answer to the thread's invitation:
	// choice is accept, tentative, decline or propose (with proposed).
	AnswerInvitation(ctx context.Context, threadID int64, choice string, proposed time.Time) (*store.Draft, error)
	// DraftNextAction drafts what an attendee's next action calls for.
	DraftNextAction(ctx context.Context, threadID int64, attendee string) (*store.Draft, error)
}

// Answer choices passed to Scheduling.AnswerInvitation.
const (
	choiceAccept    = "accept"
	choiceTentative = "tentative"
	choiceDecline   = "decline"
	choicePropose   = "propose"
)

// maxPanelAttendees bounds the attendee rows the panel draws.
const maxPanelAttendees = 12

// schedPanel is the thread view's scheduling panel: the analysis of a
// meeting thread, and a sub-mode (i) whose keys answer the invitation or
// start a draft from an attendee's next action.
type schedPanel struct {
	c  *common
	sc Scheduling

	threadID int64
	panel    *schedule.Panel
	active   bool // the panel's keys are on
	cursor   int  // the selected attendee
	// proposing: the input for a new time is open.
	proposing bool
	input     textinput.Model
	busy      bool // an answer or draft is being made
}

type (
	schedPanelMsg struct {
		threadID int64
		panel    *schedule.Panel
		err      error
	}
	// schedDraftedMsg says an answer or next-action draft was saved:
	// the draft review opens on it.
	schedDraftedMsg struct {
		threadID int64
		err      error
	}
)

func newSchedPanel(c *common, sc Scheduling) schedPanel {
	in := textinput.New()
	in.Prompt = "New time (YYYY-MM-DD HH:MM): "
	in.CharLimit = 32
	return schedPanel{c: c, sc: sc, input: in}
}

// load asks for a thread's panel.
func (p *schedPanel) load(threadID int64) tea.Cmd {
	if p.sc == nil {
		return nil
	}
	if threadID != p.threadID {
		p.panel, p.active, p.cursor, p.proposing, p.busy = nil, false, 0, false, false
	}
	p.threadID = threadID
	sc, ctx := p.sc, p.c.ctx
	return func() tea.Msg {
		pn, err := sc.Panel(ctx, threadID)
		if err != nil {
			err = fmt.Errorf("scheduling panel: %w", err)
		}
		return schedPanelMsg{threadID: threadID, panel: pn, err: err}
	}
}

// loaded installs a loaded panel; it reports whether the view changed.
func (p *schedPanel) loaded(msg schedPanelMsg) bool {
	if msg.threadID != p.threadID {
		return false
	}
	if msg.err != nil {
		p.c.setError(msg.err)
		return false
	}
	p.panel = msg.panel
	if p.panel == nil {
		p.active = false
	} else if p.cursor >= len(p.panel.Attendees) {
		p.cursor = max(0, len(p.panel.Attendees)-1)
	}
	return true
}

// typing reports whether keys go into the new-time input.
func (p *schedPanel) typing() bool { return p.proposing }

// setKeys enables the panel's bindings in the thread view.
func (p *schedPanel) setKeys(k *KeyMap) {
	has := p.panel != nil
	k.SchedPanel.SetEnabled(has && !p.proposing)
	inv := has && p.panel.Invitation != nil && p.panel.Invitation.CanAnswer
	on := p.active && !p.proposing && !p.busy
	k.SchedAccept.SetEnabled(on && inv)
	k.SchedTentative.SetEnabled(on && inv)
	k.SchedDecline.SetEnabled(on && inv)
	k.SchedPropose.SetEnabled(on && inv)
	k.SchedNext.SetEnabled(on && has && len(p.panel.Attendees) > 0)
	if p.active || p.proposing {
		// The panel's letters are its own while it has the keys.
		k.Retriage.SetEnabled(false)
		k.Save.SetEnabled(false)
	}
	if p.proposing {
		for _, b := range k.all() {
			if b != &k.ForceQuit {
				b.SetEnabled(false)
			}
		}
	}
}

// handleKey handles a key while the panel has the keys; handled false
// passes it on to the thread view.
func (p *schedPanel) handleKey(msg tea.KeyMsg) (handled bool, cmd tea.Cmd) {
	k := &p.c.keys
	if p.proposing {
		switch msg.Type {
		case tea.KeyEsc:
			p.proposing = false
			p.input.Blur()
			return true, nil
		case tea.KeyEnter:
			t, err := time.ParseInLocation("2006-01-02 15:04", strings.TrimSpace(p.input.Value()), p.c.now().Location())
			if err != nil {
				p.c.note = "new time must look like 2026-12-04 15:30"
				return true, nil
			}
			p.proposing = false
			p.input.Blur()
			return true, p.answer(choicePropose, t)
		}
		var c tea.Cmd
		p.input, c = p.input.Update(msg)
		return true, c
	}
	if key.Matches(msg, k.SchedPanel) {
		p.active = !p.active
		return true, nil
	}
	if !p.active {
		return false, nil
	}
	switch {
	case key.Matches(msg, k.Back):
		p.active = false
		return true, nil
	case key.Matches(msg, k.Down):
		if p.panel != nil && p.cursor < len(p.panel.Attendees)-1 {
			p.cursor++
		}
		return true, nil
	case key.Matches(msg, k.Up):
		if p.cursor > 0 {
			p.cursor--
		}
		return true, nil
	case key.Matches(msg, k.SchedAccept):
		return true, p.answer(choiceAccept, time.Time{})
	case key.Matches(msg, k.SchedTentative):
		return true, p.answer(choiceTentative, time.Time{})
	case key.Matches(msg, k.SchedDecline):
		return true, p.answer(choiceDecline, time.Time{})
	case key.Matches(msg, k.SchedPropose):
		p.proposing = true
		p.input.SetValue("")
		p.input.Focus()
		return true, nil
	case key.Matches(msg, k.SchedNext):
		if p.panel == nil || p.cursor >= len(p.panel.Attendees) {
			return true, nil
		}
		a := p.panel.Attendees[p.cursor]
		if !a.Draftable {
			p.c.note = "nothing to write for " + termsafe.SanitizeLine(a.NextAction)
			return true, nil
		}
		p.busy = true
		sc, ctx, id, email := p.sc, p.c.ctx, p.threadID, a.Email
		return true, func() tea.Msg {
			_, err := sc.DraftNextAction(ctx, id, email)
			return schedDraftedMsg{threadID: id, err: err}
		}
	}
	// Other keys (r, m, 1–4, q, ?) act on the thread as usual.
	return false, nil
}

// answer drafts the invitation answer in a command.
func (p *schedPanel) answer(choice string, proposed time.Time) tea.Cmd {
	p.busy = true
	sc, ctx, id := p.sc, p.c.ctx, p.threadID
	return func() tea.Msg {
		_, err := sc.AnswerInvitation(ctx, id, choice, proposed)
		return schedDraftedMsg{threadID: id, err: err}
	}
}

// drafted opens the draft review on the new draft (the thread's latest
// open draft, which the review resumes).
func (p *schedPanel) drafted(msg schedDraftedMsg) {
	p.busy = false
	if msg.err != nil {
		p.c.setError(msg.err)
		return
	}
	p.active = false
	p.c.reply(msg.threadID, false)
}

// view draws the panel for the thread's header ("" when the thread is
// not a meeting thread). Every string from mail is sanitised.
func (p *schedPanel) view(width int) string {
	pn := p.panel
	if pn == nil {
		return ""
	}
	st := p.c.st
	s := termsafe.SanitizeLine
	wrap := func(t string) string { return ansi.Wrap(t, width, " -") }
	var b strings.Builder
	line := st.label.Render("Scheduling: ") + st.section.Render(s(pn.Status))
	line += st.dim.Render(fmt.Sprintf(" · event score %d · %s", pn.Score, s(pn.Source)))
	b.WriteString(wrap(line) + "\n")
	if pn.Reason != "" {
		b.WriteString(wrap(st.dim.Render("  "+s(pn.Reason))) + "\n")
	}
	if inv := pn.Invitation; inv != nil {
		l := fmt.Sprintf("  Invitation: %s · %s · %s", s(inv.Summary), s(inv.When), strings.ToLower(s(inv.Method)))
		if inv.MyStatus != "" {
			l += " · you: " + s(inv.MyStatus)
		}
		if inv.Superseded > 0 {
			l += fmt.Sprintf(" · replaces %d older version%s", inv.Superseded, plural(inv.Superseded))
		}
		b.WriteString(wrap(l) + "\n")
		if !inv.CanAnswer && inv.Why != "" {
			b.WriteString(wrap(st.dim.Render("  Cannot answer: "+s(inv.Why))) + "\n")
		}
		for _, c := range inv.Conflicts {
			b.WriteString(wrap(st.warn.Render("  ! Conflicts with your accepted "+s(c))) + "\n")
		}
		for _, pr := range inv.Problems {
			b.WriteString(wrap(st.warn.Render("  ! "+s(pr))) + "\n")
		}
	}
	nameW := 4
	for _, a := range pn.Attendees[:min(len(pn.Attendees), maxPanelAttendees)] {
		nameW = max(nameW, ansi.StringWidth(attendeeName(a)))
	}
	nameW = min(nameW, 28)
	for i, a := range pn.Attendees[:min(len(pn.Attendees), maxPanelAttendees)] {
		mark := "  "
		if p.active && i == p.cursor {
			mark = st.section.Render("▸ ")
		}
		name := ansi.Truncate(attendeeName(a), nameW, "…")
		name += strings.Repeat(" ", max(0, nameW-ansi.StringWidth(name)))
		eng := a.Engagement
		if eng == "" {
			eng = "-"
		}
		row := fmt.Sprintf("%s%s %3d  %-6s  %s", mark, name, a.Score, s(eng), s(a.NextAction))
		if a.Failed {
			row += st.warn.Render("  [analysis failed]")
		}
		if a.Escalated {
			row += st.warn.Render("  [check]")
		}
		if len(a.Suggested) > 0 {
			row += st.dim.Render("  alt: " + s(strings.Join(a.Suggested, ", ")))
		}
		b.WriteString(wrap(" "+row) + "\n")
	}
	if more := len(pn.Attendees) - maxPanelAttendees; more > 0 {
		b.WriteString(st.dim.Render(fmt.Sprintf("   … %d more attendee%s", more, plural(more))) + "\n")
	}
	if !pn.FollowUp.IsZero() {
		b.WriteString(st.dim.Render("  Follow-up: "+pn.FollowUp.In(p.c.now().Location()).Format("Mon 2 Jan 15:04")) + "\n")
	}
	for _, n := range pn.Notes[:min(len(pn.Notes), 5)] {
		b.WriteString(wrap(st.warn.Render("  ! "+s(clip(n, maxHeaderBytes)))) + "\n")
	}
	switch {
	case p.proposing:
		b.WriteString("  " + p.input.View() + st.dim.Render("  (enter propose, esc cancel)") + "\n")
	case p.busy:
		b.WriteString(st.dim.Render("  drafting…") + "\n")
	case p.active:
		hint := "j/k attendee · n draft next action · esc leave"
		if pn.Invitation != nil && pn.Invitation.CanAnswer {
			hint = "a accept · t tentative · d decline · p propose new time · " + hint
		}
		b.WriteString(wrap(st.dim.Render("  "+hint)) + "\n")
	default:
		b.WriteString(st.dim.Render("  i: scheduling keys") + "\n")
	}
	return b.String()
}

func attendeeName(a schedule.PanelAttendee) string {
	n := termsafe.SanitizeLine(a.Name)
	if n == "" {
		n = termsafe.SanitizeLine(a.Email)
	}
	if a.Optional {
		n += " (opt)"
	}
	return n
}
