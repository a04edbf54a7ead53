package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/drafts"
	"mailsift/internal/app/event"
	"mailsift/model/contract"
	"mailsift/store"
)

func TestInboxSectionsAndOrder(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	v := d.view()
	order := []string{"Urgent (1)", "Actionable (1)", "Informational (1)", "Low priority (1)", "Spam & phishing (2)", "Not yet triaged (2)"}
	last := -1
	for _, h := range order {
		i := strings.Index(v, h)
		if i < 0 {
			t.Fatalf("inbox lacks header %q:\n%s", h, v)
		}
		if i < last {
			t.Errorf("header %q out of order:\n%s", h, v)
		}
		last = i
	}
	for _, want := range []string{"[2 actions]", "[scheduling]", "[phishing]", "[spam]", "20m", "(2)"} {
		if !strings.Contains(v, want) {
			t.Errorf("inbox lacks %q:\n%s", want, v)
		}
	}
}

func TestNavigationKeys(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	steps := []struct {
		keys    []string
		subject string
		section string
	}{
		{nil, "Production database is down", "Urgent"},
		{[]string{"j"}, "Q3 budget review meeting", "Actionable"},
		{[]string{"down"}, "This week in Go", "Informational"},
		{[]string{"k"}, "Q3 budget review meeting", "Actionable"},
		{[]string{"G"}, "Weekly report from Bob", "Not yet triaged"},
		{[]string{"k"}, "Lunch tomorrow?", "Not yet triaged"},
		{[]string{"g"}, "Production database is down", "Urgent"},
		{[]string{"k"}, "Production database is down", "Urgent"}, // top stays
		{[]string{"tab"}, "Q3 budget review meeting", "Actionable"},
		{[]string{"tab", "tab", "tab"}, "Verify your account now", "Spam & phishing"},
		{[]string{"tab"}, "Lunch tomorrow?", "Not yet triaged"},
		{[]string{"tab"}, "Production database is down", "Urgent"}, // wraps
		{[]string{"shift+tab"}, "Lunch tomorrow?", "Not yet triaged"},
		{[]string{"ctrl+u"}, "Production database is down", "Urgent"},
		{[]string{"ctrl+d"}, "Weekly report from Bob", "Not yet triaged"},
	}
	for i, st := range steps {
		d.keys(st.keys...)
		if got := d.current(); got != st.subject {
			t.Fatalf("step %d keys %v: cursor on %q, want %q", i, st.keys, got, st.subject)
		}
		if got := d.currentSection(); got != st.section {
			t.Fatalf("step %d keys %v: cursor in %q, want %q", i, st.keys, got, st.section)
		}
	}
	v := d.view()
	if !strings.Contains(v, "> * ") && !strings.Contains(v, ">   ") {
		t.Errorf("no cursor mark in view:\n%s", v)
	}
}

func TestCursorFollowsThreadMovedByTriage(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.keys("G", "k") // "Lunch tomorrow?" in Not yet triaged
	if d.current() != "Lunch tomorrow?" {
		t.Fatalf("cursor on %q", d.current())
	}
	// Triage arrives in the background: the thread moves to Urgent.
	saveTriage(t, s, "lunch1@x", store.TriageRecord{Source: "ollama", Model: "m",
		Result: contract.Result{Category: contract.CategoryUrgent, Summary: "Lunch."}})
	d.send(event.ThreadsChanged{})
	if got, sec := d.current(), d.currentSection(); got != "Lunch tomorrow?" || sec != "Urgent" {
		t.Fatalf("after triage cursor on %q in %q, want the lunch thread in Urgent", got, sec)
	}
	if !strings.Contains(d.view(), "Urgent (2)") {
		t.Errorf("Urgent count not updated:\n%s", d.view())
	}
	// Another thread moving elsewhere does not move the cursor off it.
	saveTriage(t, s, "report@x", store.TriageRecord{Source: "ollama", Model: "m",
		Result: contract.Result{Category: contract.CategoryUrgent, Summary: "Report."}})
	d.send(event.TriageProgress{Done: 2, Total: 2, Model: "m"})
	if got := d.current(); got != "Lunch tomorrow?" {
		t.Fatalf("after second triage cursor on %q, want Lunch tomorrow?", got)
	}
}

func TestOverrideKey(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.keys("g") // outage, Urgent
	id := threadID(t, s, "outage@x")
	d.keys("2")
	ts, err := s.ThreadSummaryByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Override != contract.CategoryActionable || ts.Section != store.SectionActionable {
		t.Fatalf("after 2: override %q section %q, want actionable", ts.Override, ts.Section)
	}
	if got, sec := d.current(), d.currentSection(); got != "Production database is down" || sec != "Actionable" {
		t.Fatalf("cursor on %q in %q, want the outage thread in Actionable", got, sec)
	}
	v := d.view()
	if !strings.Contains(v, "Actionable (2)") || !strings.Contains(v, "[override]") {
		t.Errorf("view after override:\n%s", v)
	}
	// Re-triage does not undo it.
	saveTriage(t, s, "outage@x", store.TriageRecord{Source: "ollama", Model: "m2",
		Result: contract.Result{Category: contract.CategoryUrgent, Summary: "again"}})
	d.send(event.ThreadsChanged{})
	if sec := d.currentSection(); sec != "Actionable" {
		t.Errorf("after re-triage the overridden thread is in %q", sec)
	}
}

func TestReadToggleAndOpenMarksRead(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	ctx := context.Background()
	id := threadID(t, s, "outage@x")
	d.keys("g", "enter")
	if d.m.screen != stateThread {
		t.Fatalf("enter did not open the thread")
	}
	if !strings.Contains(d.view(), "The primary database stopped accepting writes") {
		t.Fatalf("thread view lacks the body:\n%s", d.view())
	}
	ts, _ := s.ThreadSummaryByID(ctx, id)
	if ts.Unread != 0 {
		t.Fatalf("opening did not mark read: unread=%d", ts.Unread)
	}
	d.keys("esc", "m")
	ts, _ = s.ThreadSummaryByID(ctx, id)
	if ts.Unread == 0 {
		t.Fatalf("m did not mark unread")
	}
	d.keys("m")
	ts, _ = s.ThreadSummaryByID(ctx, id)
	if ts.Unread != 0 {
		t.Fatalf("second m did not mark read")
	}
}

func TestReplyHookAndRetriage(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.keys("r")
	if !strings.Contains(d.view(), "replies are not available yet") {
		t.Errorf("r without hook:\n%s", d.view())
	}
	var retriaged []int64
	eng := drafts.New(s, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	d = newDriver(t, Options{Store: s, Drafts: eng, Principal: me,
		Retriage: func(ctx context.Context, id int64) error {
			retriaged = append(retriaged, id)
			return nil
		}}, 100, 30)
	id := threadID(t, s, "outage@x")
	d.keys("g", "r")
	if d.m.screen != stateDraft || d.m.draft.d == nil || d.m.draft.d.ThreadID != id || d.m.draft.d.ReplyAll {
		t.Fatalf("r did not open the reply to thread %d:\n%s", id, d.view())
	}
	d.keys("esc", "R")
	if d.m.screen != stateDraft || d.m.draft.d == nil || d.m.draft.d.ThreadID != id || !d.m.draft.d.ReplyAll {
		t.Fatalf("R did not open the reply to all of thread %d:\n%s", id, d.view())
	}
	d.keys("esc", "t")
	if len(retriaged) != 1 || retriaged[0] != id {
		t.Errorf("Retriage calls = %v, want [%d]", retriaged, id)
	}
}

func TestErrorShownUntilDismissed(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.send(event.Failure{Err: errors.New("imap: login failed: check password_cmd")})
	if !strings.Contains(d.view(), "imap: login failed") {
		t.Fatalf("error not shown:\n%s", d.view())
	}
	d.keys("j")
	if !strings.Contains(d.view(), "imap: login failed") {
		t.Fatalf("error vanished without dismissing")
	}
	d.keys("esc")
	if strings.Contains(d.view(), "imap: login failed") {
		t.Fatalf("esc did not dismiss the error")
	}
}

func TestStatusBar(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s, Account: "work"}, 120, 30)
	d.send(event.Conn{State: event.ConnIdle})
	d.send(event.SyncProgress{Account: "work", Mailbox: "INBOX", Phase: "bodies", Done: 10, Total: 40})
	d.send(event.TriageProgress{Done: 12, Total: 340, Model: "llama3.2:3b"})
	last := d.view()[strings.LastIndex(d.view(), "\n")+1:]
	for _, want := range []string{"work", "IDLE", "syncing INBOX 10/40", "triaging 12/340 · llama3.2:3b"} {
		if !strings.Contains(last, want) {
			t.Errorf("status %q lacks %q", last, want)
		}
	}
	d.send(event.TriageProgress{Offline: "Ollama not reachable at http://127.0.0.1:11434"})
	if !strings.Contains(d.view(), "offline triage: Ollama not reachable at http://127.0.0.1:11434") {
		t.Errorf("offline triage not shown:\n%s", d.view())
	}
}

func TestQuitKeys(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	_, cmd := d.m.Update(keyMsg("q"))
	if !isQuit(cmd) {
		t.Error("q does not quit from the inbox")
	}
	d.keys("/")
	_, cmd = d.m.Update(keyMsg("q"))
	if isQuit(cmd) {
		t.Error("q quits while typing a search")
	}
	_, cmd = d.m.Update(keyMsg("ctrl+c"))
	if !isQuit(cmd) {
		t.Error("ctrl+c does not quit while searching")
	}
}

func TestResizeReflows(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	for _, size := range [][2]int{{60, 12}, {140, 40}, {30, 6}} {
		d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(d.view(), "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if w := lipWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %q is %d wide", size[0], size[1], l, w)
			}
		}
	}
}

func TestOpenThreadHeaderUpdatesWhenTriageArrives(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.keys("G", "enter") // "Weekly report from Bob", not yet triaged
	if !strings.Contains(d.view(), "Not triaged yet.") {
		t.Fatalf("thread view:\n%s", d.view())
	}
	saveTriage(t, s, "report@x", store.TriageRecord{Source: "ollama", Model: "llama3.2:3b",
		Result: contract.Result{Category: contract.CategoryInformational, Summary: "Status report: all green."}})
	d.send(event.TriageProgress{Done: 1, Total: 1, Model: "llama3.2:3b"})
	v := d.view()
	if !strings.Contains(v, "Summary: Status report: all green.") || !strings.Contains(v, "Bucket: Informational") {
		t.Fatalf("header not updated after triage:\n%s", v)
	}
}

// TestRunesReadTogether checks keys that arrive in one read ("jj" typed
// fast, or a slow terminal): each rune acts as its own key outside text
// fields, and stays text inside the search box.
func TestRunesReadTogether(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if got := d.current(); got != "This week in Go" {
		t.Fatalf(`after "jj" in one message cursor on %q, want two rows down ("This week in Go")`, got)
	}
	d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("gk")})
	if got := d.current(); got != "Production database is down" {
		t.Fatalf(`after "gk" in one message cursor on %q, want the top row`, got)
	}
	d.keys("/")
	d.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jq")})
	if v := d.view(); !strings.Contains(v, "jq") {
		t.Fatalf("search box lost typed runes:\n%s", v)
	}
}

// TestKeyWhileThreadLoads checks that an action key pressed while the
// opened thread is still loading (r right after enter, on a busy
// machine) acts once the thread is there instead of being lost.
func TestKeyWhileThreadLoads(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	eng := drafts.New(s, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	d := newDriver(t, Options{Store: s, Drafts: eng, Principal: me}, 100, 30)
	id := threadID(t, s, "outage@x")
	d.keys("g")
	// enter opens the thread; its load has not run when r arrives.
	nm, load := d.m.Update(keyMsg("enter"))
	d.m = nm.(Model)
	if d.m.screen != stateThread || d.m.thread.thread != nil {
		t.Fatalf("enter: screen %v, thread loaded %t", d.m.screen, d.m.thread.thread != nil)
	}
	d.send(keyMsg("r"))
	if d.m.screen != stateThread {
		t.Fatalf("r before the load left the thread view: %v", d.m.screen)
	}
	d.run(load)
	if d.m.screen != stateDraft || d.m.draft.d == nil || d.m.draft.d.ThreadID != id {
		t.Fatalf("r pressed while the thread loaded did not open its reply once loaded:\n%s", d.view())
	}
}
