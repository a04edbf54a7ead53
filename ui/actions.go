package ui

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/model/contract"
)

// actions are the keys that act on one thread, shared by the inbox and
// the thread view: read state, bucket overrides, re-triage, reply.
type actions struct {
	c        *common
	b        Backend
	retriage func(ctx context.Context, threadID int64) error // nil: not available
	canReply bool
}

// threadKey runs the action msg asks for on thread id (unread: m marks
// it read). Reply asks the root for the draft review.
func (a actions) threadKey(msg tea.KeyMsg, id int64, unread bool) tea.Cmd {
	k := &a.c.keys
	b, ctx := a.b, a.c.ctx
	switch {
	case key.Matches(msg, k.ToggleRead):
		return func() tea.Msg {
			err := b.MarkThreadSeen(ctx, id, unread)
			note := "marked read"
			if !unread {
				note = "marked unread"
			}
			return storeChangedMsg{threadID: id, note: note, err: err}
		}
	case key.Matches(msg, k.Urgent, k.Actionable, k.Informational, k.LowPriority):
		cat := map[string]string{"1": contract.CategoryUrgent, "2": contract.CategoryActionable, "3": contract.CategoryInformational, "4": contract.CategoryLowPriority}[msg.String()]
		return func() tea.Msg {
			err := b.SetOverride(ctx, id, cat)
			if err != nil {
				err = fmt.Errorf("move to %s: %w", cat, err)
			}
			return storeChangedMsg{threadID: id, note: "moved to " + cat + " (kept over re-triage)", err: err}
		}
	case key.Matches(msg, k.Retriage):
		if a.retriage == nil {
			a.c.note = "re-triage is not available"
			return nil
		}
		retriage := a.retriage
		return func() tea.Msg {
			if err := retriage(ctx, id); err != nil {
				return errMsg{fmt.Errorf("re-triage: %w", err)}
			}
			return noteMsg("re-triage queued")
		}
	case key.Matches(msg, k.Reply, k.ReplyAll):
		if !a.canReply {
			a.c.note = "replies are not available yet"
			return nil
		}
		a.c.reply(id, key.Matches(msg, k.ReplyAll))
	}
	return nil
}
