// Package pipeline is the sources' import pipeline: messages are parsed
// on all cores (in order, one batch ahead of the fetch, or each as soon
// as it is ready) and stored by one writer goroutine in batches bounded
// by count and by bytes, so that fetching, parsing and the sink's writes
// overlap instead of taking turns.
package pipeline

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"mailsift/mailsrc"
	"mailsift/model"
)

// Limits bound a Writer's batches and its queue.
type Limits struct {
	// MinBatch: a batch is stored once this many messages wait (or
	// Delay has passed, MaxQueuedBytes is reached, a Do or Sync waits,
	// or the writer is stopping).
	MinBatch int
	// FirstBatch, when above 0, is the threshold of the first batch
	// instead of MinBatch, so that the store starts writing early.
	FirstBatch int
	// MaxQueued messages, or MaxQueuedBytes bytes (as Config.Bytes
	// counts them), wait at most besides the batch being stored; Put
	// then blocks. A queue full by bytes is stored at once. MaxQueued
	// is at least MinBatch (and 1); MaxQueuedBytes 0 means no bound.
	MaxQueued, MaxQueuedBytes int
	// Delay is how long the oldest waiting message waits for its batch
	// to fill (0: until one of the other conditions holds).
	Delay time.Duration
}

// Config configures a Writer.
type Config struct {
	Limits
	// Store writes one batch (the sink's PutMessages).
	Store func(ctx context.Context, msgs []*model.Message) error
	// Bytes is what a message counts against MaxQueuedBytes.
	Bytes func(*model.Message) int
	// StoreError wraps an error of Store with the batch it failed on.
	StoreError func(msgs []*model.Message, err error) error
	// Progress, if set, is told after each stored batch how far each
	// mailbox and phase in it has come (per Account).
	Progress func(mailsrc.Progress)
	Account  string
	// Log, if set, gets a summary when the writer ends, under Stage.
	Log   *slog.Logger
	Stage string
}

// Part is what one Put counts as progress: N more of Total (0 if
// unknown) in Mailbox's Phase.
type Part struct {
	Mailbox, Phase string
	N, Total       int
}

// Writer stores messages from its own goroutine while the caller
// fetches and parses more. Everything that arrives while a batch is
// being stored joins the next batch (group commit), so transactions grow
// when the store is the slower side. Requests run in the order they are
// made. Start one with Start and end it with Stop.
type Writer struct {
	in   chan request
	done chan struct{}
	mu   sync.Mutex
	fail error
}

// request is messages to store (with their progress part), or fn to run
// once everything before it is stored, or (both nil) a request to store
// everything queued and answer on ack.
type request struct {
	msgs []*model.Message
	part Part
	fn   func() error
	ack  chan error
}

// batch is what the storing goroutine takes at once: messages, what
// they are progress of, then requests to run after them, in order.
type batch struct {
	msgs  []*model.Message
	parts []Part
	after []request // fn or ack requests
}

// Start starts a writer whose Store calls use ctx; its goroutines end
// with Stop.
func Start(ctx context.Context, cfg Config) *Writer {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	cfg.MaxQueued = max(cfg.MaxQueued, cfg.MinBatch, 1)
	if cfg.MaxQueuedBytes <= 0 {
		cfg.MaxQueuedBytes = math.MaxInt
	}
	if cfg.Progress == nil {
		cfg.Progress = func(mailsrc.Progress) {}
	}
	w := &Writer{in: make(chan request, 2), done: make(chan struct{})}
	batches := make(chan batch) // unbuffered: handed over when the store goroutine is free
	stored := make(chan struct{})
	go func() {
		defer close(stored)
		w.store(ctx, cfg, batches)
	}()
	go func() {
		defer close(w.done)
		defer func() { close(batches); <-stored }()
		w.collect(cfg.Limits, cfg.Bytes, batches)
	}()
	return w
}

// progressKey names one mailbox's phase.
type progressKey struct{ mailbox, phase string }

// store stores each batch from batches, reports progress and runs the
// requests after it, until batches is closed.
func (w *Writer) store(ctx context.Context, cfg Config, batches <-chan batch) {
	done := map[progressKey]int{}
	totals := map[progressKey]int{}
	// How long the store kept the writer busy, against how long it ran:
	// near 100 % means the store, not the fetch, sets the pace.
	var busy time.Duration
	t0 := time.Now()
	var nb int
	defer func() {
		if nb > 0 {
			cfg.Log.Debug("writer done", "stage", cfg.Stage, "batches", nb, "busy", busy, "of", time.Since(t0))
		}
	}()
	for b := range batches {
		if len(b.msgs) > 0 && w.Err() == nil {
			ts := time.Now()
			nb++
			err := cfg.Store(ctx, b.msgs)
			busy += time.Since(ts)
			if err != nil {
				w.setErr(cfg.StoreError(b.msgs, err))
			} else {
				// One report per mailbox and phase, in the order they
				// first appear in the batch.
				var order []progressKey
				for _, p := range b.parts {
					k := progressKey{p.Mailbox, p.Phase}
					if !slices.Contains(order, k) {
						order = append(order, k)
					}
					done[k] += p.N
					if p.Total > 0 {
						totals[k] = p.Total
					}
				}
				for _, k := range order {
					cfg.Progress(mailsrc.Progress{Account: cfg.Account, Mailbox: k.mailbox, Phase: k.phase, Done: done[k], Total: totals[k]})
				}
			}
		}
		for _, r := range b.after {
			switch {
			case r.fn != nil:
				if w.Err() == nil {
					if err := r.fn(); err != nil {
						w.setErr(err)
					}
				}
			case r.ack != nil:
				r.ack <- w.Err()
			}
		}
	}
}

// collect gathers requests from w.in into batches and hands each to the
// storing goroutine on out when it is free and the batch is worth a
// transaction, until w.in is closed and everything is handed over.
func (w *Writer) collect(lim Limits, size func(*model.Message) int, out chan<- batch) {
	var cur batch
	var bytes int
	first := lim.FirstBatch > 0
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	due := false // the oldest message has waited lim.Delay
	in := w.in
	for in != nil || len(cur.msgs) > 0 || len(cur.after) > 0 {
		// Take no more requests while a marker waits (it must run after
		// exactly what came before it) or the queue is full.
		full := len(cur.msgs) >= lim.MaxQueued || bytes >= lim.MaxQueuedBytes
		var send chan<- batch
		if len(cur.after) > 0 || len(cur.msgs) >= lim.MinBatch || (first && len(cur.msgs) >= lim.FirstBatch) ||
			bytes >= lim.MaxQueuedBytes || due || (in == nil && len(cur.msgs) > 0) {
			send = out
		}
		recv := in
		if len(cur.after) > 0 || full {
			recv = nil
		}
		if send != nil {
			// A batch worth storing goes as soon as the store is free.
			select {
			case send <- cur:
				cur, bytes, due, first = batch{}, 0, false, false
				timer.Stop()
				continue
			default:
			}
		}
		select {
		case req, ok := <-recv:
			switch {
			case !ok:
				in = nil
			case req.msgs != nil:
				if len(cur.msgs) == 0 && lim.Delay > 0 {
					timer.Reset(lim.Delay)
					due = false
				}
				cur.msgs = append(cur.msgs, req.msgs...)
				cur.parts = append(cur.parts, req.part)
				if size != nil {
					for _, m := range req.msgs {
						bytes += size(m)
					}
				}
			default:
				cur.after = append(cur.after, req)
			}
		case send <- cur:
			cur, bytes, due, first = batch{}, 0, false, false
			timer.Stop()
		case <-timer.C:
			due = true
		}
	}
}

// Put hands msgs to the writer, counted as progress part; it returns
// the writer's first error, if any.
func (w *Writer) Put(msgs []*model.Message, part Part) error {
	if err := w.Err(); err != nil {
		return err
	}
	if len(msgs) > 0 {
		w.in <- request{msgs: msgs, part: part}
	}
	return nil
}

// Do queues fn to run after everything handed over so far is stored
// (skipped if storing failed).
func (w *Writer) Do(fn func() error) error {
	if err := w.Err(); err != nil {
		return err
	}
	w.in <- request{fn: fn}
	return nil
}

// Sync waits until everything handed over is stored and run, and
// returns the writer's first error.
func (w *Writer) Sync() error {
	ack := make(chan error, 1)
	w.in <- request{ack: ack}
	return <-ack
}

// Err returns the writer's first error: of Store or of a Do function.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fail
}

func (w *Writer) setErr(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail == nil {
		w.fail = err
	}
}

// Stop stores what is queued (unless an error stopped the writer), ends
// its goroutines and returns its first error. Call it exactly once, after
// the last Put, Do or Sync.
func (w *Writer) Stop() error {
	close(w.in)
	<-w.done
	return w.Err()
}
