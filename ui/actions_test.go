package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/internal/app/event"
	"mailsift/model"
	"mailsift/store"
)

// actionFixture is the fixture inbox with the real actions service.
func actionFixture(t testing.TB) (*store.Store, *app.Actions) {
	t.Helper()
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	if err := s.SetMailbox(context.Background(), model.Mailbox{Account: "test", Name: "Projects/Alpha"}); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Accounts = []config.Account{{Name: "test"}}
	return s, app.New(&cfg, s, app.Options{Now: clock}).Actions(nil)
}

func inboxTotal(t *testing.T, d *driver) int {
	t.Helper()
	n := 0
	for _, c := range d.m.inbox.counts {
		n += c
	}
	return n
}

func storeStatus(t *testing.T, s *store.Store, mid string) string {
	t.Helper()
	st, err := s.ThreadStatus(context.Background(), threadID(t, s, mid))
	if err != nil {
		t.Fatal(err)
	}
	return st.Status
}

func TestArchiveShowsAtOnceAndUndo(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	before := inboxTotal(t, d)
	first := d.current()
	// The row leaves in the Update that handles the key, before any IO.
	nm, cmd := d.m.Update(keyMsg("e"))
	d.m = nm.(Model)
	if n := inboxTotal(t, d); n != before-1 {
		t.Errorf("after e (no IO yet) the inbox counts %d threads, want %d", n, before-1)
	}
	if strings.Contains(d.view(), first) {
		t.Errorf("archived %q still drawn before the store write", first)
	}
	d.run(cmd)
	if got := storeStatus(t, s, "outage@x"); got != store.StatusClosed {
		t.Errorf("archived thread's status = %q, want closed", got)
	}
	if !strings.Contains(d.view(), "archived 1 thread") || !strings.Contains(d.view(), "1 change queued") {
		t.Errorf("no note or queue count after archiving:\n%s", d.view())
	}
	d.keys("u")
	if n := inboxTotal(t, d); n != before {
		t.Errorf("after u the inbox counts %d threads, want %d", n, before)
	}
	if got := storeStatus(t, s, "outage@x"); got != store.StatusOpen {
		t.Errorf("status after undo = %q, want open", got)
	}
	if !strings.Contains(d.view(), "undone: archive 1 thread") || strings.Contains(d.view(), "queued") {
		t.Errorf("no undo note, or the cancelled move still counted:\n%s", d.view())
	}
}

func TestBulkSelectConfirmOnce(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	before := inboxTotal(t, d)
	d.keys("x", "x") // selects the first two rows, moving down
	if d.m.inbox.sel.count() != 2 {
		t.Fatalf("selected %d threads, want 2", d.m.inbox.sel.count())
	}
	d.keys("e")
	if !strings.Contains(d.view(), "Archive 2 threads?") {
		t.Fatalf("no confirmation naming the count:\n%s", d.view())
	}
	if n := inboxTotal(t, d); n != before {
		t.Fatalf("archived before the confirmation")
	}
	d.keys("y")
	if n := inboxTotal(t, d); n != before-2 {
		t.Errorf("after y the inbox counts %d, want %d", n, before-2)
	}
	if d.m.inbox.sel.count() != 0 {
		t.Errorf("selection kept %d archived threads", d.m.inbox.sel.count())
	}
	// Any other key cancels a confirmation.
	d.keys("x", "#", "n")
	if n := inboxTotal(t, d); n != before-2 {
		t.Errorf("n did not cancel: %d threads", n)
	}
	if d.m.inbox.sel.count() != 1 {
		t.Errorf("cancel dropped the selection")
	}
	d.keys("esc")
	if d.m.inbox.sel.count() != 0 {
		t.Errorf("esc did not clear the selection")
	}
}

func TestSelectSectionAndRange(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	sec := d.m.inbox.cursorSec
	d.keys("*")
	if got, want := d.m.inbox.sel.count(), d.m.inbox.counts[sec]; got != want || got == 0 {
		t.Errorf("* selected %d threads, want the section's %d", got, want)
	}
	d.keys("*")
	if d.m.inbox.sel.count() != 0 {
		t.Errorf("second * left %d selected", d.m.inbox.sel.count())
	}
	d.keys("g", "x", "j", "j", "X")
	if d.m.inbox.sel.count() != 4 {
		t.Errorf("x then X three rows down selected %d, want 4 (the range, ends included)", d.m.inbox.sel.count())
	}
}

func TestArchiveOlderTwoKeys(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	for d.currentSection() != "Not yet triaged" {
		d.keys("tab")
	}
	d.keys("E")
	if !strings.Contains(d.view(), "older than 7 days: 1 thread?") {
		t.Fatalf("E does not show the count:\n%s", d.view())
	}
	d.keys("y")
	if got := storeStatus(t, s, "report@x"); got != store.StatusClosed {
		t.Errorf("the 8-day-old thread is %q after E y, want closed", got)
	}
	if got := storeStatus(t, s, "lunch1@x"); got != store.StatusOpen {
		t.Errorf("a 2-hour-old thread is %q, want open", got)
	}
}

func TestSnoozeAndFolderPickers(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	d.keys("b")
	if !strings.Contains(d.view(), "tomorrow morning") {
		t.Fatalf("no snooze picker:\n%s", d.view())
	}
	d.typeText("bogus")
	d.keys("enter")
	if !strings.Contains(d.view(), "is not a time") {
		t.Errorf("a bad typed time is not explained:\n%s", d.view())
	}
	for range "bogus" {
		d.keys("backspace")
	}
	d.keys("down", "enter") // tomorrow morning
	if got := storeStatus(t, s, "outage@x"); got != store.StatusSnoozed {
		t.Errorf("status after snooze = %q", got)
	}
	d.keys("v")
	if !strings.Contains(d.view(), "Projects/Alpha") {
		t.Fatalf("no folder picker:\n%s", d.view())
	}
	d.typeText("pjal")
	d.keys("enter")
	locs, err := s.ThreadMailboxes(context.Background(), threadID(t, s, "budget@x"))
	if err != nil || len(locs) != 1 || locs[0].Mailbox != "Projects/Alpha" {
		t.Errorf("after v pjal enter the thread is in %+v, %v", locs, err)
	}
}

func TestKeyNamesMatchConfig(t *testing.T) {
	want := append([]string(nil), config.KeyActions...)
	slices.Sort(want)
	if got := KeyActionNames(); !slices.Equal(got, want) {
		t.Errorf("ui knows %v,\nconfig lists %v", got, want)
	}
	k := DefaultKeyMap()
	if err := k.Rebind(map[string][]string{"archive": {"a"}, "down": {"n"}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Archive.Keys(), []string{"a"}) {
		t.Errorf("archive keys = %v", k.Archive.Keys())
	}
	k.setState(stateInbox, false, false)
	if !slices.Equal(k.Down.Keys(), []string{"n"}) {
		t.Errorf("down keys after setState = %v, want the rebound n", k.Down.Keys())
	}
	if err := k.Rebind(map[string][]string{"archiv": {"a"}}); err == nil || !strings.Contains(err.Error(), "known actions") {
		t.Errorf("Rebind(archiv) = %v", err)
	}
}

func startActionProgram(t *testing.T) *teatest.TestModel {
	t.Helper()
	s, acts := actionFixture(t)
	m := New(Options{Store: s, Actions: acts, Account: "test", Now: clock, Principal: me})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	waitOutput(t, tm, "Not yet triaged")
	return tm
}

func TestGoldenBulkConfirm(t *testing.T) {
	tm := startActionProgram(t)
	press(tm, "x", "x", "x", "#")
	waitOutput(t, tm, "Move to Trash 3 threads?")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenSnoozePicker(t *testing.T) {
	tm := startActionProgram(t)
	press(tm, "b", "down")
	waitOutput(t, tm, "next week")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenFolderPicker(t *testing.T) {
	tm := startActionProgram(t)
	press(tm, "v", "p")
	waitOutput(t, tm, "Projects/Alpha")
	requireGolden(t, finalView(t, tm))
}

func TestFastKeysActOnSuccessiveThreads(t *testing.T) {
	s, acts := actionFixture(t)
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	before := inboxTotal(t, d)
	d.send(keyMsg("eee")) // typed faster than the terminal is read
	if n := inboxTotal(t, d); n != before-3 {
		t.Errorf("eee left %d threads, want %d", n, before-3)
	}
}

func TestBackFromSnoozeMark(t *testing.T) {
	s, acts := actionFixture(t)
	ctx := context.Background()
	id := threadID(t, s, "budget@x")
	// Snoozed until a time already past by the store's (real) clock.
	if _, err := s.Snooze(ctx, []int64{id}, fixedNow.Add(-time.Hour), "snooze"); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	if strings.Contains(d.view(), "Q3 budget review") {
		t.Fatalf("snoozed thread listed:\n%s", d.view())
	}
	if woke, err := s.WakeSnoozed(ctx); err != nil || len(woke) != 1 {
		t.Fatalf("WakeSnoozed = %v, %v", woke, err)
	}
	d.send(event.ThreadsChanged{IDs: []int64{id}})
	if !strings.Contains(d.view(), "[back from snooze]") {
		t.Fatalf("no mark on the returned thread:\n%s", d.view())
	}
	for d.current() != "Q3 budget review meeting" {
		d.keys("j")
	}
	d.keys("enter", "esc")
	if strings.Contains(d.view(), "[back from snooze]") {
		t.Errorf("mark stays after opening the thread:\n%s", d.view())
	}
	if ret, _ := s.ReturnedThreads(ctx); ret[id] {
		t.Error("the store keeps the mark after opening")
	}
}

func TestNotSpamInQuarantine(t *testing.T) {
	s, acts := actionFixture(t)
	ctx := context.Background()
	d := newDriver(t, Options{Store: s, Actions: acts}, 100, 30)
	for d.current() != "50% off all shoes this weekend" {
		d.keys("j")
	}
	d.keys("!")
	id := threadID(t, s, "shoes@x")
	ts, err := s.ThreadSummaryByID(ctx, id)
	if err != nil || ts.Section != store.SectionLowPriority || ts.Override != "low priority" {
		t.Fatalf("after ! the quarantined thread is in %q (override %q), %v; want low priority", ts.Section, ts.Override, err)
	}
	if st := storeStatus(t, s, "shoes@x"); st != store.StatusOpen {
		t.Errorf("not spam moved the thread out of the inbox: %q", st)
	}
	marks, _ := s.SpamMarks(ctx, 0)
	if len(marks) != 1 || marks[0].Spam || marks[0].ThreadID != id {
		t.Errorf("marks = %+v, want one not-spam mark", marks)
	}
	if !strings.Contains(d.view(), "not spam: 1 thread moved to low priority") {
		t.Errorf("no note:\n%s", d.view())
	}
	d.keys("u")
	if ts, _ := s.ThreadSummaryByID(ctx, id); ts.Section != store.SectionQuarantine || ts.Override != "" {
		t.Errorf("after u the thread is in %q (override %q), want back in quarantine", ts.Section, ts.Override)
	}
	if marks, _ := s.SpamMarks(ctx, 0); len(marks) != 0 {
		t.Errorf("marks after undo = %+v", marks)
	}
}

// TestBucketMoveUndo presses 4 on a thread (through the app's Mail, as
// the TUI runs it) and then u: the thread goes to Low priority, then back
// to its own section, in the store and on screen.
func TestBucketMoveUndo(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	cfg := config.Defaults()
	cfg.Accounts = []config.Account{{Name: "test"}}
	cfg.DataDir = t.TempDir()
	a := app.New(&cfg, s, app.Options{Now: clock})
	d := newDriver(t, Options{Store: a.Mail(), Actions: a.Actions(nil)}, 100, 30)
	ctx := context.Background()
	subject, section := d.current(), d.currentSection()
	if subject == "" || section == "Low priority" {
		t.Fatalf("the first row %q is in %q; the test needs a thread outside Low priority", subject, section)
	}
	ts, ok := d.m.inbox.current()
	if !ok {
		t.Fatal("no thread under the cursor")
	}
	id, own := ts.ID, ts.Section
	d.keys("4")
	if ts, _ := s.ThreadSummaryByID(ctx, id); ts.Section != store.SectionLowPriority || ts.Override != "low priority" {
		t.Fatalf("after 4 the thread is in %q (override %q), want low priority", ts.Section, ts.Override)
	}
	if d.current() != subject || d.currentSection() != "Low priority" {
		t.Errorf("after 4 the cursor is on %q in %q, want %q in Low priority", d.current(), d.currentSection(), subject)
	}
	if !strings.Contains(d.view(), "u undoes") {
		t.Errorf("the note does not say u undoes the move:\n%s", d.view())
	}
	d.keys("u")
	if ts, _ := s.ThreadSummaryByID(ctx, id); ts.Section != own || ts.Override != "" {
		t.Errorf("after u the thread is in %q (override %q), want back in %q without one", ts.Section, ts.Override, own)
	}
	if d.current() != subject || d.currentSection() != section {
		t.Errorf("after u the cursor is on %q in %q, want %q back in %q", d.current(), d.currentSection(), subject, section)
	}
	if !strings.Contains(d.view(), "undone: move 1 thread to low priority") {
		t.Errorf("no undo note:\n%s", d.view())
	}
}
