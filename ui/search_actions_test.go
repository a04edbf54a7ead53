package ui

import (
	"strings"
	"testing"

	"mailsift/store"
)

// searchResults opens search, types q, waits for its results and gives
// the keys to the result list.
func searchResults(t *testing.T, d *driver, q string) {
	t.Helper()
	if d.m.screen != stateSearch {
		d.keys("/")
	}
	d.typeText(q)
	if d.m.search.query != q || len(d.m.search.hits) == 0 {
		t.Fatalf("search %q: query %q, %d hits, err %q", q, d.m.search.query, len(d.m.search.hits), d.m.search.err)
	}
	d.keys("tab")
	if !d.m.search.listFocused() {
		t.Fatalf("tab did not give the keys to the results:\n%s", d.view())
	}
}

// hitSubjects lists the subjects of the results shown.
func hitSubjects(d *driver) []string {
	var out []string
	for _, h := range d.m.search.hits {
		out = append(out, h.Subject)
	}
	return out
}

func TestSearchResultArchiveAndUndo(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	searchResults(t, d, "from:bob")
	if got := hitSubjects(d); len(got) != 3 || got[0] != "Lunch tomorrow?" {
		t.Fatalf("results = %q, want the lunch thread first of 3", got)
	}
	// The result leaves in the Update that handles the key, before any IO.
	nm, cmd := d.m.Update(keyMsg("e"))
	d.m = nm.(Model)
	if strings.Contains(d.view(), "Lunch tomorrow?") {
		t.Errorf("archived result still drawn before the store write:\n%s", d.view())
	}
	d.run(cmd)
	if got := storeStatus(t, s, "lunch1@x"); got != store.StatusClosed {
		t.Errorf("archived thread's status = %q, want closed", got)
	}
	v := d.view()
	if strings.Contains(v, "Lunch tomorrow?") || !strings.Contains(v, "2 results for from:bob") || !strings.Contains(v, "archived 1 thread") {
		t.Errorf("after e the result is still listed, or no note:\n%s", v)
	}
	if d.m.screen != stateSearch || !d.m.search.listFocused() {
		t.Errorf("after e: screen %v, list focused %v; want to stay on the results", d.m.screen, d.m.search.listFocused())
	}
	d.keys("u")
	if got := storeStatus(t, s, "lunch1@x"); got != store.StatusOpen {
		t.Errorf("status after undo = %q, want open", got)
	}
	if got := hitSubjects(d); len(got) != 3 || !strings.Contains(d.view(), "Lunch tomorrow?") {
		t.Errorf("undo did not bring the result back: %q\n%s", got, d.view())
	}
}

func TestSearchResultsBulkDeleteOneConfirmation(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	searchResults(t, d, "from:bob")
	d.keys("x", " ") // the first two results, moving down
	if d.m.search.sel.count() != 2 || !strings.Contains(d.view(), "[2 selected") {
		t.Fatalf("selected %d, want 2:\n%s", d.m.search.sel.count(), d.view())
	}
	d.keys("#")
	if !strings.Contains(d.view(), "Move to Trash 2 threads?") {
		t.Fatalf("no confirmation naming the count:\n%s", d.view())
	}
	if got := storeStatus(t, s, "budget@x"); got != store.StatusOpen {
		t.Fatalf("deleted before the confirmation")
	}
	d.keys("y")
	if d.m.c.overlay != nil {
		t.Errorf("a second confirmation after y:\n%s", d.view())
	}
	for _, mid := range []string{"lunch1@x", "budget@x"} {
		if got := storeStatus(t, s, mid); got != store.StatusClosed {
			t.Errorf("%s after # y: status %q, want closed (in Trash)", mid, got)
		}
	}
	if got := hitSubjects(d); len(got) != 1 || got[0] != "Weekly report from Bob" {
		t.Errorf("results after deleting two = %q, want only the weekly report", got)
	}
	if d.m.search.sel.count() != 0 {
		t.Errorf("selection kept %d deleted threads", d.m.search.sel.count())
	}
	// Any other key cancels; esc clears the selection, then leaves.
	d.keys("x", "e", "n")
	if got := storeStatus(t, s, "report@x"); got != store.StatusOpen {
		t.Errorf("n did not cancel the archive")
	}
	d.keys("esc")
	if d.m.search.sel.count() != 0 || d.m.screen != stateSearch {
		t.Errorf("first esc: selection %d, screen %v; want it cleared, still searching", d.m.search.sel.count(), d.m.screen)
	}
	d.keys("esc")
	if d.m.screen != stateInbox {
		t.Errorf("second esc: screen %v, want the inbox", d.m.screen)
	}
}

func TestSearchQueryStillTypesActionLetters(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	before := inboxTotal(t, d)
	d.keys("/")
	d.typeText("e#!svbmuxjk?q")
	if got := d.m.search.input.Value(); got != "e#!svbmuxjk?q" {
		t.Errorf("query = %q, want every letter typed", got)
	}
	if d.m.screen != stateSearch || d.m.search.listFocused() || inboxTotal(t, d) != before {
		t.Errorf("a typed letter acted: screen %v, list focused %v, %d threads (want %d)",
			d.m.screen, d.m.search.listFocused(), inboxTotal(t, d), before)
	}
	// Back from the list with /, the query types again.
	for range len("e#!svbmuxjk?q") {
		d.keys("backspace")
	}
	searchResults(t, d, "ramen")
	d.keys("/")
	if d.m.search.listFocused() {
		t.Fatalf("/ did not give the keys back to the query")
	}
	d.typeText(" e")
	if got := d.m.search.input.Value(); got != "ramen e" {
		t.Errorf("query after / and typing = %q, want %q", got, "ramen e")
	}
	if got := storeStatus(t, s, "lunch1@x"); got != store.StatusOpen {
		t.Errorf("typing e in the query archived the result")
	}
}

func TestSearchResultsHelpAndHints(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 120, 30)
	d.keys("/")
	d.typeText("from:bob")
	if v := d.view(); !strings.Contains(v, "tab act on the results") || strings.Contains(v, "e archive") {
		t.Errorf("query hints do not say tab, or show the list's keys:\n%s", v)
	}
	d.keys("tab")
	if v := d.view(); !strings.Contains(v, "e archive") || !strings.Contains(v, "/ query") {
		t.Errorf("list hints miss the action keys:\n%s", v)
	}
	d.keys("?")
	v := d.view()
	if d.m.screen != stateHelp {
		t.Fatalf("? on the results did not open help:\n%s", v)
	}
	for _, want := range []string{"archive", "delete (Trash)", "spam / not spam", "star/unstar", "move to folder",
		"snooze", "read/unread", "undo last action", "select", "select all results", "edit the query", "back to the query"} {
		if !strings.Contains(v, want) {
			t.Errorf("help from the results lacks %q:\n%s", want, v)
		}
	}
	for _, not := range []string{"reply", "move to urgent", "archive older"} {
		if strings.Contains(v, not) {
			t.Errorf("help from the results lists %q, which does nothing there", not)
		}
	}
	d.keys("esc")
	if d.m.screen != stateSearch || !d.m.search.listFocused() {
		t.Errorf("esc from help: screen %v, list focused %v", d.m.screen, d.m.search.listFocused())
	}
}

func TestSearchResultsRebound(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts, Keys: map[string][]string{"archive": {"a"}, "down": {"n"}}}, 100, 30)
	searchResults(t, d, "from:bob")
	d.keys("n", "e")
	if got := storeStatus(t, s, "budget@x"); got != store.StatusOpen {
		t.Errorf("e archived though archive is rebound to a")
	}
	d.keys("a")
	if got := storeStatus(t, s, "budget@x"); got != store.StatusClosed {
		t.Errorf("n then a did not archive the second result: %q", hitSubjects(d))
	}
	if !strings.Contains(d.view(), "a archive") {
		t.Errorf("hints do not show the rebound key:\n%s", d.view())
	}
}

func TestSearchResultOpenedThreadArchives(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	searchResults(t, d, "from:bob")
	d.keys("j", "enter")
	if d.m.screen != stateThread {
		t.Fatalf("enter on a result did not open it")
	}
	d.keys("esc")
	if d.m.screen != stateSearch || !d.m.search.listFocused() || d.m.search.cursor != 1 {
		t.Fatalf("back from the thread: screen %v, list focused %v, cursor %d", d.m.screen, d.m.search.listFocused(), d.m.search.cursor)
	}
	d.keys("enter", "e")
	if d.m.screen != stateSearch {
		t.Fatalf("e in the thread did not go back to the results")
	}
	if got := hitSubjects(d); len(got) != 2 || strings.Contains(d.view(), "Q3 budget") {
		t.Errorf("archived from its thread, the result is still listed: %q", got)
	}
	d.keys("u")
	if got := hitSubjects(d); len(got) != 3 {
		t.Errorf("undo from the results did not bring it back: %q", got)
	}
}

func TestGoldenSearchResults(t *testing.T) {
	tm := startActionProgram(t)
	press(tm, "/")
	tm.Type("from:bob")
	waitOutput(t, tm, "results for from:bob")
	press(tm, "tab", "x")
	waitOutput(t, tm, "1 selected")
	requireGolden(t, finalView(t, tm))
}

func TestSearchResultsEmptiedKeepTheKeys(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	searchResults(t, d, "from:bob")
	d.keys("*", "e")
	if !strings.Contains(d.view(), "Archive 3 threads?") {
		t.Fatalf("* then e did not ask once for all three:\n%s", d.view())
	}
	d.keys("y")
	if len(d.m.search.hits) != 0 || !d.m.search.listFocused() {
		t.Fatalf("after archiving every result: %d left, list focused %v", len(d.m.search.hits), d.m.search.listFocused())
	}
	d.keys("u") // the list still has the keys: u undoes, it is not typed
	if got := hitSubjects(d); len(got) != 3 || d.m.search.input.Value() != "from:bob" {
		t.Errorf("u on the emptied list: results %q, query %q", got, d.m.search.input.Value())
	}
}

func TestSearchResultsFastKeys(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	searchResults(t, d, "from:bob")
	d.send(keyMsg("ee")) // typed faster than the terminal is read: two keys, two results
	for _, mid := range []string{"lunch1@x", "budget@x"} {
		if got := storeStatus(t, s, mid); got != store.StatusClosed {
			t.Errorf("ee: %s status %q, want closed", mid, got)
		}
	}
	if got := hitSubjects(d); len(got) != 1 {
		t.Errorf("ee left %q, want one result", got)
	}
}
