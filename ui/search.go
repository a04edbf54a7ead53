package ui

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/app"
	"mailsift/internal/termsafe"
	"mailsift/store"
)

// Searcher answers `/`: by meaning and words when it can, by words
// otherwise, saying which. *app.App satisfies it.
type Searcher interface {
	Search(ctx context.Context, q app.SearchQuery) (app.SearchResults, error)
}

// searchDebounce is how long typing must pause before a search runs.
const searchDebounce = 150 * time.Millisecond

// searchLimit bounds the hits shown.
const searchLimit = 200

// searchModel is search as you type: each keystroke bumps a sequence
// number and schedules a tick; only the tick of the latest keystroke runs
// a search, and a newer search cancels the one still running.
//
// The screen has two parts: the query, which takes every typed letter,
// and the result list (tab from the query), where the inbox's keys act
// on the highlighted result or the selection (ui/actions.go). A result an
// action takes out of the inbox (archive, delete, spam, move, snooze)
// leaves the list at once; undo from here brings it back.
type searchModel struct {
	c      *common
	b      Backend
	sr     Searcher // nil: the store's lexical search, newest first
	acts   actions  // the inbox actions, shared with the inbox and the thread view
	input  textinput.Model
	seq    int
	cancel context.CancelFunc
	all    []store.SearchHit // the hits of the search, gone ones included
	hits   []store.SearchHit // the hits shown: all but the gone threads
	query  string            // query the hits are for
	// onList is true while the result list has the keys (else the query).
	onList bool
	sel    selection
	// gone are the threads actions from here took out of the list;
	// undoGroups holds, per action made from here (newest last), the
	// threads it took out (nil for one that took none), so that undo
	// brings back the ones of the action it reverts. Both are kept
	// while the query stays the same.
	gone       map[int64]bool
	undoGroups [][]int64
	mode       string // how the hits were found: "hybrid", "lexical: why"; "" for the store's search
	err        string
	cursor     int
	top        int
	height     int
	width      int
}

func newSearchModel(c *common, b Backend, sr Searcher, acts actions) searchModel {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "words, \"a phrase\", from:alice subject:invoice is:unread"
	ti.CharLimit = 256
	return searchModel{c: c, b: b, sr: sr, acts: acts, input: ti}
}

// searchTickMsg fires searchDebounce after a keystroke.
type searchTickMsg struct{ seq int }

// searchResultsMsg carries the hits of the search for seq. refresh says
// it re-ran the shown query after a change (an action, back from a
// thread): the cursor, the selection and the gone threads stay.
type searchResultsMsg struct {
	seq     int
	query   string
	hits    []store.SearchHit
	mode    string
	err     error
	refresh bool
}

func (s *searchModel) setSize(w, h int) {
	s.width, s.height = w, h
	s.input.Width = max(10, w-3)
}

// open focuses the query, keeping the last query and hits.
func (s *searchModel) open() tea.Cmd {
	s.onList = false
	s.input.CursorEnd()
	return s.input.Focus()
}

// resume shows the screen again as it was left (back from a thread):
// the focused part keeps the keys, and the query runs again so the list
// shows what changed meanwhile.
func (s *searchModel) resume() tea.Cmd {
	return tea.Batch(s.refocus(), s.refresh())
}

// refocus gives the query its cursor back when it has the keys.
func (s *searchModel) refocus() tea.Cmd {
	if s.onList {
		return nil
	}
	s.input.CursorEnd()
	return s.input.Focus()
}

// focusList gives the keys to the result list.
func (s *searchModel) focusList() {
	if len(s.hits) == 0 {
		s.c.note = "no results to act on"
		return
	}
	s.onList = true
	s.input.Blur()
}

// listFocused reports whether the result list has the keys.
func (s *searchModel) listFocused() bool { return s.onList }

// update applies a message of the search screen (a key while it shows).
func (s searchModel) update(msg tea.Msg) (searchModel, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd = s.handleKey(msg)
	case searchTickMsg:
		cmd = s.tick(msg)
	case searchResultsMsg:
		s.results(msg)
	}
	return s, cmd
}

func (s *searchModel) close() {
	s.input.Blur()
	s.onList = false
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.c.show(stateInbox)
}

func (s *searchModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	if s.onList {
		return s.handleListKey(msg)
	}
	k := &s.c.keys
	switch {
	case key.Matches(msg, k.NextSection):
		s.focusList()
		return nil
	case key.Matches(msg, k.Back):
		s.close()
		return nil
	case key.Matches(msg, k.Open):
		if s.cursor < len(s.hits) {
			id := s.hits[s.cursor].ThreadID
			s.input.Blur()
			s.c.open(id)
		}
		return nil
	case key.Matches(msg, k.Down):
		s.move(1)
		return nil
	case key.Matches(msg, k.Up):
		s.move(-1)
		return nil
	}
	before := s.input.Value()
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	if s.input.Value() == before {
		return cmd
	}
	s.seq++
	seq := s.seq
	return tea.Batch(cmd, tea.Tick(searchDebounce, func(time.Time) tea.Msg { return searchTickMsg{seq: seq} }))
}

// tick runs the search if no keystroke came after the one that scheduled it.
func (s *searchModel) tick(msg searchTickMsg) tea.Cmd {
	if msg.seq != s.seq {
		return nil
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	q := strings.TrimSpace(s.input.Value())
	if q == "" {
		s.all, s.hits, s.query, s.err, s.cursor, s.top = nil, nil, "", "", 0, 0
		s.forget()
		return nil
	}
	return s.run(q, msg.seq, false)
}

// refresh runs the shown query again at once (after an action, or back
// from a thread), keeping the cursor where it is.
func (s *searchModel) refresh() tea.Cmd {
	if s.query == "" || strings.TrimSpace(s.input.Value()) != s.query {
		return nil
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.seq++
	return s.run(s.query, s.seq, true)
}

// run searches for q in a command, under its own context (a newer search
// cancels it).
func (s *searchModel) run(q string, seq int, refresh bool) tea.Cmd {
	ctx, cancel := context.WithCancel(s.c.ctx)
	s.cancel = cancel
	b, sr := s.b, s.sr
	if sr != nil {
		return func() tea.Msg {
			res, err := sr.Search(ctx, app.SearchQuery{Text: q, Limit: searchLimit})
			hits := make([]store.SearchHit, len(res.Hits))
			for i, h := range res.Hits {
				hits[i] = h.SearchHit
			}
			mode := string(res.Mode)
			if res.Reason != "" {
				mode += ": " + res.Reason
			}
			return searchResultsMsg{seq: seq, query: q, hits: hits, mode: mode, err: err, refresh: refresh}
		}
	}
	return func() tea.Msg {
		hits, err := b.Search(ctx, q, searchLimit)
		return searchResultsMsg{seq: seq, query: q, hits: hits, err: err, refresh: refresh}
	}
}

// results installs the hits of the latest search; stale ones are dropped.
func (s *searchModel) results(msg searchResultsMsg) {
	if msg.seq != s.seq {
		return
	}
	s.cancel = nil
	if err := quiet(msg.err); err != nil {
		s.err = termsafe.SanitizeLine(err.Error())
		return
	}
	if msg.err != nil {
		return
	}
	if !msg.refresh || msg.query != s.query {
		s.cursor, s.top = 0, 0
		s.forget()
	}
	s.all, s.query, s.mode, s.err = msg.hits, msg.query, msg.mode, ""
	s.filter()
}

// forget drops the selection and the gone threads: they belong to the
// results of one query.
func (s *searchModel) forget() {
	s.sel.clear()
	s.gone, s.undoGroups = nil, nil
}

// filter shows every hit but those of gone threads, keeping the cursor
// on the same row number (the next result takes the place of one that
// left, as in the inbox). The focus stays: with no hit left, u still
// undoes and / or tab goes back to the query.
func (s *searchModel) filter() {
	s.hits = s.hits[:0:0]
	for _, h := range s.all {
		if !s.gone[h.ThreadID] {
			s.hits = append(s.hits, h)
		}
	}
	s.move(0)
}

func (s *searchModel) move(d int) {
	s.cursor = max(0, min(s.cursor+d, len(s.hits)-1))
	rows := s.rows()
	if s.cursor < s.top {
		s.top = s.cursor
	}
	if s.cursor >= s.top+rows {
		s.top = s.cursor - rows + 1
	}
}

// rows is the number of hit rows between the input and summary lines
// and the key hints (each hit takes two lines: row and snippet).
func (s *searchModel) rows() int { return max(1, (s.height-2-len(s.hints()))/2) }

// hints are the key hint lines of the focused part, from the key map (so
// rebound keys show as bound, and disabled ones not at all).
func (s searchModel) hints() []string {
	k := s.c.keys
	short := func(b key.Binding, desc string) key.Binding {
		b.SetHelp(b.Help().Key, desc) // a copy: the help screen keeps the long words
		return b
	}
	if !s.onList {
		// Letters are typed text here: only arrows move.
		move := key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "move"))
		return []string{s.c.help.ShortHelpView([]key.Binding{k.NextSection, move, k.Open, k.Back})}
	}
	acts := s.c.help.ShortHelpView([]key.Binding{short(k.Archive, "archive"), short(k.Delete, "delete"),
		short(k.Spam, "spam"), short(k.Star, "star"), short(k.Move, "move"), short(k.Snooze, "snooze"),
		short(k.ToggleRead, "read"), short(k.UndoAction, "undo")})
	nav := s.c.help.ShortHelpView([]key.Binding{short(k.Down, "down"), k.Open, short(k.Select, "select"),
		short(k.SelectRange, "range"), short(k.SelectAll, "all"), short(k.Search, "query"), k.Back, k.Help})
	if acts == "" {
		return []string{nav}
	}
	return []string{acts, nav}
}

// View draws the search input and the hits.
func (s searchModel) View() string {
	c, width := s.c, s.width
	lines := []string{s.input.View()}
	switch {
	case s.err != "":
		lines = append(lines, c.st.danger.Render(s.err))
	case s.query == "":
		lines = append(lines, c.st.dim.Render("type to search · ↑/↓ move · enter open · esc back"))
	default:
		line := fmt.Sprintf("%d results for %s", len(s.hits), termsafe.SanitizeLine(s.query))
		if s.mode != "" {
			line += " · " + termsafe.SanitizeLine(s.mode)
		}
		if n := s.sel.count(); n > 0 {
			line = fmt.Sprintf("[%d selected · esc clears] ", n) + line
		}
		if utf8.RuneCountInString(line) > width {
			line = fit(line, max(1, width))
		}
		lines = append(lines, c.st.dim.Render(line))
	}
	for i := s.top; i < len(s.hits) && i < s.top+s.rows(); i++ {
		h := s.hits[i]
		mark, unread := rowMarks(i == s.cursor, h.Unread)
		if s.sel.ids[h.ThreadID] {
			mark = mark[:1] + "+"
		}
		from := senderLabel(h.From)
		age := fmt.Sprintf("%*s", ageWidth, relAge(c.now(), h.Date))
		subj := fit(termsafe.SanitizeLine(h.Subject), max(1, width-len(mark)-len(unread)-senderWidth-2-ageWidth))
		row := mark + unread + fit(from, senderWidth) + " " + subj + " " + c.st.dim.Render(age)
		if i == s.cursor && s.onList {
			row = c.st.cursor.Render(row)
		}
		lines = append(lines, row, "      "+c.st.dim.Render(fit(termsafe.SanitizeLine(h.Snippet), max(1, width-6))))
	}
	hints := s.hints()
	body := padLines(strings.Join(lines, "\n"), max(1, s.height-len(hints)))
	for _, h := range hints {
		body += "\n" + fit(h, max(1, width))
	}
	return padLines(body, s.height)
}
