// Package ui is the Bubble Tea TUI of mailsift: the inbox grouped by
// triage bucket, the thread view, search, the `:` command line and the
// status bar. It reads from the store through Backend and never does IO in
// Update or View: every store call runs in a tea.Cmd.
package ui

import (
	"context"
	"log/slog"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/model"
	"mailsift/store"
)

// Backend is the part of the store the UI reads and writes. *store.Store
// satisfies it.
type Backend interface {
	SectionCounts(ctx context.Context) (map[store.Section]int, error)
	ListThreads(ctx context.Context, sec store.Section, offset, limit int) ([]store.ThreadSummary, error)
	ThreadSummaryByID(ctx context.Context, id int64) (store.ThreadSummary, error)
	Thread(ctx context.Context, id int64) (*model.Thread, error)
	RawMessage(ctx context.Context, messageID string) ([]byte, error)
	MarkThreadSeen(ctx context.Context, threadID int64, seen bool) error
	SetOverride(ctx context.Context, threadID int64, category string) error
	Search(ctx context.Context, query string, limit int) ([]store.SearchHit, error)
}

// threadPositioner is optionally implemented by a Backend that can say
// where a thread sits in its section (0-based, newest first) without
// paging through it.
type threadPositioner interface {
	ThreadPosition(ctx context.Context, sec store.Section, id int64) (int, error)
}

// Options configure the TUI. Nil fields mean defaults.
type Options struct {
	// Store is where the UI reads threads from. Required.
	Store Backend
	// Account is the account name shown in the status bar.
	Account string
	// Principal is the user's own address.
	Principal model.Address
	// Now is the clock for relative ages; nil means time.Now.
	Now func() time.Time
	// Events carries SyncProgressMsg, TriageProgressMsg, ConnMsg,
	// ThreadsChangedMsg and ErrorMsg from the host's background work.
	// Nil means no background work.
	Events <-chan any
	// Reply opens the draft flow for a thread (all: reply to all). Nil
	// means replies are not available yet.
	Reply func(threadID int64, all bool) tea.Cmd
	// Drafts, when set, is the send engine behind r/R: the draft review
	// and confirm screens replace Reply. *drafts.Engine satisfies it.
	Drafts Drafter
	// Retriage drops a thread's cached triage and queues it again. Nil
	// means re-triage is not available.
	Retriage func(ctx context.Context, threadID int64) error
	// Hint is shown in the status line at startup (e.g. the demo hint).
	Hint string
	// SaveDir is the default directory for saved attachments ("" is the
	// working directory).
	SaveDir string
	// Logger receives errors and debug output; nil discards.
	Logger *slog.Logger
}

// SyncProgressMsg reports sync progress; Phase "done" ends a sync.
type SyncProgressMsg struct {
	Account, Mailbox, Phase string
	Done, Total             int
}

// TriageProgressMsg reports background triage progress. Offline, when
// set, says why triage runs deterministically (e.g. "Ollama not reachable
// at http://127.0.0.1:11434").
type TriageProgressMsg struct {
	Done, Total int
	Model       string
	Offline     string
}

// ConnState is the connection state shown in the status bar.
type ConnState string

// Connection states.
const (
	ConnOnline  ConnState = "online"
	ConnOffline ConnState = "offline"
	ConnIdle    ConnState = "IDLE"
)

// ConnMsg reports a change of the connection state.
type ConnMsg struct{ State ConnState }

// ThreadsChangedMsg says the store changed (new mail, triage results);
// the inbox reloads, keeping the cursor on its thread. IDs may be nil.
type ThreadsChangedMsg struct{ IDs []int64 }

// ErrorMsg reports a background error; it stays in the status bar until
// dismissed with x.
type ErrorMsg struct{ Err error }
