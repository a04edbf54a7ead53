package ui

import (
	"context"
	"strings"
	"testing"
	"time"
)

func (d *driver) command(line string) {
	d.t.Helper()
	d.keys(":")
	d.typeText(line)
	d.keys("enter")
}

func TestCommandListAndSelectionIndex(t *testing.T) {
	e := newDraftEnv(t, 100, 30, nil)
	d, s := e.driver, e.st
	d.command("list from:bob")
	if d.m.screen != stateList {
		t.Fatalf("not on the list screen; error %q", d.m.c.errText)
	}
	v := d.view()
	// Newest first: lunch (Bob started it, 2h), budget (3h), report (8d).
	for i, want := range []string{"1. ", "2. ", "3. "} {
		if !strings.Contains(v, want) {
			t.Fatalf("row %d missing:\n%s", i+1, v)
		}
	}
	if len(d.m.lastList) != 3 {
		t.Fatalf("last list has %d rows, want 3:\n%s", len(d.m.lastList), v)
	}
	third := d.m.lastList[2]
	if third.Subject != "Weekly report from Bob" {
		t.Fatalf("row 3 = %q", third.Subject)
	}
	d.keys("esc")
	d.command("open 3")
	if d.m.screen != stateThread || d.m.thread.id != third.ThreadID {
		t.Fatalf(":open 3 opened %d (screen %d), want %d", d.m.thread.id, d.m.screen, third.ThreadID)
	}
	if !strings.Contains(d.view(), "All green this week.") {
		t.Errorf("thread view:\n%s", d.view())
	}
	d.keys("esc")
	d.command("reply 2")
	if want := d.m.lastList[1].ThreadID; d.m.screen != stateDraft || d.m.draft.d == nil || d.m.draft.d.ThreadID != want {
		t.Errorf(":reply 2 did not open the reply to thread %d (screen %d):\n%s", want, d.m.screen, d.view())
	}
	d.keys("esc")
	d.command("unread 3")
	ts, _ := s.ThreadSummaryByID(context.Background(), third.ThreadID)
	if ts.Unread == 0 {
		t.Errorf(":unread 3 left the thread read")
	}
	d.command("read 3")
	ts, _ = s.ThreadSummaryByID(context.Background(), third.ThreadID)
	if ts.Unread != 0 {
		t.Errorf(":read 3 left the thread unread")
	}
	d.command("open 9")
	if !strings.Contains(d.m.c.errText, "rows 1–3") {
		t.Errorf(":open 9 error = %q", d.m.c.errText)
	}
}

func TestCommandDisambiguation(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.command("open from bob")
	if d.m.screen != stateList || !d.m.list.disambiguating() {
		t.Fatalf("several matches did not ask: screen %d, error %q", d.m.screen, d.m.c.errText)
	}
	if n := len(d.m.list.items); n != 3 {
		t.Fatalf("%d candidates, want 3", n)
	}
	if d.m.screen == stateThread {
		t.Fatal("guessed a thread")
	}
	want := d.m.list.items[1].ThreadID
	d.keys("2")
	if d.m.screen != stateThread || d.m.thread.id != want {
		t.Fatalf("choosing 2 opened %d, want %d", d.m.thread.id, want)
	}
	// The disambiguation did not replace the last list (there was none).
	if d.m.lastList != nil {
		t.Errorf("disambiguation became the last list")
	}
	d.keys("esc")
	d.command("open latest from bob")
	if d.m.screen != stateThread || d.m.thread.id != threadID(t, s, "lunch1@x") {
		t.Fatalf(":open latest from bob opened %d, want the lunch thread", d.m.thread.id)
	}
	d.keys("esc")
	d.command("open from nobody-at-all")
	if d.m.screen == stateThread || !strings.Contains(d.m.c.errText, "no thread matches") {
		t.Errorf("no match: screen %d error %q", d.m.screen, d.m.c.errText)
	}
	d.command("open from carol")
	if d.m.screen != stateThread || d.m.thread.id != threadID(t, s, "outage@x") {
		t.Errorf("single match did not open directly")
	}
}

func TestCommandErrorsShown(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.command("frobnicate")
	if !strings.Contains(d.view(), "unknown command") {
		t.Errorf("unknown command not reported:\n%s", d.view())
	}
	d.command("open 1")
	if !strings.Contains(d.m.c.errText, "run :list first") {
		t.Errorf(":open 1 without list: %q", d.m.c.errText)
	}
}

func TestSearchDebounceAndOpen(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.keys("/")
	if d.m.screen != stateSearch {
		t.Fatal("/ did not open search")
	}
	// Stale ticks are ignored: only the last keystroke's tick searches.
	d.m.search.input.SetValue("ramen")
	d.m.search.seq = 5
	d.send(searchTickMsg{seq: 4})
	if d.m.search.query != "" {
		t.Fatalf("stale tick searched for %q", d.m.search.query)
	}
	d.send(searchTickMsg{seq: 5})
	if d.m.search.query != "ramen" || len(d.m.search.hits) == 0 {
		t.Fatalf("search for ramen: query %q hits %d err %q", d.m.search.query, len(d.m.search.hits), d.m.search.err)
	}
	// Results of an older search are dropped.
	d.send(searchResultsMsg{seq: 3, query: "old"})
	if d.m.search.query != "ramen" {
		t.Fatalf("stale results replaced the current ones")
	}
	d.keys("enter")
	if d.m.screen != stateThread || d.m.thread.id != threadID(t, s, "lunch1@x") {
		t.Fatalf("enter on the hit opened %d", d.m.thread.id)
	}
	// esc from a thread opened from search goes back to the results.
	d.keys("esc")
	if d.m.screen != stateSearch || d.m.search.query != "ramen" {
		t.Fatalf("esc from the thread: screen %d query %q, want the search", d.m.screen, d.m.search.query)
	}
	// Typing goes through the debounce (the driver waits for the tick).
	start := time.Now()
	for range len("ramen") {
		d.keys("backspace")
	}
	d.typeText("budget")
	if d.m.search.query != "budget" {
		t.Fatalf("typed search: query %q (after %s)", d.m.search.query, time.Since(start))
	}
}
