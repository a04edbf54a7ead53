package ui

import (
	"context"
	"strings"
	"testing"

	"mailsift/drafts"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

// homeFrom is the second account's own From address.
var homeFrom = model.Address{Name: "Me at Home", Email: "me@home.example"}

// twoAccountComposeEnv is a driver over the fixture mail split like
// twoAccountProgram ("test" has the first five threads, "home" the rest,
// plus the list mail), with a send engine whose two accounts have their
// own From and their own transport, and no undo window.
type twoAccountComposeEnv struct {
	*driver
	st         *store.Store
	eng        *drafts.Engine
	test, home *countingTransport
	listID     int64
}

func newTwoAccountComposeEnv(t *testing.T) *twoAccountComposeEnv {
	return newTwoAccountComposeEnvList(t, "https://gadgets.example/u")
}

// newTwoAccountComposeEnvList is newTwoAccountComposeEnv with the list
// mail's unsubscribe URL (see listRaw).
func newTwoAccountComposeEnvList(t *testing.T, post string) *twoAccountComposeEnv {
	t.Helper()
	all := fixtureMessages()
	tri := fixtureTriage()
	delete(tri, "phish@x") // a home thread: stored below, without triage
	st := newFixtureStore(t, all[:5], tri)
	ctx := context.Background()
	if err := st.EnsureAccount(ctx, "home", "maildir:///home"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetMailbox(ctx, model.Mailbox{Account: "home", Name: "INBOX", Role: model.RoleInbox}); err != nil {
		t.Fatal(err)
	}
	var home []*model.Message
	for _, f := range all[5:] {
		m := f.message()
		m.Loc.Account = "home"
		home = append(home, m)
	}
	list, err := rfc822.Parse([]byte(listRaw(post)))
	if err != nil {
		t.Fatal(err)
	}
	list.Loc = model.Location{Account: "home", Mailbox: "INBOX", Key: "deals"}
	if err := st.PutMessages(ctx, append(home, list)); err != nil {
		t.Fatal(err)
	}
	e := &twoAccountComposeEnv{st: st, test: &countingTransport{}, home: &countingTransport{}}
	e.eng = drafts.New(st, drafts.Options{Principal: me, Accounts: []drafts.Account{
		{Name: "test", From: me, Transport: e.test},
		{Name: "home", From: homeFrom, Transport: e.home},
	}})
	e.driver = newDriver(t, Options{Store: st, Drafts: e.eng, Principal: me, Account: "test +1", Accounts: []string{"test", "home"}}, 110, 40)
	e.m.c.manualTicks = true
	e.listID = threadID(t, st, "deals@gadgets.example")
	return e
}

// sendAll confirms the message on the confirm screen and runs the outbox
// once, so the transports show where it went.
func (e *twoAccountComposeEnv) sendAll() *store.Approval {
	e.t.Helper()
	if e.m.screen != stateConfirm || e.m.confirm.a == nil {
		e.t.Fatalf("not on the confirm screen (err %v):\n%s", e.m.confirm.err, e.view())
	}
	a := e.m.confirm.a
	e.keys("y")
	if n, err := e.eng.ProcessDue(context.Background()); err != nil || n != 1 {
		e.t.Fatalf("outbox processed %d items (%v), want the confirmed one", n, err)
	}
	return a
}

func TestComposeChoosesTheSendingAccount(t *testing.T) {
	e := newTwoAccountComposeEnv(t)
	e.keys("c")
	if e.m.screen != stateCompose || e.m.compose.d == nil {
		t.Fatalf("c did not open the compose screen:\n%s", e.view())
	}
	// The inbox shows all accounts, so the message starts from the first.
	if v := e.view(); !strings.Contains(v, "From:     Me <me@example.com>  account test (1 of 2)") {
		t.Fatalf("the From line does not name the first account:\n%s", v)
	}
	if e.m.compose.focus != fieldTo {
		t.Fatalf("compose starts in field %d, want To", e.m.compose.focus)
	}
	// shift+tab from To reaches the account; → chooses the next one.
	e.keys("shift+tab")
	if e.m.compose.focus != fieldFrom || !strings.Contains(e.view(), "sending account") {
		t.Fatalf("shift+tab from To did not focus the account:\n%s", e.view())
	}
	e.typeText("x") // nothing is typed into the account
	e.keys("right")
	v := e.view()
	if !strings.Contains(v, "◂ Me at Home <me@home.example> ▸  account home (2 of 2)") {
		t.Fatalf("→ did not choose the second account:\n%s", v)
	}
	e.keys("tab")
	e.typeText("dana@example.com")
	e.keys("tab", "tab", "tab")
	e.typeText("From home")
	e.keys("tab", "tab")
	e.typeText("Sent from the home account.")
	e.keys("ctrl+s")
	a := e.sendAll()
	if a.What.Account != "home" {
		t.Fatalf("approval account = %q, want home", a.What.Account)
	}
	if !strings.Contains(a.What.Message, "\r\nFrom: \"Me at Home\" <me@home.example>\r\n") || a.What.EnvelopeFrom != "me@home.example" {
		t.Fatalf("approved message is not from the home account (envelope %q):\n%s", a.What.EnvelopeFrom, a.What.Message)
	}
	if e.home.n != 1 || e.test.n != 0 {
		t.Fatalf("sent through home %d times and test %d times; want home once", e.home.n, e.test.n)
	}
	ds, err := e.st.Drafts(context.Background(), 0, store.DraftSent)
	if err != nil || len(ds) != 1 || ds[0].Account != "home" || ds[0].From.Email != homeFrom.Email {
		t.Fatalf("sent draft = %+v (%v), want one of account home", ds, err)
	}
}

func TestComposeAccountChoiceIsSavedAndResumed(t *testing.T) {
	e := newTwoAccountComposeEnv(t)
	e.keys("c", "shift+tab", "left") // ← wraps from the first to the last
	if e.m.compose.d.Account != "home" {
		t.Fatalf("← from the first account chose %q, want home", e.m.compose.d.Account)
	}
	e.keys(" ") // space cycles too: back to the first, then home again
	if e.m.compose.d.Account != "test" || e.m.compose.d.From != me {
		t.Fatalf("space chose %q (%v), want test", e.m.compose.d.Account, e.m.compose.d.From)
	}
	e.keys(" ", "esc")
	ds, err := e.st.Drafts(context.Background(), 0, store.DraftOpen)
	if err != nil || len(ds) != 1 || ds[0].Account != "home" || ds[0].From != homeFrom {
		t.Fatalf("saved draft = %+v (%v), want account home with its From", ds, err)
	}
	e.keys("c")
	if !e.m.compose.resumed || e.m.compose.d.Account != "home" || !strings.Contains(e.view(), "account home (2 of 2)") {
		t.Fatalf("the resumed message lost its account:\n%s", e.view())
	}
}

func TestComposeDefaultsToTheAccountShown(t *testing.T) {
	e := newTwoAccountComposeEnv(t)
	e.keys("A", "A") // all → test → home
	if e.m.accounts.current() != "home" {
		t.Fatalf("inbox shows %q, want home", e.m.accounts.current())
	}
	e.keys("c")
	if d := e.m.compose.d; d == nil || d.Account != "home" || d.From != homeFrom {
		t.Fatalf("new message while the inbox shows home = %+v, want account home", d)
	}
}

func TestForwardDefaultsToTheThreadsAccount(t *testing.T) {
	e := newTwoAccountComposeEnv(t)
	e.keys("A") // the inbox shows test, but the list mail arrived in home
	e.run(e.m.openThread(e.listID))
	e.keys("f")
	if d := e.m.compose.d; d == nil || d.Account != "home" || d.From != homeFrom {
		t.Fatalf("forward of home's mail = %+v (err %v), want account home", d, e.m.compose.loadErr)
	}
	e.typeText("carol@example.com")
	e.keys("ctrl+s")
	if a := e.sendAll(); a.What.Account != "home" || e.home.n != 1 || e.test.n != 0 {
		t.Fatalf("forward went through home %d, test %d times (approval account %q)", e.home.n, e.test.n, a.What.Account)
	}
}

func TestOneAccountComposeHasNoAccountField(t *testing.T) {
	e := newFeatureEnv(t, 110, 40, "https://gadgets.example/u", nil)
	e.keys("c", "shift+tab")
	if e.m.compose.focus == fieldFrom || strings.Contains(e.view(), "account test") {
		t.Fatalf("one account offers an account choice:\n%s", e.view())
	}
	if e.m.compose.d.Account != "" {
		t.Fatalf("one account's message names account %q; want the default as before", e.m.compose.d.Account)
	}
}

func TestUnsubscribeByMailLeavesFromTheListMailsAccount(t *testing.T) {
	e := newTwoAccountComposeEnvList(t, "https://gadgets.example/u-without-post")
	e.run(e.m.openThread(e.listID))
	e.keys("U")
	e.keys("y")
	if e.m.screen != stateConfirm || e.m.confirm.a == nil {
		t.Fatalf("y did not reach the confirm screen (err %v):\n%s", e.m.confirm.err, e.view())
	}
	if a := e.sendAll(); a.What.Account != "home" || a.What.EnvelopeFrom != homeFrom.Email || e.home.n != 1 || e.test.n != 0 {
		t.Fatalf("unsubscribe mail: account %q from %q; sent via home %d, test %d times", a.What.Account, a.What.EnvelopeFrom, e.home.n, e.test.n)
	}
}
