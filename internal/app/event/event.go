// Package event holds the typed events the app layer publishes to every
// surface (the TUI, later the MCP and REST servers): sync progress and
// connection state, triage progress, store changes, outbox state changes and
// background failures. Surfaces subscribe to one channel of Event; nothing
// polls.
package event

import (
	"time"

	"mailsift/store"
)

// Event is one thing that changed in the background. The concrete types
// below are the only implementations.
type Event interface{ isEvent() }

// SyncProgress reports how far an account's sync has got; Phase "done"
// ends a sync pass.
type SyncProgress struct {
	Account, Mailbox, Phase string
	Done, Total             int
}

// ConnState is an account's connection state.
type ConnState string

// Connection states.
const (
	ConnOnline  ConnState = "online"
	ConnOffline ConnState = "offline"
	ConnIdle    ConnState = "IDLE"
	// ConnLocal is a local source (Maildir, mbox, demo) after a sync.
	ConnLocal ConnState = "local"
	// ConnAuthFailed is an account whose server refused the credentials
	// (or whose OAuth2 sign-in was revoked): only the user can fix it.
	ConnAuthFailed ConnState = "auth failed"
)

// Conn reports a change of an account's connection state.
type Conn struct {
	Account string
	State   ConnState
}

// TriageProgress reports background triage progress. Offline, when set,
// says why triage runs deterministically (e.g. "Ollama not reachable at
// http://127.0.0.1:11434"); Model names the model otherwise.
type TriageProgress struct {
	Done, Total int
	Model       string
	Offline     string
}

// ThreadsChanged says the store changed (new mail, triage results); IDs
// names the threads when known and is nil otherwise.
type ThreadsChanged struct{ IDs []int64 }

// Outbox reports that an outbox item changed state (queued, sending,
// sent, failed, unknown, cancelled).
type Outbox struct {
	ID        int64
	State     store.OutboxState
	MessageID string
	// Err is the last error of a failed or unknown item.
	Err string
	// NextAttempt is when a failed item is retried (zero: it is not).
	NextAttempt time.Time
}

// Failure reports a background error a person should see (a sync that
// failed and is retried, an outbox that stopped).
type Failure struct{ Err error }

func (SyncProgress) isEvent()   {}
func (Conn) isEvent()           {}
func (TriageProgress) isEvent() {}
func (ThreadsChanged) isEvent() {}
func (Outbox) isEvent()         {}
func (Failure) isEvent()        {}
