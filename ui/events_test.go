package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"mailsift/internal/app/event"
	"mailsift/model"
)

// TestEventStream feeds host events through Options.Events: each one is
// applied and the wait command re-arms for the next.
func TestEventStream(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	events := make(chan event.Event, 4)
	events <- event.SyncProgress{Account: "test", Mailbox: "Archive", Phase: "bodies", Done: 3, Total: 9}
	events <- event.Conn{State: event.ConnIdle}
	events <- event.Failure{Err: errors.New("imap: connection reset")}
	close(events)
	d := newDriver(t, Options{Store: s, Events: events}, 120, 30)
	v := d.view()
	status := v[strings.LastIndex(v, "\n")+1:]
	for _, want := range []string{"syncing Archive 3/9", "IDLE", "imap: connection reset"} {
		if !strings.Contains(status, want) {
			t.Errorf("status %q lacks %q (all three events must arrive through the re-armed wait)", status, want)
		}
	}
}

// TestSyncProgressShowsNewMail: mail stored during a sync appears when
// progress arrives, whatever the stored batch sizes, at most every
// syncReloadEvery, and always at the end of a phase.
func TestSyncProgressShowsNewMail(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	now := fixedNow
	d := newDriver(t, Options{Store: s, Now: func() time.Time { return now }}, 120, 40)
	add := func(id, subject string) {
		t.Helper()
		m := fx{id: id, subject: subject, from: model.Address{Name: "Dora", Email: "dora@example.com"}, ago: time.Minute, body: "hello"}.message()
		if err := s.PutMessages(context.Background(), []*model.Message{m}); err != nil {
			t.Fatal(err)
		}
	}
	progress := func(done int) {
		d.send(event.SyncProgress{Account: "test", Mailbox: "INBOX", Phase: "messages", Done: done, Total: 1250})
	}
	add("first@x", "Freshly synced first")
	progress(137)
	if !strings.Contains(d.view(), "Freshly synced first") {
		t.Fatalf("mail stored before a progress event not shown:\n%s", d.view())
	}
	add("second@x", "Freshly synced second")
	now = now.Add(syncReloadEvery / 2)
	progress(251)
	if strings.Contains(d.view(), "Freshly synced second") {
		t.Errorf("inbox reloaded twice within %v", syncReloadEvery)
	}
	now = now.Add(syncReloadEvery)
	progress(377)
	if !strings.Contains(d.view(), "Freshly synced second") {
		t.Errorf("mail not shown %v after the last reload:\n%s", syncReloadEvery, d.view())
	}
	add("third@x", "Freshly synced third")
	progress(1250) // the phase's last batch, at once
	if !strings.Contains(d.view(), "Freshly synced third") {
		t.Errorf("mail of the phase's last batch not shown:\n%s", d.view())
	}
}
