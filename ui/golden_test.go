package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
)

// These tests run the real Bubble Tea program (teatest) at a fixed 100x30
// size, with the ASCII profile (TestMain) and a fixed clock, then compare
// the final screen with testdata/<test>.golden. Rewrite with -update.

const goldenW, goldenH = 100, 30

func startProgram(t *testing.T) *teatest.TestModel {
	t.Helper()
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	m := New(Options{Store: s, Account: "test", Now: clock, Principal: me})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	waitOutput(t, tm, "Not yet triaged")
	return tm
}

// waitOutput waits until the program has drawn want.
func waitOutput(t *testing.T, tm *teatest.TestModel, want string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte(want))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

func press(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

// finalView quits the program and returns its last screen.
func finalView(t *testing.T, tm *teatest.TestModel) string {
	t.Helper()
	tm.Send(keyMsg("ctrl+c"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	return fm.(Model).View()
}

func requireGolden(t *testing.T, view string) {
	t.Helper()
	if strings.ContainsAny(view, "\x1b\x9b\x07") {
		t.Fatalf("view contains control characters:\n%q", view)
	}
	golden.RequireEqual(t, []byte(view))
}

func TestGoldenInbox(t *testing.T) {
	tm := startProgram(t)
	press(tm, "j")
	waitOutput(t, tm, "> ")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenThread(t *testing.T) {
	tm := startProgram(t)
	press(tm, "G", "k", "enter") // the lunch thread: two messages, quote, signature, attachment
	waitOutput(t, tm, "menu.pdf")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenThreadUnfolded(t *testing.T) {
	tm := startProgram(t)
	press(tm, "G", "k", "enter")
	waitOutput(t, tm, "menu.pdf")
	press(tm, "z")
	waitOutput(t, tm, "It opened last week.")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenTriageHeader(t *testing.T) {
	tm := startProgram(t)
	press(tm, "tab", "tab", "tab", "tab", "enter") // the phishing thread
	waitOutput(t, tm, "PHISHING")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenHelp(t *testing.T) {
	tm := startProgram(t)
	press(tm, "?")
	waitOutput(t, tm, "move to urgent")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenSearch(t *testing.T) {
	tm := startProgram(t)
	press(tm, "/")
	tm.Type("from:bob")
	waitOutput(t, tm, "results for from:bob")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenList(t *testing.T) {
	tm := startProgram(t)
	press(tm, ":")
	tm.Type("list unread")
	press(tm, "enter")
	waitOutput(t, tm, "act on row N")
	requireGolden(t, finalView(t, tm))
}

func TestGoldenDisambiguation(t *testing.T) {
	tm := startProgram(t)
	press(tm, ":")
	tm.Type("open from bob")
	press(tm, "enter")
	waitOutput(t, tm, "which one do you mean?")
	requireGolden(t, finalView(t, tm))
}

var _ tea.Model = Model{}
