package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/config"
	"mailsift/internal/browser"
	"mailsift/internal/links"
	"mailsift/internal/termsafe"
)

// htmlKeep is how long the private copy of a message's HTML part stays
// on disk for the browser to read before it is removed.
const htmlKeep = 2 * time.Minute

// linksModel lists the links of a thread's latest message, numbered with
// their full targets, and opens one (or the HTML part) in the browser
// after the user saw it and pressed y.
type linksModel struct {
	c       *common
	b       Backend
	openURL func(ctx context.Context, u string) error

	returnTo state
	seq      int
	loading  bool
	err      error
	subject  string
	from     string
	links    []links.Link
	html     []byte
	cursor   int
	asking   int // the link waiting for y (-1: none, askHTML: the HTML part)
}

const askNone, askHTML = -1, -2

func newLinksModel(c *common, b Backend, open func(ctx context.Context, u string) error) linksModel {
	return linksModel{c: c, b: b, openURL: open, asking: askNone}
}

type (
	linksLoadedMsg struct {
		seq           int
		subject, from string
		links         []links.Link
		html          []byte
		err           error
	}
	linkOpenedMsg struct {
		what string
		err  error
	}
	htmlCleanupMsg struct{ dir string }
	htmlWrittenMsg struct {
		path, dir string
		err       error
	}
)

func (linksLoadedMsg) owner() state { return stateLinks }
func (linkOpenedMsg) owner() state  { return stateLinks }
func (htmlCleanupMsg) owner() state { return stateLinks }
func (htmlWrittenMsg) owner() state { return stateLinks }

var lk = struct{ open, html, yes key.Binding }{
	open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter/1-9", "open…")),
	html: key.NewBinding(key.WithKeys("O"), key.WithHelp("O", "HTML part in the browser…")),
	yes:  key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes, open it")),
}

// open shows the screen and loads the links of the thread's latest message.
func (lm linksModel) open(threadID int64, returnTo state) (linksModel, tea.Cmd) {
	lm.returnTo, lm.seq, lm.loading, lm.err = returnTo, lm.seq+1, true, nil
	lm.links, lm.html, lm.cursor, lm.asking = nil, nil, 0, askNone
	ctx, b, seq := lm.c.ctx, lm.b, lm.seq
	return lm, func() tea.Msg {
		t, err := b.Thread(ctx, threadID)
		if err != nil {
			return linksLoadedMsg{seq: seq, err: fmt.Errorf("links: %w", err)}
		}
		if len(t.Messages) == 0 {
			return linksLoadedMsg{seq: seq, err: errors.New("links: the thread has no messages")}
		}
		m := t.Messages[len(t.Messages)-1]
		msg := linksLoadedMsg{seq: seq, subject: m.Subject, from: displayName(m.From)}
		raw, err := b.RawMessage(ctx, m.MessageID)
		if err == nil {
			msg.links, msg.html, err = links.FromRaw(raw)
		}
		if err != nil {
			// Without the bytes, the stored text still names the links
			// (HTML links are kept there as "text <url>"), but not the
			// HTML part.
			msg.links = links.FromText(m.Body())
		}
		return msg
	}
}

func (lm linksModel) update(msg tea.Msg) (linksModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return lm, lm.handleKey(msg)
	case linksLoadedMsg:
		if msg.seq != lm.seq {
			return lm, nil
		}
		lm.loading, lm.err = false, msg.err
		lm.subject, lm.from, lm.links, lm.html = msg.subject, msg.from, msg.links, msg.html
	case linkOpenedMsg:
		if msg.err != nil {
			lm.c.setError(msg.err)
			return lm, nil
		}
		lm.c.note = "opened " + termsafe.SanitizeLine(msg.what)
		return lm, nil
	case htmlWrittenMsg:
		if msg.err != nil {
			lm.c.setError(msg.err)
			return lm, nil
		}
		dir := msg.dir
		var cleanup tea.Cmd
		if !lm.c.manualTicks {
			cleanup = tea.Tick(htmlKeep, func(time.Time) tea.Msg { return htmlCleanupMsg{dir: dir} })
		}
		lm.c.note = "HTML part in " + msg.path + " (removed in " + htmlKeep.String() + ")"
		return lm, tea.Batch(lm.openLink((&url.URL{Scheme: "file", Path: msg.path}).String()), cleanup)
	case htmlCleanupMsg:
		dir := msg.dir
		return lm, func() tea.Msg {
			if err := os.RemoveAll(dir); err != nil {
				return errMsg{fmt.Errorf("remove the HTML copy %s: %w", dir, err)}
			}
			return nil
		}
	}
	return lm, nil
}

func (lm *linksModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &lm.c.keys
	if lm.asking != askNone {
		ask := lm.asking
		lm.asking = askNone
		if !key.Matches(msg, lk.yes) {
			lm.c.note = "not opened"
			return nil
		}
		if ask == askHTML {
			return lm.openHTML()
		}
		return lm.openLink(lm.links[ask].URL)
	}
	switch {
	case key.Matches(msg, k.Back):
		lm.seq++
		lm.c.show(lm.returnTo)
		return nil
	case key.Matches(msg, k.Down):
		lm.cursor = min(lm.cursor+1, max(0, len(lm.links)-1))
	case key.Matches(msg, k.Up):
		lm.cursor = max(lm.cursor-1, 0)
	case key.Matches(msg, lk.html):
		if lm.html == nil {
			lm.c.note = "this message has no HTML part"
			return nil
		}
		lm.asking = askHTML
	case key.Matches(msg, lk.open) && len(lm.links) > 0:
		lm.ask(lm.cursor)
	case msg.Type == tea.KeyRunes && len(msg.Runes) == 1 && msg.Runes[0] >= '1' && msg.Runes[0] <= '9':
		if i := int(msg.Runes[0] - '1'); i < len(lm.links) {
			lm.cursor = i
			lm.ask(i)
		}
	}
	return nil
}

// ask shows link i's full target and waits for y, unless it is a scheme
// that is never opened.
func (lm *linksModel) ask(i int) {
	if !lm.links[i].Openable {
		lm.c.note = fmt.Sprintf("link %d is not opened: only http, https and mailto links are", i+1)
		return
	}
	lm.asking = i
}

// openLink opens a URL the user confirmed, with the host's opener or the
// browser command (the URL one argument, no shell).
func (lm *linksModel) openLink(u string) tea.Cmd {
	if lm.openURL != nil {
		ctx, open := lm.c.ctx, lm.openURL
		return func() tea.Msg { return linkOpenedMsg{what: u, err: open(ctx, u)} }
	}
	c, err := browser.Command(u, config.ChildEnv(), nil)
	if err != nil {
		return func() tea.Msg { return linkOpenedMsg{err: err} }
	}
	return tea.ExecProcess(c, func(err error) tea.Msg {
		if err != nil {
			err = fmt.Errorf("browser %s: %w", c.Path, err)
		}
		return linkOpenedMsg{what: u, err: err}
	})
}

// openHTML writes the HTML part to a private file in a command; the
// file is opened when it is written and removed after htmlKeep.
func (lm *linksModel) openHTML() tea.Cmd {
	doc := lm.html
	return func() tea.Msg {
		// Copies a previous run left (it ended before their timer) go
		// first; file times are the real clock's, not the UI's.
		links.Sweep("", time.Now().Add(-htmlKeep))
		path, dir, err := links.WriteHTML("", doc)
		return htmlWrittenMsg{path: path, dir: dir, err: err}
	}
}

// View draws the links list.
func (lm linksModel) View() string {
	c := lm.c
	h := c.height
	back := c.st.dim.Render("esc back")
	switch {
	case lm.loading:
		return padLines("reading the links…", h)
	case lm.err != nil:
		return padLines(c.st.danger.Render(termsafe.SanitizeLine(lm.err.Error()))+"\n\n"+back, h)
	}
	w := max(10, c.width)
	head := []string{c.st.header.Render("Links") + c.st.dim.Render(fmt.Sprintf(" · %d in the latest message · %s · from %s",
		len(lm.links), termsafe.SanitizeLine(lm.subject), termsafe.SanitizeLine(lm.from)))}
	var rows []string
	curTop, curEnd := 0, 0
	for i, l := range lm.links {
		if i == lm.cursor {
			curTop = len(rows)
		}
		num := fmt.Sprintf("%3d  ", i+1)
		text := termsafe.SanitizeLine(l.Text)
		if text == "" {
			text = "(no text)"
		}
		line := num + text
		if i == lm.cursor {
			line = c.st.cursor.Render(line)
		}
		rows = append(rows, truncateCells(line, w))
		for j, part := range wrapRows(textUnits(termsafe.SanitizeLine(l.URL)), max(10, w-7)) {
			lead := "     → "
			if j > 0 {
				lead = "       "
			}
			rows = append(rows, lead+part)
		}
		switch {
		case !l.Openable:
			rows = append(rows, "       "+c.st.danger.Render("✗ not opened: only http, https and mailto links are"))
		case l.Mismatch:
			rows = append(rows, "       "+c.st.danger.Render("! the text names another place than the link leads to"))
		}
		if i == lm.cursor {
			curEnd = len(rows)
		}
	}
	if len(lm.links) == 0 {
		rows = append(rows, c.st.dim.Render("no links"))
	}
	var hint string
	switch {
	case lm.asking == askHTML:
		hint = c.st.danger.Render(fmt.Sprintf("open the HTML part (%s) in the browser? ", humanSize(int64(len(lm.html))))) +
			c.st.dim.Render("scripts and remote content blocked · ") + c.help.ShortHelpView([]key.Binding{lk.yes}) + c.st.dim.Render(" · any other key: no")
	case lm.asking >= 0:
		hint = c.st.danger.Render(fmt.Sprintf("open link %d (the full target above) in the browser? ", lm.asking+1)) +
			c.help.ShortHelpView([]key.Binding{lk.yes}) + c.st.dim.Render(" · any other key: no")
	default:
		keys := []key.Binding{lk.open}
		if lm.html != nil {
			keys = append(keys, lk.html)
		}
		hint = c.help.ShortHelpView(append(keys, c.keys.Down, c.keys.Up, c.keys.Back))
	}
	room := max(1, h-len(head)-1)
	top := 0
	if curEnd > room {
		top = curEnd - room
	}
	if curTop < top {
		top = curTop
	}
	end := min(len(rows), top+room)
	out := strings.Join(head, "\n") + "\n" + padLines(strings.Join(rows[top:end], "\n"), room) + "\n" + hint
	return padLines(out, h)
}

// truncateCells cuts a styled row to w cells.
func truncateCells(s string, w int) string { return clampWidth(s, w) }
