// Package ui is the Bubble Tea TUI of mailsift: the inbox grouped by
// triage bucket, the thread view, search, the `:` command line and the
// status bar. It reads from the store through Backend and never does IO in
// Update or View: every store call runs in a tea.Cmd.
package ui

import (
	"context"
	"log/slog"
	"time"

	"mailsift/internal/app/event"
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

// Options configure the TUI. Nil fields mean defaults.
type Options struct {
	// Store is where the UI reads threads from. Required.
	Store Backend
	// Account is the account name shown in the status bar.
	Account string
	// ModelHost is the model server's "host:port" when it is not this
	// machine (the status bar then names it); "" for a local server.
	ModelHost string
	// Principal is the user's own address.
	Principal model.Address
	// Now is the clock for relative ages; nil means time.Now.
	Now func() time.Time
	// Context is the program's context, the one the host passes to
	// tea.WithContext: every IO command runs under it, so ending it
	// cancels them. Nil means context.Background.
	Context context.Context
	// Events carries the app layer's events (sync and triage progress,
	// connection state, store changes, outbox state, failures); the UI
	// re-arms its wait after each one. Nil means no background work.
	Events <-chan event.Event
	// Drafts is the send engine behind r/R: the draft review and confirm
	// screens and the outbox. Nil means replies are not available.
	// *drafts.Engine satisfies it.
	Drafts Drafter
	// Approvals lists the sends agents asked for (the approvals screen, P,
	// and the status bar badge); nil means no approvals screen.
	// *app.Approvals satisfies it.
	Approvals Approver
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
