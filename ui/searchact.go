package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/store"
)

// The search screen's result list: with the keys there (tab from the
// query), j/k move, enter opens, and the inbox actions act on the
// highlighted result or on the selection, through the same actions value
// and the same one confirmation as the inbox.

// handleListKey applies a key while the result list has the keys.
func (s *searchModel) handleListKey(msg tea.KeyMsg) tea.Cmd {
	k := &s.c.keys
	half := max(1, s.rows()/2)
	switch {
	case key.Matches(msg, k.Back):
		if s.sel.count() > 0 {
			s.sel.clear()
			s.c.note = "selection cleared"
			return nil
		}
		s.close()
		return nil
	case key.Matches(msg, k.Search, k.NextSection):
		return s.open()
	case key.Matches(msg, k.Open):
		if h, ok := s.current(); ok {
			s.input.Blur()
			s.c.open(h.ThreadID)
		}
		return nil
	case key.Matches(msg, k.Down):
		s.move(1)
	case key.Matches(msg, k.Up):
		s.move(-1)
	case key.Matches(msg, k.HalfDown):
		s.move(half)
	case key.Matches(msg, k.HalfUp):
		s.move(-half)
	case key.Matches(msg, k.Top):
		s.move(-len(s.hits))
	case key.Matches(msg, k.Bottom):
		s.move(len(s.hits))
	default:
		if s.selectKey(msg) {
			return nil
		}
		if s.sel.count() > 0 {
			return s.acts.bulkKey(msg, s.sel.list(), s.anyUnreadSelected())
		}
		h, ok := s.current()
		if !ok {
			if key.Matches(msg, k.UndoAction) {
				return s.acts.threadKey(msg, 0, false)
			}
			return nil
		}
		return s.acts.threadKey(msg, h.ThreadID, h.Unread)
	}
	return nil
}

// current returns the highlighted result.
func (s *searchModel) current() (hit store.SearchHit, ok bool) {
	if s.cursor < 0 || s.cursor >= len(s.hits) {
		return hit, false
	}
	return s.hits[s.cursor], true
}

// selectKey handles the selection keys of the result list: x/space
// toggles the highlighted result's thread (and moves down), X selects
// from the last x to the cursor, * every result (again: none).
func (s *searchModel) selectKey(msg tea.KeyMsg) bool {
	k := &s.c.keys
	switch {
	case key.Matches(msg, k.Select):
		h, ok := s.current()
		if !ok {
			return true
		}
		s.sel.set([]int64{h.ThreadID}, !s.sel.ids[h.ThreadID])
		s.sel.anchor.idx, s.sel.hasAnc = s.cursor, true
		s.move(1)
	case key.Matches(msg, k.SelectRange):
		if !s.sel.hasAnc {
			s.c.note = "x marks where a range starts; then move and press X"
			return true
		}
		lo, hi := min(s.sel.anchor.idx, s.cursor), max(s.sel.anchor.idx, s.cursor)
		for i := lo; i <= hi && i < len(s.hits); i++ {
			s.sel.set([]int64{s.hits[i].ThreadID}, true)
		}
	case key.Matches(msg, k.SelectAll):
		all := s.sel.count() > 0
		for _, h := range s.hits {
			all = all && s.sel.ids[h.ThreadID]
		}
		for _, h := range s.hits {
			s.sel.set([]int64{h.ThreadID}, !all)
		}
	default:
		return false
	}
	s.c.note = threadCount(s.sel.count()) + " selected"
	return true
}

// anyUnreadSelected reports whether a selected result is unread (m then
// marks the selection read, else unread).
func (s *searchModel) anyUnreadSelected() bool {
	for _, h := range s.hits {
		if s.sel.ids[h.ThreadID] && h.Unread {
			return true
		}
	}
	return false
}

// hide takes threads out of the list at once (an action from here moved
// them out of the inbox; the store write follows).
func (s *searchModel) hide(ids []int64) {
	if len(ids) == 0 {
		return
	}
	if s.gone == nil {
		s.gone = map[int64]bool{}
	}
	for _, id := range ids {
		s.gone[id] = true
		delete(s.sel.ids, id)
	}
	s.filter()
}

// actionDone follows the result of an action made from here (or from a
// thread opened from here): a failed one gives its threads back, an undo
// brings back the threads of the action it reverted, any other records
// what it took out; then the query runs again, so read state and the
// rest show as the store has them.
func (s *searchModel) actionDone(msg actionDoneMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		for _, id := range msg.ids {
			delete(s.gone, id)
		}
		s.filter()
	case msg.undo:
		if n := len(s.undoGroups); n > 0 {
			for _, id := range s.undoGroups[n-1] {
				delete(s.gone, id)
			}
			s.undoGroups = s.undoGroups[:n-1]
			s.filter()
		}
	default:
		var took []int64
		if msg.leave {
			took = msg.ids
			s.hide(took)
		}
		s.undoGroups = append(s.undoGroups, took)
		s.sel.set(msg.ids, false)
	}
	return s.refresh()
}

// otherAction says an action was made (or undone) elsewhere: the undo
// stack no longer matches the actions made from here, so undo from here
// brings nothing back (the gone threads stay out until the query changes).
func (s *searchModel) otherAction() { s.undoGroups = nil }
