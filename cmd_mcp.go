package main

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mailsift/config"
	"mailsift/extract"
	"mailsift/internal/app"
	"mailsift/mcp"
	"mailsift/mirror"
	"mailsift/semantic"
	"mailsift/store"
)

// cmdMCP is `mailsift mcp [--no-sync]`: the MCP server on stdin/stdout.
// stdout is the transport, so nothing else may write to it: diagnostics go
// to the log file.
func cmdMCP(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("mcp", "[--no-sync]\n\nServe the mailbox over MCP (stdio). send_reply only queues a pending approval:\n"+
		"the person approves with `mailsift approvals approve ID` or the TUI's approvals screen.")
	noSync := fs.Bool("no-sync", false, "do not sync the accounts once in the background at start")
	if _, err := g.parse(fs, args); err != nil {
		return err
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	log, _ := g.Logger()
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	a := app.New(cfg, st, app.Options{Logger: log})
	eng, closeEng := a.Drafts(ctx, app.DraftOptions{})
	defer closeEng()
	an := a.Analyzer()
	tr, err := a.Triager(an, false)
	if err != nil {
		return err
	}
	dir := schemasDir(cfg, g.Env)
	initialized := make(chan struct{})
	var once sync.Once
	srv, err := mcp.New(mcp.Options{App: a, Approvals: a.Approvals(eng), Triager: tr, Version: version(), Logger: log,
		Initialized: func() { once.Do(func() { close(initialized) }) },
		Extract: func(ctx context.Context, messageID, schemaID string) (*extract.Result, error) {
			return a.Extract(ctx, dir, messageID, schemaID)
		}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var syncer func(context.Context)
	if !*noSync {
		syncer = func(ctx context.Context) { syncOnce(ctx, cfg, st, a) }
	}
	wait := mcpBackground(ctx, a, initialized, mcpWork{sync: syncer})
	err = srv.Run(ctx, &sdk.StdioTransport{})
	cancel()
	wait()
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, sdk.ErrConnectionClosed) {
		return err
	}
	return nil
}

// mcpWork is the background work of `mailsift mcp` (mcpBackground).
type mcpWork struct {
	// sync runs once (nil: none).
	sync func(context.Context)
	// progress, if not nil, sees each embedding pass.
	progress chan<- semantic.Progress
	// snooze configures the snooze waker (the zero value: the real clock).
	snooze app.SnoozeWakerOptions
}

// mcpBackground starts the background work of `mailsift mcp` once
// initialized is closed (so the handshake answers at once): w.sync runs
// once; with an embed model the embedder keeps search by meaning current,
// woken again when the sync is done; and snoozed threads wake when their
// time comes (at once for those whose time passed while mailsift was not
// running), as the TUI's timer wakes them. The returned wait blocks until
// all of it ended, after ctx ends.
func mcpBackground(ctx context.Context, a *app.App, initialized <-chan struct{}, w mcpWork) (wait func()) {
	started := func() bool {
		select {
		case <-initialized:
			return true
		case <-ctx.Done():
			return false
		}
	}
	sync, progress := w.sync, w.progress
	woken := make(chan struct{})
	go func() {
		defer close(woken)
		if started() {
			a.RunSnoozeWaker(ctx, w.snooze)
		}
	}()
	embedWake := make(chan struct{}, 1)
	synced, embedded := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(embedded)
		if !a.Embeds() {
			return
		}
		select {
		case <-initialized:
		case <-ctx.Done():
			return
		}
		if err := a.RunEmbedder(ctx, embedWake, progress); err != nil && ctx.Err() == nil {
			a.Logger().Warn("mcp: embedder stopped; search_inbox is lexical", "err", err)
		}
	}()
	go func() {
		defer close(synced)
		if sync == nil {
			return
		}
		select {
		case <-initialized:
		case <-ctx.Done():
			return
		}
		sync(ctx)
		select { // new mail to embed
		case embedWake <- struct{}{}:
		default:
		}
	}()
	return func() {
		<-synced
		<-embedded
		<-woken
	}
}

// syncOnce mirrors every account once (the TUI, when running, keeps
// syncing too; the store has one writer per process and waits for the other).
func syncOnce(ctx context.Context, cfg *config.Config, st *store.Store, a *app.App) {
	for i := range cfg.Accounts {
		acct := &cfg.Accounts[i]
		src, err := mirror.Open(acct, mirror.Options{Logger: a.Logger()})
		if err != nil {
			a.Logger().Warn("mcp: open account", "account", acct.Name, "err", err)
			continue
		}
		start := time.Now()
		if err := mirror.Sync(ctx, st, acct.Name, src, nil); err != nil && ctx.Err() == nil {
			a.Logger().Warn("mcp: sync", "account", acct.Name, "err", err)
		}
		a.Logger().Info("mcp: synced", "account", acct.Name, "took", time.Since(start))
		src.Close()
	}
}

// schemasDir is the config directory's schemas/ (extract_to_schema).
func schemasDir(cfg *config.Config, env func(string) string) string {
	if cfg.Path != "" {
		return filepath.Join(filepath.Dir(cfg.Path), "schemas")
	}
	if p, err := config.DefaultPath(env); err == nil {
		return filepath.Join(filepath.Dir(p), "schemas")
	}
	return ""
}
