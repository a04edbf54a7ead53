package ui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"mailsift/internal/app/event"
	"mailsift/model"
)

// twoAccountProgram shows the fixture mail split over two accounts:
// "test" has the first five threads, "home" the rest.
func twoAccountProgram(t *testing.T) *teatest.TestModel {
	t.Helper()
	all := fixtureMessages()
	tri := fixtureTriage()
	delete(tri, "phish@x") // a home thread: stored below, without triage
	s := newFixtureStore(t, all[:5], tri)
	ctx := context.Background()
	if err := s.EnsureAccount(ctx, "home", "demo://"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "home", Name: "INBOX", Role: model.RoleInbox}); err != nil {
		t.Fatal(err)
	}
	var home []*model.Message
	for _, f := range all[5:] {
		m := f.message()
		m.Loc.Account = "home"
		home = append(home, m)
	}
	if err := s.PutMessages(ctx, home); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Store: s, Account: "test +1", Accounts: []string{"test", "home"}, Now: clock, Principal: me})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	waitOutput(t, tm, "Weekly report from Bob")
	return tm
}

func rowOf(view, subject string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, subject) {
			return l
		}
	}
	return ""
}

func TestAccountMarkersAndStatus(t *testing.T) {
	tm := twoAccountProgram(t)
	tm.Send(event.Conn{Account: "test", State: event.ConnIdle})
	tm.Send(event.Conn{Account: "home", State: event.ConnAuthFailed})
	waitOutput(t, tm, "auth failed")
	view := finalView(t, tm)
	if r := rowOf(view, "Production database is down"); !strings.HasPrefix(r, "test ") {
		t.Errorf("a test thread's row %q does not start with its account marker", r)
	}
	if r := rowOf(view, "Weekly report from Bob"); !strings.HasPrefix(r, "home ") {
		t.Errorf("a home thread's row %q does not start with its account marker", r)
	}
	last := strings.Split(view, "\n")
	status := last[len(last)-1]
	if !strings.Contains(status, "test: IDLE") || !strings.Contains(status, "home: auth failed") {
		t.Errorf("status line %q does not show each account's state", status)
	}
}

func TestAccountCycling(t *testing.T) {
	tm := twoAccountProgram(t)
	press(tm, "A")
	waitOutput(t, tm, "5 threads") // test's five, after the reload
	press(tm, "A")
	waitOutput(t, tm, "3 threads") // home's three
	view := finalView(t, tm)
	if rowOf(view, "Weekly report from Bob") == "" || rowOf(view, "Lunch tomorrow?") == "" {
		t.Errorf("home view lacks home's threads:\n%s", view)
	}
	for _, s := range []string{"Production database is down", "Q3 budget review meeting", "This week in Go"} {
		if rowOf(view, s) != "" {
			t.Errorf("home view shows test's thread %q:\n%s", s, view)
		}
	}
	if !strings.Contains(view, "showing home") {
		t.Errorf("status does not say the view is limited:\n%s", view)
	}
}

func TestAccountCyclingBackToAll(t *testing.T) {
	tm := twoAccountProgram(t)
	press(tm, "A")
	waitOutput(t, tm, "5 threads")
	press(tm, "A", "A")
	// One wait for both: the note and the reloaded count may come in one
	// chunk of output or in two frames, in either order.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("showing all accounts")) && bytes.Contains(b, []byte("8 threads"))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	view := finalView(t, tm)
	for _, s := range []string{"Production database is down", "Weekly report from Bob"} {
		if rowOf(view, s) == "" {
			t.Errorf("all-accounts view lacks %q:\n%s", s, view)
		}
	}
}

func TestOneAccountHasNoMarkers(t *testing.T) {
	tm := startProgram(t)
	press(tm, "A")
	view := finalView(t, tm)
	if r := rowOf(view, "Production database is down"); strings.HasPrefix(r, "test ") {
		t.Errorf("a single account's rows carry a marker: %q", r)
	}
	if strings.Contains(view, "showing") {
		t.Errorf("A changed the view with one account:\n%s", view)
	}
}

func TestAccountKeyInHelp(t *testing.T) {
	tm := twoAccountProgram(t)
	tm.Send(tea.WindowSizeMsg{Width: 160, Height: 40}) // room for every help column
	press(tm, "?")
	waitOutput(t, tm, "Keys")
	if view := finalView(t, tm); !strings.Contains(view, "all/next account") {
		t.Errorf("help does not list A:\n%s", view)
	}
}
