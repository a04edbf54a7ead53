package ui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/termsafe"
)

// folderPicker chooses the folder threads move to: the account's folders
// filtered as the user types (fuzzy: the typed letters in order), ↑/↓ to
// choose, enter to move; a typed name no folder has creates that folder.
type folderPicker struct {
	acts    actions
	ids     []int64
	all     []string
	shown   []string
	cursor  int
	input   textinput.Model
	loading bool
	err     error
}

// pickerRows is how many folders the picker lists at once.
const pickerRows = 6

func newFolderPicker(acts actions, ids []int64) *folderPicker {
	in := textinput.New()
	in.Prompt = "folder: "
	in.CharLimit = 200
	in.Focus()
	return &folderPicker{acts: acts, ids: ids, input: in, loading: true}
}

// foldersMsg carries the folder list.
type foldersMsg struct {
	folders []string
	err     error
}

func (p *folderPicker) load() tea.Cmd {
	svc, ctx := p.acts.svc, p.acts.c.ctx
	return func() tea.Msg {
		f, err := svc.Folders(ctx)
		return foldersMsg{folders: f, err: err}
	}
}

func (p *folderPicker) update(msg tea.Msg) (overlay, tea.Cmd) {
	switch msg := msg.(type) {
	case foldersMsg:
		p.loading, p.err = false, msg.err
		for _, f := range msg.folders {
			p.all = append(p.all, termsafe.SanitizeLine(f))
		}
		p.filter()
		return p, nil
	case tea.KeyMsg:
		switch msg.String() {
		case "esc", "ctrl+c":
			return nil, func() tea.Msg { return noteMsg("move cancelled") }
		case "up", "shift+tab", "ctrl+p":
			if p.cursor > 0 {
				p.cursor--
			}
			return p, nil
		case "down", "tab", "ctrl+n":
			if p.cursor < len(p.shown)-1 {
				p.cursor++
			}
			return p, nil
		case "enter":
			folder := strings.TrimSpace(p.input.Value())
			if len(p.shown) > 0 {
				folder = p.shown[p.cursor]
			}
			if folder == "" {
				return p, nil
			}
			ids, svc := p.ids, p.acts.svc
			return nil, p.acts.runAction(ids, true, true, "move", func(ctx context.Context) (string, error) {
				return svc.MoveTo(ctx, ids, folder)
			})
		}
		var cmd tea.Cmd
		p.input, cmd = p.input.Update(msg)
		p.filter()
		return p, cmd
	}
	return p, nil
}

// filter lists the folders matching the typed text, best first.
func (p *folderPicker) filter() {
	q := strings.ToLower(strings.TrimSpace(p.input.Value()))
	type scored struct {
		name  string
		score int
	}
	var hits []scored
	for _, f := range p.all {
		if s, ok := fuzzyScore(strings.ToLower(f), q); ok {
			hits = append(hits, scored{f, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	p.shown = p.shown[:0]
	for _, h := range hits {
		p.shown = append(p.shown, h.name)
	}
	p.cursor = min(p.cursor, max(0, len(p.shown)-1))
}

// fuzzyScore matches q's letters in order in s: a prefix scores highest,
// then a substring, then letters close together.
func fuzzyScore(s, q string) (int, bool) {
	if q == "" {
		return 0, true
	}
	if strings.HasPrefix(s, q) {
		return 3000 - len(s), true
	}
	if strings.Contains(s, q) {
		return 2000 - len(s), true
	}
	i, gaps, last := 0, 0, -1
	for pos, r := range s {
		if i < len(q) && r == rune(q[i]) {
			if last >= 0 {
				gaps += pos - last - 1
			}
			last = pos
			i++
		}
	}
	if i < len(q) {
		return 0, false
	}
	return 1000 - gaps - len(s), true
}

func (p *folderPicker) view(c *common, width int) []string {
	lines := []string{c.st.header.Render(fmt.Sprintf("Move %s to", threadCount(len(p.ids))))}
	switch {
	case p.loading:
		lines = append(lines, c.st.dim.Render("loading folders…"))
	case p.err != nil:
		lines = append(lines, c.st.statusErr.Render(p.err.Error()))
	case len(p.shown) == 0 && strings.TrimSpace(p.input.Value()) != "":
		lines = append(lines, c.st.dim.Render(fmt.Sprintf("no folder matches; enter creates %q", termsafe.SanitizeLine(p.input.Value()))))
	}
	top := max(0, min(p.cursor-pickerRows+1, len(p.shown)-pickerRows))
	for i := top; i < len(p.shown) && i < top+pickerRows; i++ {
		mark := "  "
		if i == p.cursor {
			mark = "> "
		}
		lines = append(lines, mark+fit(p.shown[i], max(1, width-2)))
	}
	lines = append(lines, p.input.View(), c.st.dim.Render("type to filter · ↑/↓ choose · enter move · esc cancel"))
	return lines
}
