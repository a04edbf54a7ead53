package ui

import (
	"errors"
	"fmt"

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
		m.setError(fmt.Errorf("send failed: %s (the draft is kept; see mailsift outbox)", ev.Err))
	case store.OutboxUnknown:
		m.setError(errors.New("send outcome unknown: " + ev.Err + " (see mailsift outbox)"))
	}
}
