package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/drafts"
	"mailsift/model"
	"mailsift/store"
)

// countingTransport counts sends; the tests never run the outbox, so any
// count but zero is a bug.
type countingTransport struct {
	mu sync.Mutex
	n  int
}

func (c *countingTransport) Send(ctx context.Context, t *store.SendTicket, commit func() error) error {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return commit()
}

func (c *countingTransport) Name() string { return "smtp://test.invalid:25" }

// draftEnv is a driver over the fixture store with a real send engine.
type draftEnv struct {
	*driver
	st  *store.Store
	eng *drafts.Engine
	tr  *countingTransport
}

func newDraftEnv(t *testing.T, w, h int, transport drafts.Transport) *draftEnv {
	t.Helper()
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	tr := &countingTransport{}
	if transport == nil {
		transport = tr
	}
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: transport}}})
	d := newDriver(t, Options{Store: st, Drafts: eng, Principal: me}, w, h)
	d.m.c.manualTicks = true // the tests deliver timer ticks themselves
	return &draftEnv{driver: d, st: st, eng: eng, tr: tr}
}

// openDraft opens the reply to the lunch thread (last but one row).
func (e *draftEnv) replyToLunch(key string) {
	e.t.Helper()
	e.keys("G", "k", "enter")
	if e.m.screen != stateThread || !strings.Contains(e.view(), "Lunch tomorrow?") {
		e.t.Fatalf("did not open the lunch thread:\n%s", e.view())
	}
	e.keys(key)
	if e.m.screen != stateDraft || e.m.draft.d == nil {
		e.t.Fatalf("%s did not open the draft review:\n%s", key, e.view())
	}
}

func (e *draftEnv) openDrafts(threadID int64) []store.Draft {
	e.t.Helper()
	ds, err := e.st.Drafts(context.Background(), threadID, store.DraftOpen)
	if err != nil {
		e.t.Fatal(err)
	}
	return ds
}

func (e *draftEnv) outbox() []store.OutboxItem {
	e.t.Helper()
	items, err := e.eng.Outbox(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return items
}

func TestReplyReviewShowsComputedRecipients(t *testing.T) {
	e := newDraftEnv(t, 100, 30, nil)
	e.replyToLunch("r")
	v := e.view()
	for _, want := range []string{"To:      Dana <dana@example.com>", "From:    Me <me@example.com>", "reply to sender",
		"via smtp://test.invalid:25", "Hi Dana,", "Cites:   Dana · Re: Lunch tomorrow?"} {
		if !strings.Contains(v, want) {
			t.Errorf("review lacks %q:\n%s", want, v)
		}
	}
	if n := strings.Count(v, "Re: "); !strings.Contains(v, "Subject: Re: Lunch tomorrow?") || strings.Contains(v, "Re: Re:") {
		t.Errorf("subject is not \"Re: Lunch tomorrow?\" once (%d Re:):\n%s", n, v)
	}
	if strings.Contains(v, "bob@example.com") {
		t.Errorf("a plain reply goes to the latest sender only, but shows Bob:\n%s", v)
	}
	// The draft is stored at once.
	ds := e.openDrafts(threadID(t, e.st, "lunch1@x"))
	if len(ds) != 1 || ds[0].Subject != "Re: Lunch tomorrow?" || len(ds[0].To) != 1 || ds[0].To[0].Email != "dana@example.com" {
		t.Fatalf("stored drafts = %+v, want one to dana with subject Re: Lunch tomorrow?", ds)
	}
}

func TestReplyAllToggleRecomputesRecipients(t *testing.T) {
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	// Eve writes to me and Frank, Cc Gina.
	ctx := context.Background()
	m := fx{id: "team@x", subject: "Team offsite", from: model.Address{Name: "Eve", Email: "eve@example.com"},
		ago: 10 * time.Minute, body: "Where shall we go for the offsite this year?"}.message()
	m.To = append(m.To, model.Address{Name: "Frank", Email: "frank@example.com"})
	m.Cc = []model.Address{{Name: "Gina", Email: "gina@example.com"}}
	if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
	tid := threadID(t, st, "team@x")
	eng := drafts.New(st, drafts.Options{Principal: me, Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	d := newDriver(t, Options{Store: st, Drafts: eng}, 100, 30)
	d.m.c.manualTicks = true
	d.run(d.m.openThread(tid))
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.keys("r")
	if v := d.view(); !strings.Contains(v, "To:      Eve <eve@example.com>\n") || strings.Contains(v, "gina@") {
		t.Fatalf("r should reply to Eve only:\n%s", v)
	}
	d.keys("a")
	v := d.view()
	if !strings.Contains(v, "reply to all") || !strings.Contains(v, "To:      Eve <eve@example.com>, Frank <frank@example.com>") ||
		!strings.Contains(v, "Cc:      Gina <gina@example.com>") || strings.Contains(v, "me@example.com>,") {
		t.Fatalf("a should switch to reply-all (Eve, Frank; Cc Gina; never me):\n%s", v)
	}
	ds, _ := st.Drafts(ctx, tid, store.DraftOpen)
	if len(ds) != 1 || !ds[0].ReplyAll || len(ds[0].To) != 2 || len(ds[0].Cc) != 1 {
		t.Fatalf("stored draft after a = %+v", ds)
	}
	// R on a resumed reply draft switches it to reply-all too.
	d.keys("a", "esc", "R")
	if !d.m.draft.d.ReplyAll || !d.m.draft.resumed {
		t.Fatalf("R should resume the draft as reply-all: %+v", d.m.draft.d)
	}
}

func TestInlineEditIsSavedToTheStore(t *testing.T) {
	e := newDraftEnv(t, 100, 30, nil)
	e.replyToLunch("r")
	id := e.m.draft.d.ID
	e.keys("e")
	if !e.m.draft.editing {
		t.Fatal("e did not open the editor")
	}
	e.send(keyCtrlEnd()) // to the end of the body
	e.typeText("PS: xyzzy bring $50")
	// Autosave while typing (the debounce tick, as the runtime delivers it).
	e.send(autosaveTickMsg{seq: e.m.draft.editSeq})
	if got := reopenDraft(t, e.st.Path(), id).Body; !strings.Contains(got, "PS: xyzzy bring $50") {
		t.Fatalf("autosave did not store the typed text; stored body:\n%s", got)
	}
	e.typeText("!")
	e.keys("esc") // leaves the editor and saves
	if e.m.draft.editing || e.m.screen != stateDraft {
		t.Fatal("esc should leave the editor, staying on the review")
	}
	got := reopenDraft(t, e.st.Path(), id)
	if !strings.Contains(got.Body, "PS: xyzzy bring $50!") {
		t.Fatalf("stored body after esc:\n%s", got.Body)
	}
	// "cash" is money: the saved draft's risk flags were recomputed and shown.
	if !contains(got.RiskFlags, drafts.RiskMoney) || !strings.Contains(e.view(), "! money is mentioned") {
		t.Fatalf("risk flags after the edit = %v; view:\n%s", got.RiskFlags, e.view())
	}
	// esc leaves the review; r resumes the same draft, not a new one.
	e.keys("esc")
	if e.m.screen != stateThread {
		t.Fatalf("esc from the review should return to the thread, got screen %d", e.m.screen)
	}
	e.keys("r")
	if e.m.draft.d == nil || e.m.draft.d.ID != id || !strings.Contains(e.view(), "resumed your unsent draft") {
		t.Fatalf("r did not resume draft %s:\n%s", id, e.view())
	}
	if n := len(e.openDrafts(threadID(t, e.st, "lunch1@x"))); n != 1 {
		t.Fatalf("%d open drafts for the thread, want 1", n)
	}
}

func keyCtrlEnd() tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyCtrlEnd} }

// reopenDraft reads a draft through a second store handle on the file.
func reopenDraft(t *testing.T, path, id string) *store.Draft {
	t.Helper()
	s, err := store.Open(context.Background(), path, &store.Options{Principal: me})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.Draft(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDiscardAsksFirst(t *testing.T) {
	e := newDraftEnv(t, 100, 30, nil)
	e.replyToLunch("r")
	id := e.m.draft.d.ID
	e.keys("d")
	if !strings.Contains(e.view(), "discard this draft?") {
		t.Fatalf("d should ask:\n%s", e.view())
	}
	e.keys("n")
	if e.m.screen != stateDraft || reopenDraft(t, e.st.Path(), id).State != store.DraftOpen {
		t.Fatal("n must keep the draft")
	}
	e.keys("d", "y")
	if e.m.screen != stateThread {
		t.Fatalf("after discarding, back to the thread; screen %d", e.m.screen)
	}
	if st := reopenDraft(t, e.st.Path(), id).State; st != store.DraftDiscarded {
		t.Fatalf("draft state %s, want discarded", st)
	}
}

func TestRiskFlagsShownForPhishingThread(t *testing.T) {
	e := newDraftEnv(t, 100, 30, nil)
	e.keys("tab", "tab", "tab", "tab") // Spam & phishing: the phishing thread
	if !strings.Contains(e.current(), "Verify your account") {
		t.Fatalf("cursor on %q", e.current())
	}
	e.keys("r")
	v := e.view()
	if !strings.Contains(v, "! replying to a PHISHING thread") {
		t.Fatalf("review of a reply to a phishing thread lacks the flag:\n%s", v)
	}
	if !contains(e.m.draft.d.RiskFlags, drafts.RiskPhishingThread) {
		t.Fatalf("draft flags %v", e.m.draft.d.RiskFlags)
	}
	// esc returns to the inbox it came from.
	e.keys("esc")
	if e.m.screen != stateInbox {
		t.Fatalf("esc should return to the inbox, screen %d", e.m.screen)
	}
}

func TestSendKeysDisabledOutsideConfirm(t *testing.T) {
	e := newDraftEnv(t, 100, 30, nil)
	if e.m.c.keys.Send.Enabled() {
		t.Fatal("send enabled in the inbox")
	}
	e.replyToLunch("r")
	if e.m.c.keys.Send.Enabled() {
		t.Fatal("send enabled on the review")
	}
	// y on the review does nothing.
	e.keys("y")
	if len(e.outbox()) != 0 || e.m.screen != stateDraft {
		t.Fatal("y on the review must not queue anything")
	}
	e.keys("s")
	if !e.m.c.keys.Send.Enabled() {
		t.Fatalf("send should be enabled on a valid confirm screen:\n%s", e.view())
	}
}

func TestExternalEditorRoundTrip(t *testing.T) {
	e := newDraftEnv(t, 100, 30, nil)
	e.replyToLunch("r")
	id := e.m.draft.d.ID
	script := filepath.Join(t.TempDir(), "ed.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf 'Edited in the editor.\\n' > \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EDITOR", script)
	// E writes the body to a private temp file and names the editor.
	nm, cmd := e.m.Update(keyMsg("E"))
	e.m = nm.(Model)
	ready, ok := cmd().(editorReadyMsg)
	if !ok || ready.err != nil {
		t.Fatalf("E gave %#v", ready)
	}
	fi, err := os.Stat(ready.path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("temp file mode %v, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(ready.path); !strings.HasPrefix(string(b), "Hi Dana,") {
		t.Errorf("temp file holds %q, want the body", b)
	}
	if len(ready.argv) != 1 || ready.argv[0] != script {
		t.Fatalf("editor argv %q, want [%s]", ready.argv, script)
	}
	// The runtime runs it (tea.ExecProcess); here it runs directly.
	runErr := exec.Command(ready.argv[0], ready.path).Run()
	e.send(editorDone(ready.path, ready.argv[0])(runErr))
	if _, err := os.Stat(ready.path); !os.IsNotExist(err) {
		t.Error("the temp file was not removed")
	}
	if got := reopenDraft(t, e.st.Path(), id).Body; got != "Edited in the editor." {
		t.Fatalf("stored body %q", got)
	}
	if !strings.Contains(e.view(), "Edited in the editor.") {
		t.Fatalf("review does not show the edited body:\n%s", e.view())
	}
}
