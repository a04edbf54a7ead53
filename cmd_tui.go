package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/config"
	"mailsift/drafts"
	"mailsift/internal/app/event"
	"mailsift/mailsrc"
	"mailsift/mailsrc/rfc822"
	"mailsift/mirror"
	"mailsift/model"
	"mailsift/store"
	"mailsift/triage"
	"mailsift/ui"
)

// tuiHint is the status-line hint when no config exists.
const tuiHint = "no config: demo mailbox — run `mailsift init` to configure"

// cmdTUI runs the TUI: it draws from the store at once, while sync and
// triage run in the background and report through the UI's event channel.
func cmdTUI(ctx context.Context, g *globals, args []string) int {
	fs := g.flagSet("", "[global flags]")
	if _, code, ok := g.parse(fs, args); !ok {
		return code
	}
	cfg, err := g.loadConfig()
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift: %v\n", err)
		return 1
	}
	log, _ := g.Logger()
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift: %v\n", err)
		return 1
	}
	defer st.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan event.Event, 64)
	send := func(ev event.Event) {
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel (deferred later, runs first)
	defer cancel()

	// Triage: one worker over the store; woken after each sync.
	wake := make(chan struct{}, 1)
	wakeTriage := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	principal := model.Address{Name: cfg.Principal.Name, Email: cfg.Principal.Email}
	an := triageAnalyzer(cfg, g)
	tr, err := g.triager(cfg, an, false)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift: %v\n", err)
		return 1
	}
	worker := triage.NewWorker(st, triage.WorkerOptions{
		Triager: tr, Fallback: triage.NewOffline(an), Principal: principal,
		Parallel: cfg.Ollama.Parallel, Logger: log,
	})
	tevents := make(chan triage.Event, 16)
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := worker.Loop(ctx, wake, tevents); err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("tui: triage loop ended", "err", err)
		}
	}()
	go func() {
		defer wg.Done()
		forwardTriage(ctx, tevents, send, tr.Model(), cfg.Ollama.Host)
	}()

	// Sync: one mirror loop per account. Flag changes made in the UI are
	// pushed to the source at once (pushFlags pokes every loop).
	var pushers []chan struct{}
	rawReaders := map[string]mailsrc.RawReader{}
	pushFlags := func() {
		for _, p := range pushers {
			select {
			case p <- struct{}{}:
			default:
			}
		}
	}
	for i := range cfg.Accounts {
		acct := &cfg.Accounts[i]
		src, err := mirror.Open(acct, mirror.Options{Logger: log})
		if err != nil {
			send(event.Failure{Err: err})
			continue
		}
		if r, ok := src.(mailsrc.RawReader); ok {
			rawReaders[acct.Name] = r
		}
		mevents := make(chan mirror.Event, 16)
		push := make(chan struct{}, 1)
		pushers = append(pushers, push)
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer src.Close()
			mirror.Run(ctx, st, acct.Name, src, 0, push, mevents)
			close(mevents)
		}()
		go func() {
			defer wg.Done()
			forwardSync(ctx, mevents, send, wakeTriage, acct.Src.IsNetwork())
		}()
	}

	// Drafts and sending: the engine runs the outbox in the background;
	// its state changes reach the status bar.
	eng, closeDrafts := newDraftEngine(ctx, cfg, st, principal, g, func(ctx context.Context, id int64) {
		_ = retriage(ctx, st, id, wakeTriage)
	})
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer closeDrafts() // after the outbox stopped using the connections
		if err := eng.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			send(event.Failure{Err: fmt.Errorf("outbox: %w", err)})
		}
	}()
	go func() {
		defer wg.Done()
		watchOutbox(ctx, st, send, time.Second)
	}()

	opts := ui.Options{
		Store:     flagPushingStore{Store: st, push: pushFlags, raw: rawReaders},
		Account:   accountLabel(cfg),
		Principal: principal,
		Events:    events,
		Logger:    log,
		// Re-triage: invalidate the thread's cached record, wake the worker.
		Retriage: func(ctx context.Context, id int64) error { return retriage(ctx, st, id, wakeTriage) },
		// Reply (r/R): the draft review and confirm screens over the engine.
		Drafts: eng,
	}
	if cfg.NoConfig {
		opts.Hint = tuiHint
	}
	p := tea.NewProgram(ui.New(opts),
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
		tea.WithContext(ctx),
		tea.WithInput(g.Stdin),
		tea.WithOutput(g.Stdout),
	)
	_, err = p.Run()
	cancel()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(g.Stderr, "mailsift: %v\n", err)
		return 1
	}
	return 0
}

// accountLabel names the account(s) in the status bar.
func accountLabel(cfg *config.Config) string {
	switch len(cfg.Accounts) {
	case 0:
		return "no account"
	case 1:
		if cfg.Demo {
			return cfg.Accounts[0].Name + " (demo)"
		}
		return cfg.Accounts[0].Name
	default:
		return fmt.Sprintf("%s +%d", cfg.Accounts[0].Name, len(cfg.Accounts)-1)
	}
}

// threadTriageForgetter is the store call re-triage would ideally use:
// drop a thread's cached triage records.
type threadTriageForgetter interface {
	ForgetTriage(ctx context.Context, threadID int64) error
}

// retriage invalidates a thread's cached triage and wakes the worker. The
// worker re-triages threads without a record on their current content
// hash, so re-saving the shown record with an emptied content hash queues
// the thread again while its current result stays on screen until the new
// one replaces it.
func retriage(ctx context.Context, st *store.Store, id int64, wake func()) error {
	if f, ok := any(st).(threadTriageForgetter); ok {
		if err := f.ForgetTriage(ctx, id); err != nil {
			return err
		}
		wake()
		return nil
	}
	ts, err := st.ThreadSummaryByID(ctx, id)
	if err != nil {
		return err
	}
	if ts.Triage != nil {
		rec := *ts.Triage
		rec.ContentHash = ""
		if err := st.SaveTriage(ctx, rec); err != nil {
			return err
		}
	}
	wake()
	return nil
}

// forwardSync turns mirror events into UI events and wakes triage after
// each sync pass.
func forwardSync(ctx context.Context, in <-chan mirror.Event, send func(event.Event), wakeTriage func(), network bool) {
	last := time.Time{}
	for ev := range in {
		switch {
		case ev.Err != nil:
			send(event.Failure{Err: fmt.Errorf("%w (retrying in %s)", ev.Err, ev.RetryIn.Round(time.Second))})
			send(event.Conn{Account: ev.Account, State: event.ConnOffline})
		case ev.Progress != nil:
			p := ev.Progress
			// Throttle progress to ~10 updates a second; phase changes always go.
			if p.Phase != "done" && p.Done != p.Total && time.Since(last) < 100*time.Millisecond {
				continue
			}
			last = time.Now()
			send(event.SyncProgress{Account: p.Account, Mailbox: p.Mailbox, Phase: p.Phase, Done: p.Done, Total: p.Total})
		case ev.Synced:
			send(event.SyncProgress{Account: ev.Account, Phase: "done"})
			if network {
				send(event.Conn{Account: ev.Account, State: event.ConnOnline})
			} else {
				send(event.Conn{Account: ev.Account, State: event.ConnLocal})
			}
			send(event.ThreadsChanged{})
			wakeTriage()
		case ev.Watching:
			if network {
				send(event.Conn{Account: ev.Account, State: event.ConnIdle})
			}
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// forwardTriage turns worker events into UI events.
func forwardTriage(ctx context.Context, in <-chan triage.Event, send func(event.Event), modelName, host string) {
	last := time.Time{}
	reason := "Ollama not reachable at " + host
	for ev := range in {
		msg := event.TriageProgress{Done: ev.Done, Total: ev.Total, Model: ev.Model}
		if ev.Offline {
			if ev.Err != nil {
				reason = ev.Err.Error()
			}
			msg.Offline = reason
		} else if ev.Err != nil {
			send(event.Failure{Err: fmt.Errorf("triage: %w", ev.Err)})
		}
		if msg.Model == "" && !ev.Offline {
			msg.Model = modelName
		}
		if ev.Done != ev.Total && ev.Err == nil && ev.Outcome != nil && time.Since(last) < 150*time.Millisecond {
			continue
		}
		last = time.Now()
		send(msg)
		if ctx.Err() != nil {
			return
		}
	}
}

// demoNoSend is what confirming a reply in the demo mailbox says.
const demoNoSend = "demo mailbox: nothing is sent"

// newDraftEngine builds the send engine for the configured accounts: the
// SMTP or sendmail transport of each, the IMAP source as its mailbox (Sent
// and Drafts copies) for IMAP accounts, and a transport that refuses for
// the demo mailbox. The returned func closes the IMAP connections.
func newDraftEngine(ctx context.Context, cfg *config.Config, st *store.Store, principal model.Address, g *globals,
	retriage func(ctx context.Context, threadID int64)) (*drafts.Engine, func()) {
	log, _ := g.Logger()
	var accts []drafts.Account
	var closers []func() error
	for i := range cfg.Accounts {
		a := &cfg.Accounts[i]
		da := drafts.AccountFromConfig(a, principal)
		if da.Transport == nil && (cfg.Demo || a.Src.Scheme == "demo") {
			da.Transport = &drafts.NoSend{Reason: demoNoSend}
		}
		if a.Src.IsNetwork() {
			if src, err := mirror.Open(a, mirror.Options{Logger: log}); err == nil {
				closers = append(closers, src.Close)
				if mb, ok := src.(drafts.Mailbox); ok {
					da.Mailbox = mb
				}
			}
			if mbs, err := st.Mailboxes(ctx, a.Name); err == nil {
				da.SentMailbox, da.DraftsMailbox = drafts.SentAndDrafts(mbs)
			}
		}
		accts = append(accts, da)
	}
	var gen drafts.Generator
	if !cfg.Triage.Offline {
		if o, err := drafts.NewOllama(cfg.Ollama.Host, cfg.Ollama.Model, cfg.Ollama.NumCtx, nil); err == nil {
			gen = timeoutGenerator{g: o, d: cfg.Ollama.Timeout}
		}
	}
	eng := drafts.New(st, drafts.Options{
		Principal: principal,
		Policy: drafts.Policy{Tone: cfg.Drafts.Tone, Length: cfg.Drafts.Length, Signature: cfg.Drafts.Signature,
			Language: cfg.Drafts.Language, NeverPromise: cfg.Drafts.NeverPromise},
		Generator:   gen,
		Accounts:    accts,
		UndoWindow:  time.Duration(cfg.Drafts.UndoSeconds) * time.Second,
		ApprovalTTL: cfg.Drafts.ApprovalTTL,
		Retriage:    retriage,
		Logger:      log,
	})
	return eng, func() {
		for _, c := range closers {
			_ = c()
		}
	}
}

// timeoutGenerator bounds each draft request, so an unresponsive Ollama
// falls back to the template draft instead of spinning for ever.
type timeoutGenerator struct {
	g drafts.Generator
	d time.Duration
}

func (t timeoutGenerator) GenerateReply(ctx context.Context, req drafts.GenerateRequest) (*drafts.GeneratedReply, error) {
	if t.d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.d)
		defer cancel()
	}
	return t.g.GenerateReply(ctx, req)
}

func (t timeoutGenerator) Name() string { return t.g.Name() }

// outboxReader is the part of the store watchOutbox reads.
type outboxReader interface {
	OutboxItems(ctx context.Context, states ...store.OutboxState) ([]store.OutboxItem, error)
	OutboxItem(ctx context.Context, id int64) (*store.OutboxItem, error)
}

// watchOutbox polls the outbox and reports items that became sent,
// failed or unknown since the last look (the engine has no event stream).
// It lists only unfinished items, reads the ones that left that list, and
// probes ids past the last one known for items that were queued and
// finished between two looks.
func watchOutbox(ctx context.Context, st outboxReader, send func(event.Event), every time.Duration) {
	open := []store.OutboxState{store.OutboxQueued, store.OutboxSending, store.OutboxFailed, store.OutboxUnknown}
	seen := map[int64]store.OutboxState{}
	next := int64(1) // ids below were all looked at
	first := true
	t := time.NewTicker(every)
	defer t.Stop()
	report := func(it *store.OutboxItem) {
		switch it.State {
		case store.OutboxSent, store.OutboxFailed, store.OutboxUnknown:
			send(event.Outbox{ID: it.ID, State: it.State, MessageID: it.MessageID, Err: it.LastError, NextAttempt: it.NextAttemptAt})
		}
	}
	for {
		if items, err := st.OutboxItems(ctx, open...); err == nil {
			now := map[int64]bool{}
			for i := range items {
				it := &items[i]
				now[it.ID] = true
				old, ok := seen[it.ID]
				seen[it.ID] = it.State
				if !first && (!ok || old != it.State) {
					report(it)
				}
			}
			for id := range seen {
				if now[id] {
					continue
				}
				delete(seen, id) // finished (sent or cancelled) since the last look
				if it, err := st.OutboxItem(ctx, id); err == nil {
					report(it)
				}
			}
			for ; ; next++ {
				if now[next] {
					continue
				}
				it, err := st.OutboxItem(ctx, next)
				if err != nil {
					break
				}
				if !first {
					report(it)
				}
			}
			first = false
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// flagPushingStore is the store as the UI sees it, with one addition:
// marking a thread read or unread also pokes the sync loops, so the change
// reaches the server at once instead of at the next sync pass.
type flagPushingStore struct {
	*store.Store
	push func()
	// raw holds the accounts whose source keeps the raw messages itself
	// (Maildir): the store has no copy of them.
	raw map[string]mailsrc.RawReader
}

// RawMessage returns a message's raw bytes from the store or, for a
// source that keeps them (a Maildir), from the source.
func (s flagPushingStore) RawMessage(ctx context.Context, messageID string) ([]byte, error) {
	raw, err := s.Store.RawMessage(ctx, messageID)
	if err == nil || !errors.Is(err, store.ErrNotFound) || len(s.raw) == 0 {
		return raw, err
	}
	locs, lerr := s.Store.MessageLocations(ctx, messageID)
	if lerr != nil {
		return nil, lerr
	}
	for _, l := range locs {
		if r := s.raw[l.Account]; r != nil {
			b, rerr := r.ReadRaw(ctx, l)
			if rerr == nil {
				rerr = sameMessage(b, messageID, l)
			}
			if rerr == nil {
				return b, nil
			}
			err = rerr
		}
	}
	return nil, err
}

// sameMessage checks that bytes read from a source are the message asked
// for: a server that reset its UIDs (UIDVALIDITY) since the last sync may
// hold another message under the stored UID. A message without a
// Message-ID of its own (the store synthesised one) cannot be checked.
func sameMessage(raw []byte, messageID string, l model.Location) error {
	m, err := rfc822.ParseHeader(raw)
	if err != nil || m.MessageID == messageID || strings.HasSuffix(m.MessageID, rfc822.SynthesisedIDSuffix) {
		return nil
	}
	return fmt.Errorf("%s/%s: the message there is now <%s>, not <%s> (the folder changed since the last sync; sync and try again)",
		l.Account, l.Mailbox, m.MessageID, messageID)
}

// MarkThreadSeen sets the flag locally (queued for the server) and pokes the sync loops.
func (s flagPushingStore) MarkThreadSeen(ctx context.Context, threadID int64, seen bool) error {
	if err := s.Store.MarkThreadSeen(ctx, threadID, seen); err != nil {
		return err
	}
	s.push()
	return nil
}
