package triage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"mailsift/model"
	"mailsift/store"
)

// Store is what the worker needs from the local store (*store.Store
// implements it).
type Store interface {
	ThreadsNeedingTriage(ctx context.Context, cacheKey string, limit int) ([]int64, error)
	Thread(ctx context.Context, id int64) (*model.Thread, error)
	ThreadContentHash(ctx context.Context, threadID int64) (string, error)
	SaveTriage(ctx context.Context, rec store.TriageRecord) error
	RecentOverrides(ctx context.Context, n int) ([]store.Override, error)
}

// Prober is implemented by triagers that depend on a server (Ollama).
type Prober interface {
	Probe(ctx context.Context) error
}

// Event reports the worker's progress, for the status bar.
type Event struct {
	// Done of Total threads of the current pass.
	Done, Total int
	// ThreadID is the thread just triaged (0 for pass-level events).
	ThreadID int64
	// Err is a per-thread failure or, with Offline, why the model is not used.
	Err error
	// Offline is true while triage runs without the model.
	Offline bool
	// Model is the model in use ("" when offline/deterministic).
	Model string
	// Outcome is the triage just saved (nil for pass-level events).
	Outcome *Outcome
}

// WorkerOptions configure a Worker; zero values mean defaults.
type WorkerOptions struct {
	// Triager is the preferred triager (an *Ollama, or an *Offline).
	Triager Triager
	// Fallback is used while Triager is offline (default NewOffline(nil)).
	Fallback *Offline
	// Principal is the user's address.
	Principal model.Address
	// Parallel is how many threads are triaged at once (ollama.parallel, default 1).
	Parallel int
	// Examples is how many recent overrides are given to the model (default 8).
	Examples int
	// Reprobe is how often Loop re-probes an offline model (default 1m).
	Reprobe time.Duration
	Logger  *slog.Logger
}

// Worker triages every untriaged or changed thread of a store.
// Run it from one goroutine at a time.
type Worker struct {
	st   Store
	opts WorkerOptions
	log  *slog.Logger

	mu         sync.Mutex
	offlineMsg string // last offline reason reported ("" while online)
}

// NewWorker returns a worker over st.
func NewWorker(st Store, opts WorkerOptions) *Worker {
	if opts.Fallback == nil {
		opts.Fallback = NewOffline(nil)
	}
	if opts.Triager == nil {
		opts.Triager = opts.Fallback
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 1
	}
	if opts.Examples <= 0 {
		opts.Examples = 8
	}
	if opts.Reprobe <= 0 {
		opts.Reprobe = time.Minute
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{st: st, opts: opts, log: log}
}

// PassResult summarises one pass.
type PassResult struct {
	Triaged int
	Failed  int
	// Offline is set (with the reason) when the pass ran without the model.
	Offline error
}

// Run makes one pass: it triages every thread that needs it under the
// current triager's cache key (unread first, newest first), with Parallel
// workers, sending events to events (may be nil). When the model is
// unreachable it says so once (an Event with Offline and Err) and triages
// deterministically. It returns when the pass is done or ctx ends.
func (w *Worker) Run(ctx context.Context, events chan<- Event) (PassResult, error) {
	var res PassResult
	tr := w.opts.Triager
	if p, ok := tr.(Prober); ok {
		if err := p.Probe(ctx); err != nil {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			if IsOffline(err) {
				res.Offline = err
				tr = w.opts.Fallback
				w.reportOffline(ctx, events, Event{Offline: true, Err: fmt.Errorf("offline triage: %w", err)})
			}
		} else {
			w.mu.Lock()
			w.offlineMsg = ""
			w.mu.Unlock()
		}
	}
	examples := w.examples(ctx)
	for {
		ids, err := w.st.ThreadsNeedingTriage(ctx, tr.CacheKey(), 0)
		if err != nil {
			return res, fmt.Errorf("triage: list threads: %w", err)
		}
		switched, err := w.pass(ctx, tr, ids, examples, events, &res)
		if err != nil {
			return res, err
		}
		if switched == nil {
			return res, nil
		}
		// The model went away mid-pass: finish deterministically.
		res.Offline = switched
		tr = w.opts.Fallback
	}
}

// pass triages ids with tr; it returns a non-nil error in switched when
// tr turned out to be offline (the remaining threads are left for the
// caller to triage with the fallback).
//
// Three stages keep the model busy: one goroutine loads threads ahead,
// Parallel goroutines triage, and one goroutine saves results and sends
// events, so store IO never sits between two model calls.
func (w *Worker) pass(ctx context.Context, tr Triager, ids []int64, examples []Example, events chan<- Event, res *PassResult) (switched error, err error) {
	total := len(ids)
	if total == 0 {
		return nil, nil
	}
	type job struct {
		id   int64
		hash string
		th   *model.Thread
		err  error
	}
	type result struct {
		job
		out    *Outcome
		triErr error
	}
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }

	jobs := make(chan job, w.opts.Parallel)
	go func() {
		defer close(jobs)
		for _, id := range ids {
			// The hash is read before the thread: if mail arrives in
			// between, the record carries the older hash and the thread is
			// triaged again.
			j := job{id: id}
			if j.hash, j.err = w.st.ThreadContentHash(ctx, id); j.err == nil {
				j.th, j.err = w.st.Thread(ctx, id)
			}
			select {
			case jobs <- j:
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()

	results := make(chan result, w.opts.Parallel)
	var wg sync.WaitGroup
	for range min(w.opts.Parallel, total) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := result{job: j}
				if j.err == nil {
					r.out, r.triErr = tr.Triage(ctx, Input{Messages: j.th.Messages, Principal: w.opts.Principal, Examples: examples})
					if IsOffline(r.triErr) {
						halt()
					}
				}
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var offline error
	done := 0
	for r := range results {
		if ctx.Err() != nil {
			continue // drain
		}
		ev := Event{Total: total, ThreadID: r.id, Model: tr.Model(), Offline: tr.Model() == ""}
		if r.err != nil {
			res.Failed++
			ev.Err = fmt.Errorf("triage: thread %d: %w", r.id, r.err)
		} else {
			key := tr.CacheKey()
			var te *Error
			if errors.As(r.triErr, &te) && te.Kind != ErrOffContract && te.Kind != ErrTruncated {
				// A passing failure (offline, busy, timeout, server error):
				// keep the deterministic result under its own key so the
				// model gets the thread on a later pass.
				key = DeterministicCacheKey()
			}
			if err := w.st.SaveTriage(ctx, Record(r.id, key, r.hash, r.out)); err != nil {
				res.Failed++
				ev.Err = fmt.Errorf("triage: save thread %d: %w", r.id, err)
			} else {
				done++
				res.Triaged++
				ev.Outcome = r.out
				if r.triErr != nil && !IsOffline(r.triErr) {
					ev.Err = r.triErr
				}
			}
		}
		if IsOffline(r.triErr) && offline == nil {
			offline = r.triErr
		}
		ev.Done = done
		w.send(ctx, events, ev)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if offline != nil {
		w.log.Warn("triage: model offline, continuing deterministically", "err", offline)
		w.reportOffline(ctx, events, Event{Done: done, Total: total, Offline: true, Err: fmt.Errorf("offline triage: %w", offline)})
		return offline, nil
	}
	return nil, nil
}

// Record converts an outcome into the store's record.
func Record(threadID int64, cacheKey, contentHash string, o *Outcome) store.TriageRecord {
	rec := store.TriageRecord{
		ThreadID: threadID, Result: o.Result, Source: o.Source, Model: o.Model,
		CacheKey: cacheKey, ContentHash: contentHash,
		Intent: o.Extras.Intent, Urgency: o.Extras.Urgency, Sentiment: o.Extras.Sentiment,
		Route: o.Extras.Route, Confidence: o.Extras.Confidence,
		SpamReasons: o.SpamReasons, PhishingReasons: o.PhishingReasons,
	}
	if o.FallbackReason != "" {
		rec.Signals = append(rec.Signals, "fallback: "+o.FallbackReason)
	}
	for _, s := range o.Signals {
		rec.Signals = append(rec.Signals, s.String())
	}
	return rec
}

// examples loads the user's latest overrides as model examples.
func (w *Worker) examples(ctx context.Context) []Example {
	ovs, err := w.st.RecentOverrides(ctx, w.opts.Examples)
	if err != nil {
		w.log.Warn("triage: recent overrides", "err", err)
		return nil
	}
	ex := make([]Example, 0, len(ovs))
	for _, o := range ovs {
		if o.Category == "quarantine" {
			continue
		}
		ex = append(ex, Example{Subject: o.Subject, From: o.From.String(), Category: o.Category})
	}
	return ex
}

// reportOffline sends an offline event once per distinct reason, not on
// every pass or thread.
func (w *Worker) reportOffline(ctx context.Context, events chan<- Event, ev Event) {
	w.mu.Lock()
	same := w.offlineMsg == ev.Err.Error()
	w.offlineMsg = ev.Err.Error()
	w.mu.Unlock()
	if !same {
		w.send(ctx, events, ev)
	}
}

func (w *Worker) send(ctx context.Context, events chan<- Event, ev Event) {
	if events == nil {
		return
	}
	select {
	case events <- ev:
	case <-ctx.Done():
	}
}

// Loop runs passes until ctx ends: one at once, one after each wake-up
// (new mail, a re-triage request), and while offline one every Reprobe
// to pick the model up when it comes back. It closes events on return.
func (w *Worker) Loop(ctx context.Context, wake <-chan struct{}, events chan<- Event) error {
	if events != nil {
		defer close(events)
	}
	for {
		res, err := w.Run(ctx, events)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			w.log.Warn("triage: pass failed", "err", err)
		}
		var tick <-chan time.Time
		var t *time.Timer
		if res.Offline != nil || err != nil {
			t = time.NewTimer(w.opts.Reprobe)
			tick = t.C
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-tick:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
