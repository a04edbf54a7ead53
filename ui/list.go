package ui

import (
	"context"
	"errors"
	"fmt"
	"mailsift/internal/termsafe"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// listView shows a numbered list: the result of `:list` (kept as "the
// last list" that `:open 3` refers to) or the candidates of an ambiguous
// target (disambiguation), in which case choosing a row runs the pending
// command on it.
type listView struct {
	title  string
	items  []ListItem
	cursor int
	top    int
	height int
	// pending is the command waiting for the user's choice; OpList when
	// this is a plain list.
	pending Command
}

func (l *listView) move(d int) {
	l.cursor = max(0, min(l.cursor+d, len(l.items)-1))
	rows := max(1, l.height-2)
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+rows {
		l.top = l.cursor - rows + 1
	}
}

func (l *listView) disambiguating() bool { return l.pending.Op != OpList }

func (l *listView) view(c *common, width int) string {
	var lines []string
	if l.disambiguating() {
		lines = append(lines, c.st.warn.Render(fmt.Sprintf("%d threads match — which one do you mean? (number or enter; esc cancels)", len(l.items))))
	} else {
		lines = append(lines, c.st.dim.Render(fmt.Sprintf("%d threads · :open N, :reply N, :read N, :unread N act on row N", len(l.items))))
	}
	lines = append(lines, "")
	numW := len(fmt.Sprint(len(l.items)))
	for i := l.top; i < len(l.items) && i < l.top+max(1, l.height-2); i++ {
		it := l.items[i]
		mark, unread := rowMarks(i == l.cursor, it.Unread)
		from := senderLabel(it.From)
		num := fmt.Sprintf("%*d. ", numW, i+1)
		age := fmt.Sprintf("%*s", ageWidth, relAge(c.now(), it.Date))
		subj := fit(termsafe.SanitizeLine(it.Subject), max(1, width-len(mark)-len(num)-len(unread)-senderWidth-2-ageWidth))
		row := mark + num + unread + fit(from, senderWidth) + " " + subj + " " + c.st.dim.Render(age)
		if i == l.cursor {
			row = c.st.cursor.Render(row)
		}
		lines = append(lines, row)
	}
	return padLines(strings.Join(lines, "\n"), l.height)
}

func (m *Model) handleListKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.c.keys
	l := &m.list
	switch {
	case key.Matches(msg, k.Back):
		m.screen = stateInbox
		l.pending = Command{Op: OpList}
		return m.loadMissing()
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Top):
		l.move(-len(l.items))
	case key.Matches(msg, k.Bottom):
		l.move(len(l.items))
	case key.Matches(msg, k.Open):
		if l.cursor < len(l.items) {
			return m.choose(l.items[l.cursor].ThreadID)
		}
	default:
		// A digit picks a row directly when disambiguating.
		if s := msg.String(); l.disambiguating() && len(s) == 1 && s[0] >= '1' && s[0] <= '9' {
			if i := int(s[0] - '1'); i < len(l.items) {
				return m.choose(l.items[i].ThreadID)
			}
		}
	}
	return nil
}

// choose runs the pending command on the chosen thread (open for a list).
func (m *Model) choose(id int64) tea.Cmd {
	c := m.list.pending
	if !m.list.disambiguating() {
		c = Command{Op: OpOpen}
	} else {
		// The disambiguation is answered; the list it showed is not "the last list".
		m.list.pending = Command{Op: OpList}
		m.screen = stateInbox
	}
	return m.apply(c, id)
}

// apply runs a resolved command on one thread.
func (m *Model) apply(c Command, id int64) tea.Cmd {
	b, ctx := m.opts.Store, m.ctx()
	switch c.Op {
	case OpOpen:
		return m.openThread(id)
	case OpReply, OpReplyAll:
		return m.replyCommand(c, id) // nlcommand.go
	case OpRead, OpUnread:
		seen := c.Op == OpRead
		return func() tea.Msg {
			err := b.MarkThreadSeen(ctx, id, seen)
			return storeChangedMsg{threadID: id, note: fmt.Sprintf("marked thread %s", map[bool]string{true: "read", false: "unread"}[seen]), err: err}
		}
	}
	return nil
}

// commandResultMsg carries the candidates a command's search found.
type commandResultMsg struct {
	cmd   Command
	items []ListItem
	err   error
}

// runCommand parses and runs a command line.
func (m *Model) runCommand(line string) tea.Cmd {
	if line == "" {
		return nil
	}
	if cmd, ok := m.plainLanguage(line); ok { // nlcommand.go
		return cmd
	}
	c, err := ParseCommand(line)
	if err != nil {
		m.c.setError(err)
		return nil
	}
	return m.runResolved(c) // nlcommand.go
}

// findThreads runs the filters as a store search (or, without filters,
// takes the newest threads of every section) and returns one item per
// thread, newest first.
func findThreads(ctx context.Context, b Backend, f Filters) ([]ListItem, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	var items []ListItem
	if q := f.Query(); q != "" {
		hits, err := b.Search(ctx, q, limit*4)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			items = append(items, ListItem{ThreadID: h.ThreadID, From: h.From, Subject: h.Subject, Date: h.Date, Unread: h.Unread})
		}
	} else {
		for _, sec := range allSections {
			rows, err := b.ListThreads(ctx, sec, 0, limit*2)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				items = append(items, ListItem{ThreadID: r.ID, From: r.From, Subject: r.Subject, Date: r.Latest, Unread: r.Unread > 0})
			}
		}
		sort.SliceStable(items, func(i, j int) bool { return items[i].Date.After(items[j].Date) })
	}
	return Candidates(items, f, limit), nil
}

func (m *Model) handleCommandResult(msg commandResultMsg) tea.Cmd {
	if err := quiet(msg.err); err != nil {
		m.c.setError(fmt.Errorf(":%s: %w", msg.cmd.Op, err))
		return nil
	}
	if msg.cmd.Op == OpList {
		m.lastList = msg.items
		m.list = listView{title: "List", items: msg.items, height: m.bodyHeight(), pending: Command{Op: OpList}}
		m.screen = stateList
		if len(msg.items) == 0 {
			m.c.note = "no threads match"
		}
		return nil
	}
	r, err := Pick(msg.items, msg.cmd.Latest)
	if errors.Is(err, ErrNoMatch) {
		m.c.setError(fmt.Errorf(":%s: no thread matches %s", msg.cmd.Op, describe(msg.cmd.Filters)))
		return nil
	}
	if r.Candidates != nil {
		// Keep the last list intact for :open N; the disambiguation is its own screen.
		m.list = listView{title: "Which thread?", items: r.Candidates, height: m.bodyHeight(), pending: msg.cmd}
		m.screen = stateList
		return nil
	}
	return m.apply(msg.cmd, r.ThreadID)
}

// describe renders filters for messages.
func describe(f Filters) string {
	if q := f.Query(); q != "" {
		return q
	}
	return "the filters"
}
