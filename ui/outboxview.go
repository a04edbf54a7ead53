package ui

import (
	"errors"
	"fmt"
	"time"

	"mailsift/store"
)

// OutboxEvent reports that an outbox item changed state (the host's send
// engine: sent, failed, unknown). It is sent on Options.Events.
type OutboxEvent struct {
	ID        int64
	State     store.OutboxState
	MessageID string
	// Err is the last error of a failed or unknown item.
	Err string
	// NextAttempt is when a failed item is retried (zero: it is not).
	NextAttempt time.Time
}

// handleOutboxEvent shows an outbox change in the status bar.
func (m *Model) handleOutboxEvent(ev OutboxEvent) {
	f := &m.drafts
	if ev.ID == f.undoID && ev.State != store.OutboxQueued {
		f.undoID = 0
	}
	switch ev.State {
	case store.OutboxSent:
		m.note = SanitizeLine("sent <" + ev.MessageID + ">")
	case store.OutboxFailed:
		if !ev.NextAttempt.IsZero() {
			m.setError(fmt.Errorf("send failed, retrying at %s: %s", ev.NextAttempt.Local().Format("15:04:05"), ev.Err))
		} else {
			m.setError(fmt.Errorf("send failed: %s (the draft is open again; see mailsift outbox)", ev.Err))
		}
	case store.OutboxUnknown:
		m.setError(errors.New("send outcome unknown: " + ev.Err + " (see mailsift outbox)"))
	}
}
