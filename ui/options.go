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
	ThreadIDForMessage(ctx context.Context, messageID string) (int64, error)
}

// Options configure the TUI. Nil fields mean defaults.
type Options struct {
	// Store is where the UI reads threads from. Required.
	Store Backend
	// Account is the account name shown in the status bar.
	Account string
	// Accounts are the configured accounts' names, in config order. With
	// more than one, inbox rows carry an account marker, A cycles the view
	// through all and each account, and the status bar shows each
	// account's state.
	Accounts []string
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
	// Scheduling is the scheduling assistant behind the thread view's
	// panel. Nil means no panel. *app.Scheduler satisfies it.
	Scheduling Scheduling
	// Actions is the inbox actions service (archive, delete, spam, star,
	// move, snooze, undo, bulk). Nil means those keys say they are not
	// available. *app.Actions satisfies it.
	Actions Actioner
	// Keys rebinds actions by name (the config's [keys] table, whose
	// names config.KeyActions lists and config validation checks); New
	// panics on a name it does not know.
	Keys map[string][]string
	// Approvals lists the sends agents asked for (the approvals screen, P,
	// and the status bar badge); nil means no approvals screen.
	// *app.Approvals satisfies it.
	Approvals Approver
	// Retriage drops a thread's cached triage and queues it again. Nil
	// means re-triage is not available.
	Retriage func(ctx context.Context, threadID int64) error
	// Interpreter reads plain language on the `:` line (the local model
	// through mailops). Nil means plain language says it needs the model;
	// the structured commands work either way.
	Interpreter Interpreter
	// Searcher answers `/` by meaning and words (app.Search). Nil means
	// the store's lexical search, newest first.
	Searcher Searcher
	// Hint is shown in the status line at startup (e.g. the demo hint).
	Hint string
	// SaveDir is the default directory for saved attachments ("" is the
	// working directory).
	SaveDir string
	// Logger receives errors and debug output; nil discards.
	Logger *slog.Logger
	// OpenURL opens a link or a file URL the user confirmed; nil runs the
	// browser ($BROWSER, else xdg-open) with the URL as one argument.
	OpenURL func(ctx context.Context, url string) error
	// Unsubscribe sends the RFC 8058 one-click POST to an https URL the
	// user confirmed; nil uses unsubscribe.Post.
	Unsubscribe func(ctx context.Context, url string) error
	// ArchiveSender archives every thread from a sender (offered after an
	// unsubscribe); nil: not offered.
	ArchiveSender ArchiveSenderFunc
	// NewMail is what new mail raises: "off", "urgent" (a thread lands in
	// Urgent) or "all" (any new unread thread); "" is "urgent".
	NewMail string
	// Notifier shows a desktop notification for new mail; nil rings the
	// terminal bell (Bell) instead.
	Notifier Notifier
	// Bell rings the terminal bell (writes BEL to the terminal); nil: none.
	Bell func()
	// SetTitle sets the terminal window title (the unread urgent count);
	// nil: the title is left alone.
	SetTitle func(title string)
}
