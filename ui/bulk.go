package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/store"
)

// overlay is a small modal screen drawn over the bottom of the current
// one (a confirmation, the snooze picker, the folder picker). It gets
// every key while open; update returns nil once it is done.
type overlay interface {
	update(msg tea.Msg) (overlay, tea.Cmd)
	view(c *common, width int) []string
}

// drawOverlay puts an overlay's lines over the last lines of body.
func drawOverlay(c *common, o overlay, body string, width int) string {
	lines := strings.Split(body, "\n")
	box := append([]string{c.st.dim.Render(strings.Repeat("─", max(1, width)))}, o.view(c, width)...)
	if len(box) > len(lines) {
		box = box[len(box)-len(lines):]
	}
	copy(lines[len(lines)-len(box):], box)
	return strings.Join(lines, "\n")
}

// confirmOverlay asks one yes/no question; y runs the action, any other
// key cancels it.
type confirmOverlay struct {
	question string
	run      func() tea.Cmd
}

func newConfirmOverlay(question string, run func() tea.Cmd) *confirmOverlay {
	return &confirmOverlay{question: question, run: run}
}

func (o *confirmOverlay) update(msg tea.Msg) (overlay, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return o, nil
	}
	if k.String() == "y" {
		return nil, o.run()
	}
	return nil, func() tea.Msg { return noteMsg("cancelled") }
}

func (o *confirmOverlay) view(c *common, width int) []string {
	return []string{c.st.header.Render(o.question) + "  " + c.st.dim.Render("y: yes · any other key: no")}
}

// selection is the inbox's multi-selection: thread IDs, and where the
// last toggle was (the start of a range).
type selection struct {
	ids    map[int64]bool
	anchor struct{ sec, idx int }
	hasAnc bool
}

func (s *selection) count() int { return len(s.ids) }

func (s *selection) list() []int64 {
	out := make([]int64, 0, len(s.ids))
	for id := range s.ids {
		out = append(out, id)
	}
	return out
}

func (s *selection) clear() {
	s.ids = nil
	s.hasAnc = false
}

func (s *selection) set(ids []int64, on bool) {
	if s.ids == nil {
		s.ids = map[int64]bool{}
	}
	for _, id := range ids {
		if on {
			s.ids[id] = true
		} else {
			delete(s.ids, id)
		}
	}
}

// selectedMsg adds (or, with off, removes) threads to the selection.
type selectedMsg struct {
	ids []int64
	off bool
	err error
}

// handleSelectKey handles the selection keys of the inbox; ok is false
// for any other key.
func (in *inbox) handleSelectKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := &in.c.keys
	switch {
	case key.Matches(msg, k.Select):
		ts, ok := in.current()
		if !ok {
			return nil, true
		}
		in.sel.set([]int64{ts.ID}, !in.sel.ids[ts.ID])
		in.sel.anchor.sec, in.sel.anchor.idx, in.sel.hasAnc = in.cursorSec, in.cursorIdx, true
		in.move(1)
		return in.loadMissing(), true
	case key.Matches(msg, k.SelectRange):
		if !in.sel.hasAnc {
			in.c.note = "x marks where a range starts; then move and press X"
			return nil, true
		}
		return in.rangeCmd(), true
	case key.Matches(msg, k.SelectAll):
		if in.acts.svc == nil {
			return nil, true
		}
		sec := allSections[in.cursorSec]
		svc, ctx := in.acts.svc, in.c.ctx
		all := in.sel.count() > 0 && in.sectionSelected()
		return func() tea.Msg {
			ids, err := svc.SectionThreads(ctx, sec)
			return selectedMsg{ids: ids, off: all, err: err}
		}, true
	case key.Matches(msg, k.ArchiveOlder):
		if in.acts.svc == nil {
			return nil, true
		}
		o := newArchiveOlder(in.acts, allSections[in.cursorSec], sectionTitle(allSections[in.cursorSec]))
		in.c.overlay = o
		return o.count(), true
	case msg.String() == "esc" && in.sel.count() > 0:
		in.sel.clear()
		in.c.note = "selection cleared"
		return nil, true
	}
	return nil, false
}

// sectionSelected reports whether every loaded row of the cursor's
// section is selected (then * deselects the section).
func (in *inbox) sectionSelected() bool {
	n := in.counts[in.cursorSec]
	for i := 0; i < n; i++ {
		ts, ok := in.summaryAt(in.cursorSec, i)
		if !ok {
			return false
		}
		if !in.sel.ids[ts.ID] {
			return false
		}
	}
	return n > 0
}

// rangeCmd selects every thread from the anchor to the cursor (in
// display order, across sections).
func (in *inbox) rangeCmd() tea.Cmd {
	a, b := in.sel.anchor, struct{ sec, idx int }{in.cursorSec, in.cursorIdx}
	if a.sec > b.sec || (a.sec == b.sec && a.idx > b.idx) {
		a, b = b, a
	}
	counts := append([]int(nil), in.counts...)
	bk, ctx := in.b, in.c.ctx
	return func() tea.Msg {
		var ids []int64
		for sec := a.sec; sec <= b.sec; sec++ {
			lo, hi := 0, counts[sec]-1
			if sec == a.sec {
				lo = a.idx
			}
			if sec == b.sec {
				hi = b.idx
			}
			if hi < lo {
				continue
			}
			rows, err := bk.ListThreads(ctx, allSections[sec], lo, hi-lo+1)
			if err != nil {
				return selectedMsg{err: fmt.Errorf("select range: %w", err)}
			}
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
		}
		return selectedMsg{ids: ids}
	}
}

// hide drops threads from the loaded rows and the counts at once, so an
// action's result shows in the frame after the key; the reload that
// follows the store write brings the exact state.
func (in *inbox) hide(ids []int64) {
	if len(ids) == 0 || !in.loaded {
		return
	}
	gone := make(map[int64]bool, len(ids))
	for _, id := range ids {
		gone[id] = true
		delete(in.sel.ids, id)
	}
	for sec := range in.counts {
		var rows []store.ThreadSummary
		contiguous := true
		pages := (in.counts[sec] + pageSize - 1) / pageSize
		for p := 0; p < pages; p++ {
			pg, ok := in.cache[pageKey{sec, p}]
			if !ok {
				contiguous = false
				break
			}
			rows = append(rows, pg...)
		}
		removed := 0
		kept := rows[:0]
		for _, r := range rows {
			if gone[r.ID] {
				removed++
				continue
			}
			kept = append(kept, r)
		}
		if removed == 0 {
			continue
		}
		for p := 0; p < pages; p++ {
			delete(in.cache, pageKey{sec, p})
		}
		in.counts[sec] -= removed
		if !contiguous {
			continue // the reload fills the pages in
		}
		for p := 0; p*pageSize < len(kept); p++ {
			end := min(len(kept), (p+1)*pageSize)
			in.cache[pageKey{sec, p}] = append([]store.ThreadSummary(nil), kept[p*pageSize:end]...)
		}
	}
	in.navSeq++ // a reload started before this must not move the cursor back
	in.hideSeq++
	in.gen++ // pages requested before this hold the hidden rows
	in.loading = map[pageKey]bool{}
	sec, idx := in.cursorSec, in.cursorIdx
	if in.counts[sec] == 0 {
		if s := nextNonEmpty(in.counts, sec); s >= 0 {
			sec, idx = s, 0
		} else if s := prevNonEmpty(in.counts, sec); s >= 0 {
			sec, idx = s, in.counts[s]-1
		}
	}
	if in.counts[sec] > 0 {
		in.setCursor(sec, min(idx, in.counts[sec]-1))
	}
}

// archiveOlder is "archive everything in this section older than N
// days": E shows the count, y archives them (two keys); typing digits
// changes N.
type archiveOlder struct {
	acts  actions
	sec   store.Section
	title string
	days  int
	typed string
	ids   []int64
	ready bool
	err   error
	gen   int
}

// defaultOlderDays is N until the user types another.
const defaultOlderDays = 7

func newArchiveOlder(acts actions, sec store.Section, title string) *archiveOlder {
	return &archiveOlder{acts: acts, sec: sec, title: title, days: defaultOlderDays}
}

// olderCountedMsg carries the threads older than the overlay's days.
type olderCountedMsg struct {
	gen int
	ids []int64
	err error
}

func (o *archiveOlder) count() tea.Cmd {
	o.gen++
	o.ready = false
	gen, svc, ctx, sec := o.gen, o.acts.svc, o.acts.c.ctx, o.sec
	before := o.acts.c.now().Add(-time.Duration(o.days) * 24 * time.Hour)
	return func() tea.Msg {
		ids, err := svc.OlderThreads(ctx, sec, before)
		return olderCountedMsg{gen: gen, ids: ids, err: err}
	}
}

func (o *archiveOlder) update(msg tea.Msg) (overlay, tea.Cmd) {
	switch msg := msg.(type) {
	case olderCountedMsg:
		if msg.gen == o.gen {
			o.ids, o.err, o.ready = msg.ids, msg.err, true
		}
		return o, nil
	case tea.KeyMsg:
		s := msg.String()
		switch {
		case len(s) == 1 && s[0] >= '0' && s[0] <= '9':
			if len(o.typed) < 4 {
				o.typed += s
			}
			if n, err := strconv.Atoi(o.typed); err == nil {
				o.days = n
			}
			return o, o.count()
		case s == "backspace":
			if o.typed != "" {
				o.typed = o.typed[:len(o.typed)-1]
			}
			o.days = defaultOlderDays
			if n, err := strconv.Atoi(o.typed); err == nil {
				o.days = n
			}
			return o, o.count()
		case s == "y" && o.ready && len(o.ids) > 0:
			ids, svc := o.ids, o.acts.svc
			return nil, o.acts.runAction(ids, true, true, "archive", func(ctx context.Context) (string, error) {
				return svc.Archive(ctx, ids)
			})
		}
		return nil, func() tea.Msg { return noteMsg("cancelled") }
	}
	return o, nil
}

func (o *archiveOlder) view(c *common, width int) []string {
	q := fmt.Sprintf("Archive everything in %s older than %d days", o.title, o.days)
	switch {
	case o.err != nil:
		q += ": " + o.err.Error()
	case !o.ready:
		q += ": counting…"
	case len(o.ids) == 0:
		q += ": none."
	default:
		q += fmt.Sprintf(": %s?", threadCount(len(o.ids)))
	}
	return []string{c.st.header.Render(q), c.st.dim.Render("y: archive · 0-9: days · any other key: cancel")}
}

// anyUnreadSelected reports whether a loaded selected row is unread (m
// then marks the selection read, else unread).
func (in *inbox) anyUnreadSelected() bool {
	for _, p := range in.cache {
		for _, ts := range p {
			if in.sel.ids[ts.ID] && ts.Unread > 0 {
				return true
			}
		}
	}
	return false
}
