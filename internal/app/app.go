// Package app is the service layer every surface shares: the TUI, the CLI
// commands and the coming MCP and REST servers call it, and only it wires
// the config, the store, the mail sources, triage and the drafts engine
// together. One file per service: triage.go (the triager, the worker,
// re-triage), drafts.go (the send engine), mail.go (the store as surfaces
// read it, with raw bytes from sources that keep them), session.go (the
// background work of a running TUI: sync, triage and the outbox, reported
// as typed events from package event).
package app

import (
	"log/slog"
	"sync"
	"time"

	"mailsift/config"
	"mailsift/model"
	"mailsift/store"
)

// Options configure an App; nil fields mean defaults.
type Options struct {
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// App holds what every service needs: the loaded config, the open store,
// the logger and the clock. It does no IO of its own until a service is
// used, and the caller keeps ownership of the store.
type App struct {
	cfg *config.Config
	st  *store.Store
	log *slog.Logger
	now func() time.Time

	search searchState // semantic search, built on first use (search.go)
	// learn holds the user's corrections (see Learning), made on first use.
	learnOnce sync.Once
	learn     *Learning
}

// New returns the app over an open store.
func New(cfg *config.Config, st *store.Store, opts Options) *App {
	a := &App{cfg: cfg, st: st, log: opts.Logger, now: opts.Now}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// Config returns the loaded configuration.
func (a *App) Config() *config.Config { return a.cfg }

// Store returns the store.
func (a *App) Store() *store.Store { return a.st }

// Logger returns the logger.
func (a *App) Logger() *slog.Logger { return a.log }

// Principal is the mailbox owner.
func (a *App) Principal() model.Address { return a.cfg.Principal.Address() }
