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
type searchModel struct {
	c      *common
	b      Backend
	sr     Searcher // nil: the store's lexical search, newest first
	input  textinput.Model
	seq    int
	cancel context.CancelFunc
	hits   []store.SearchHit
	query  string // query the hits are for
	mode   string // how the hits were found: "hybrid", "lexical: why"; "" for the store's search
	err    string
	cursor int
	top    int
	height int
	width  int
}

func newSearchModel(c *common, b Backend, sr Searcher) searchModel {
	ti := textinput.New()
	ti.Prompt = "/"
	ti.Placeholder = "words, \"a phrase\", from:alice subject:invoice is:unread"
	ti.CharLimit = 256
	return searchModel{c: c, b: b, sr: sr, input: ti}
}

// searchTickMsg fires searchDebounce after a keystroke.
type searchTickMsg struct{ seq int }

// searchResultsMsg carries the hits of the search for seq.
type searchResultsMsg struct {
	seq   int
	query string
	hits  []store.SearchHit
	mode  string
	err   error
}

func (s *searchModel) setSize(w, h int) {
	s.width, s.height = w, h
	s.input.Width = max(10, w-3)
}

// open focuses the input, keeping the last query and hits.
func (s *searchModel) open() tea.Cmd {
	s.input.CursorEnd()
	return s.input.Focus()
}

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
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.c.show(stateInbox)
}

func (s *searchModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &s.c.keys
	switch {
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
		s.hits, s.query, s.err, s.cursor, s.top = nil, "", "", 0, 0
		return nil
	}
	ctx, cancel := context.WithCancel(s.c.ctx)
	s.cancel = cancel
	b, sr, seq := s.b, s.sr, msg.seq
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
			return searchResultsMsg{seq: seq, query: q, hits: hits, mode: mode, err: err}
		}
	}
	return func() tea.Msg {
		hits, err := b.Search(ctx, q, searchLimit)
		return searchResultsMsg{seq: seq, query: q, hits: hits, err: err}
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
	s.hits, s.query, s.mode, s.err, s.cursor, s.top = msg.hits, msg.query, msg.mode, "", 0, 0
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

// rows is the number of hit rows below the input and the summary line
// (each hit takes two lines: row and snippet).
func (s *searchModel) rows() int { return max(1, (s.height-2)/2) }

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
		if utf8.RuneCountInString(line) > width {
			line = fit(line, max(1, width))
		}
		lines = append(lines, c.st.dim.Render(line))
	}
	for i := s.top; i < len(s.hits) && i < s.top+s.rows(); i++ {
		h := s.hits[i]
		mark, unread := rowMarks(i == s.cursor, h.Unread)
		from := senderLabel(h.From)
		age := fmt.Sprintf("%*s", ageWidth, relAge(c.now(), h.Date))
		subj := fit(termsafe.SanitizeLine(h.Subject), max(1, width-len(mark)-len(unread)-senderWidth-2-ageWidth))
		row := mark + unread + fit(from, senderWidth) + " " + subj + " " + c.st.dim.Render(age)
		if i == s.cursor {
			row = c.st.cursor.Render(row)
		}
		lines = append(lines, row, "      "+c.st.dim.Render(fit(termsafe.SanitizeLine(h.Snippet), max(1, width-6))))
	}
	return padLines(strings.Join(lines, "\n"), s.height)
}
