package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/termsafe"
	"mailsift/model"
	"mailsift/store"
)

// pageSize is how many rows one store page holds.
const pageSize = 64

// maxPages bounds the page cache; beyond it, pages away from the window
// are dropped.
const maxPages = 48

// allSections is the display order (store.Sections).
var allSections = append(store.Sections(), store.SectionWaiting)

// sectionTitle names a section for its header.
func sectionTitle(s store.Section) string {
	switch s {
	case store.SectionUrgent:
		return "Urgent"
	case store.SectionActionable:
		return "Actionable"
	case store.SectionInformational:
		return "Informational"
	case store.SectionLowPriority:
		return "Low priority"
	case store.SectionQuarantine:
		return "Spam & phishing"
	case store.SectionUntriaged:
		return "Not yet triaged"
	case store.SectionWaiting:
		return "Waiting for reply"
	}
	return string(s)
}

type pageKey struct {
	sec  int // index into allSections
	page int
}

// inbox is the virtual list of sections: only the visible rows are
// rendered, and only the pages around them are loaded from the store.
// The cursor is tracked by thread ID so that background reloads (triage
// moving threads between sections) keep it on the same thread.
type inbox struct {
	c    *common
	b    Backend
	acts actions

	counts []int // per allSections index
	loaded bool
	cache  map[pageKey][]store.ThreadSummary
	// loading marks pages requested and not yet arrived, per cache generation.
	loading map[pageKey]bool
	gen     int // cache generation; bumped when the cache is replaced

	cursorSec, cursorIdx int
	cursorID             int64
	top                  int // first visible layout row
	height               int // visible rows
	navSeq               int // bumped on every cursor move, to spot stale reloads

	sel      selection      // the multi-selection (ui/bulk.go)
	hideSeq  int            // bumped by hide: reloads requested before are stale
	returned map[int64]bool // threads back from a snooze, not opened since
}

func newInbox(c *common, b Backend, acts actions) inbox {
	return inbox{
		c:       c,
		b:       b,
		acts:    acts,
		counts:  make([]int, len(allSections)),
		cache:   map[pageKey][]store.ThreadSummary{},
		loading: map[pageKey]bool{},
		height:  20,
	}
}

// shown reports whether a section is drawn: the four buckets always,
// quarantine and "not yet triaged" when not empty.
func shown(counts []int, sec int) bool {
	return sec < 4 || counts[sec] > 0
}

// layout is the row arithmetic of the virtual list: each shown section
// is a header row followed by its threads, with a blank row between
// sections.
type layout struct{ counts []int }

// start returns the layout row of section sec's header.
func (l layout) start(sec int) int {
	r := 0
	for i := 0; i < sec; i++ {
		if shown(l.counts, i) {
			r += 1 + l.counts[i] + 1
		}
	}
	return r
}

// total returns the number of layout rows.
func (l layout) total() int {
	r := l.start(len(l.counts))
	if r > 0 {
		r-- // no blank row after the last section
	}
	return r
}

// rowKind is what a layout row shows.
type rowKind int

const (
	rowBlank rowKind = iota
	rowHeader
	rowThread
)

// at maps a layout row to its section and kind (and thread index).
func (l layout) at(row int) (sec int, kind rowKind, idx int) {
	r := 0
	for i := range l.counts {
		if !shown(l.counts, i) {
			continue
		}
		if row == r {
			return i, rowHeader, 0
		}
		if row <= r+l.counts[i] {
			return i, rowThread, row - r - 1
		}
		r += 1 + l.counts[i]
		if row == r {
			return i, rowBlank, 0
		}
		r++
	}
	return -1, rowBlank, 0
}

func (in *inbox) lay() layout { return layout{counts: in.counts} }

// cursorRow returns the layout row of the cursor.
func (in *inbox) cursorRow() int { return in.lay().start(in.cursorSec) + 1 + in.cursorIdx }

// hasThreads reports whether any section has threads.
func (in *inbox) hasThreads() bool {
	for _, n := range in.counts {
		if n > 0 {
			return true
		}
	}
	return false
}

// summaryAt returns the cached row of a section, if loaded.
func (in *inbox) summaryAt(sec, idx int) (store.ThreadSummary, bool) {
	p, ok := in.cache[pageKey{sec, idx / pageSize}]
	if !ok || idx%pageSize >= len(p) {
		return store.ThreadSummary{}, false
	}
	return p[idx%pageSize], true
}

// current returns the thread under the cursor, if loaded.
func (in *inbox) current() (store.ThreadSummary, bool) {
	if in.counts[in.cursorSec] == 0 {
		return store.ThreadSummary{}, false
	}
	return in.summaryAt(in.cursorSec, in.cursorIdx)
}

// setCursor moves the cursor to a thread row, clamps it, scrolls, and
// records the thread ID when its page is loaded.
func (in *inbox) setCursor(sec, idx int) {
	if sec < 0 || sec >= len(in.counts) || in.counts[sec] == 0 {
		return
	}
	idx = max(0, min(idx, in.counts[sec]-1))
	in.cursorSec, in.cursorIdx = sec, idx
	in.navSeq++
	in.cursorID = 0
	if ts, ok := in.summaryAt(sec, idx); ok {
		in.cursorID = ts.ID
	}
	in.scroll()
}

// scroll keeps the cursor row visible, showing its section header when
// the cursor is on the first thread.
func (in *inbox) scroll() {
	row := in.cursorRow()
	h := max(1, in.height)
	if in.cursorIdx == 0 && row-1 < in.top {
		in.top = row - 1
	}
	if row < in.top {
		in.top = row
	}
	if row >= in.top+h {
		in.top = row - h + 1
	}
	in.top = max(0, min(in.top, in.lay().total()-h))
	if in.top > row {
		in.top = row
	}
}

// move moves the cursor by delta threads, across section boundaries.
func (in *inbox) move(delta int) {
	sec, idx := in.cursorSec, in.cursorIdx+delta
	for idx < 0 {
		p := prevNonEmpty(in.counts, sec)
		if p < 0 {
			idx = 0
			break
		}
		sec = p
		idx += in.counts[sec]
	}
	for idx >= in.counts[sec] {
		n := nextNonEmpty(in.counts, sec)
		if n < 0 {
			idx = in.counts[sec] - 1
			break
		}
		idx -= in.counts[sec]
		sec = n
	}
	in.setCursor(sec, idx)
}

func nextNonEmpty(counts []int, sec int) int {
	for i := sec + 1; i < len(counts); i++ {
		if counts[i] > 0 {
			return i
		}
	}
	return -1
}

func prevNonEmpty(counts []int, sec int) int {
	for i := sec - 1; i >= 0; i-- {
		if counts[i] > 0 {
			return i
		}
	}
	return -1
}

func (in *inbox) first() {
	if s := nextNonEmpty(in.counts, -1); s >= 0 {
		in.setCursor(s, 0)
	}
}

func (in *inbox) last() {
	if s := prevNonEmpty(in.counts, len(in.counts)); s >= 0 {
		in.setCursor(s, in.counts[s]-1)
	}
}

// nextSection jumps to the first thread of the next (dir 1) or previous
// (dir -1) non-empty section, wrapping around.
func (in *inbox) nextSection(dir int) {
	n := len(in.counts)
	for k := 1; k <= n; k++ {
		s := ((in.cursorSec+dir*k)%n + n) % n
		if in.counts[s] > 0 {
			in.setCursor(s, 0)
			return
		}
	}
}

// visiblePages lists the pages the window (plus one screen either side,
// so paging never shows placeholders for long) needs.
func visiblePages(l layout, top, height int) []pageKey {
	seen := map[pageKey]bool{}
	var out []pageKey
	lo, hi := max(0, top-height), top+2*height
	total := l.total()
	for r := lo; r < hi && r < total; r++ {
		sec, kind, idx := l.at(r)
		if kind != rowThread {
			continue
		}
		k := pageKey{sec, idx / pageSize}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// missingPages returns the pages the window needs that are neither
// cached nor already requested, and marks them requested.
func (in *inbox) missingPages() []pageKey {
	var out []pageKey
	for _, k := range visiblePages(in.lay(), in.top, in.height) {
		if _, ok := in.cache[k]; ok || in.loading[k] {
			continue
		}
		in.loading[k] = true
		out = append(out, k)
	}
	return out
}

// evict drops pages far from the window when the cache is full.
func (in *inbox) evict() {
	if len(in.cache) <= maxPages {
		return
	}
	keep := map[pageKey]bool{}
	for _, k := range visiblePages(in.lay(), in.top, in.height) {
		keep[k] = true
	}
	for k := range in.cache {
		if !keep[k] {
			delete(in.cache, k)
		}
	}
}

// pagesLoadedMsg carries pages requested by loadPagesCmd.
type pagesLoadedMsg struct {
	gen   int
	pages map[pageKey][]store.ThreadSummary
	err   error
}

// loadPagesCmd loads pages of sections from the store.
func loadPagesCmd(ctx context.Context, b Backend, gen int, keys []pageKey) tea.Cmd {
	return func() tea.Msg {
		pages, err := fetchPages(ctx, b, keys)
		return pagesLoadedMsg{gen: gen, pages: pages, err: err}
	}
}

func fetchPages(ctx context.Context, b Backend, keys []pageKey) (map[pageKey][]store.ThreadSummary, error) {
	pages := make(map[pageKey][]store.ThreadSummary, len(keys))
	for _, k := range keys {
		rows, err := b.ListThreads(ctx, allSections[k.sec], k.page*pageSize, pageSize)
		if err != nil {
			return pages, fmt.Errorf("load %s: %w", sectionTitle(allSections[k.sec]), err)
		}
		pages[k] = rows
	}
	return pages, nil
}

// inboxReloadedMsg is a fresh snapshot of the inbox: counts, where the
// cursor's thread is now, and the pages of the window around it.
type inboxReloadedMsg struct {
	navSeq    int
	counts    []int
	cursorSec int
	cursorIdx int
	cursorID  int64
	top       int
	pages     map[pageKey][]store.ThreadSummary
	err       error
	hideSeq   int // the inbox's hideSeq when the reload was requested
}

// reloadReq is what reloadCmd needs, copied from the model.
type reloadReq struct {
	navSeq               int
	cursorID             int64
	cursorSec, cursorIdx int
	screenOff, height    int
	hideSeq              int
}

// reloadCmd reloads counts, re-resolves the cursor's thread (which may
// have moved to another section) and loads the window around it.
func reloadCmd(ctx context.Context, b Backend, req reloadReq) tea.Cmd {
	return func() tea.Msg {
		msg := inboxReloadedMsg{navSeq: req.navSeq, cursorSec: req.cursorSec, cursorIdx: req.cursorIdx, cursorID: req.cursorID, hideSeq: req.hideSeq}
		cm, err := b.SectionCounts(ctx)
		if err != nil {
			msg.err = fmt.Errorf("load inbox: %w", err)
			return msg
		}
		msg.counts = make([]int, len(allSections))
		for i, s := range allSections {
			msg.counts[i] = cm[s]
		}
		if req.cursorID != 0 {
			if sec, idx, ok := locate(ctx, b, req.cursorID, req.cursorSec, req.cursorIdx); ok {
				msg.cursorSec, msg.cursorIdx = sec, idx
			}
		}
		// Clamp onto an existing thread (the old one may be gone).
		in := inbox{counts: msg.counts, height: max(1, req.height)}
		if msg.counts[msg.cursorSec] == 0 {
			if s := nextNonEmpty(msg.counts, msg.cursorSec); s >= 0 {
				msg.cursorSec, msg.cursorIdx = s, 0
			} else if s := prevNonEmpty(msg.counts, msg.cursorSec); s >= 0 {
				msg.cursorSec, msg.cursorIdx = s, msg.counts[s]-1
			}
		}
		if msg.counts[msg.cursorSec] > 0 {
			msg.cursorIdx = max(0, min(msg.cursorIdx, msg.counts[msg.cursorSec]-1))
		} else {
			msg.cursorIdx = 0
		}
		in.cursorSec, in.cursorIdx = msg.cursorSec, msg.cursorIdx
		in.top = in.cursorRow() - req.screenOff
		in.scroll()
		msg.top = in.top
		msg.pages, msg.err = fetchPages(ctx, b, visiblePages(in.lay(), in.top, in.height))
		if msg.cursorID == 0 {
			if ts, ok := (&inbox{counts: msg.counts, cache: msg.pages}).summaryAt(msg.cursorSec, msg.cursorIdx); ok {
				msg.cursorID = ts.ID
			}
		}
		return msg
	}
}

// locate finds a thread's section and index: it looks near the old
// position, then searches the thread's section.
func locate(ctx context.Context, b Backend, id int64, oldSec, oldIdx int) (sec, idx int, ok bool) {
	ts, err := b.ThreadSummaryByID(ctx, id)
	if err != nil {
		return 0, 0, false
	}
	sec = sectionIndex(ts.Section)
	if sec < 0 {
		return 0, 0, false
	}
	find := func(off, limit int) (int, bool) {
		rows, err := b.ListThreads(ctx, ts.Section, off, limit)
		if err != nil {
			return 0, false
		}
		for i, r := range rows {
			if r.ID == id {
				return off + i, true
			}
		}
		return 0, false
	}
	if sec == oldSec {
		if i, ok := find(max(0, oldIdx-pageSize), 2*pageSize+1); ok {
			return sec, i, true
		}
	}
	// Binary search on the section's order (latest DESC, id DESC): a
	// logarithmic number of one-row pages.
	lo, hi := 0, count(ctx, b, ts.Section)
	for lo < hi {
		mid := (lo + hi) / 2
		rows, err := b.ListThreads(ctx, ts.Section, mid, 1)
		if err != nil || len(rows) == 0 {
			return 0, 0, false
		}
		r := rows[0]
		if r.ID == id {
			return sec, mid, true
		}
		if r.Latest.After(ts.Latest) || (r.Latest.Equal(ts.Latest) && r.ID > id) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return 0, 0, false
}

// count returns the number of threads in a section (0 on error).
func count(ctx context.Context, b Backend, sec store.Section) int {
	cm, err := b.SectionCounts(ctx)
	if err != nil {
		return 0
	}
	return cm[sec]
}

func sectionIndex(s store.Section) int {
	for i, x := range allSections {
		if x == s {
			return i
		}
	}
	return -1
}

// applyReload installs a snapshot. When the user moved the cursor while
// it was loading, the counts and pages are taken but the cursor stays
// where the user put it.
func (in *inbox) applyReload(msg inboxReloadedMsg) {
	in.counts = msg.counts
	in.gen++
	in.cache = msg.pages
	if in.cache == nil {
		in.cache = map[pageKey][]store.ThreadSummary{}
	}
	in.loading = map[pageKey]bool{}
	in.loaded = true
	if msg.navSeq == in.navSeq {
		in.cursorSec, in.cursorIdx, in.cursorID, in.top = msg.cursorSec, msg.cursorIdx, msg.cursorID, msg.top
		in.scroll()
		return
	}
	sec, idx := in.cursorSec, in.cursorIdx
	if in.counts[sec] == 0 {
		if s := nextNonEmpty(in.counts, sec); s >= 0 {
			sec, idx = s, 0
		} else if s := prevNonEmpty(in.counts, sec); s >= 0 {
			sec, idx = s, 0
		}
	}
	if in.counts[sec] > 0 {
		in.setCursor(sec, idx)
	}
}

// applyPages installs loaded pages of the current cache generation.
func (in *inbox) applyPages(msg pagesLoadedMsg) {
	if msg.gen != in.gen {
		return
	}
	for k, p := range msg.pages {
		in.cache[k] = p
		delete(in.loading, k)
	}
	if in.cursorID == 0 {
		if ts, ok := in.current(); ok {
			in.cursorID = ts.ID
		}
	}
	in.evict()
}

// view renders the visible rows.
// update applies a message of the inbox screen (a key while it shows).
func (in inbox) update(msg tea.Msg) (inbox, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd = in.handleKey(msg)
	case pagesLoadedMsg:
		if err := quiet(msg.err); err != nil {
			in.c.setError(err)
		}
		in.applyPages(msg)
		cmd = in.loadMissing()
	}
	return in, cmd
}

func (in *inbox) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &in.c.keys
	half := max(1, in.height/2)
	switch {
	case key.Matches(msg, k.Down):
		in.move(1)
	case key.Matches(msg, k.Up):
		in.move(-1)
	case key.Matches(msg, k.HalfDown):
		in.move(half)
	case key.Matches(msg, k.HalfUp):
		in.move(-half)
	case key.Matches(msg, k.Top):
		in.first()
	case key.Matches(msg, k.Bottom):
		in.last()
	case key.Matches(msg, k.NextSection):
		in.nextSection(1)
	case key.Matches(msg, k.PrevSection):
		in.nextSection(-1)
	case key.Matches(msg, k.Open):
		if ts, ok := in.current(); ok {
			in.c.open(ts.ID)
		}
		return nil
	default:
		if cmd, ok := in.handleSelectKey(msg); ok {
			return cmd
		}
		if in.sel.count() > 0 {
			return in.acts.bulkKey(msg, in.sel.list(), in.anyUnreadSelected())
		}
		ts, ok := in.current()
		if !ok {
			if key.Matches(msg, in.c.keys.UndoAction) {
				return in.acts.threadKey(msg, 0, false)
			}
			return nil
		}
		return in.acts.threadKey(msg, ts.ID, ts.Unread > 0)
	}
	return in.loadMissing()
}

// loadMissing requests the pages the window needs.
func (in *inbox) loadMissing() tea.Cmd {
	if !in.loaded {
		return nil
	}
	keys := in.missingPages()
	if len(keys) == 0 {
		return nil
	}
	return loadPagesCmd(in.c.ctx, in.b, in.gen, keys)
}

// View draws the visible rows of the sections.
func (in inbox) View() string {
	c, width := in.c, in.c.width
	if !in.loaded {
		return padLines(c.st.dim.Render("loading…"), in.height)
	}
	l := in.lay()
	total := l.total()
	lines := make([]string, 0, in.height)
	for r := in.top; r < in.top+in.height && r < total; r++ {
		sec, kind, idx := l.at(r)
		switch kind {
		case rowBlank:
			lines = append(lines, "")
		case rowHeader:
			title := c.st.section.Render(sectionTitle(allSections[sec]))
			head := title + " " + c.st.sectionCount.Render(fmt.Sprintf("(%d)", in.counts[sec]))
			if sec == in.cursorSec && in.sel.count() > 0 {
				head += " " + c.st.badge.Render(fmt.Sprintf("[%d selected · esc clears]", in.sel.count()))
			}
			lines = append(lines, head)
		case rowThread:
			sel := sec == in.cursorSec && idx == in.cursorIdx
			ts, ok := in.summaryAt(sec, idx)
			lines = append(lines, in.row(ts, ok, sel, width, in.sel.ids[ts.ID], in.returned[ts.ID]))
		}
	}
	if !in.hasThreads() {
		lines = append(lines, "", c.st.dim.Render("No mail yet. Sync runs in the background."))
	}
	return padLines(strings.Join(lines, "\n"), in.height)
}

// Column widths of an inbox row.
const (
	senderWidth = 20
	ageWidth    = 6
)

// rowMarks returns a row's cursor mark and unread mark (the columns every
// list of threads or messages starts with).
func rowMarks(selected, unread bool) (mark, unreadMark string) {
	mark, unreadMark = "  ", "  "
	if selected {
		mark = "> "
	}
	if unread {
		unreadMark = "* "
	}
	return mark, unreadMark
}

// senderLabel is a row's sender: the display name, else the address,
// made safe for one terminal line.
func senderLabel(a model.Address) string {
	if s := termsafe.SanitizeLine(clip(a.Name, maxHeaderBytes)); s != "" {
		return s
	}
	return termsafe.SanitizeLine(clip(a.Email, maxHeaderBytes))
}

// renderRow draws one thread row: cursor mark (with + when picked for a
// bulk action), unread mark, sender, subject, badges (back from snooze
// first), message count and age.
func renderRow(c *common, ts store.ThreadSummary, ok, sel bool, width int, picked, back bool) string {
	mark, unread := rowMarks(sel, ts.Unread > 0)
	if picked {
		mark = mark[:1] + "+"
	}
	if !ok {
		return mark + c.st.dim.Render("…")
	}
	sender := fit(senderLabel(ts.From), senderWidth)
	count := ""
	if ts.Count > 1 {
		count = fmt.Sprintf(" (%d)", ts.Count)
	}
	age := fmt.Sprintf("%*s", ageWidth, relAge(c.now(), ts.Latest))
	badges := badgeText(ts)
	if back {
		badges = "[back from snooze]" + badges
	}
	subject := termsafe.SanitizeLine(clip(ts.Subject, maxHeaderBytes)) // a row never shows more
	if subject == "" {
		subject = "(no subject)"
	}
	fixed := len(mark) + len(unread) + senderWidth + 1 + 1 + ansi.StringWidth(count) + ageWidth
	avail := width - fixed
	if badges != "" {
		bw := ansi.StringWidth(badges) + 1
		if avail-bw < 12 {
			badges = ""
		} else {
			avail -= bw
		}
	}
	subject = fit(subject, max(1, avail))
	st := c.st.row
	if ts.Unread > 0 {
		st = c.st.unread
	}
	line := mark + unread + st.Render(sender) + " " + st.Render(subject)
	if badges != "" {
		line += " " + c.st.badge.Render(badges)
	}
	line += c.st.dim.Render(count) + " " + c.st.dim.Render(age)
	if sel {
		line = c.st.cursor.Render(line)
	}
	return line
}

// fit truncates s to w cells and pads it to exactly w.
func fit(s string, w int) string {
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// badgeText lists a row's badges in brackets, so they read without colour.
func badgeText(ts store.ThreadSummary) string {
	var b []string
	if tr := ts.Triage; tr != nil {
		if tr.Result.IsPhishing {
			b = append(b, "[phishing]")
		}
		if tr.Result.IsSpam {
			b = append(b, "[spam]")
		}
		if n := len(tr.Result.ActionItems); n == 1 {
			b = append(b, "[1 action]")
		} else if n > 1 {
			b = append(b, fmt.Sprintf("[%d actions]", n))
		}
		if ts.Scheduling == "" && isScheduling(tr) {
			b = append(b, "[scheduling]")
		}
		// Offline triage is said once, in the status bar; a row is marked
		// only when the model answered and its answer was rejected.
		if isFallback(tr) {
			b = append(b, "[fallback triage]")
		}
	}
	if ts.Scheduling != "" {
		b = append(b, "[meeting: "+meetingBadge(ts.Scheduling)+"]")
	}
	if ts.Override != "" {
		b = append(b, "[override]")
	}
	return strings.Join(b, "")
}

// isFallback reports a deterministic triage that replaced a rejected model
// answer (triage.Record marks it with a "fallback: REASON" signal).
func isFallback(tr *store.TriageRecord) bool {
	for _, s := range tr.Signals {
		if strings.HasPrefix(s, "fallback: ") {
			return true
		}
	}
	return false
}

// isScheduling reports whether triage saw a meeting-scheduling thread.
func isScheduling(tr *store.TriageRecord) bool {
	if strings.Contains(strings.ToLower(tr.Intent), "schedul") || strings.Contains(strings.ToLower(tr.Intent), "meeting") {
		return true
	}
	for _, s := range tr.Signals {
		if strings.HasPrefix(strings.ToLower(s), "scheduling") || strings.HasPrefix(strings.ToLower(s), "meeting") {
			return true
		}
	}
	return false
}

// relAge renders the age of t relative to now in at most ageWidth cells:
// "now", "5m", "3h", "2d", "Nov 02" (month and day) within the year, else
// "Nov'24" (month and year).
func relAge(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	case t.Year() == now.Year():
		return t.Format("Jan 02")
	default:
		return t.Format("Jan'06")
	}
}

// padLines pads s with empty lines to exactly n lines (cutting extra ones).
func padLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// quiet turns a cancelled request into no error.
func quiet(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// meetingBadge shortens a meeting's event status for the inbox row.
func meetingBadge(status string) string {
	switch status {
	case store.BadgeNeedsAnswer:
		return "answer"
	case "Complete/scheduled":
		return "scheduled"
	case "Complete/cancelled":
		return "cancelled"
	case "Coordination in progress/all_confirmed":
		return "all confirmed"
	case "Coordination in progress/reaching_out":
		return "to invite"
	case "Coordination in progress/collecting_responses", "Coordination in progress/getting_alternatives":
		return "waiting"
	}
	if strings.HasPrefix(status, "Waiting for decision") {
		return "decide"
	}
	return "scheduling"
}
