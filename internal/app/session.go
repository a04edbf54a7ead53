package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"mailsift/config"
	"mailsift/drafts"
	"mailsift/internal/app/event"
	"mailsift/mailsrc"
	"mailsift/mailsrc/imap"
	"mailsift/mirror"
	"mailsift/store"
	"mailsift/triage"
)

// Session is the background work of a running surface: one mirror loop per
// account (sync, then IMAP IDLE or polling), the triage worker (woken after
// each sync) and the outbox. Everything it does is reported on Events.
type Session struct {
	// Mail is the store as the surface should read and change it.
	Mail *Mail
	// Drafts is the send engine, running the outbox in the background.
	Drafts *drafts.Engine
	// Scheduler is the scheduling assistant (meeting threads, follow-ups,
	// invitation answers), run after each triage pass and at follow-ups.
	Scheduler *Scheduler
	// Actions is the inbox actions service (actions.go).
	Actions *Actions

	app    *App
	events chan event.Event
	wake   chan struct{}
	worker *triage.Worker
	// embedWake wakes the background embedder after a sync (search.go);
	// nil without an embed model.
	embedWake chan struct{}
	// schedWake wakes the scheduling loop (after a triage pass).
	schedWake chan struct{}
	wg        sync.WaitGroup
	// timers wakes the snooze and waiting-for-reply timer (actions.go).
	timers chan struct{}
	// waiting is the size of "Waiting for reply" the timer last saw.
	waiting int
}

// Start starts the session's background work; it ends when ctx ends. Call
// Wait after cancelling ctx to let every goroutine finish.
func (a *App) Start(ctx context.Context) (*Session, error) {
	s := &Session{app: a, events: make(chan event.Event, 64), wake: make(chan struct{}, 1), schedWake: make(chan struct{}, 1), timers: make(chan struct{}, 1)}
	an := a.Analyzer()
	tr, err := a.Triager(an, false)
	if err != nil {
		return nil, err
	}
	s.worker = a.Worker(tr, an)
	s.startTriage(ctx, s.worker, tr.Model())
	s.startEmbedding(ctx)
	s.Mail = s.startSync(ctx)
	s.Actions = s.startActions(ctx)
	s.startOutbox(ctx)
	s.startScheduling(ctx)
	return s, nil
}

// Events is the session's one stream of typed events. It is never closed;
// stop reading when the session's context ends.
func (s *Session) Events() <-chan event.Event { return s.events }

// Wait blocks until every background goroutine has ended (after the
// session's context ended).
func (s *Session) Wait() { s.wg.Wait() }

// Retriage queues a thread for triage again and wakes the worker: the
// user asked (t), so the model is asked even for a thread the signals
// decide on their own.
func (s *Session) Retriage(ctx context.Context, threadID int64) error {
	if s.worker != nil {
		s.worker.Ask(threadID)
	}
	return s.app.Retriage(ctx, threadID, s.wakeTriage)
}

// Report publishes an event from the surface's own setup (e.g. a log file
// that could not be opened) on the session's stream.
func (s *Session) Report(ctx context.Context, ev event.Event) { s.send(ctx, ev) }

func (s *Session) send(ctx context.Context, ev event.Event) {
	select {
	case s.events <- ev:
	case <-ctx.Done():
	}
}

func (s *Session) wakeTriage() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Session) goRun(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// startTriage runs the worker until ctx ends and forwards its progress.
func (s *Session) startTriage(ctx context.Context, w *triage.Worker, modelName string) {
	tevents := make(chan triage.Event, 16)
	s.goRun(func() {
		if err := w.Loop(ctx, s.wake, tevents); err != nil && !errors.Is(err, context.Canceled) {
			s.app.log.Warn("app: triage loop ended", "err", err)
		}
	})
	s.goRun(func() { s.forwardTriage(ctx, tevents, modelName) })
}

// startSync opens every account's source and runs its mirror loop; flag
// changes made through the returned Mail are pushed at once.
func (s *Session) startSync(ctx context.Context) *Mail {
	a := s.app
	var pushers []chan struct{}
	mail := &Mail{Store: a.st, raw: map[string]mailsrc.RawReader{}, app: a}
	for i := range a.cfg.Accounts {
		acct := &a.cfg.Accounts[i]
		src, err := mirror.Open(acct, mirror.Options{Logger: a.log, Now: a.now})
		if err != nil {
			s.goRun(func() { s.send(ctx, event.Failure{Err: err}) })
			continue
		}
		if r, ok := src.(mailsrc.RawReader); ok {
			mail.raw[acct.Name] = r
		}
		mevents := make(chan mirror.Event, 16)
		push := make(chan struct{}, 1)
		pushers = append(pushers, push)
		s.goRun(func() {
			defer src.Close()
			mirror.Run(ctx, a.st, acct.Name, src, 0, push, mevents)
			close(mevents)
		})
		network := acct.Src.IsNetwork()
		s.goRun(func() { s.forwardSync(ctx, mevents, network) })
	}
	mail.push = func() {
		for _, p := range pushers {
			select {
			case p <- struct{}{}:
			default:
			}
		}
	}
	return mail
}

// startOutbox runs the send engine until ctx ends and forwards its state
// changes.
func (s *Session) startOutbox(ctx context.Context) {
	devents := make(chan drafts.Event, 16)
	eng, closeDrafts := s.app.Drafts(ctx, DraftOptions{
		Events: devents,
		Retriage: func(ctx context.Context, id int64) {
			// After a send: the thread changed, nobody asked for the model.
			if err := s.app.Retriage(ctx, id, s.wakeTriage); err != nil {
				s.app.log.Warn("app: re-triage after send", "thread", id, "err", err)
			}
		},
	})
	s.Drafts = eng
	s.goRun(func() {
		defer closeDrafts() // after the outbox stopped using the connections
		s.runOutbox(ctx, eng)
	})
	s.goRun(func() { s.forwardOutbox(ctx, devents) })
}

// outboxRetry is how often a session whose outbox another process runs
// tries to take it over (when that process quits).
const outboxRetry = 30 * time.Second

// runOutbox runs the engine until ctx ends. While another mailsift process
// sends from the same data dir it says so once and takes the outbox over
// when that process quits; messages confirmed here meanwhile wait in the
// store, where the other process sends them.
func (s *Session) runOutbox(ctx context.Context, eng *drafts.Engine) {
	told := false
	for {
		err := eng.Run(ctx)
		switch {
		case err == nil || errors.Is(err, context.Canceled) || ctx.Err() != nil:
			return
		case errors.Is(err, store.ErrOutboxBusy):
			if !told {
				s.send(ctx, event.Failure{Err: fmt.Errorf("outbox: %w; messages confirmed here are sent by that process, and this one takes over when it quits", err)})
				told = true
			}
			t := time.NewTimer(outboxRetry)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		default:
			s.send(ctx, event.Failure{Err: fmt.Errorf("outbox: %w", err)})
			return
		}
	}
}

// forwardSync turns mirror events into session events and wakes triage
// after each sync pass. Progress is thinned to about ten updates a second;
// phase changes always go.
func (s *Session) forwardSync(ctx context.Context, in <-chan mirror.Event, network bool) {
	var last time.Time
	for ev := range in {
		switch {
		case ev.Err != nil:
			err := ev.Err
			if ev.RetryIn > 0 {
				err = fmt.Errorf("%w (retrying in %s)", ev.Err, ev.RetryIn.Round(time.Second))
			}
			s.send(ctx, event.Failure{Err: err})
			s.send(ctx, event.Conn{Account: ev.Account, State: connStateOf(ev.Err)})
		case ev.Progress != nil:
			p := ev.Progress
			now := s.app.now()
			if p.Phase != "done" && p.Done != p.Total && now.Sub(last) < 100*time.Millisecond {
				continue
			}
			last = now
			s.send(ctx, event.SyncProgress{Account: p.Account, Mailbox: p.Mailbox, Phase: p.Phase, Done: p.Done, Total: p.Total})
		case ev.Synced:
			s.send(ctx, event.SyncProgress{Account: ev.Account, Phase: "done"})
			state := event.ConnLocal
			if network {
				state = event.ConnOnline
			}
			s.send(ctx, event.Conn{Account: ev.Account, State: state})
			// Threads the user moved come back where the user put them
			// after the store was rebuilt (the corrections outlive it).
			if n, err := s.app.RestoreOverrides(ctx); err != nil {
				s.app.log.Warn("app: restore overrides", "err", err)
			} else if n > 0 {
				s.app.log.Info("app: restored overrides from the corrections", "threads", n)
			}
			s.send(ctx, event.ThreadsChanged{})
			s.wakeTriage()
			s.wakeEmbedding()
			s.pokeTimers()
		case ev.Pushed:
			s.send(ctx, event.ThreadsChanged{})
		case ev.Watching:
			if network {
				s.send(ctx, event.Conn{Account: ev.Account, State: event.ConnIdle})
			}
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// forwardTriage turns worker events into session events, thinned to about
// seven a second while a pass runs.
func (s *Session) forwardTriage(ctx context.Context, in <-chan triage.Event, modelName string) {
	var last time.Time
	reason := "Ollama not reachable at " + config.RedactURL(s.app.cfg.Ollama.Host)
	for ev := range in {
		msg := event.TriageProgress{Done: ev.Done, Total: ev.Total, Model: ev.Model}
		if ev.Offline {
			if ev.Err != nil {
				reason = ev.Err.Error()
			}
			msg.Offline = reason
		} else if ev.Err != nil {
			s.send(ctx, event.Failure{Err: fmt.Errorf("triage: %w", ev.Err)})
		}
		if msg.Model == "" && !ev.Offline {
			msg.Model = modelName
		}
		if ev.Done == ev.Total {
			s.wakeScheduling()
		}
		now := s.app.now()
		if ev.Done != ev.Total && ev.Err == nil && ev.Outcome != nil && now.Sub(last) < 150*time.Millisecond {
			continue
		}
		last = now
		s.send(ctx, msg)
		if ctx.Err() != nil {
			return
		}
	}
}

// forwardOutbox turns the engine's outbox events into session events,
// dropping repeats (filing a sent message in Sent reports "sent" again).
func (s *Session) forwardOutbox(ctx context.Context, in <-chan drafts.Event) {
	last := map[int64]drafts.Event{}
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-in:
			if prev, ok := last[ev.ID]; ok && prev == ev {
				continue
			}
			last[ev.ID] = ev
			s.send(ctx, event.Outbox{ID: ev.ID, State: ev.State, MessageID: ev.MessageID, Err: ev.Err, NextAttempt: ev.NextAttempt})
		}
	}
}

// connStateOf is the state a failed sync pass leaves an account in: auth
// failed when the server refused the credentials (or the OAuth2 grant is
// gone), else offline.
func connStateOf(err error) event.ConnState {
	if errors.Is(err, imap.ErrAuthFailed) {
		return event.ConnAuthFailed
	}
	return event.ConnOffline
}
