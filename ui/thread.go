package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/termsafe"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

// attachmentRef is one attachment of the open thread, with the message it
// belongs to (to fetch its raw bytes).
type attachmentRef struct {
	messageID string
	att       model.Attachment
}

// threadModel is the thread view: the open thread's triage header and
// messages in a scrolling viewport.
type threadModel struct {
	c    *common
	b    Backend
	acts actions

	id          int64
	summary     store.ThreadSummary
	thread      *model.Thread
	unfolded    bool
	vp          viewport.Model
	attachments []attachmentRef
	saveIdx     int   // attachment the save prompt is for
	returnTo    state // screen esc goes back to
}

// threadLoadedMsg carries a thread loaded by loadThreadCmd.
type threadLoadedMsg struct {
	id      int64
	summary store.ThreadSummary
	thread  *model.Thread
	err     error
}

// loadThreadCmd loads a thread and its inbox row (for the triage header).
func loadThreadCmd(ctx context.Context, b Backend, id int64) tea.Cmd {
	return func() tea.Msg {
		ts, err := b.ThreadSummaryByID(ctx, id)
		if err != nil {
			return threadLoadedMsg{id: id, err: fmt.Errorf("open thread: %w", err)}
		}
		th, err := b.Thread(ctx, id)
		if err != nil {
			return threadLoadedMsg{id: id, err: fmt.Errorf("open thread: %w", err)}
		}
		return threadLoadedMsg{id: id, summary: ts, thread: th}
	}
}

// attachmentSavedMsg reports a saved attachment.
type attachmentSavedMsg struct {
	path string
	size int
	err  error
}

// saveAttachmentCmd writes one attachment to path, never overwriting an
// existing file.
func saveAttachmentCmd(ctx context.Context, b Backend, ref attachmentRef, path string) tea.Cmd {
	return func() tea.Msg {
		raw, err := b.RawMessage(ctx, ref.messageID)
		if err != nil {
			return attachmentSavedMsg{err: fmt.Errorf("save attachment: %w", err)}
		}
		_, data, err := rfc822.AttachmentContent(raw, ref.att.Part)
		if err != nil {
			return attachmentSavedMsg{err: fmt.Errorf("save attachment: %w", err)}
		}
		if strings.HasPrefix(path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, path[2:])
			}
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return attachmentSavedMsg{err: fmt.Errorf("save attachment: %w (choose another path)", err)}
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return attachmentSavedMsg{err: fmt.Errorf("save attachment to %s: %w", path, err)}
		}
		if err := f.Close(); err != nil {
			return attachmentSavedMsg{err: fmt.Errorf("save attachment to %s: %w", path, err)}
		}
		return attachmentSavedMsg{path: path, size: len(data)}
	}
}

// safeFilename turns an attachment's name from mail into a plain file
// name: sanitized, no directories, no leading dots.
func safeFilename(name string) string {
	name = termsafe.SanitizeLine(name)
	name = strings.NewReplacer("/", "_", "\\", "_").Replace(name)
	name = strings.TrimLeft(name, ". ")
	if name == "" {
		name = "attachment"
	}
	return name
}

func newThreadModel(c *common, b Backend, acts actions) threadModel {
	return threadModel{c: c, b: b, acts: acts}
}

// open shows thread id (esc goes back to returnTo) and loads it.
func (tv threadModel) open(id int64, returnTo state) (threadModel, tea.Cmd) {
	tv.returnTo = returnTo
	tv.id = id
	tv.thread = nil
	tv.attachments = nil
	tv.vp.SetContent("loading…")
	return tv, loadThreadCmd(tv.c.ctx, tv.b, id)
}

// reload re-reads the open thread (after a write to it).
func (tv *threadModel) reload() tea.Cmd { return loadThreadCmd(tv.c.ctx, tv.b, tv.id) }

// summaryRefreshedMsg carries the open thread's current inbox row.
type summaryRefreshedMsg struct {
	id      int64
	summary store.ThreadSummary
	err     error
}

// refresh re-reads the open thread's row, so a triage result arriving
// while the user reads it updates the header.
func (tv *threadModel) refresh() tea.Cmd {
	if tv.thread == nil {
		return nil
	}
	b, ctx, id := tv.b, tv.c.ctx, tv.id
	return func() tea.Msg {
		ts, err := b.ThreadSummaryByID(ctx, id)
		return summaryRefreshedMsg{id: id, summary: ts, err: err}
	}
}

// triageChanged reports whether the header of a thread would change.
func triageChanged(a, b store.ThreadSummary) bool {
	if a.Section != b.Section || a.Override != b.Override || (a.Triage == nil) != (b.Triage == nil) {
		return true
	}
	return a.Triage != nil && (a.Triage.CacheKey != b.Triage.CacheKey || !a.Triage.CreatedAt.Equal(b.Triage.CreatedAt) ||
		a.Triage.ContentHash != b.Triage.ContentHash)
}

// update applies a message of the thread view; the root sends the
// results of loads only while the view shows.
func (tv threadModel) update(msg tea.Msg) (threadModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd := tv.handleKey(msg)
		return tv, cmd
	case threadLoadedMsg:
		cmd := tv.loaded(msg)
		return tv, cmd
	case summaryRefreshedMsg:
		if msg.err == nil && msg.id == tv.id && tv.thread != nil && triageChanged(tv.summary, msg.summary) {
			unread := tv.summary.Unread
			tv.summary = msg.summary
			tv.summary.Unread = unread
			tv.render()
		}
	}
	return tv, nil
}

func (tv *threadModel) loaded(msg threadLoadedMsg) tea.Cmd {
	if msg.id != tv.id {
		return nil
	}
	if msg.err != nil {
		tv.c.setError(msg.err)
		tv.c.show(stateInbox)
		return nil
	}
	first := tv.thread == nil
	tv.setThread(msg)
	if first {
		tv.vp.GotoTop()
	}
	tv.render()
	// Opening marks the thread read; reloads (after m, an override) do not.
	if first && msg.summary.Unread > 0 {
		tv.summary.Unread = 0
		b, ctx, id := tv.b, tv.c.ctx, msg.id
		return func() tea.Msg {
			err := b.MarkThreadSeen(ctx, id, true)
			if err != nil {
				err = fmt.Errorf("mark read: %w", err)
			}
			return storeChangedMsg{err: err}
		}
	}
	return nil
}

func (tv *threadModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &tv.c.keys
	switch {
	case key.Matches(msg, k.Back):
		tv.c.show(tv.returnTo)
	case key.Matches(msg, k.Down):
		tv.vp.ScrollDown(1)
	case key.Matches(msg, k.Up):
		tv.vp.ScrollUp(1)
	case key.Matches(msg, k.HalfDown):
		tv.vp.HalfPageDown()
	case key.Matches(msg, k.HalfUp):
		tv.vp.HalfPageUp()
	case key.Matches(msg, k.Top):
		tv.vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		tv.vp.GotoBottom()
	case key.Matches(msg, k.Fold):
		tv.unfolded = !tv.unfolded
		tv.render()
	default:
		if tv.thread == nil {
			return nil
		}
		if key.Matches(msg, k.ToggleRead) {
			// In the open thread, m marks it unread (it was read on opening).
			return tv.acts.threadKey(msg, tv.id, tv.summary.Unread > 0)
		}
		return tv.acts.threadKey(msg, tv.id, false)
	}
	return nil
}

// scroll moves the viewport by delta lines (the mouse wheel).
func (tv *threadModel) scroll(delta int) {
	if delta < 0 {
		tv.vp.ScrollUp(-delta)
	} else {
		tv.vp.ScrollDown(delta)
	}
}

// View draws the thread.
func (tv threadModel) View() string { return padLines(tv.vp.View(), tv.c.height) }

// setThread installs a loaded thread.
func (tv *threadModel) setThread(msg threadLoadedMsg) {
	tv.id, tv.summary, tv.thread = msg.id, msg.summary, msg.thread
	tv.unfolded = false
	tv.attachments = nil
	for _, m := range msg.thread.Messages {
		for _, a := range m.Attachments {
			if a.Inline && a.Filename == "" {
				continue
			}
			tv.attachments = append(tv.attachments, attachmentRef{messageID: m.MessageID, att: a})
		}
	}
	tv.saveIdx = 0
}

// setSize sets the viewport size and re-renders the content.
func (tv *threadModel) setSize(w, h int) {
	if tv.vp.Width == 0 && tv.vp.Height == 0 {
		tv.vp = viewport.New(w, h)
		tv.vp.MouseWheelEnabled = true
	}
	tv.vp.Width, tv.vp.Height = w, h
	tv.render()
}

// render lays the thread out for the viewport's width.
func (tv *threadModel) render() {
	if tv.thread == nil {
		tv.vp.SetContent("")
		return
	}
	off := tv.vp.YOffset
	tv.vp.SetContent(renderThread(tv.c, tv.summary, tv.thread, tv.attachments, !tv.unfolded, max(10, tv.vp.Width)))
	tv.vp.SetYOffset(off)
}

// renderThread draws the triage header and the messages, oldest first.
func renderThread(c *common, ts store.ThreadSummary, th *model.Thread, atts []attachmentRef, fold bool, width int) string {
	var b strings.Builder
	wrap := func(s string) string { return ansi.Wrap(s, width, " -") }
	subject := termsafe.SanitizeLine(th.Subject)
	if subject == "" {
		subject = termsafe.SanitizeLine(ts.Subject)
	}
	b.WriteString(c.st.title.Render(wrap(subject)) + "\n")
	b.WriteString(triageHeader(c, ts, width))
	b.WriteString(c.st.dim.Render(strings.Repeat("─", width)) + "\n")
	for i, m := range th.Messages {
		if i > 0 {
			b.WriteString("\n" + c.st.dim.Render(strings.Repeat("─", width)) + "\n")
		}
		from := termsafe.SanitizeLine(m.From.String())
		b.WriteString(c.st.label.Render("From: ") + c.st.header.Render(wrap(from)) + "\n")
		if len(m.To) > 0 {
			b.WriteString(c.st.label.Render("To:   ") + wrap(termsafe.SanitizeLine(addrList(m.To))) + "\n")
		}
		if len(m.Cc) > 0 {
			b.WriteString(c.st.label.Render("Cc:   ") + wrap(termsafe.SanitizeLine(addrList(m.Cc))) + "\n")
		}
		if !m.Date.IsZero() {
			b.WriteString(c.st.label.Render("Date: ") + m.Date.In(c.now().Location()).Format("Mon, 02 Jan 2006 15:04") + "\n")
		}
		b.WriteString("\n")
		if !m.HasBody {
			b.WriteString(c.st.dim.Render("(body not downloaded yet)") + "\n")
		} else {
			b.WriteString(renderBody(c, m.Body(), fold, width))
		}
		for _, p := range m.Problems {
			b.WriteString(c.st.warn.Render(wrap("! "+termsafe.SanitizeLine(p))) + "\n")
		}
	}
	if len(atts) > 0 {
		b.WriteString("\n" + c.st.header.Render("Attachments") + c.st.dim.Render("  (s to save)") + "\n")
		for i, a := range atts {
			line := fmt.Sprintf("%d. %s  %s", i+1, termsafe.SanitizeLine(a.att.Filename), c.st.dim.Render(fmt.Sprintf("%s, %s", termsafe.SanitizeLine(a.att.ContentType), humanSize(a.att.Size))))
			b.WriteString(wrap(line) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// triageHeader renders bucket, spam/phishing with reasons, summary and
// action items.
func triageHeader(c *common, ts store.ThreadSummary, width int) string {
	var b strings.Builder
	wrap := func(s string) string { return ansi.Wrap(s, width, " -") }
	tr := ts.Triage
	bucket := sectionTitle(ts.Section)
	line := c.st.label.Render("Bucket: ") + c.st.section.Render(bucket)
	if ts.Override != "" {
		line += c.st.badge.Render(" [override]")
	}
	if tr != nil {
		var extra []string
		if tr.Urgency != "" {
			extra = append(extra, "urgency "+termsafe.SanitizeLine(tr.Urgency))
		}
		if tr.Intent != "" {
			extra = append(extra, "intent "+termsafe.SanitizeLine(tr.Intent))
		}
		if tr.Source == "deterministic" {
			extra = append(extra, "offline triage")
		} else if tr.Model != "" {
			extra = append(extra, termsafe.SanitizeLine(tr.Model))
		}
		if len(extra) > 0 {
			line += c.st.dim.Render(" · " + strings.Join(extra, " · "))
		}
	}
	b.WriteString(wrap(line) + "\n")
	if tr == nil {
		b.WriteString(c.st.dim.Render("Not triaged yet.") + "\n")
		return b.String()
	}
	if tr.Result.IsPhishing {
		b.WriteString(wrap(c.st.danger.Render("PHISHING"+reasons(tr.PhishingReasons))) + "\n")
	}
	if tr.Result.IsSpam {
		b.WriteString(wrap(c.st.warn.Render("SPAM"+reasons(tr.SpamReasons))) + "\n")
	}
	if s := termsafe.Sanitize(tr.Result.Summary); strings.TrimSpace(s) != "" {
		b.WriteString(wrap(c.st.label.Render("Summary: ")+s) + "\n")
	}
	if len(tr.Result.ActionItems) > 0 {
		b.WriteString(c.st.label.Render("Action items:") + "\n")
		for _, a := range tr.Result.ActionItems {
			item := "  • " + termsafe.SanitizeLine(a.Description)
			if a.DueHint != nil && *a.DueHint != "" {
				item += c.st.warn.Render(" (due: " + termsafe.SanitizeLine(*a.DueHint) + ")")
			}
			b.WriteString(wrap(item) + "\n")
		}
	}
	return b.String()
}

func reasons(rs []string) string {
	if len(rs) == 0 {
		return ""
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = termsafe.SanitizeLine(r)
	}
	return ": " + strings.Join(out, "; ")
}

// renderBody sanitizes and wraps a body, folding quotes and signatures.
func renderBody(c *common, body string, fold bool, width int) string {
	var b strings.Builder
	for _, p := range rfc822.SplitBody(body) {
		text := strings.TrimRight(termsafe.Sanitize(p.Text), "\n")
		if strings.TrimSpace(text) == "" {
			if p.Kind == model.PartText && text != "" {
				b.WriteString(text + "\n")
			}
			continue
		}
		n := strings.Count(text, "\n") + 1
		switch {
		case p.Kind == model.PartText:
			b.WriteString(ansi.Wrap(text, width, " -") + "\n")
		case fold:
			what := map[model.PartKind]string{model.PartQuote: "quoted", model.PartSignature: "signature", model.PartForward: "forwarded"}[p.Kind]
			b.WriteString(c.st.quote.Render(fmt.Sprintf("[… %d %s line%s hidden · z to show]", n, what, plural(n))) + "\n")
		default:
			b.WriteString(c.st.quote.Render(ansi.Wrap(text, width, " -")) + "\n")
		}
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func addrList(as []model.Address) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	default:
		return fmt.Sprintf("%d B", n)
	}
}
