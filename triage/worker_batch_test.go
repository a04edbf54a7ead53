package triage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"mailsift/mailsrc/demo"
	"mailsift/store"
)

// countedTriager is the deterministic triager, counting finished calls.
type countedTriager struct {
	Offline
	done    atomic.Int64
	changed changes // signalled after each call
}

func (c *countedTriager) Triage(ctx context.Context, in Input) (*Outcome, error) {
	out, err := c.Offline.Triage(ctx, in)
	c.done.Add(1)
	c.changed.signal()
	return out, err
}

// batchStore wraps a store: it records every SaveTriages batch, can hold
// the first one until enough results are queued behind it, and can fail
// saves.
type batchStore struct {
	*store.Store
	// hold, when set, runs before the first SaveTriages.
	hold func()
	// failBatch, when set, is returned by SaveTriages (nothing is saved).
	failBatch error
	// failOne, when set, is the error of SaveTriage.
	failOne error
	// failThread, when non-zero, is reported as not saved in a
	// *store.TriageErrors (the rest of its batch is saved).
	failThread int64

	mu      sync.Mutex
	batches [][]int64
}

func (b *batchStore) SaveTriages(ctx context.Context, recs []store.TriageRecord) error {
	b.mu.Lock()
	first := len(b.batches) == 0
	var ids []int64
	for _, r := range recs {
		ids = append(ids, r.ThreadID)
	}
	b.batches = append(b.batches, ids)
	b.mu.Unlock()
	if first && b.hold != nil {
		b.hold()
	}
	if b.failBatch != nil {
		return b.failBatch
	}
	errs := make([]error, len(recs))
	var keep []store.TriageRecord
	for i, r := range recs {
		if r.ThreadID == b.failThread {
			errs[i] = fmt.Errorf("store: save triage of thread %d: %w", r.ThreadID, store.ErrNotFound)
			continue
		}
		keep = append(keep, r)
	}
	if err := b.Store.SaveTriages(ctx, keep); err != nil {
		return err
	}
	if len(keep) < len(recs) {
		return &store.TriageErrors{Errs: errs}
	}
	return nil
}

func (b *batchStore) SaveTriage(ctx context.Context, rec store.TriageRecord) error {
	if b.failOne != nil {
		return b.failOne
	}
	return b.Store.SaveTriage(ctx, rec)
}

// holdUntil returns a hold that waits until n triage calls have
// finished: with the first result being saved, the rest are queued.
func holdUntil(t *testing.T, tr *countedTriager, n int64) func() {
	return func() {
		if !tr.changed.waitUntil(func() bool { return tr.done.Load() >= n }) {
			t.Errorf("only %d triage calls finished while the first save waited, want %d", tr.done.Load(), n)
		}
	}
}

// batchPass runs one pass over a fresh demo store wrapped by b and returns
// the threads it had to triage and the events per thread.
func batchPass(t *testing.T, b *batchStore, tr *countedTriager, parallel int) ([]int64, PassResult, map[int64][]Event) {
	t.Helper()
	st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
	t.Cleanup(func() { st.Close() })
	b.Store = st
	need, err := st.ThreadsNeedingTriage(context.Background(), tr.CacheKey(), 0)
	if err != nil || len(need) < 30 {
		t.Fatalf("demo store: %d threads need triage, %v; want >= 30", len(need), err)
	}
	w := NewWorker(b, WorkerOptions{Triager: tr, Principal: demo.Principal(), Parallel: parallel})
	res, evs := runPass(t, w)
	per := map[int64][]Event{}
	for _, ev := range evs {
		per[ev.ThreadID] = append(per[ev.ThreadID], ev)
	}
	for _, id := range need {
		if len(per[id]) != 1 {
			t.Errorf("thread %d: %d events, want 1", id, len(per[id]))
		}
	}
	if len(per) != len(need) {
		t.Errorf("events for %d threads, want %d", len(per), len(need))
	}
	return need, res, per
}

// TestWorkerBatchesQueuedSaves checks that results queued behind a save
// are saved together, in fewer transactions than results, and that every
// thread still gets its own event and record.
func TestWorkerBatchesQueuedSaves(t *testing.T) {
	const parallel = 4
	tr := &countedTriager{Offline: *NewOffline(nil)}
	// 2 x parallel results fit in the queue while the first is saved.
	b := &batchStore{}
	b.hold = holdUntil(t, tr, 1+2*parallel)
	need, res, per := batchPass(t, b, tr, parallel)
	if res.Triaged != len(need) || res.Failed != 0 {
		t.Fatalf("pass: %+v, want %d triaged", res, len(need))
	}
	saved, largest := 0, 0
	for _, ids := range b.batches {
		saved += len(ids)
		largest = max(largest, len(ids))
	}
	if saved != len(need) {
		t.Errorf("%d records saved in batches, want %d", saved, len(need))
	}
	if len(b.batches) >= len(need) || largest < 2*parallel || largest > saveBatch {
		t.Errorf("%d SaveTriages calls for %d results, largest batch %d; want fewer calls than results and a batch of %d..%d",
			len(b.batches), len(need), largest, 2*parallel, saveBatch)
	}
	for _, id := range need {
		if evs := per[id]; len(evs) == 1 && (evs[0].Outcome == nil || evs[0].Err != nil) {
			t.Errorf("thread %d: event %+v, want an outcome and no error", id, evs[0])
		}
	}
	if left, err := b.Store.ThreadsNeedingTriage(context.Background(), tr.CacheKey(), 0); err != nil || len(left) != 0 {
		t.Errorf("after the pass %d threads still need triage (%v)", len(left), err)
	}
}

// TestWorkerReportsBatchFailuresPerThread checks that a failed save is
// reported on the event of each thread it concerns, and that the other
// threads of the batch are saved.
func TestWorkerReportsBatchFailuresPerThread(t *testing.T) {
	ctx := context.Background()
	const parallel = 2
	boom := errors.New("disk on fire")

	t.Run("one record of a batch", func(t *testing.T) {
		tr := &countedTriager{Offline: *NewOffline(nil)}
		b := &batchStore{}
		b.hold = func() {
			need, _ := b.Store.ThreadsNeedingTriage(ctx, tr.CacheKey(), 0)
			b.failThread = need[len(need)-1]
		}
		need, res, per := batchPass(t, b, tr, parallel)
		if res.Failed != 1 || res.Triaged != len(need)-1 {
			t.Errorf("pass: %+v, want 1 failed and %d triaged", res, len(need)-1)
		}
		for _, id := range need {
			ev := per[id][0]
			if id == b.failThread {
				if ev.Err == nil || !errors.Is(ev.Err, store.ErrNotFound) || ev.Outcome != nil {
					t.Errorf("failed thread %d: event %+v, want its save error", id, ev)
				}
			} else if ev.Err != nil || ev.Outcome == nil {
				t.Errorf("thread %d: event %+v, want an outcome", id, ev)
			}
		}
		left, _ := b.Store.ThreadsNeedingTriage(ctx, tr.CacheKey(), 0)
		if len(left) != 1 || left[0] != b.failThread {
			t.Errorf("threads left untriaged: %v, want only %d", left, b.failThread)
		}
	})

	t.Run("whole batches", func(t *testing.T) {
		tr := &countedTriager{Offline: *NewOffline(nil)}
		b := &batchStore{failBatch: boom, failOne: boom}
		need, res, per := batchPass(t, b, tr, parallel)
		if res.Failed != len(need) || res.Triaged != 0 {
			t.Errorf("pass: %+v, want all %d failed", res, len(need))
		}
		for _, id := range need {
			if ev := per[id][0]; !errors.Is(ev.Err, boom) || ev.Outcome != nil || ev.Done != 0 {
				t.Errorf("thread %d: event %+v, want the save error", id, ev)
			}
		}
	})

	t.Run("a failed batch is retried one by one", func(t *testing.T) {
		tr := &countedTriager{Offline: *NewOffline(nil)}
		b := &batchStore{failBatch: boom}
		b.hold = holdUntil(t, tr, 1+2*parallel)
		need, res, per := batchPass(t, b, tr, parallel)
		if res.Triaged+res.Failed != len(need) || res.Triaged < 2*parallel {
			t.Errorf("pass: %+v, want %d in all and at least %d saved one by one", res, len(need), 2*parallel)
		}
		left, _ := b.Store.ThreadsNeedingTriage(ctx, tr.CacheKey(), 0)
		pending := map[int64]bool{}
		for _, id := range left {
			pending[id] = true
		}
		for _, id := range need {
			ev := per[id][0]
			if (ev.Err == nil) == pending[id] || (ev.Err != nil && !errors.Is(ev.Err, boom)) {
				t.Errorf("thread %d: event error %v, still untriaged %v: the event does not tell the truth", id, ev.Err, pending[id])
			}
		}
	})
}

// keyedOffline is the deterministic triager under a cache key of its own,
// so every pass of BenchmarkWorkerOfflinePass triages every thread again.
type keyedOffline struct {
	*Offline
	key string
}

func (k *keyedOffline) CacheKey() string { return k.key }

// BenchmarkWorkerOfflinePass runs worker passes over 400 threads with the
// deterministic triager (Parallel 4), as while the model is offline:
// results come faster than single saves, so this measures the saver and
// its batching (threads/s and process CPU per thread).
func BenchmarkWorkerOfflinePass(b *testing.B) {
	const threads = 400
	ctx := context.Background()
	st := benchStore(b, threads)
	off := NewOffline(NewAnalyzer(nil))
	b.ResetTimer()
	c0 := cpuTime()
	total, iter := 0, 0
	for b.Loop() {
		iter++
		w := NewWorker(st, WorkerOptions{Triager: &keyedOffline{off, fmt.Sprint("k", iter)}, Principal: principal, Parallel: 4})
		res, err := w.Run(ctx, nil)
		if err != nil || res.Triaged != threads {
			b.Fatalf("pass: %+v %v", res, err)
		}
		total += res.Triaged
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "threads/s")
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/float64(total), "cpu-us/thread")
}

// panickyTriager panics on one thread (its first message's subject) and
// triages the others deterministically.
type panickyTriager struct {
	Offline
	subject string
}

func (p *panickyTriager) Triage(ctx context.Context, in Input) (*Outcome, error) {
	if in.Messages[0].Subject == p.subject {
		panic("index out of range [-1]")
	}
	return p.Offline.Triage(ctx, in)
}

// TestWorkerSurvivesPanic checks that a triager panicking on one thread
// fails that thread with an error event and leaves it untriaged, while
// every other thread of the pass is triaged and saved.
func TestWorkerSurvivesPanic(t *testing.T) {
	ctx := context.Background()
	st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
	t.Cleanup(func() { st.Close() })
	need, err := st.ThreadsNeedingTriage(ctx, NewOffline(nil).CacheKey(), 0)
	if err != nil || len(need) < 2 {
		t.Fatalf("demo store: %d threads need triage, %v", len(need), err)
	}
	th, err := st.Thread(ctx, need[0])
	if err != nil {
		t.Fatal(err)
	}
	tr := &panickyTriager{Offline: *NewOffline(nil), subject: th.Messages[0].Subject}
	w := NewWorker(st, WorkerOptions{Triager: tr, Principal: demo.Principal(), Parallel: 2})
	res, evs := runPass(t, w)
	if res.Failed != 1 || res.Triaged != len(need)-1 {
		t.Errorf("pass: %+v, want 1 failed and %d triaged", res, len(need)-1)
	}
	for _, ev := range evs {
		if ev.ThreadID == need[0] && (ev.Err == nil || !strings.Contains(ev.Err.Error(), "internal error")) {
			t.Errorf("the panicking thread's event: %+v, want its error", ev)
		}
	}
	if left, _ := st.ThreadsNeedingTriage(ctx, tr.CacheKey(), 0); len(left) != 1 || left[0] != need[0] {
		t.Errorf("threads left untriaged: %v, want only %d", left, need[0])
	}
}
