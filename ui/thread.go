package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

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
	saveIdx     int // attachment the save prompt is for
	// Paging: only messages lo..hi-1 are rendered into the viewport (the
	// ones on screen plus about a screen each side); rendered messages are
	// kept for the current width and fold state.
	lo, hi   int
	head     string        // subject, triage header and rule; "" = not rendered
	blocks   map[int]block // rendered messages by index
	starts   []int         // content line where message lo+k starts
	returnTo state         // screen esc goes back to
	// sched is the scheduling panel (ui/schedule.go), drawn under the
	// triage header of a meeting thread.
	sched schedPanel
	// pending is an action key pressed while the thread was still loading
	// (r right after enter): it acts once the thread is there, instead of
	// being lost.
	pending *tea.KeyMsg
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

func newThreadModel(c *common, b Backend, acts actions, sc Scheduling) threadModel {
	return threadModel{c: c, b: b, acts: acts, sched: newSchedPanel(c, sc)}
}

// open shows thread id (esc goes back to returnTo) and loads it.
func (tv threadModel) open(id int64, returnTo state) (threadModel, tea.Cmd) {
	tv.returnTo = returnTo
	tv.id = id
	tv.thread = nil
	tv.pending = nil
	tv.attachments = nil
	tv.vp.SetContent("loading…")
	return tv, tea.Batch(loadThreadCmd(tv.c.ctx, tv.b, id), tv.sched.load(id))
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
	return tea.Batch(func() tea.Msg {
		ts, err := b.ThreadSummaryByID(ctx, id)
		return summaryRefreshedMsg{id: id, summary: ts, err: err}
	}, tv.sched.load(id))
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
	case schedPanelMsg:
		if tv.sched.loaded(msg) && tv.thread != nil {
			tv.head = ""
			tv.render()
		}
	case schedDraftedMsg:
		tv.sched.drafted(msg)
		tv.head = ""
		tv.render()
	case summaryRefreshedMsg:
		if msg.err == nil && msg.id == tv.id && tv.thread != nil && triageChanged(tv.summary, msg.summary) {
			unread := tv.summary.Unread
			tv.summary = msg.summary
			tv.summary.Unread = unread
			tv.head = ""
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
	tv.invalidate()
	tv.render()
	var pendingCmd tea.Cmd
	if p := tv.pending; p != nil {
		tv.pending = nil
		pendingCmd = tv.handleKey(*p)
	}
	// Opening marks the thread read; reloads (after m, an override) do not.
	if first && msg.summary.Unread > 0 {
		tv.summary.Unread = 0
		b, ctx, id := tv.b, tv.c.ctx, msg.id
		return tea.Batch(func() tea.Msg {
			err := b.MarkThreadSeen(ctx, id, true)
			if err != nil {
				err = fmt.Errorf("mark read: %w", err)
			}
			return storeChangedMsg{err: err}
		}, pendingCmd)
	}
	return pendingCmd
}

func (tv *threadModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &tv.c.keys
	if tv.thread != nil {
		active, typing := tv.sched.active, tv.sched.proposing
		if handled, cmd := tv.sched.handleKey(msg); handled {
			if tv.sched.active != active || tv.sched.proposing != typing || active || typing {
				tv.head = ""
				tv.render()
			}
			return cmd
		}
	}
	switch {
	case key.Matches(msg, k.Back):
		tv.c.show(tv.returnTo)
	case key.Matches(msg, k.Down):
		tv.vp.ScrollDown(1)
		tv.settle()
	case key.Matches(msg, k.Up):
		tv.vp.ScrollUp(1)
		tv.settle()
	case key.Matches(msg, k.HalfDown):
		tv.vp.HalfPageDown()
		tv.settle()
	case key.Matches(msg, k.HalfUp):
		tv.vp.HalfPageUp()
		tv.settle()
	case key.Matches(msg, k.Top):
		tv.gotoTop()
	case key.Matches(msg, k.Bottom):
		tv.gotoBottom()
	case key.Matches(msg, k.Fold):
		tv.unfolded = !tv.unfolded
		tv.invalidate()
		tv.render()
	default:
		if tv.thread == nil {
			tv.pending = &msg
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
	tv.settle()
}

// View draws the thread.
func (tv threadModel) View() string { return padLines(tv.vp.View(), tv.c.height) }

// setThread installs a loaded thread.
func (tv *threadModel) setThread(msg threadLoadedMsg) {
	if tv.thread == nil {
		// A new thread starts at its top; a reload keeps the window, so
		// the scroll offset still points at the same lines.
		tv.lo, tv.hi = 0, 0
	}
	tv.unfolded = false
	tv.attachments = nil
	tv.invalidate()
	for _, m := range msg.thread.Messages {
		for _, a := range m.Attachments {
			if a.Inline && a.Filename == "" {
				continue
			}
			tv.attachments = append(tv.attachments, attachmentRef{messageID: m.MessageID, att: a})
		}
	}
	tv.saveIdx = 0
	tv.id, tv.summary, tv.thread = msg.id, msg.summary, msg.thread
}

// setSize sets the viewport size and re-renders the content.
func (tv *threadModel) setSize(w, h int) {
	if tv.vp.Width == 0 && tv.vp.Height == 0 {
		tv.vp = viewport.New(w, h)
		tv.vp.MouseWheelEnabled = true
	}
	if tv.vp.Width != w {
		tv.invalidate()
	}
	tv.vp.Width, tv.vp.Height = w, h
	tv.render()
}

// render lays the thread out for the viewport's width, keeping the
// scroll offset.
func (tv *threadModel) render() {
	if tv.thread == nil {
		tv.vp.SetContent("")
		return
	}
	off := tv.vp.YOffset
	tv.compose(tv.lo, tv.hi)
	tv.vp.SetYOffset(off)
	tv.settle()
}

// block is one rendered message and its number of lines.
type block struct {
	text  string
	lines int
}

// invalidate drops what was rendered (the thread, width or fold changed).
func (tv *threadModel) invalidate() {
	tv.head = ""
	tv.blocks = nil
}

// width is the width messages are wrapped to.
func (tv *threadModel) width() int { return max(10, tv.vp.Width) }

// block returns message i rendered, from the cache when it can.
func (tv *threadModel) block(i int) block {
	if b, ok := tv.blocks[i]; ok {
		return b
	}
	if tv.blocks == nil {
		tv.blocks = make(map[int]block)
	}
	text := renderMessage(tv.c, tv.thread.Messages[i], i, !tv.unfolded, tv.width())
	b := block{text: text, lines: strings.Count(text, "\n")}
	tv.blocks[i] = b
	return b
}

// compose puts messages lo..hi-1 in the viewport: the thread's header (or
// a line counting the messages above) first, the attachments (or a line
// counting the messages below) last.
func (tv *threadModel) compose(lo, hi int) {
	n := len(tv.thread.Messages)
	lo, hi = min(max(0, lo), n), min(max(0, hi), n)
	hi = max(hi, lo)
	tv.lo, tv.hi = lo, hi
	w := tv.width()
	var b strings.Builder
	if lo == 0 {
		if tv.head == "" {
			tv.head = renderHead(tv.c, tv.summary, tv.thread, w, tv.sched.view(w))
		}
		b.WriteString(tv.head)
	} else {
		b.WriteString(tv.c.st.dim.Render(fmt.Sprintf("↑ %d earlier message%s · k or g to show", lo, plural(lo))) + "\n")
	}
	line := strings.Count(b.String(), "\n")
	tv.starts = tv.starts[:0]
	for i := lo; i < hi; i++ {
		bl := tv.block(i)
		tv.starts = append(tv.starts, line)
		b.WriteString(bl.text)
		line += bl.lines
	}
	tv.starts = append(tv.starts, line) // where the last message ends
	if hi < n {
		b.WriteString("\n" + tv.c.st.dim.Render(fmt.Sprintf("↓ %d more message%s · j or G to show", n-hi, plural(n-hi))) + "\n")
	} else {
		b.WriteString(renderAttachments(tv.c, tv.attachments, w))
	}
	tv.vp.SetContent(strings.TrimRight(b.String(), "\n"))
}

// settle keeps about a screen of rendered lines above and below the
// visible part: when less is left on a side that has more messages, the
// window moves, keeping the same line at the top of the screen.
func (tv *threadModel) settle() {
	if tv.thread == nil || len(tv.thread.Messages) == 0 || len(tv.starts) == 0 {
		return
	}
	n := len(tv.thread.Messages)
	h := max(1, tv.vp.Height)
	top := tv.vp.YOffset
	end := tv.starts[len(tv.starts)-1]
	okAbove := tv.lo == 0 || top-tv.starts[0] >= h
	okBelow := tv.hi == n || end-(top+h) >= h
	if okAbove && okBelow {
		return
	}
	// The message holding the top line, and how far into it the top is.
	a, d := tv.lo, top-tv.starts[0]
	for k := 1; k < len(tv.starts)-1 && tv.starts[k] <= top; k++ {
		a, d = tv.lo+k, top-tv.starts[k]
	}
	if a >= n { // an empty window below the last message
		a, d = n-1, 0
	}
	margin := 2 * h
	lo, above := a, d
	for lo > 0 && above < margin {
		lo--
		above += tv.block(lo).lines
	}
	hi, below := a, -(d + h)
	for hi < n && below < margin {
		below += tv.block(hi).lines
		hi++
	}
	tv.compose(lo, hi)
	tv.vp.SetYOffset(tv.starts[a-lo] + d)
}

// gotoTop shows the start of the thread.
func (tv *threadModel) gotoTop() {
	if tv.thread != nil && tv.lo > 0 {
		tv.compose(0, 0)
	}
	tv.vp.GotoTop()
	tv.settle()
}

// gotoBottom shows the end of the thread.
func (tv *threadModel) gotoBottom() {
	if tv.thread != nil && tv.hi < len(tv.thread.Messages) {
		n := len(tv.thread.Messages)
		lo, lines := n, 0
		for lo > 0 && lines < 3*max(1, tv.vp.Height) {
			lo--
			lines += tv.block(lo).lines
		}
		tv.compose(lo, n)
	}
	tv.vp.GotoBottom()
	tv.settle()
}

// Bounds of what one message renders: a giant body or header costs a
// bounded number of lines (and of work) each time it is laid out.
const (
	// foldedBodyLines and foldedBodyBytes bound a body in the folded view.
	foldedBodyLines = 200
	foldedBodyBytes = 32 << 10
	// unfoldedBodyLines and unfoldedBodyBytes bound it after z.
	unfoldedBodyLines = 2000
	unfoldedBodyBytes = 256 << 10
	// maxHeaderBytes bounds one header line (subject, sender, recipients).
	maxHeaderBytes = 2000
	// maxShownAddrs bounds the addresses listed in To or Cc.
	maxShownAddrs = 50
	// maxShownAttachments bounds the attachment list.
	maxShownAttachments = 100
)

// renderHead draws the subject, the triage header and a rule.
func renderHead(c *common, ts store.ThreadSummary, th *model.Thread, width int, panel string) string {
	var b strings.Builder
	wrap := func(s string) string { return ansi.Wrap(s, width, " -") }
	subject := termsafe.SanitizeLine(clip(th.Subject, maxHeaderBytes))
	if subject == "" {
		subject = termsafe.SanitizeLine(clip(ts.Subject, maxHeaderBytes))
	}
	b.WriteString(c.st.title.Render(wrap(subject)) + "\n")
	b.WriteString(triageHeader(c, ts, width))
	b.WriteString(panel)
	b.WriteString(c.st.dim.Render(strings.Repeat("─", width)) + "\n")
	return b.String()
}

// renderMessage draws message i: a rule before all but the first, the
// envelope, the body and the parser's problems.
func renderMessage(c *common, m *model.Message, i int, fold bool, width int) string {
	var b strings.Builder
	wrap := func(s string) string { return ansi.Wrap(s, width, " -") }
	if i > 0 {
		b.WriteString("\n" + c.st.dim.Render(strings.Repeat("─", width)) + "\n")
	}
	from := termsafe.SanitizeLine(clip(m.From.String(), maxHeaderBytes))
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
		b.WriteString(c.st.warn.Render(wrap("! "+termsafe.SanitizeLine(clip(p, maxHeaderBytes)))) + "\n")
	}
	return b.String()
}

// renderAttachments lists the thread's attachments (the first
// maxShownAttachments of them).
func renderAttachments(c *common, atts []attachmentRef, width int) string {
	if len(atts) == 0 {
		return ""
	}
	var b strings.Builder
	wrap := func(s string) string { return ansi.Wrap(s, width, " -") }
	b.WriteString("\n" + c.st.header.Render("Attachments") + c.st.dim.Render("  ("+c.keys.Save.Help().Key+" to save)") + "\n")
	for i, a := range atts[:min(len(atts), maxShownAttachments)] {
		line := fmt.Sprintf("%d. %s  %s", i+1, termsafe.SanitizeLine(clip(a.att.Filename, maxHeaderBytes)),
			c.st.dim.Render(fmt.Sprintf("%s, %s", termsafe.SanitizeLine(clip(a.att.ContentType, maxHeaderBytes)), humanSize(a.att.Size))))
		b.WriteString(wrap(line) + "\n")
	}
	if more := len(atts) - maxShownAttachments; more > 0 {
		b.WriteString(c.st.dim.Render(fmt.Sprintf("… %d more attachment%s", more, plural(more))) + "\n")
	}
	return b.String()
}

// clip cuts s to at most n bytes (at a character boundary), marking the
// cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// clipLines returns the first maxLines lines of s, at most maxBytes, and
// how many lines were left out (a line cut in the middle counts).
func clipLines(s string, maxLines, maxBytes int) (string, int) {
	end, lines := 0, 0
	for end < len(s) && lines < maxLines {
		i := strings.IndexByte(s[end:], '\n')
		if i < 0 {
			end = len(s)
			break
		}
		end += i + 1
		lines++
	}
	if end > maxBytes {
		end = maxBytes
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
	}
	if end >= len(s) {
		return s, 0
	}
	rest := s[end:]
	more := strings.Count(rest, "\n")
	if !strings.HasSuffix(rest, "\n") {
		more++
	}
	return s[:end], more
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
	if d := disagreement(tr); d != "" {
		b.WriteString(wrap(c.st.warn.Render("Triage differs: "+termsafe.SanitizeLine(d))) + "\n")
	}
	// What the user's corrections changed (triage.Record: "learned: …"),
	// what the mailbox says of the sender ("familiar-sender: …": why its
	// mail is not quarantined on its words alone), and why the model was
	// not asked ("model not asked: …").
	for _, s := range tr.Signals {
		if l, ok := strings.CutPrefix(s, "learned: "); ok {
			b.WriteString(wrap(c.st.label.Render("Learned: ")+termsafe.SanitizeLine(l)) + "\n")
		}
		if l, ok := strings.CutPrefix(s, "familiar-sender: "); ok {
			b.WriteString(wrap(c.st.label.Render("Known sender: ")+termsafe.SanitizeLine(l)) + "\n")
		}
		if l, ok := strings.CutPrefix(s, "model not asked: "); ok {
			b.WriteString(wrap(c.st.dim.Render("Model not asked: "+termsafe.SanitizeLine(l))) + "\n")
		}
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

// disagreement returns what the model and the signals said when they put
// the thread in different buckets (triage.Record marks it with a
// "disagreement: model: B1 · signals: B2" signal), else "".
func disagreement(tr *store.TriageRecord) string {
	for _, s := range tr.Signals {
		if d, ok := strings.CutPrefix(s, "disagreement: "); ok {
			return d
		}
	}
	return ""
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
// Only the start of a long body is drawn (see foldedBodyLines), with a
// line counting the rest.
func renderBody(c *common, body string, fold bool, width int) string {
	var b strings.Builder
	var more int
	if fold {
		body, more = clipLines(body, foldedBodyLines, foldedBodyBytes)
	} else {
		body, more = clipLines(body, unfoldedBodyLines, unfoldedBodyBytes)
	}
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
	switch {
	case more > 0 && fold:
		b.WriteString(c.st.quote.Render(fmt.Sprintf("[… %d more line%s · z to show more]", more, plural(more))) + "\n")
	case more > 0:
		b.WriteString(c.st.quote.Render(fmt.Sprintf("[… %d more line%s not shown]", more, plural(more))) + "\n")
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// addrList joins addresses for a header line: the first maxShownAddrs,
// then how many more there are.
func addrList(as []model.Address) string {
	s := make([]string, 0, min(len(as), maxShownAddrs)+1)
	for _, a := range as[:min(len(as), maxShownAddrs)] {
		s = append(s, clip(a.String(), maxHeaderBytes))
	}
	if more := len(as) - maxShownAddrs; more > 0 {
		s = append(s, fmt.Sprintf("… %d more recipients", more))
	}
	return clip(strings.Join(s, ", "), 4*maxHeaderBytes)
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
