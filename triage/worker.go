package triage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
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
	// SaveTriages saves many records in one transaction, reporting
	// per-record failures in a *store.TriageErrors.
	SaveTriages(ctx context.Context, recs []store.TriageRecord) error
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
	// Parallel is how many model requests are in flight at once
	// (ollama.parallel, default 1); as many more threads are prepared
	// meanwhile by a triager that paces itself (see Slot).
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
	asked      map[int64]bool
}

// Ask makes the next triage of the thread ask the model even when the
// signals decide it on their own (the user pressed t).
func (w *Worker) Ask(threadID int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.asked == nil {
		w.asked = map[int64]bool{}
	}
	w.asked[threadID] = true
}

// takeAsked reports whether the user asked for the thread, forgetting it.
func (w *Worker) takeAsked(threadID int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ok := w.asked[threadID]
	delete(w.asked, threadID)
	return ok
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
	in := passInput{examples: w.examples(ctx)}
	sendersRead := false
	for {
		ids, err := w.st.ThreadsNeedingTriage(ctx, tr.CacheKey(), 0)
		if err != nil {
			return res, fmt.Errorf("triage: list threads: %w", err)
		}
		if len(ids) > 0 && !sendersRead {
			// Read once per run, and only when there is a thread to
			// triage: on a large store it is a scan of every read message.
			in.senders, sendersRead = w.senders(ctx), true
		}
		switched, err := w.pass(ctx, tr, ids, in, events, &res)
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
// 2 x Parallel goroutines triage (Parallel with the model, Parallel
// ready to send), and one goroutine saves results (whatever is queued,
// up to saveBatch, in one transaction) and sends events, so
// store IO never sits between two model calls; the Slot gate keeps all
// of that work out of the way while a request is due.
func (w *Worker) pass(ctx context.Context, tr Triager, ids []int64, in passInput, events chan<- Event, res *PassResult) (switched error, err error) {
	total := len(ids)
	if total == 0 {
		return nil, nil
	}
	g := newGate(w.opts.Parallel)
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }

	jobs := w.loadThreads(ctx, g, ids, stop)
	results := w.triageThreads(ctx, g, tr, in, jobs, min(2*w.opts.Parallel, total), halt)
	tally := passTally{total: total}
	w.saveResults(ctx, g, tr, results, events, res, &tally)

	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if tally.offline != nil {
		w.log.Warn("triage: model offline, continuing deterministically", "err", tally.offline)
		w.reportOffline(ctx, events, Event{Done: tally.done, Total: total, Offline: true, Err: fmt.Errorf("offline triage: %w", tally.offline)})
		return tally.offline, nil
	}
	return nil, nil
}

// passJob is one thread loaded for triage (or the error loading it).
type passJob struct {
	id   int64
	hash string
	th   *model.Thread
	err  error
}

// passResult is a job with its triage.
type passResult struct {
	passJob
	out    *Outcome
	triErr error
}

// passTally is what saveResults counts over a pass.
type passTally struct {
	total int
	// done counts the threads triaged and saved.
	done int
	// offline is the first error saying the model is offline.
	offline error
}

// loadThreads reads the threads of ids ahead of the triage, in order, on
// one goroutine; the channel closes after the last one, or early when
// stop closes or ctx ends.
func (w *Worker) loadThreads(ctx context.Context, g *gate, ids []int64, stop <-chan struct{}) <-chan passJob {
	jobs := make(chan passJob, 2*w.opts.Parallel)
	go func() {
		defer close(jobs)
		for _, id := range ids {
			// The hash is read before the thread: if mail arrives in
			// between, the record carries the older hash and the thread is
			// triaged again.
			j := passJob{id: id}
			g.storeWork(ctx, func() {
				if j.hash, j.err = w.st.ThreadContentHash(ctx, id); j.err == nil {
					j.th, j.err = w.st.Thread(ctx, id)
				}
			})
			select {
			case jobs <- j:
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return jobs
}

// triageThreads triages jobs on n goroutines and closes the returned
// channel when all have ended; halt is called when tr reports the model
// offline.
//
// With n = 2 x Parallel, only Parallel model requests are in flight at
// once (see Slot): a triager that paces itself (Ollama) has the next
// thread's request ready while the model works and sends it the moment an
// answer is in. A triager that does not runs holding a request slot, so
// at most Parallel run at once.
func (w *Worker) triageThreads(ctx context.Context, g *gate, tr Triager, pin passInput, jobs <-chan passJob, n int, halt func()) <-chan passResult {
	results := make(chan passResult, 2*w.opts.Parallel)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := passResult{passJob: j}
				if j.err == nil {
					slot, err := g.slot(ctx)
					if err != nil {
						return
					}
					in := Input{Messages: j.th.Messages, Principal: w.opts.Principal, Examples: pin.examples, Senders: pin.senders, Slot: slot, Force: w.takeAsked(j.id)}
					r.out, r.triErr, r.err = w.triageSafely(ctx, tr, in, j.id)
					slot.done()
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
	return results
}

// triageSafely runs tr.Triage and turns a panic (a bug meeting mail
// nobody foresaw) into the thread's error, logged with its stack: that
// thread fails and stays untriaged, the pass and the program go on.
func (w *Worker) triageSafely(ctx context.Context, tr Triager, in Input, id int64) (out *Outcome, triErr, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.log.Error("triage: panic", "thread", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			out, triErr = nil, nil
			err = fmt.Errorf("triage stopped on this thread with an internal error (%v); it stays untriaged, the rest goes on (details in the log)", p)
		}
	}()
	out, triErr = tr.Triage(ctx, in)
	return out, triErr, nil
}

// saveResults saves results as they come, whatever is queued (up to
// saveBatch) in one transaction, and sends an event per thread. After
// ctx ends it only drains results.
func (w *Worker) saveResults(ctx context.Context, g *gate, tr Triager, results <-chan passResult, events chan<- Event, res *PassResult, tally *passTally) {
	batch := make([]passResult, 0, saveBatch)
	recs := make([]store.TriageRecord, 0, saveBatch)
	saveErrs := make([]error, saveBatch)
	for r := range results {
		batch = takeQueued(append(batch[:0], r), results)
		if ctx.Err() != nil {
			continue // drain
		}
		recs = appendRecords(recs[:0], tr, batch)
		if len(recs) > 0 {
			g.storeWork(ctx, func() { w.save(ctx, recs, saveErrs[:len(recs)]) })
		}
		w.reportBatch(ctx, tr, batch, saveErrs, events, res, tally)
	}
}

// takeQueued appends to batch what else results holds, without waiting,
// up to saveBatch results in all.
func takeQueued(batch []passResult, results <-chan passResult) []passResult {
	for len(batch) < saveBatch {
		select {
		case next, ok := <-results:
			if !ok {
				return batch
			}
			batch = append(batch, next)
		default:
			return batch
		}
	}
	return batch
}

// appendRecords appends the store records of the triaged results of
// batch (those whose thread could be loaded) to recs.
func appendRecords(recs []store.TriageRecord, tr Triager, batch []passResult) []store.TriageRecord {
	for _, r := range batch {
		if r.err != nil {
			continue
		}
		key := tr.CacheKey()
		var te *Error
		if errors.As(r.triErr, &te) && te.Kind != ErrOffContract && te.Kind != ErrTruncated {
			// A passing failure (offline, busy, timeout, server error):
			// keep the deterministic result under its own key so the
			// model gets the thread on a later pass.
			key = DeterministicCacheKey()
		}
		recs = append(recs, Record(r.id, key, r.hash, r.out))
	}
	return recs
}

// reportBatch counts the results of a saved batch and sends their events;
// saveErrs holds the save error of each record, in the order of
// appendRecords.
func (w *Worker) reportBatch(ctx context.Context, tr Triager, batch []passResult, saveErrs []error, events chan<- Event, res *PassResult, tally *passTally) {
	k := 0 // index into the records and saveErrs
	for _, r := range batch {
		ev := Event{Total: tally.total, ThreadID: r.id, Model: tr.Model(), Offline: tr.Model() == ""}
		if r.err != nil {
			res.Failed++
			ev.Err = fmt.Errorf("triage: thread %d: %w", r.id, r.err)
		} else if err := saveErrs[k]; err != nil {
			k++
			res.Failed++
			ev.Err = fmt.Errorf("triage: save thread %d: %w", r.id, err)
		} else {
			k++
			tally.done++
			res.Triaged++
			ev.Outcome = r.out
			if r.triErr != nil && !IsOffline(r.triErr) {
				ev.Err = r.triErr
			}
		}
		if IsOffline(r.triErr) && tally.offline == nil {
			tally.offline = r.triErr
		}
		ev.Done = tally.done
		w.send(ctx, events, ev)
	}
}

// Record converts an outcome into the store's record. A fallback is kept
// as a "fallback: REASON" signal, and a bucket the model and the signals
// disagree on as "disagreement: model: B1 · signals: B2", for the UI.
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
	for _, l := range o.Learned {
		rec.Signals = append(rec.Signals, "learned: "+l)
	}
	if o.ModelSkipped {
		rec.Signals = append(rec.Signals, "model not asked: "+o.Decided+" (t asks it)")
	}
	if o.Disagreement != "" {
		rec.Signals = append(rec.Signals, "disagreement: "+o.Disagreement)
	}
	for _, s := range o.Signals {
		rec.Signals = append(rec.Signals, s.String())
	}
	return rec
}

// saveBatch is the most results the worker saves in one transaction.
const saveBatch = 16

// save stores recs in one transaction and sets errs[i] to the error of
// recs[i] (nil when saved). When the transaction as a whole fails (and
// ctx is live), each record is saved on its own, so that one bad record
// does not fail the others.
func (w *Worker) save(ctx context.Context, recs []store.TriageRecord, errs []error) {
	err := w.st.SaveTriages(ctx, recs)
	var te *store.TriageErrors
	switch {
	case err == nil:
		clear(errs)
	case errors.As(err, &te) && len(te.Errs) == len(recs):
		copy(errs, te.Errs)
	case len(recs) > 1 && ctx.Err() == nil:
		w.log.Warn("triage: batch save failed, saving one by one", "threads", len(recs), "err", err)
		for i, rec := range recs {
			errs[i] = w.st.SaveTriage(ctx, rec)
		}
	default:
		for i := range errs {
			errs[i] = err
		}
	}
}

// passInput is what every thread of a pass is triaged with.
type passInput struct {
	examples []Example
	senders  Senders // nil: nothing known
}

// SendersStore is implemented by stores that tell what the mailbox says
// about senders (*store.Store): the Worker reads it once per run.
type SendersStore interface {
	Familiarity(ctx context.Context) (*store.Familiarity, error)
}

// senders loads what the store says about senders (nil when the store
// cannot tell or fails: triage then goes without).
func (w *Worker) senders(ctx context.Context) Senders {
	ss, ok := w.st.(SendersStore)
	if !ok {
		return nil
	}
	f, err := ss.Familiarity(ctx)
	if err != nil {
		w.log.Warn("triage: familiar senders", "err", err)
		return nil
	}
	return f
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

// Slot paces one Triage call of a Worker pass: at most Parallel model
// requests are in flight at once, and work that is not on the way to the
// model (building a prompt, validating an answer, the worker's store
// reads and writes) waits until every request that is due has been sent,
// and runs one at a time, so a core stays free for the requests and
// answers themselves. A triager that never calls a Slot method runs the
// whole call holding a request slot (at most Parallel such calls at
// once). A triager that calls them tells the worker it paces itself: it
// must Acquire before each model request and Release once the answer is
// read, and the worker then prepares further threads meanwhile.
//
// A Slot belongs to one Triage call (Sent may also be called from
// another goroutine, e.g. an httptrace hook); the methods of a nil *Slot
// do nothing.
type Slot struct {
	g    *gate
	held bool // holds a request slot
	turn bool // holds a background turn
	// unsent (guarded by g.mu): the held slot's request has not been sent.
	unsent bool
}

// Acquire waits until the model may take one more request (or ctx
// ends). Call it just before sending; it gives up the background turn.
func (s *Slot) Acquire(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.g.self.Store(true)
	s.endTurn()
	if s.held {
		return nil
	}
	if err := s.g.acquire(ctx, s); err != nil {
		return err
	}
	s.held = true
	return nil
}

// Sent says the request has been written: background work may go on.
// Release implies it.
func (s *Slot) Sent() {
	if s == nil {
		return
	}
	s.g.mu.Lock()
	s.g.markSent(s)
	s.g.mu.Unlock()
}

// Release frees the request slot once the model's answer has been read.
func (s *Slot) Release() {
	if s == nil {
		return
	}
	s.g.self.Store(true)
	if s.held {
		s.held = false
		s.g.release(s)
	}
}

// Background waits for a turn to do CPU work that no request waits for:
// until every granted request has been sent and no other background work
// runs (or ctx ends). The turn lasts until Acquire or the end of the
// Triage call.
func (s *Slot) Background(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.g.self.Store(true)
	s.Sent() // never wait for our own request
	if s.turn {
		return nil
	}
	if err := s.g.background(ctx); err != nil {
		return err
	}
	s.turn = true
	return nil
}

func (s *Slot) endTurn() {
	if s.turn {
		s.turn = false
		s.g.endBackground()
	}
}

// done ends the Triage call: it frees whatever s still holds.
func (s *Slot) done() {
	s.endTurn()
	if s.held {
		s.held = false
		s.g.release(s)
	}
}

// gate is a pass's pacing state behind its Slots: request slots with a
// FIFO of waiters, the count of granted requests not yet sent, and the
// background turns.
type gate struct {
	mu      sync.Mutex
	free    int
	waiters []*waiter
	unsent  int
	quiet   chan struct{} // closed while unsent == 0
	turns   chan struct{} // background turns (a semaphore)
	// self is set once the triager uses its Slot: it paces itself, so
	// Triage is called without a request slot held and the worker's own
	// store work takes background turns.
	self atomic.Bool
}

type waiter struct {
	ch chan struct{}
	// s, when set, is the Slot whose request becomes due (unsent) when
	// granted; nil for a slot held through a whole Triage call.
	s       *Slot
	granted bool
}

func newGate(parallel int) *gate {
	g := &gate{free: parallel, quiet: make(chan struct{}), turns: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1))}
	close(g.quiet)
	return g
}

// slot returns the Slot of one Triage call. Until the triager has shown
// it paces itself the slot comes with a request slot held (the triager
// runs under the Parallel bound as a whole).
func (g *gate) slot(ctx context.Context) (*Slot, error) {
	s := &Slot{g: g}
	if g.self.Load() {
		return s, nil
	}
	if err := g.acquire(ctx, nil); err != nil {
		return nil, err
	}
	s.held = true
	return s, nil
}

// acquire takes a request slot, waiting in FIFO order; with s set, s's
// request is due (unsent) from then on until sent or released.
func (g *gate) acquire(ctx context.Context, s *Slot) error {
	g.mu.Lock()
	if g.free > 0 && len(g.waiters) == 0 {
		g.free--
		g.markUnsent(s)
		g.mu.Unlock()
		return nil
	}
	w := &waiter{ch: make(chan struct{}), s: s}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		granted := w.granted
		if !granted {
			for i, x := range g.waiters {
				if x == w {
					g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
					break
				}
			}
		}
		g.mu.Unlock()
		if granted {
			g.release(s)
		}
		return ctx.Err()
	}
}

// release frees the request slot held by s (nil: a slot taken for a whole
// call), handing it to the longest waiter.
func (g *gate) release(s *Slot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.markSent(s)
	if len(g.waiters) == 0 {
		g.free++
		return
	}
	w := g.waiters[0]
	g.waiters = g.waiters[1:]
	w.granted = true
	g.markUnsent(w.s)
	close(w.ch)
}

// markUnsent and markSent keep unsent and quiet; g.mu is held.
func (g *gate) markUnsent(s *Slot) {
	if s == nil {
		return
	}
	s.unsent = true
	if g.unsent == 0 {
		g.quiet = make(chan struct{})
	}
	g.unsent++
}

func (g *gate) markSent(s *Slot) {
	if s == nil || !s.unsent {
		return
	}
	s.unsent = false
	g.unsent--
	if g.unsent == 0 {
		close(g.quiet)
	}
}

// sendGrace is how long background work waits after the request it
// waited for has been written, for the model server to read it: the
// server (a local Ollama; in the benchmarks an in-process fake) shares the
// cores, and a store write started at once delays its pickup by about a
// millisecond, which at parallel 4 and 50 ms answers cost 2 % of the
// throughput. It is nothing next to a real model's seconds per answer.
const sendGrace = 500 * time.Microsecond

// background waits until no granted request is unsent (plus sendGrace
// after a request it waited for, while every request slot is taken) and
// takes a background turn.
func (g *gate) background(ctx context.Context) error {
	for {
		g.mu.Lock()
		q := g.quiet
		g.mu.Unlock()
		select {
		case <-q:
		default:
			select {
			case <-q:
			case <-ctx.Done():
				return ctx.Err()
			}
			g.mu.Lock()
			saturated := g.free == 0
			g.mu.Unlock()
			// With a request slot free the model waits for this work
			// (the start of a pass): no grace then.
			if saturated {
				t := time.NewTimer(sendGrace)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				}
			}
		}
		select {
		case g.turns <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		g.mu.Lock()
		ok := g.unsent == 0
		g.mu.Unlock()
		if ok {
			return nil
		}
		<-g.turns // a request became due meanwhile: let it go first
	}
}

func (g *gate) endBackground() { <-g.turns }

// storeWork runs f, the worker's own store IO, in a background turn once
// the triager paces itself.
func (g *gate) storeWork(ctx context.Context, f func()) {
	if !g.self.Load() || g.background(ctx) != nil {
		f()
		return
	}
	defer g.endBackground()
	f()
}
