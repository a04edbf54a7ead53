package ui

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"mailsift/drafts"
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
	v := e.view()
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

// otherKeys is every key a user can press on the confirm screen except y
// (and ctrl+c, which quits; tested separately).
func otherKeys() []tea.KeyMsg {
	var ks []tea.KeyMsg
	for r := rune(0x21); r < 0x7f; r++ {
		if r != 'y' {
			ks = append(ks, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
	ks = append(ks, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}, Alt: true},
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("é")}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("yy")})
	for _, t := range []tea.KeyType{tea.KeyEnter, tea.KeySpace, tea.KeyEsc, tea.KeyTab, tea.KeyShiftTab, tea.KeyBackspace,
		tea.KeyDelete, tea.KeyInsert, tea.KeyUp, tea.KeyDown, tea.KeyLeft, tea.KeyRight, tea.KeyHome, tea.KeyEnd,
		tea.KeyPgUp, tea.KeyPgDown, tea.KeyCtrlUp, tea.KeyShiftDown, tea.KeyF1, tea.KeyF5, tea.KeyF12, tea.KeyCtrlAt} {
		ks = append(ks, tea.KeyMsg{Type: t})
	}
	for t := tea.KeyCtrlA; t <= tea.KeyCtrlZ; t++ {
		if t != tea.KeyCtrlC {
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
)

func maskVolatile(v string) string {
	v = reDate.ReplaceAllString(v, "Date: <date>")
	v = reMsgID.ReplaceAllString(v, "<message-id>")
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
	waitOutput(t, tm, "send this message")
	v := finalView(t, tm)
	if !reMsgID.MatchString(v) || !reDate.MatchString(v) {
		t.Fatalf("confirm screen lacks the Message-ID or Date the mask expects:\n%s", v)
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
