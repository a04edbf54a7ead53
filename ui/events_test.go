package ui

import (
	"errors"
	"strings"
	"testing"
)

// TestEventStream feeds host events through Options.Events: each one is
// applied and the wait command re-arms for the next.
func TestEventStream(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	events := make(chan any, 4)
	events <- SyncProgressMsg{Account: "test", Mailbox: "Archive", Phase: "bodies", Done: 3, Total: 9}
	events <- ConnMsg{State: ConnIdle}
	events <- ErrorMsg{Err: errors.New("imap: connection reset")}
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
