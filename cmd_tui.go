package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/config"
	"mailsift/mailsrc/mirror"
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
	events := make(chan any, 64)
	send := func(ev any) {
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

	// Sync: one mirror loop per account.
	for i := range cfg.Accounts {
		acct := &cfg.Accounts[i]
		src, err := mirror.Open(acct, mirror.Options{Logger: log})
		if err != nil {
			send(ui.ErrorMsg{Err: err})
			continue
		}
		mevents := make(chan mirror.Event, 16)
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer src.Close()
			mirror.Run(ctx, st, acct.Name, src, 0, mevents)
			close(mevents)
		}()
		go func() {
			defer wg.Done()
			forwardSync(ctx, mevents, send, wakeTriage, acct.Src.IsNetwork())
		}()
	}

	opts := ui.Options{
		Store:     st,
		Account:   accountLabel(cfg),
		Principal: principal,
		Events:    events,
		Logger:    log,
		// Re-triage: invalidate the thread's cached record, wake the worker.
		Retriage: func(ctx context.Context, id int64) error { return retriage(ctx, st, id, wakeTriage) },
		// Reply: the draft flow (drafts/) plugs in here; until then the UI
		// says replies are not available yet.
		Reply: nil,
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
func forwardSync(ctx context.Context, in <-chan mirror.Event, send func(any), wakeTriage func(), network bool) {
	last := time.Time{}
	for ev := range in {
		switch {
		case ev.Err != nil:
			send(ui.ErrorMsg{Err: fmt.Errorf("%w (retrying in %s)", ev.Err, ev.RetryIn.Round(time.Second))})
			send(ui.ConnMsg{State: ui.ConnOffline})
		case ev.Progress != nil:
			p := ev.Progress
			// Throttle progress to ~10 updates a second; phase changes always go.
			if p.Phase != "done" && p.Done != p.Total && time.Since(last) < 100*time.Millisecond {
				continue
			}
			last = time.Now()
			send(ui.SyncProgressMsg{Account: p.Account, Mailbox: p.Mailbox, Phase: p.Phase, Done: p.Done, Total: p.Total})
		case ev.Synced:
			send(ui.SyncProgressMsg{Account: ev.Account, Phase: "done"})
			if network {
				send(ui.ConnMsg{State: ui.ConnOnline})
			} else {
				send(ui.ConnMsg{State: "local"})
			}
			send(ui.ThreadsChangedMsg{})
			wakeTriage()
		case ev.Watching:
			if network {
				send(ui.ConnMsg{State: ui.ConnIdle})
			}
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// forwardTriage turns worker events into UI events.
func forwardTriage(ctx context.Context, in <-chan triage.Event, send func(any), modelName, host string) {
	last := time.Time{}
	reason := "Ollama not reachable at " + host
	for ev := range in {
		msg := ui.TriageProgressMsg{Done: ev.Done, Total: ev.Total, Model: ev.Model}
		if ev.Offline {
			if ev.Err != nil {
				reason = ev.Err.Error()
			}
			msg.Offline = reason
		} else if ev.Err != nil {
			send(ui.ErrorMsg{Err: fmt.Errorf("triage: %w", ev.Err)})
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
