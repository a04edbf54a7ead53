package ui

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"mailsift/drafts"
	"mailsift/model"
	"mailsift/store"
)

// pendingApproval returns the approval on the confirm screen.
func (e *draftEnv) toConfirm() *store.Approval {
	e.t.Helper()
	e.keys("s")
	cv := e.m.confirm
	if e.m.screen != stateConfirm || cv.a == nil {
		e.t.Fatalf("s did not show the confirm screen with an approval (err %v):\n%s", cv.err, e.view())
	}
	return cv.a
}

func TestConfirmShowsTheExactMessage(t *testing.T) {
	e := newDraftEnv(t, 120, 50, nil)
	e.replyToLunch("r")
	a := e.toConfirm()
	// The approval as stored is what the screen shows.
	stored, err := e.st.Approval(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.What.Message != a.What.Message || stored.Status != store.ApprovalPending {
		t.Fatalf("screen approval differs from the stored one, or not pending (%s)", stored.Status)
	}
	// First the message as read: decoded headers and body, the hash.
	v := e.view()
	for _, want := range []string{"as the recipient reads it", "From:     Me <me@example.com>", "To:       Dana <dana@example.com>",
		"Subject:  Re: Lunch tomorrow?", "sha256 " + stored.WhatHash[:16], "y send this message", "tab exact bytes/as read"} {
		if !strings.Contains(v, want) {
			t.Errorf("the view as read lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "│ ") {
		t.Errorf("the view as read shows raw message rows:\n%s", v)
	}
	e.keys("tab")
	v = e.view()
	if !strings.Contains(v, "sha256 "+stored.WhatHash[:16]) || !e.m.c.keys.Send.Enabled() {
		t.Errorf("the exact bytes view lacks the same hash, or y is off:\n%s", v)
	}
	lines := strings.Split(strings.TrimSuffix(stored.What.Message, "\r\n"), "\r\n")
	for _, l := range lines {
		if !strings.Contains(v, "│ "+l+"\n") && !strings.HasSuffix(v, "│ "+l) {
			t.Errorf("confirm screen lacks the message line %q", l)
		}
	}
	if got := strings.Count(v, "\n│ "); got != len(lines) {
		t.Errorf("confirm screen shows %d message lines, the message has %d:\n%s", got, len(lines), v)
	}
	for _, want := range []string{"Message-ID: <" + stored.What.MessageID + ">", "In-Reply-To: <lunch2@x>", "Subject: Re: Lunch tomorrow?",
		"RCPT TO dana@example.com", "MAIL FROM me@example.com", "(valid 15m0s)", "undo window 10s after y", "y send this message"} {
		if !strings.Contains(v, want) {
			t.Errorf("confirm screen lacks %q:\n%s", want, v)
		}
	}
}

func TestConfirmYQueuesExactlyOnce(t *testing.T) {
	e := newDraftEnv(t, 120, 50, nil)
	e.replyToLunch("r")
	a := e.toConfirm()
	e.keys("y")
	items := e.outbox()
	if len(items) != 1 {
		t.Fatalf("%d outbox items after y, want 1", len(items))
	}
	it := items[0]
	if it.State != store.OutboxQueued || string(it.Raw) != a.What.Message || it.ApprovalID != a.ID {
		t.Fatalf("queued item %+v does not carry the approved message", it)
	}
	if e.m.screen != stateThread || !strings.Contains(e.view(), "queued: sending in 10 s — u to undo") {
		t.Fatalf("after y: back to the thread with the undo note:\n%s", e.view())
	}
	// More y presses (and another s on the old screen) queue nothing new.
	e.keys("y", "y", "s", "y")
	if n := len(e.outbox()); n != 1 {
		t.Fatalf("%d outbox items after more keys, want 1", n)
	}
	if e.tr.n != 0 {
		t.Fatalf("the transport was called %d times; the undo window has not passed", e.tr.n)
	}
}

func TestUndoWithinTheWindowCancels(t *testing.T) {
	e := newDraftEnv(t, 120, 50, nil)
	e.replyToLunch("r")
	a := e.toConfirm()
	e.keys("y")
	if !e.m.c.keys.Undo.Enabled() {
		t.Fatal("u should be enabled during the undo window")
	}
	e.keys("u")
	items := e.outbox()
	if len(items) != 1 || items[0].State != store.OutboxCancelled {
		t.Fatalf("after u: %+v, want one cancelled item", items)
	}
	if !strings.Contains(e.view(), "send cancelled") {
		t.Fatalf("no cancel note:\n%s", e.view())
	}
	// The draft is open again and r resumes it.
	e.keys("r")
	if e.m.draft.d == nil || e.m.draft.d.ID != a.DraftID {
		t.Fatalf("r after undo should resume draft %s", a.DraftID)
	}
	if e.m.c.keys.Undo.Enabled() {
		t.Fatal("u still enabled after the undo")
	}
}

// otherKeys is every key a user can press on the confirm screen except y,
// tab (which switches to the exact bytes) and ctrl+c (which quits; tested
// separately).
func otherKeys() []tea.KeyMsg {
	var ks []tea.KeyMsg
	for r := rune(0x21); r < 0x7f; r++ {
		if r != 'y' {
			ks = append(ks, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
	ks = append(ks, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}, Alt: true},
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("é")}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("yy")})
	for _, t := range []tea.KeyType{tea.KeyEnter, tea.KeySpace, tea.KeyEsc, tea.KeyShiftTab, tea.KeyBackspace,
		tea.KeyDelete, tea.KeyInsert, tea.KeyUp, tea.KeyDown, tea.KeyLeft, tea.KeyRight, tea.KeyHome, tea.KeyEnd,
		tea.KeyPgUp, tea.KeyPgDown, tea.KeyCtrlUp, tea.KeyShiftDown, tea.KeyF1, tea.KeyF5, tea.KeyF12, tea.KeyCtrlAt} {
		ks = append(ks, tea.KeyMsg{Type: t})
	}
	for t := tea.KeyCtrlA; t <= tea.KeyCtrlZ; t++ {
		if t != tea.KeyCtrlC && t != tea.KeyCtrlI { // ctrl+i is tab
			ks = append(ks, tea.KeyMsg{Type: t})
		}
	}
	return ks
}

func TestConfirmEveryOtherKeyGoesBackAndSendsNothing(t *testing.T) {
	e := newDraftEnv(t, 120, 50, nil)
	e.replyToLunch("r")
	ctx := context.Background()
	for _, k := range otherKeys() {
		a := e.toConfirm()
		e.send(k)
		if e.m.screen != stateDraft {
			t.Fatalf("key %q: screen %d, want the draft review", k.String(), e.m.screen)
		}
		if n := len(e.outbox()); n != 0 {
			t.Fatalf("key %q queued %d outbox item(s)", k.String(), n)
		}
		got, err := e.st.Approval(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != store.ApprovalDenied {
			t.Fatalf("key %q left the approval %s, want denied", k.String(), got.Status)
		}
	}
	if e.tr.n != 0 {
		t.Fatalf("transport called %d times", e.tr.n)
	}
}

func TestConfirmCtrlCQuitsWithoutSending(t *testing.T) {
	e := newDraftEnv(t, 120, 50, nil)
	e.replyToLunch("r")
	e.toConfirm()
	nm, cmd := e.m.Update(keyMsg("ctrl+c"))
	e.m = nm.(Model)
	if !isQuit(cmd) {
		t.Fatal("ctrl+c on the confirm screen should quit")
	}
	if n := len(e.outbox()); n != 0 {
		t.Fatalf("ctrl+c queued %d item(s)", n)
	}
}

func TestConfirmTooSmallKeepsSendOff(t *testing.T) {
	e := newDraftEnv(t, 100, 14, nil)
	e.replyToLunch("r")
	e.toConfirm()
	if e.m.c.keys.Send.Enabled() {
		t.Fatalf("send enabled although the message does not fit:\n%s", e.view())
	}
	if !strings.Contains(e.view(), "make the terminal taller to send") {
		t.Fatalf("no explanation:\n%s", e.view())
	}
	e.keys("y")
	if n := len(e.outbox()); n != 0 || e.m.screen != stateDraft {
		t.Fatalf("y with a partly shown message: %d queued, screen %d", n, e.m.screen)
	}
}

func TestConfirmDemoSaysNothingIsSent(t *testing.T) {
	e := newDraftEnv(t, 120, 50, &drafts.NoSend{Reason: "demo mailbox: nothing is sent"})
	e.replyToLunch("r")
	e.toConfirm()
	want := "demo mailbox: nothing is sent; the message stays in the outbox"
	if !strings.Contains(e.view(), want) {
		t.Fatalf("confirm screen lacks %q:\n%s", want, e.view())
	}
	e.keys("y")
	if !strings.Contains(e.view(), want) || strings.Contains(e.view(), "sending in") {
		t.Fatalf("status after y should say %q and not pretend to send:\n%s", want, e.view())
	}
	// It waits in the outbox; the demo transport refuses it when due.
	if items := e.outbox(); len(items) != 1 || items[0].State != store.OutboxQueued {
		t.Fatalf("outbox = %+v, want one queued item", items)
	}
}

// golden masks of the values that change every run (Date, Message-ID,
// the approval's expiry clock time).
var (
	reDate    = regexp.MustCompile(`Date: [^\n│]*`)
	reMsgID   = regexp.MustCompile(`[a-z2-7]{24}\.mailsift@example\.com`)
	reExpires = regexp.MustCompile(`expires \d\d:\d\d:\d\d UTC`)
	reHash    = regexp.MustCompile(`sha256 [0-9a-f]{16}…`)
)

func maskVolatile(v string) string {
	v = reDate.ReplaceAllString(v, "Date: <date>")
	v = reMsgID.ReplaceAllString(v, "<message-id>")
	v = reHash.ReplaceAllString(v, "sha256 <hash>…")
	return reExpires.ReplaceAllString(v, "expires <time> UTC")
}

func startDraftProgram(t *testing.T) *teatest.TestModel {
	t.Helper()
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: drafts.DefaultUndoWindow,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	m := New(Options{Store: st, Account: "test", Now: clock, Principal: me, Drafts: eng})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	waitOutput(t, tm, "Not yet triaged")
	return tm
}

func TestGoldenDraftReview(t *testing.T) {
	tm := startDraftProgram(t)
	press(tm, "tab", "tab", "tab", "tab", "r") // the phishing thread: risk flags
	waitOutput(t, tm, "PHISHING thread")
	requireGolden(t, maskVolatile(finalView(t, tm)))
}

func TestGoldenConfirm(t *testing.T) {
	tm := startDraftProgram(t)
	press(tm, "G", "k", "r")
	waitOutput(t, tm, "Cites:")
	press(tm, "s")
	waitOutput(t, tm, "as the recipient reads it")
	press(tm, "tab")
	waitOutput(t, tm, "exact bytes (15 lines")
	v := finalView(t, tm)
	if !reMsgID.MatchString(v) || !reDate.MatchString(v) {
		t.Fatalf("confirm screen lacks the Message-ID or Date the mask expects:\n%s", v)
	}
	requireGolden(t, maskVolatile(v))
}

func TestGoldenConfirmAsRead(t *testing.T) {
	tm := startDraftProgram(t)
	press(tm, "G", "k", "r")
	waitOutput(t, tm, "Cites:")
	press(tm, "s")
	waitOutput(t, tm, "send this message")
	v := finalView(t, tm)
	if strings.Contains(v, "=E2=80=9C") || !strings.Contains(v, "“Lunch tomorrow?”") {
		t.Fatalf("the view as read shows quoted-printable, not the text:\n%s", v)
	}
	requireGolden(t, maskVolatile(v))
}

func TestUndoWindowEnds(t *testing.T) {
	e := newDraftEnv(t, 120, 50, nil)
	e.replyToLunch("r")
	e.toConfirm()
	e.keys("y")
	id := e.m.undo.id
	if id == 0 {
		t.Fatal("no undo pending after y")
	}
	e.m.c.now = func() time.Time { return fixedNow.Add(4 * time.Second) }
	e.send(undoTickMsg{id: id})
	if !strings.Contains(e.view(), "queued: sending in 6 s — u to undo") {
		t.Fatalf("countdown not updated:\n%s", e.view())
	}
	e.m.c.now = func() time.Time { return fixedNow.Add(10 * time.Second) }
	e.send(undoTickMsg{id: id})
	if e.m.c.keys.Undo.Enabled() || strings.Contains(e.view(), "u to undo") {
		t.Fatalf("undo still offered after the window:\n%s", e.view())
	}
	e.keys("u")
	if items := e.outbox(); len(items) != 1 || items[0].State != store.OutboxQueued {
		t.Fatalf("u after the window changed the outbox: %+v", items)
	}
}

func TestOutboxScreenListsAndCancels(t *testing.T) {
	e := newDraftEnv(t, 120, 40, nil)
	e.keys("O")
	if e.m.screen != stateOutbox || !strings.Contains(e.view(), "The outbox is empty") {
		t.Fatalf("O should show the empty outbox:\n%s", e.view())
	}
	e.keys("esc", "G", "k", "enter", "r", "s", "y")
	if n := len(e.outbox()); n != 1 {
		t.Fatalf("%d items queued", n)
	}
	e.keys("O")
	v := e.view()
	for _, want := range []string{"Outbox (1)", "> queued", "dana@example.com · Re: Lunch tomorrow?", "Audit trail",
		"draft.created", "approval.requested", "approval.approved", "outbox.queued"} {
		if !strings.Contains(v, want) {
			t.Errorf("outbox screen lacks %q:\n%s", want, v)
		}
	}
	if !e.m.c.keys.CancelSend.Enabled() {
		t.Fatal("c should be enabled on a queued item")
	}
	e.keys("c")
	if items := e.outbox(); items[0].State != store.OutboxCancelled {
		t.Fatalf("c left the item %s", items[0].State)
	}
	v = e.view()
	if !strings.Contains(v, "> cancelled") || !strings.Contains(v, "outbox.cancelled") || e.m.c.keys.CancelSend.Enabled() {
		t.Fatalf("after c: cancelled item, its audit event, and c off:\n%s", v)
	}
	e.keys("esc")
	if e.m.screen != stateThread {
		t.Fatalf("esc from the outbox returns to the thread; screen %d", e.m.screen)
	}
}

// unescapeConfirm decodes the visible escapes of the confirm screen: \\,
// \t, \r, \n, \xHH (one byte), \uHHHH and \UHHHHHHHH (a character in
// UTF-8); any other backslash is itself.
func unescapeConfirm(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		hex := func(n int) uint64 {
			if i+2+n > len(s) {
				t.Fatalf("escape %q cut short", s[i:])
			}
			v, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
			if err != nil {
				t.Fatalf("bad escape %q: %v", s[i:i+2+n], err)
			}
			return v
		}
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'n':
			b.WriteByte('\n')
		case 'x':
			b.WriteByte(byte(hex(2)))
			i += 2
		case 'u':
			b.WriteRune(rune(hex(4)))
			i += 4
		case 'U':
			b.WriteRune(rune(hex(8)))
			i += 8
		default:
			b.WriteByte('\\')
			i++
			continue
		}
		i += 2
	}
	return b.String()
}

// shownMessage returns the message bytes the confirm view shows: its "│ "
// rows, each continued by the "┆ " rows after it, escapes decoded, each
// line ended with CRLF.
func shownMessage(t *testing.T, v string) string {
	t.Helper()
	var lines []string
	for _, row := range strings.Split(v, "\n") {
		switch {
		case strings.HasPrefix(row, "│ "):
			lines = append(lines, strings.TrimPrefix(row, "│ "))
		case strings.HasPrefix(row, "┆ "):
			if len(lines) == 0 {
				t.Fatalf("continuation row before any line:\n%s", v)
			}
			lines[len(lines)-1] += strings.TrimPrefix(row, "┆ ")
		}
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(unescapeConfirm(t, l) + "\r\n")
	}
	return b.String()
}

// shownHeadField returns the text of a head field of the confirm view
// ("Envelope:", "Bcc:"): its row and the indented rows that continue it,
// escapes decoded.
func shownHeadField(t *testing.T, v, label string) string {
	t.Helper()
	rows := strings.Split(v, "\n")
	for i, row := range rows {
		if !strings.HasPrefix(row, label) {
			continue
		}
		s := strings.TrimLeft(strings.TrimPrefix(row, label), " ")
		for _, r := range rows[i+1:] {
			if !strings.HasPrefix(r, strings.Repeat(" ", 10)) {
				break
			}
			s += r[10:]
		}
		return unescapeConfirm(t, s)
	}
	return ""
}

// checkScreenSafe fails when the view holds a control character, a bidi
// or other format character, invalid UTF-8, or a row wider than w.
func checkScreenSafe(t *testing.T, v string, w int) {
	t.Helper()
	if !utf8.ValidString(v) {
		t.Errorf("the view is not valid UTF-8")
	}
	for _, r := range v {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			t.Errorf("the view holds the raw character %U", r)
		}
	}
	for _, row := range strings.Split(v, "\n") {
		if n := ansi.StringWidth(row); n > w {
			t.Errorf("row of %d cells on a %d-cell screen: %q", n, w, row)
		}
	}
}

// hostileReply turns the draft on screen into what a hostile thread can
// make of a reply: ids with C1, OSC, bidi and raw 8-bit bytes, a 3,000-byte
// References id and 100 more, U+202E in names and subject, escape
// sequences in the body, and 40 Bcc recipients.
func hostileReply(e *draftEnv) {
	d := e.m.draft.d
	d.To = append(d.To, model.Address{Name: "Eve\u202e\u0085 \x1b]52;c;eA==\x07", Email: "eve@example.com"})
	for i := range 40 {
		d.Bcc = append(d.Bcc, model.Address{Email: fmt.Sprintf("bcc%02d@example.com", i)})
	}
	d.Subject = "Re: \u202elunch\x1b[2J " + strings.Repeat("y", 300)
	d.Body = "Hi\x1b]0;pwned\x07 there\n\u009b31m red \u202e\n\ttabbed \\x41 back\\slash \\\n" + strings.Repeat("long ", 100) + "\n"
	d.InReplyTo = "a\u009db@evil.example"
	d.References = []string{"root@example.com", "a\u009db@evil.example", "a\x9db@evil.example", "a\u202eb@evil.example",
		strings.Repeat("x", 3000) + "@evil.example"}
	for i := range 100 {
		d.References = append(d.References, fmt.Sprintf("r%03d@example.com", i))
	}
	e.m.draft.dirty = true
}

func TestConfirmHostileDraftShowsExactBytes(t *testing.T) {
	const w = 80
	e := newDraftEnv(t, w, 400, nil)
	e.replyToLunch("r")
	hostileReply(e)
	a := e.toConfirm()
	checkScreenSafe(t, e.view(), w)
	if !strings.Contains(e.view(), "not drawn here: tab shows every byte") {
		t.Errorf("the view as read does not say it hides characters:\n%s", e.view())
	}
	e.keys("tab")
	v := e.view()
	checkScreenSafe(t, v, w)
	if got := shownMessage(t, v); got != a.What.Message {
		t.Fatalf("the confirm screen shows other bytes than are sent:\nshown %q\nsent  %q", got, a.What.Message)
	}
	env := shownHeadField(t, v, "Envelope:")
	if want := "MAIL FROM " + a.What.EnvelopeFrom + " · RCPT TO " + strings.Join(a.What.Recipients, ", "); env != want {
		t.Errorf("Envelope shows %q, want %q", env, want)
	}
	if bcc := shownHeadField(t, v, "Bcc:"); !strings.Contains(bcc, "bcc39@example.com") {
		t.Errorf("Bcc shows %q, want all 40 addresses", bcc)
	}
	if !e.m.c.keys.Send.Enabled() {
		t.Fatalf("y off although the whole message fits:\n%s", v)
	}
}

func TestConfirmShowsControlBytesAsEscapes(t *testing.T) {
	const w = 60
	e := newDraftEnv(t, w, 400, nil)
	e.replyToLunch("r")
	a := e.toConfirm()
	e.keys("tab")
	// What an approval from another surface, or a future encoder bug, could
	// hold: every byte must still be shown, none may act on the terminal.
	a.What.Message = "Subject: a\x9db \u009dc\u202ed\x1b]52;c;eA==\x07e\x7f\xff\xfe \\x41 \\\\ \\\x1b end\\\r\n" +
		"X-Bare: CR\rhere LF\nthere\ttab\U000e0001\r\n\r\n" + strings.Repeat("0123456789", 30) + "\r\n\r\n"
	v := e.view()
	checkScreenSafe(t, v, w)
	if got := shownMessage(t, v); got != a.What.Message {
		t.Fatalf("shown %q\nwant  %q", got, a.What.Message)
	}
	for _, want := range []string{`\x9d`, `\u009d`, `\u202e`, `\x1b]52;c;eA==\x07`, `\x7f`, `\xff\xfe`, `\r`, `\n`, `\t`, `\U000e0001`} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks the visible escape %q:\n%s", want, v)
		}
	}
}

func TestConfirmFitsCountsWrappedLines(t *testing.T) {
	const w = 60
	sendable := 0
	for h := 20; h <= 120; h += 4 {
		e := newDraftEnv(t, w, h, nil)
		e.replyToLunch("r")
		hostileReply(e)
		a := e.toConfirm()
		v := e.view()
		checkScreenSafe(t, v, w)
		if n := strings.Count(v, "\n") + 1; n > h {
			t.Errorf("height %d: the view has %d rows", h, n)
		}
		if !e.m.c.keys.Send.Enabled() {
			continue
		}
		sendable++
		if !strings.Contains(v, "long long") || !strings.Contains(v, "Subject:") || strings.Contains(v, "more line") {
			t.Errorf("height %d: y is on but the screen does not show the whole message as read:\n%s", h, v)
		}
		if bcc := shownHeadField(t, v, "Bcc:"); !strings.Contains(bcc, "bcc39@example.com") {
			t.Errorf("height %d: y is on but Bcc shows only %q", h, bcc)
		}
		// The exact bytes are one key away, scrolled a screen at a time.
		e.keys("tab")
		rows := e.m.confirm.messageRows()
		if !strings.Contains(e.view(), rows[0]) {
			t.Errorf("height %d: the exact bytes view does not start at the first row %q:\n%s", h, rows[0], e.view())
		}
		reached := false
		for range 200 {
			if strings.Contains(e.view(), rows[len(rows)-1]) {
				reached = true
				break
			}
			e.keys("ctrl+d")
		}
		if !reached {
			t.Errorf("height %d: ctrl+d never reached the last row of the exact bytes", h)
		}
		if got := e.m.confirm.a.What.Message; got != a.What.Message {
			t.Errorf("height %d: the approval changed while scrolling", h)
		}
		if !e.m.c.keys.Send.Enabled() || e.m.screen != stateConfirm {
			t.Errorf("height %d: scrolling the exact bytes turned y off or left the screen", h)
		}
	}
	if sendable == 0 {
		t.Errorf("y was never on, not even at 120 rows")
	}
}
