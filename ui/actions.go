package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/model/contract"
	"mailsift/store"
)

// Actioner is the inbox actions service behind e # ! s v b u and the
// selection: every method changes the store at once and queues the change
// for the server; each returns the note the status line shows.
// *app.Actions satisfies it.
type Actioner interface {
	Archive(ctx context.Context, ids []int64) (string, error)
	Delete(ctx context.Context, ids []int64) (string, error)
	DeleteForever(ctx context.Context, ids []int64) (string, error)
	InTrash(ctx context.Context, ids []int64) (bool, error)
	ToggleSpam(ctx context.Context, ids []int64) (string, error)
	ToggleStar(ctx context.Context, ids []int64) (string, error)
	SetRead(ctx context.Context, ids []int64, read bool) (string, error)
	MoveTo(ctx context.Context, ids []int64, folder string) (string, error)
	Folders(ctx context.Context) ([]string, error)
	Snooze(ctx context.Context, ids []int64, until time.Time) (string, error)
	Undo(ctx context.Context) (string, error)
	OlderThreads(ctx context.Context, sec store.Section, before time.Time) ([]int64, error)
	SectionThreads(ctx context.Context, sec store.Section) ([]int64, error)
	ReturnedThreads(ctx context.Context) (map[int64]bool, error)
	SeenReturned(ctx context.Context, id int64) error
	// Queued counts the changes made here that the server has not
	// applied yet (offline, or on their way).
	Queued(ctx context.Context) (int, error)
}

// actions are the keys that act on threads, shared by the inbox and the
// thread view: read state, bucket overrides, re-triage, reply, and the
// inbox actions (archive, delete, spam, star, move, snooze, undo).
type actions struct {
	c        *common
	b        Backend
	svc      Actioner                                        // nil: inbox actions are not available
	retriage func(ctx context.Context, threadID int64) error // nil: not available
	canReply bool
}

// actionDoneMsg is the result of an inbox action on threads ids. leave
// asks the thread view to go back when it shows one of them (the thread
// left the inbox, or was snoozed).
type actionDoneMsg struct {
	ids   []int64
	note  string
	err   error
	leave bool
	acted bool // counted in common.acting
	undo  bool // the result of u: the newest action was reverted
}

// runAction runs one inbox action in a command. hide removes the threads
// from the inbox rows at once (the result shows in this frame; the store
// write and the reload follow).
func (a actions) runAction(ids []int64, hide, leave bool, name string, f func(ctx context.Context) (string, error)) tea.Cmd {
	if hide {
		a.c.hidden = append(a.c.hidden, ids...)
	}
	a.c.acting++
	ctx := a.c.ctx
	return func() tea.Msg {
		note, err := f(ctx)
		if err != nil {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return actionDoneMsg{ids: ids, note: note, err: err, leave: leave && err == nil, acted: true}
	}
}

// undoCmd reverts the newest action (u), in a command.
func (a actions) undoCmd() tea.Cmd {
	run := a.runAction(nil, false, false, "undo", a.svc.Undo)
	return func() tea.Msg {
		msg := run().(actionDoneMsg)
		msg.undo = true
		return msg
	}
}

// actionKey runs the inbox action msg asks for on ids (the selection, or
// one thread). bulk says ids is a selection: it is confirmed first, with
// its size. It reports whether msg was an action key.
func (a actions) actionKey(msg tea.KeyMsg, ids []int64, bulk bool) (tea.Cmd, bool) {
	k := &a.c.keys
	if !key.Matches(msg, k.Archive, k.Delete, k.Spam, k.Star, k.Move, k.Snooze, k.UndoAction) {
		return nil, false
	}
	if a.svc == nil {
		a.c.note = "inbox actions are not available here"
		return nil, true
	}
	svc := a.svc
	if key.Matches(msg, k.UndoAction) {
		return a.undoCmd(), true
	}
	if len(ids) == 0 {
		return nil, true
	}
	n := len(ids)
	confirm := func(verb string, cmd func() tea.Cmd) (tea.Cmd, bool) {
		if !bulk {
			return cmd(), true
		}
		a.c.overlay = newConfirmOverlay(fmt.Sprintf("%s %s?", verb, threadCount(n)), cmd)
		return nil, true
	}
	switch {
	case key.Matches(msg, k.Archive):
		return confirm("Archive", func() tea.Cmd {
			return a.runAction(ids, true, true, "archive", func(ctx context.Context) (string, error) { return svc.Archive(ctx, ids) })
		})
	case key.Matches(msg, k.Delete):
		return confirm("Move to Trash", func() tea.Cmd { return a.deleteCmd(ids) })
	case key.Matches(msg, k.Spam):
		return confirm("Mark as spam (or not spam, from Junk)", func() tea.Cmd {
			return a.runAction(ids, true, true, "spam", func(ctx context.Context) (string, error) { return svc.ToggleSpam(ctx, ids) })
		})
	case key.Matches(msg, k.Star):
		return confirm("Star or unstar", func() tea.Cmd {
			return a.runAction(ids, false, false, "star", func(ctx context.Context) (string, error) { return svc.ToggleStar(ctx, ids) })
		})
	case key.Matches(msg, k.Move):
		a.c.overlay = newFolderPicker(a, ids)
		return a.c.overlay.(*folderPicker).load(), true
	case key.Matches(msg, k.Snooze):
		a.c.overlay = newSnoozePicker(a, ids)
		return nil, true
	}
	return nil, false
}

// deleteCmd moves threads to Trash, or, when they are all in Trash
// already, asks whether to delete them for good.
func (a actions) deleteCmd(ids []int64) tea.Cmd {
	svc, ctx := a.svc, a.c.ctx
	return func() tea.Msg {
		in, err := svc.InTrash(ctx, ids)
		if err != nil {
			return actionDoneMsg{err: fmt.Errorf("delete: %w", err)}
		}
		if in {
			return askForeverMsg{ids: ids}
		}
		note, err := svc.Delete(ctx, ids)
		if err != nil {
			err = fmt.Errorf("delete: %w", err)
		}
		return actionDoneMsg{ids: ids, note: note, err: err, leave: err == nil}
	}
}

// askForeverMsg asks the root to confirm deleting threads for good.
type askForeverMsg struct{ ids []int64 }

// forever is the confirmation of a permanent delete.
func (a actions) forever(ids []int64) overlay {
	svc := a.svc
	return newConfirmOverlay(fmt.Sprintf("Delete %s in Trash for good? This cannot be undone.", threadCount(len(ids))), func() tea.Cmd {
		return a.runAction(ids, true, true, "delete for good", func(ctx context.Context) (string, error) { return svc.DeleteForever(ctx, ids) })
	})
}

func threadCount(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

// threadKey runs the action msg asks for on thread id (unread: m marks
// it read). Reply asks the root for the draft review.
func (a actions) threadKey(msg tea.KeyMsg, id int64, unread bool) tea.Cmd {
	k := &a.c.keys
	b, ctx := a.b, a.c.ctx
	if cmd, ok := a.actionKey(msg, []int64{id}, false); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.ToggleRead):
		if a.svc != nil {
			svc := a.svc
			return a.runAction([]int64{id}, false, false, "read state", func(ctx context.Context) (string, error) {
				return svc.SetRead(ctx, []int64{id}, unread)
			})
		}
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
			return storeChangedMsg{threadID: id, note: "moved to " + cat + " (kept over re-triage; u undoes)", err: err}
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

// bulkKey runs the action msg asks for on the selection ids (read state
// and the inbox actions; each confirmed with the selection's size).
func (a actions) bulkKey(msg tea.KeyMsg, ids []int64, anyUnread bool) tea.Cmd {
	if cmd, ok := a.actionKey(msg, ids, true); ok {
		return cmd
	}
	if key.Matches(msg, a.c.keys.ToggleRead) && a.svc != nil {
		svc := a.svc
		verb := "Mark read"
		if !anyUnread {
			verb = "Mark unread"
		}
		a.c.overlay = newConfirmOverlay(fmt.Sprintf("%s %s?", verb, threadCount(len(ids))), func() tea.Cmd {
			return a.runAction(ids, false, false, "read state", func(ctx context.Context) (string, error) {
				return svc.SetRead(ctx, ids, anyUnread)
			})
		})
		return nil
	}
	a.c.note = "that key acts on one thread; esc clears the selection"
	return nil
}

// keyNames maps the [keys] config names (config.KeyActions) to bindings.
func (k *KeyMap) keyNames() map[string]*key.Binding {
	return map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "top": &k.Top, "bottom": &k.Bottom, "half_down": &k.HalfDown,
		"half_up": &k.HalfUp, "next_section": &k.NextSection, "prev_section": &k.PrevSection,
		"open": &k.Open, "back": &k.Back, "read": &k.ToggleRead, "urgent": &k.Urgent,
		"actionable": &k.Actionable, "informational": &k.Informational, "low_priority": &k.LowPriority,
		"retriage": &k.Retriage, "reply": &k.Reply, "reply_all": &k.ReplyAll, "fold": &k.Fold,
		"save": &k.Save, "search": &k.Search, "command": &k.Command, "help": &k.Help, "quit": &k.Quit,
		"archive": &k.Archive, "delete": &k.Delete, "spam": &k.Spam, "star": &k.Star, "move": &k.Move,
		"snooze": &k.Snooze, "undo": &k.UndoAction, "select": &k.Select, "select_range": &k.SelectRange,
		"select_section": &k.SelectAll, "archive_older": &k.ArchiveOlder,
	}
}

// KeyActionNames lists the action names Rebind knows, sorted.
func KeyActionNames() []string {
	var k KeyMap
	var out []string
	for n := range k.keyNames() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Rebind gives the named actions new keys (the [keys] config table). An
// unknown name is an error naming the known ones.
func (k *KeyMap) Rebind(keys map[string][]string) error {
	names := k.keyNames()
	for name, ks := range keys {
		b, ok := names[name]
		if !ok {
			return fmt.Errorf("keys.%s: unknown action; known actions: %s", name, strings.Join(KeyActionNames(), ", "))
		}
		if len(ks) == 0 {
			continue
		}
		b.SetKeys(ks...)
		b.SetHelp(strings.Join(ks, "/"), b.Help().Desc)
		switch name {
		case "up":
			k.up = ks
		case "down":
			k.down = ks
		}
	}
	return nil
}

// handleOverlay hands a message to the open overlay.
func (m *Model) handleOverlay(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.c.overlay, cmd = m.c.overlay.update(msg)
	return cmd
}

// returnedMsg carries the threads back from a snooze and the number of
// changes still queued for the server.
type returnedMsg struct {
	ids    map[int64]bool
	queued int
}

// loadReturned reads which threads are back from a snooze (the inbox
// marks them).
func (m *Model) loadReturned() tea.Cmd {
	svc, ctx := m.opts.Actions, m.ctx()
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		ids, err := svc.ReturnedThreads(ctx)
		if err != nil {
			return errMsg{err}
		}
		n, err := svc.Queued(ctx)
		if err != nil {
			return errMsg{err}
		}
		return returnedMsg{ids: ids, queued: n}
	}
}

// seenReturned clears the "back from snooze" mark of an opened thread.
func (m *Model) seenReturned(id int64) tea.Cmd {
	svc, ctx := m.opts.Actions, m.ctx()
	if svc == nil || !m.inbox.returned[id] {
		return nil
	}
	delete(m.inbox.returned, id)
	return func() tea.Msg {
		if err := svc.SeenReturned(ctx, id); err != nil {
			return errMsg{err}
		}
		return nil
	}
}

// handleActionResult applies the result of an inbox action, a selection
// command or the snooze marks.
func (m *Model) handleActionResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case actionDoneMsg:
		if msg.acted {
			m.c.acting--
		}
		fromSearch := m.fromSearch()
		if err := quiet(msg.err); err != nil {
			m.c.setError(err)
		} else if msg.note != "" {
			m.c.note = msg.note
		}
		if msg.leave && m.screen == stateThread {
			for _, id := range msg.ids {
				if id == m.thread.id {
					m.screen = m.thread.returnTo
					break
				}
			}
		}
		if msg.err == nil {
			m.inbox.sel.set(msg.ids, false)
		}
		cmds := []tea.Cmd{m.startReload()}
		if m.screen == stateThread && m.thread.id != 0 {
			cmds = append(cmds, m.thread.reload())
		}
		if fromSearch {
			cmds = append(cmds, m.search.actionDone(msg))
			if m.screen == stateSearch {
				cmds = append(cmds, m.search.refocus()) // back from the thread
			}
		} else {
			m.search.otherAction()
		}
		return tea.Batch(cmds...)
	case askForeverMsg:
		m.c.overlay = m.inbox.acts.forever(msg.ids)
	case selectedMsg:
		if msg.err != nil {
			m.c.setError(msg.err)
			return nil
		}
		m.inbox.sel.set(msg.ids, !msg.off)
		m.c.note = fmt.Sprintf("%d selected", m.inbox.sel.count())
	case returnedMsg:
		m.inbox.returned = msg.ids
		m.queued = msg.queued
	}
	return nil
}

// applyHidden drops the threads an action just took out from the inbox
// rows (before the next key: "eee" archives three threads, not one
// three times).
func (m *Model) applyHidden() tea.Cmd {
	if len(m.c.hidden) == 0 {
		return nil
	}
	m.inbox.hide(m.c.hidden)
	if m.fromSearch() {
		m.search.hide(m.c.hidden)
	}
	m.c.hidden = nil
	return m.inbox.loadMissing()
}

// fromSearch reports whether an action now comes from the search
// screen's results: on that screen, or in a thread opened from it.
func (m *Model) fromSearch() bool {
	return m.screen == stateSearch || (m.screen == stateThread && m.thread.returnTo == stateSearch)
}
