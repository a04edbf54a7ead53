package ui

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/termsafe"
	"mailsift/store"
)

// confirmModel is the confirm screen: the exact message of one pending
// approval. y sends it; any other key goes back and denies the approval.
type confirmModel struct {
	c  *common
	dr Drafter

	returnTo state // where the screen leaves for once y sent the message
	seq      int   // bumped whenever the screen is left: late approvals are denied
	loading  bool
	spin     spinner.Model
	a        *store.Approval
	err      error
	bcc      []string
	via      string
	sends    bool   // the transport delivers
	reason   string // why it does not
	undo     time.Duration
	// agent: the approval is one an agent asked for (ui/approvals.go);
	// going back leaves it pending for the approvals screen.
	agent bool
	// rendered keeps the message rows of the approval on screen for one
	// width: escaping and wrapping a large message is done once, not on
	// every View.
	rendered *confirmRows
	// backTo is the screen any key but y returns to (the draft review or
	// the compose screen).
	backTo state
	// exact shows the exact bytes instead of the message as read; top is
	// the first byte row shown there (it scrolls).
	exact bool
	top   int
	// read is the approval's message decoded as a mail reader shows it,
	// with its rows at one width.
	read *readView
}

// confirmRows is the rendered message of one approval at one width.
type confirmRows struct {
	message string
	width   int
	rows    []string
}

func newConfirmModel(c *common, dr Drafter) confirmModel {
	return confirmModel{c: c, dr: dr}
}

type (
	approvalMsg struct {
		seq int
		a   *store.Approval
		err error
	}
	confirmedMsg struct {
		item   *store.OutboxItem
		undo   time.Duration
		sends  bool
		reason string
		err    error
	}
	undoneMsg struct {
		id  int64
		err error
	}
	undoTickMsg    struct{ id int64 }
	confirmSpinMsg struct{ inner tea.Msg }
)

func (approvalMsg) isDraftMsg()  {}
func (confirmedMsg) isDraftMsg() {}
func (undoneMsg) isDraftMsg()    {}
func (undoTickMsg) isDraftMsg()  {}

func (confirmSpinMsg) isDraftMsg() {}

// sendable reports whether y may send: a pending approval is on screen,
// whole.
func (cv *confirmModel) sendable() bool {
	if cv.loading || cv.err != nil || cv.a == nil || cv.a.Status != store.ApprovalPending {
		return false
	}
	_, _, fits := cv.lines()
	return fits
}

// setKeys enables y while a valid approval is on screen; it runs after
// KeyMap.setState.
func (cv *confirmModel) setKeys() {
	// Every key but y, tab (and the scroll keys in the exact bytes) goes
	// back, so nothing else may intercept it.
	k := &cv.c.keys
	k.DismissError.SetEnabled(false)
	k.Send.SetEnabled(cv.sendable())
	ready := !cv.loading && cv.err == nil && cv.a != nil
	k.ConfirmView.SetEnabled(ready)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.HalfDown, &k.HalfUp} {
		b.SetEnabled(ready && cv.exact)
	}
}

// open shows the screen for draft d (saved first when save is set) and
// asks the engine for the approval of the exact message, in a command.
func (cv confirmModel) open(d store.Draft, save bool, returnTo state) (confirmModel, tea.Cmd) {
	return cv.openFrom(d, save, returnTo, stateDraft, nil)
}

// openFrom is open for a screen other than the draft review: any key but
// y goes back to backTo, and saveFn (when set) saves the draft instead of
// Drafter.SaveDraft.
func (cv confirmModel) openFrom(d store.Draft, save bool, returnTo, backTo state, saveFn func(context.Context, *store.Draft) error) (confirmModel, tea.Cmd) {
	dr := cv.dr
	via, sends, reason := dr.Delivery(d.Account)
	var bcc []string
	for _, a := range d.Bcc {
		bcc = append(bcc, a.Email)
	}
	cv = confirmModel{c: cv.c, dr: dr, returnTo: returnTo, seq: cv.seq + 1, loading: true,
		spin: spinner.New(spinner.WithSpinner(spinner.Line)),
		via:  via, sends: sends, reason: reason, undo: dr.UndoWindow(), bcc: bcc, rendered: &confirmRows{},
		backTo: backTo, read: &readView{}}
	ctx, seq := cv.c.ctx, cv.seq
	if saveFn == nil {
		saveFn = dr.SaveDraft
	}
	approve := func() tea.Msg {
		if save {
			if err := saveFn(ctx, &d); err != nil {
				return approvalMsg{seq: seq, err: fmt.Errorf("save before confirming: %w", err)}
			}
		}
		a, err := dr.Approve(ctx, d.ID, 0)
		return approvalMsg{seq: seq, a: a, err: err}
	}
	return cv, tea.Batch(approve, cv.spinTick())
}

// spinTick wraps the spinner's tick so it reaches the confirm screen.
func (cv *confirmModel) spinTick() tea.Cmd {
	tick := cv.spin.Tick
	return func() tea.Msg { return confirmSpinMsg{inner: tick()} }
}

// denyCmd records that the user went back without sending.
func denyCmd(ctx context.Context, dr Drafter, id, reason string) tea.Cmd {
	return func() tea.Msg {
		if err := dr.Deny(ctx, id, reason); err != nil && !errors.Is(err, store.ErrApprovalNotApproved) {
			return errMsg{fmt.Errorf("record the refusal: %w", err)}
		}
		return nil
	}
}

// update applies a message of the confirm screen (a key while it shows).
func (cv confirmModel) update(msg tea.Msg) (confirmModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd := cv.handleKey(msg)
		return cv, cmd
	case confirmSpinMsg:
		if !cv.loading {
			return cv, nil
		}
		var cmd tea.Cmd
		cv.spin, cmd = cv.spin.Update(msg.inner)
		if cmd == nil {
			return cv, nil
		}
		return cv, func() tea.Msg { return confirmSpinMsg{inner: cmd()} }
	case approvalMsg:
		if msg.seq != cv.seq {
			if msg.a != nil { // the user left before it arrived
				return cv, denyCmd(cv.c.ctx, cv.dr, msg.a.ID, "left the confirm screen before it was shown")
			}
			return cv, nil
		}
		cv.loading, cv.a, cv.err = false, msg.a, msg.err
	}
	return cv, nil
}

// leave is called when the root shows another screen: an approval that
// arrives later is denied.
func (cv *confirmModel) leave() { cv.seq++ }

func (cv *confirmModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &cv.c.keys
	switch {
	case key.Matches(msg, k.ConfirmView):
		cv.exact, cv.top = !cv.exact, 0
		return nil
	case key.Matches(msg, k.Down):
		cv.scroll(1)
		return nil
	case key.Matches(msg, k.Up):
		cv.scroll(-1)
		return nil
	case key.Matches(msg, k.HalfDown):
		cv.scroll(max(1, cv.c.height/2))
		return nil
	case key.Matches(msg, k.HalfUp):
		cv.scroll(-max(1, cv.c.height/2))
		return nil
	}
	if key.Matches(msg, cv.c.keys.Send) && cv.sendable() {
		a := cv.a
		cv.a, cv.seq = nil, cv.seq+1 // one y, one confirmation
		cv.c.show(cv.returnTo)
		cv.c.note = "queuing…"
		dr, ctx := cv.dr, cv.c.ctx
		undo, sends, reason := cv.undo, cv.sends, cv.reason
		return func() tea.Msg {
			item, err := dr.Confirm(ctx, a.ID)
			return confirmedMsg{item: item, undo: undo, sends: sends, reason: reason, err: err}
		}
	}
	// Any other key: back to the review, nothing sent.
	if cv.agent {
		cv.a, cv.loading, cv.seq = nil, false, cv.seq+1
		cv.c.show(cv.returnTo)
		cv.c.note = "not sent: the approval stays pending"
		return nil
	}
	a := cv.a
	cv.a, cv.loading, cv.seq = nil, false, cv.seq+1
	back := cv.backTo
	if back == stateStay || back == stateInbox {
		back = stateDraft
	}
	cv.c.show(back)
	cv.c.note = "not sent: back to the draft"
	if a != nil && a.Status == store.ApprovalPending {
		return denyCmd(cv.c.ctx, cv.dr, a.ID, "went back with "+termsafe.SanitizeLine(msg.String()))
	}
	return nil
}

// sendWindow is the undo window of the last confirmed send, which
// outlives the draft screens: u cancels the send until it ends.
type sendWindow struct {
	id    int64 // the outbox item (0: none)
	until time.Time
	note  string // the countdown note last shown
}

// open reports whether the window is open at now.
func (w sendWindow) open(now time.Time) bool { return w.id != 0 && now.Before(w.until) }

// handleSendMsg applies the results of y and u and the undo window's ticks.
func (m *Model) handleSendMsg(msg draftMsg) tea.Cmd {
	w := &m.undo
	c := m.c
	switch msg := msg.(type) {
	case confirmedMsg:
		if msg.err != nil {
			c.note = ""
			c.setError(fmt.Errorf("not sent: %w", msg.err))
			return nil
		}
		w.id, w.until = msg.item.ID, c.now().Add(msg.undo)
		if msg.undo <= 0 {
			w.id = 0
		}
		switch {
		case !msg.sends:
			c.note = termsafe.SanitizeLine(msg.reason) + "; the message stays in the outbox"
			if w.id != 0 {
				c.note += " (u to undo)"
			}
			w.note = c.note
		case w.id == 0:
			c.note = "queued: sending now"
		default:
			c.note = m.undoText()
			w.note = c.note
		}
		if w.id == 0 {
			return nil
		}
		return m.undoTick()
	case undoTickMsg:
		if msg.id != w.id {
			return nil
		}
		ours := c.note == w.note && strings.HasPrefix(c.note, "queued: sending in")
		if !c.now().Before(w.until) {
			w.id = 0
			if ours {
				c.note = "queued: sending…"
			}
			return nil
		}
		if ours {
			c.note = m.undoText()
			w.note = c.note
		}
		return m.undoTick()
	case undoneMsg:
		if msg.err != nil {
			c.setError(fmt.Errorf("undo: %w (it may have left already: see mailsift outbox)", msg.err))
			return nil
		}
		c.note = "send cancelled; the draft is open again (r to edit)"
		return storeChangedCmd()
	}
	return nil
}

// undoText is the status note during the undo window.
func (m *Model) undoText() string {
	left := m.undo.until.Sub(m.c.now())
	secs := int((left + time.Second - 1) / time.Second)
	return fmt.Sprintf("queued: sending in %d s — u to undo", secs)
}

// undoTick schedules the next look at the undo window: in a second while
// the status line counts the seconds down, else when the window ends (the
// u key turns off then), so nothing ticks that nobody sees.
func (m *Model) undoTick() tea.Cmd {
	w := m.undo
	if m.c.manualTicks {
		return nil
	}
	d := time.Second
	if m.c.note != w.note || !strings.HasPrefix(w.note, "queued: sending in") {
		d = max(w.until.Sub(m.c.now()), time.Millisecond)
	}
	id := w.id
	return tea.Tick(d, func(time.Time) tea.Msg { return undoTickMsg{id: id} })
}

// undoSend cancels the last confirmed send within its undo window.
func (m *Model) undoSend() tea.Cmd {
	w := &m.undo
	if !w.open(m.c.now()) {
		return nil
	}
	id, dr, ctx := w.id, m.opts.Drafts, m.ctx()
	w.id = 0
	m.c.note = "cancelling…"
	return func() tea.Msg { return undoneMsg{id: id, err: dr.Cancel(ctx, id)} }
}

// lines renders the confirm screen: the fixed lines, the message lines,
// and whether everything fits on the screen. Long lines wrap rather than
// being cut at the screen's edge, and fits counts the wrapped rows, so y
// is on only while every byte is on screen.
func (cv *confirmModel) lines() (head, msgLines []string, fits bool) {
	c := cv.c
	a := cv.a
	const labelW = 10
	label := func(s string) string { return c.st.label.Render(fmt.Sprintf("%-9s ", s)) }
	field := func(name string, units []string, style func(...string) string) {
		for i, row := range wrapRows(units, max(10, c.width-labelW)) {
			if style != nil {
				row = style(row)
			}
			if i == 0 {
				head = append(head, label(name)+row)
			} else {
				head = append(head, strings.Repeat(" ", labelW)+row)
			}
		}
	}
	title := c.st.header.Render("Confirm send") + c.st.dim.Render(" · the message as the recipient reads it; tab shows the exact bytes that leave")
	if cv.exact {
		title = c.st.header.Render("Confirm send") + c.st.dim.Render(" · exactly the bytes below leave, to the envelope recipients; tab: as read")
	}
	head = append(head, strings.Split(ansi.Wrap(title, max(10, c.width), ""), "\n")...)
	env := append(textUnits("MAIL FROM "), visibleUnits(a.What.EnvelopeFrom)...)
	env = append(env, textUnits(" · RCPT TO ")...)
	field("Envelope:", append(env, visibleUnits(strings.Join(a.What.Recipients, ", "))...), nil)
	if len(cv.bcc) > 0 {
		field("Bcc:", append(visibleUnits(strings.Join(cv.bcc, ", ")), textUnits(" (envelope only, not in the headers)")...), nil)
	}
	if cv.sends {
		field("Via:", textUnits(termsafe.SanitizeLine(cv.via)), nil)
	} else {
		field("Via:", textUnits(termsafe.SanitizeLine(cv.reason)+"; the message stays in the outbox"), c.st.danger.Render)
	}
	undo := "none: it leaves at once"
	if cv.undo > 0 {
		undo = cv.undo.String() + " after y (u to undo)"
	}
	field("Approval:", textUnits(fmt.Sprintf("expires %s UTC (valid %s) · undo window %s",
		a.ExpiresAt.UTC().Format("15:04:05"), a.ExpiresAt.Sub(a.CreatedAt).Round(time.Second), undo)), nil)
	hash, bound := cv.hash()
	if bound {
		field("Hash:", textUnits("sha256 "+hash[:16]+"… of the exact bytes, the same in both views (tab)"), nil)
	} else {
		field("Hash:", textUnits("sha256 "+hash[:16]+"… does NOT match the approval's; go back and confirm again"), c.st.danger.Render)
	}
	// What must be on screen for y: the message as read, whole. The exact
	// bytes (one row per CRLF-ended line, wrapped rows after ┆, every byte
	// that is not printable ASCII as a visible escape) are one key away.
	read := cv.readRows()
	// head + 2 rules + message + hint line
	fits = bound && cv.read.err == nil && len(head)+2+len(read)+1 <= c.height
	msgLines = read
	if cv.exact {
		msgLines = cv.messageRows()
	}
	return head, msgLines, fits
}

// hash is the hex SHA-256 of the message on screen, and whether it is the
// approval's: y confirms that approval, so both views show its bytes.
func (cv *confirmModel) hash() (string, bool) {
	sum := sha256.Sum256([]byte(cv.a.What.Message))
	h := hex.EncodeToString(sum[:])
	return h, cv.a.WhatHash == "" || cv.a.WhatHash == h
}

// scroll moves the exact bytes view by n rows.
func (cv *confirmModel) scroll(n int) {
	if cv.a == nil || !cv.exact {
		return
	}
	head, rows, _ := cv.lines()
	cv.top = max(0, min(cv.top+n, len(rows)-cv.byteRoom(len(head), len(rows))))
}

// byteRoom is how many rows of the exact bytes fit under head rows: the
// rules and hint take three, the scroll line one more when they overflow.
func (cv *confirmModel) byteRoom(head, rows int) int {
	room := max(1, cv.c.height-head-3)
	if rows > room {
		room = max(1, room-1)
	}
	return room
}

// messageRows renders the approval's message: one row per CRLF-ended line
// (wrapped rows go on after ┆), every byte that is not printable ASCII as a
// visible escape. The rows are kept for the message and width.
func (cv *confirmModel) messageRows() []string {
	c, a := cv.c, cv.a
	if r := cv.rendered; r != nil && r.width == c.width && r.rows != nil && r.message == a.What.Message {
		return r.rows
	}
	w := max(10, c.width-2)
	msg := a.What.Message
	unended := msg != "" && !strings.HasSuffix(msg, "\r\n")
	var rows []string
	for _, l := range strings.Split(strings.TrimSuffix(msg, "\r\n"), "\r\n") {
		for i, part := range wrapRows(visibleUnits(l), w) {
			gutter := "│ "
			if i > 0 {
				gutter = "┆ "
			}
			rows = append(rows, c.st.dim.Render(gutter)+part)
		}
	}
	if unended {
		rows = append(rows, c.st.danger.Render("▲ the message does not end with a line break (CRLF)"))
	}
	if cv.rendered != nil {
		*cv.rendered = confirmRows{message: a.What.Message, width: c.width, rows: rows}
	}
	return rows
}

// visibleUnits splits one line of an outgoing message (or an envelope
// address) into the units the confirm screen draws: printable ASCII as
// itself and every other byte as a visible escape, so that nothing acts
// on the terminal and nothing is hidden: \t, \r and \n for tab, CR and
// LF, \xHH for other ASCII controls, DEL and bytes that are not UTF-8,
// \uHHHH or \UHHHHHHHH for any other character (C1 controls, bidi
// controls, any non-ASCII: mailsift sends 7-bit messages only). A
// backslash is doubled when what follows it would read as an escape.
// The display decodes back to the exact bytes.
func visibleUnits(s string) []string {
	units := make([]string, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			u := `\`
			if i+1 < len(s) && (strings.IndexByte(`\\tnrxuU`, s[i+1]) >= 0 || s[i+1] < 0x20 || s[i+1] >= 0x7f) {
				u = `\\`
			}
			units = append(units, u)
		case c >= 0x20 && c < 0x7f:
			units = append(units, s[i:i+1])
		case c == '\t':
			units = append(units, `\t`)
		case c == '\r':
			units = append(units, `\r`)
		case c == '\n':
			units = append(units, `\n`)
		case c < utf8.RuneSelf:
			units = append(units, fmt.Sprintf(`\x%02x`, c))
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				units = append(units, fmt.Sprintf(`\x%02x`, c))
			case r <= 0xffff:
				units = append(units, fmt.Sprintf(`\u%04x`, r))
			default:
				units = append(units, fmt.Sprintf(`\U%08x`, r))
			}
			i += size
			continue
		}
		i++
	}
	return units
}

// textUnits splits mailsift's own (already safe) text into one unit per
// character.
func textUnits(s string) []string {
	units := make([]string, 0, len(s))
	for _, r := range s {
		units = append(units, string(r))
	}
	return units
}

// cellWidth is the width of a unit on screen: its length when it is
// ASCII, as units of the message always are.
func cellWidth(u string) int {
	if len(u) == 1 && u[0] < utf8.RuneSelf {
		return 1
	}
	return ansi.StringWidth(u)
}

// wrapRows joins units into rows of at most w cells, never splitting a
// unit, breaking after the row's last space where there is one. The rows
// concatenated are the units concatenated: no character is added or lost.
func wrapRows(units []string, w int) []string {
	var rows []string
	var cur []string
	width := 0
	for _, u := range units {
		uw := cellWidth(u)
		if width+uw > w && len(cur) > 0 {
			cut := len(cur)
			for k := len(cur) - 1; k > 0; k-- {
				if cur[k] == " " {
					cut = k + 1
					break
				}
			}
			rows = append(rows, strings.Join(cur[:cut], ""))
			cur = append([]string(nil), cur[cut:]...)
			width = 0
			for _, r := range cur {
				width += cellWidth(r)
			}
			if width+uw > w && len(cur) > 0 {
				rows = append(rows, strings.Join(cur, ""))
				cur, width = nil, 0
			}
		}
		cur = append(cur, u)
		width += uw
	}
	return append(rows, strings.Join(cur, ""))
}

// View draws the confirm screen.
func (cv confirmModel) View() string {
	c := cv.c
	h := c.height
	back := c.st.dim.Render("any key: back to the draft")
	switch {
	case cv.loading:
		return padLines(cv.spin.View()+" preparing the exact message…\n\n"+back, h)
	case cv.err != nil:
		return padLines(c.st.danger.Render("cannot send: "+termsafe.SanitizeLine(cv.err.Error()))+"\n\n"+back, h)
	case cv.a == nil:
		return padLines(back, h)
	}
	head, msgLines, fits := cv.lines()
	rule := func(s string) string {
		return c.st.dim.Render(s + strings.Repeat("─", max(0, c.width-ansi.StringWidth(s))))
	}
	other := " · any other key: back to the draft (nothing is sent)"
	if cv.agent {
		other = " · any other key: back to the approvals (nothing is sent; it stays pending)"
	}
	k := c.keys
	hint := c.help.ShortHelpView([]key.Binding{k.Send, k.ConfirmView}) + c.st.dim.Render(other)
	if !fits {
		hint = c.help.ShortHelpView([]key.Binding{k.ConfirmView}) + c.st.dim.Render(" · ") + back
	}
	if cv.exact {
		room := cv.byteRoom(len(head), len(msgLines))
		top := max(0, min(cv.top, len(msgLines)-room))
		end := min(len(msgLines), top+room)
		shown := msgLines[top:end]
		if room < len(msgLines) {
			shown = append(shown[:len(shown):len(shown)], c.st.dim.Render(fmt.Sprintf("rows %d–%d of %d · j/k ctrl+d/ctrl+u scroll", top+1, end, len(msgLines))))
		}
		nl := len(strings.Split(strings.TrimSuffix(cv.a.What.Message, "\r\n"), "\r\n"))
		out := strings.Join(head, "\n") + "\n" + rule(fmt.Sprintf("── message, exact bytes (%d lines, %s) ", nl, humanSize(int64(len(cv.a.What.Message))))) + "\n" +
			strings.Join(shown, "\n") + "\n" + rule("") + "\n" + hint
		return padLines(out, h)
	}
	if !fits {
		room := max(0, h-len(head)-2-2)
		hidden := len(msgLines) - room
		if hidden > 0 {
			msgLines = append(msgLines[:room:room], c.st.danger.Render(fmt.Sprintf("▼ %d more line%s not shown: make the terminal taller to send (y is off until the whole message is on screen)", hidden, plural(hidden))))
		}
	}
	out := strings.Join(head, "\n") + "\n" + rule("── message as the recipient reads it ") + "\n" +
		strings.Join(msgLines, "\n") + "\n" + rule("") + "\n" + hint
	return padLines(out, h)
}

// readView is an outgoing message decoded the way a mail reader shows
// it: header fields with encoded words decoded, the text part decoded
// from quoted-printable, attachments listed by name, type and size.
type readView struct {
	message string // the bytes it was decoded from
	headers [][2]string
	body    string
	atts    []string
	// hidden: decoding found characters the screen does not draw (controls,
	// bidi overrides); the exact bytes show them.
	hidden bool
	err    error
	// rows at width
	width int
	rows  []string
}

// readRows decodes the approval's message (once per message) and renders
// it at the current width (once per width).
func (cv *confirmModel) readRows() []string {
	c, a := cv.c, cv.a
	if cv.read == nil {
		cv.read = &readView{}
	}
	r := cv.read
	if r.message != a.What.Message || (r.rows == nil && r.message == "") {
		*r = decodeOutgoing(a.What.Message)
	}
	if r.rows != nil && r.width == c.width {
		return r.rows
	}
	const labelW = 10
	var rows []string
	if r.err != nil {
		rows = append(rows, c.st.danger.Render(termsafe.SanitizeLine("cannot decode the message: "+r.err.Error()+"; tab shows the exact bytes")))
	}
	for _, h := range r.headers {
		for i, row := range wrapRows(textUnits(h[1]), max(10, c.width-labelW)) {
			if i == 0 {
				rows = append(rows, c.st.label.Render(fmt.Sprintf("%-9s ", h[0]+":"))+row)
			} else {
				rows = append(rows, strings.Repeat(" ", labelW)+row)
			}
		}
	}
	for i, at := range r.atts {
		l := strings.Repeat(" ", labelW)
		if i == 0 {
			l = c.st.label.Render(fmt.Sprintf("%-9s ", "Attached:"))
		}
		for j, row := range wrapRows(textUnits(at), max(10, c.width-labelW)) {
			if j > 0 {
				l = strings.Repeat(" ", labelW)
			}
			rows = append(rows, l+row)
		}
	}
	if r.hidden {
		rows = append(rows, c.st.danger.Render(ansi.Truncate("! holds control or bidi characters not drawn here: tab shows every byte", max(10, c.width), "…")))
	}
	rows = append(rows, "")
	body := strings.ReplaceAll(r.body, "\t", "    ")
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		rows = append(rows, wrapRows(textUnits(l), max(10, c.width))...)
	}
	r.width, r.rows = c.width, rows
	return rows
}

// decodeOutgoing decodes a message mailsift built (BuildMessage, with or
// without attachments) with the standard library's MIME readers, not with
// the code that wrote it.
func decodeOutgoing(raw string) readView {
	rv := readView{message: raw}
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		rv.err = err
		return rv
	}
	clean := func(s string) string {
		t := termsafe.SanitizeLine(s)
		if t != strings.Join(strings.Fields(s), " ") && t != s {
			rv.hidden = true
		}
		return t
	}
	dec := new(mime.WordDecoder)
	for _, name := range []string{"Date", "From", "To", "Cc", "Subject"} {
		v := msg.Header.Get(name)
		if v == "" {
			continue
		}
		switch name {
		case "From", "To", "Cc":
			if as, err := msg.Header.AddressList(name); err == nil {
				var out []string
				for _, a := range as {
					if a.Name != "" {
						out = append(out, a.Name+" <"+a.Address+">")
					} else {
						out = append(out, a.Address)
					}
				}
				v = strings.Join(out, ", ")
			}
		case "Subject":
			if d, err := dec.DecodeHeader(v); err == nil {
				v = d
			}
		}
		rv.headers = append(rv.headers, [2]string{name, clean(v)})
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		rv.err = fmt.Errorf("Content-Type: %w", err)
		return rv
	}
	body := func(h textproto.MIMEHeader, r io.Reader) (string, error) {
		var rd io.Reader = r
		if strings.EqualFold(h.Get("Content-Transfer-Encoding"), "quoted-printable") {
			rd = quotedprintable.NewReader(r)
		}
		b, err := io.ReadAll(rd)
		if err != nil {
			return "", err
		}
		return strings.ReplaceAll(string(b), "\r\n", "\n"), nil
	}
	text := func(h textproto.MIMEHeader, r io.Reader) error {
		s, err := body(h, r)
		if err != nil {
			return err
		}
		t := termsafe.Sanitize(s)
		if t != s {
			rv.hidden = true
		}
		rv.body = t
		return nil
	}
	if !strings.HasPrefix(mt, "multipart/") {
		if err := text(textproto.MIMEHeader(msg.Header), msg.Body); err != nil {
			rv.err = err
		}
		return rv
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for i := 0; ; i++ {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			rv.err = err
			return rv
		}
		if i == 0 {
			if err := text(p.Header, p); err != nil {
				rv.err = err
				return rv
			}
			continue
		}
		pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		_, dp, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
		var src io.Reader = p
		if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "base64") {
			src = base64.NewDecoder(base64.StdEncoding, p) // line breaks are skipped
		}
		size, err := io.Copy(io.Discard, src)
		if err != nil {
			rv.err = err
			return rv
		}
		rv.atts = append(rv.atts, clean(fmt.Sprintf("%s (%s, %s)", dp["filename"], pt, humanSize(size))))
	}
	return rv
}
