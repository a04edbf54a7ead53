package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/termsafe"
	"mailsift/store"
)

// Approver lists the sends agents asked for (MCP send_reply) and records
// the person's refusal; approving goes through the confirm screen
// (Drafter.Confirm). *app.Approvals satisfies it.
type Approver interface {
	List(ctx context.Context, states ...store.ApprovalStatus) ([]store.Approval, error)
	Deny(ctx context.Context, id, reason string) error
}

// approvalsPoll is how often the badge re-counts pending approvals: an
// agent asks through `mailsift mcp`, another process, whose writes reach
// this one only through the store.
const approvalsPoll = 5 * time.Second

// approvalsModel is the approvals screen: the pending approvals agents
// asked for, newest first; enter shows one on the confirm screen (y sends
// it), d denies it.
type approvalsModel struct {
	c        *common
	ap       Approver
	returnTo state
	items    []store.Approval
	cursor   int
	loaded   bool
	err      error
	// pending is the badge count (pending, unexpired approvals).
	pending int
}

type (
	approvalsLoadedMsg struct {
		items []store.Approval
		err   error
	}
	approvalsTickMsg  struct{}
	approvalDeniedMsg struct{ err error }
	openApprovalMsg   struct{ a store.Approval }
	approvalsCountMsg struct{ n int }
)

func newApprovalsModel(c *common, ap Approver) approvalsModel {
	return approvalsModel{c: c, ap: ap}
}

// load reads the pending approvals.
func (v *approvalsModel) load() tea.Cmd {
	if v.ap == nil {
		return nil
	}
	ap, ctx := v.ap, v.c.ctx
	return func() tea.Msg {
		items, err := ap.List(ctx, store.ApprovalPending)
		return approvalsLoadedMsg{items: items, err: err}
	}
}

// count re-counts the badge and schedules the next count.
func (v *approvalsModel) count() tea.Cmd {
	if v.ap == nil {
		return nil
	}
	ap, ctx := v.ap, v.c.ctx
	return func() tea.Msg {
		items, err := ap.List(ctx, store.ApprovalPending)
		if err != nil {
			return approvalsCountMsg{n: -1}
		}
		return approvalsCountMsg{n: len(items)}
	}
}

func (v *approvalsModel) tick() tea.Cmd {
	if v.ap == nil || v.c.manualTicks {
		return nil
	}
	return tea.Tick(approvalsPoll, func(time.Time) tea.Msg { return approvalsTickMsg{} })
}

// open shows the screen (from returnTo) and loads it.
func (v approvalsModel) open(returnTo state) (approvalsModel, tea.Cmd) {
	v.returnTo = returnTo
	return v, v.load()
}

// setKeys enables the screen's bindings; it runs after KeyMap.setState.
func (v *approvalsModel) setKeys() {
	k := &v.c.keys
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.Back, &k.Approvals, &k.Quit} {
		b.SetEnabled(true)
	}
	has := v.cursor < len(v.items)
	k.Open.SetEnabled(has)
	k.DenyApproval.SetEnabled(has)
}

func (v approvalsModel) update(msg tea.Msg) (approvalsModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd := v.handleKey(msg)
		return v, cmd
	case approvalsLoadedMsg:
		v.loaded, v.err = true, msg.err
		if msg.err == nil {
			v.items = msg.items
			v.pending = len(msg.items)
			v.cursor = min(max(0, v.cursor), max(0, len(v.items)-1))
		}
	case approvalDeniedMsg:
		if msg.err != nil {
			v.c.setError(fmt.Errorf("deny: %w", msg.err))
		} else {
			v.c.note = "denied: nothing is sent"
		}
		return v, v.load()
	}
	return v, nil
}

func (v *approvalsModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &v.c.keys
	switch {
	case key.Matches(msg, k.Back):
		v.c.show(v.returnTo)
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Approvals):
		return v.load()
	case key.Matches(msg, k.Down):
		if v.cursor < len(v.items)-1 {
			v.cursor++
		}
	case key.Matches(msg, k.Up):
		if v.cursor > 0 {
			v.cursor--
		}
	case key.Matches(msg, k.Open) && v.cursor < len(v.items):
		a := v.items[v.cursor]
		return func() tea.Msg { return openApprovalMsg{a: a} }
	case key.Matches(msg, k.DenyApproval) && v.cursor < len(v.items):
		ap, ctx, id := v.ap, v.c.ctx, v.items[v.cursor].ID
		return func() tea.Msg { return approvalDeniedMsg{err: ap.Deny(ctx, id, "denied on the approvals screen")} }
	}
	return nil
}

// badge is the status bar's note of pending approvals ("" when none).
func (v *approvalsModel) badge() string {
	if v.pending <= 0 {
		return ""
	}
	return fmt.Sprintf("%d approval%s waiting (P)", v.pending, plural(v.pending))
}

// View draws the pending approvals and the why of the selected one.
func (v approvalsModel) View() string {
	c := v.c
	h := c.height
	switch {
	case v.err != nil:
		return padLines(c.st.danger.Render(termsafe.SanitizeLine(v.err.Error())), h)
	case !v.loaded:
		return padLines("loading the approvals…", h)
	case len(v.items) == 0:
		return padLines(c.st.dim.Render("No approvals waiting: nothing an agent asked to send.")+"\n\n"+
			c.help.ShortHelpView([]key.Binding{c.keys.Back}), h)
	}
	lines := []string{c.st.header.Render(fmt.Sprintf("Approvals waiting (%d) — sends agents asked for; nothing leaves until you press y on the confirm screen", len(v.items)))}
	for i, a := range v.items {
		mark := "  "
		if i == v.cursor {
			mark = "> "
		}
		left := a.ExpiresAt.Sub(c.now())
		row := mark + c.st.warn.Render(fmt.Sprintf("%-6s", a.RiskLevel)) + " " + a.CreatedAt.Local().Format("Jan 02 15:04") + "  " +
			termsafe.SanitizeLine(strings.Join(a.What.Recipients, ", ")) + " · " +
			termsafe.SanitizeLine(headerOf([]byte(a.What.Message), "Subject")) + c.st.dim.Render(" · expires in "+shortDuration(left))
		if i == v.cursor {
			row = c.st.cursor.Render(row)
		}
		lines = append(lines, row)
	}
	if v.cursor < len(v.items) {
		a := v.items[v.cursor]
		lines = append(lines, c.st.dim.Render(strings.Repeat("─", max(1, c.width))))
		lines = append(lines, c.st.label.Render("why: ")+termsafe.SanitizeLine(a.Why))
		lines = append(lines, c.st.label.Render("id:  ")+a.ID)
	}
	k := c.keys
	hints := c.help.ShortHelpView([]key.Binding{k.Up, k.Down, k.Open, k.DenyApproval, k.Approvals, k.Back})
	return padLines(strings.Join(lines, "\n"), h-1) + "\n" + hints
}

// openApproval shows an agent's approval on the confirm screen as it is:
// its bytes were fixed when the agent asked. y approves it; any other key
// goes back and leaves it pending (d on the approvals screen denies).
func (cv confirmModel) openApproval(a store.Approval, returnTo state) confirmModel {
	dr := cv.dr
	via, sends, reason := dr.Delivery(a.What.Account)
	return confirmModel{c: cv.c, dr: dr, returnTo: returnTo, seq: cv.seq + 1, a: &a, agent: true,
		via: via, sends: sends, reason: reason, undo: dr.UndoWindow(), rendered: &confirmRows{}}
}

// shortDuration renders a duration as "23h58m", "12m" or "<1m".
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
