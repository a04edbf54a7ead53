package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"mailsift/mailsrc"
	"mailsift/model"
)

// recorder is a Store that records its batches; with gate set, each
// call waits for a value from gate.
type recorder struct {
	mu      sync.Mutex
	batches [][]string
	called  chan int // batch sizes, as Store is called
	gate    chan struct{}
	fail    error
}

func newRecorder() *recorder { return &recorder{called: make(chan int, 100)} }

func (r *recorder) store(ctx context.Context, msgs []*model.Message) error {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.MessageID
	}
	r.mu.Lock()
	r.batches = append(r.batches, ids)
	r.mu.Unlock()
	r.called <- len(msgs)
	if r.gate != nil {
		<-r.gate
	}
	return r.fail
}

func (r *recorder) all() (ids []string, sizes []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.batches {
		ids = append(ids, b...)
		sizes = append(sizes, len(b))
	}
	return ids, sizes
}

func msg(i int, raw string) *model.Message {
	return &model.Message{MessageID: fmt.Sprint(i), Raw: []byte(raw)}
}

func start(r *recorder, lim Limits, progress func(mailsrc.Progress)) *Writer {
	return Start(context.Background(), Config{
		Limits: lim,
		Store:  r.store,
		Bytes:  func(m *model.Message) int { return len(m.Raw) },
		StoreError: func(msgs []*model.Message, err error) error {
			return fmt.Errorf("store %s: %w", msgs[0].MessageID, err)
		},
		Progress: progress,
		Account:  "acct",
	})
}

func waitCall(t *testing.T, r *recorder) int {
	t.Helper()
	select {
	case n := <-r.called:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("Store not called within 10s")
		return 0
	}
}

// TestWriterBatchesByCount: the first batch goes at FirstBatch, no batch
// holds more than MaxQueued messages, and messages are stored in the
// order they were put.
func TestWriterBatchesByCount(t *testing.T) {
	r := newRecorder()
	r.gate = make(chan struct{})
	w := start(r, Limits{FirstBatch: 2, MinBatch: 5, MaxQueued: 5, MaxQueuedBytes: 1 << 20}, nil)
	for i := range 2 {
		if err := w.Put([]*model.Message{msg(i, "x")}, Part{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := waitCall(t, r); n != 2 {
		t.Fatalf("first batch of %d messages, want 2 (FirstBatch)", n)
	}
	// The store is busy: the rest queues up to MaxQueued, then Put blocks.
	put := make(chan error, 1)
	go func() {
		for i := 2; i < 20; i++ {
			if err := w.Put([]*model.Message{msg(i, "x")}, Part{}); err != nil {
				put <- err
				return
			}
		}
		put <- nil
	}()
	go func() {
		for range r.called {
			r.gate <- struct{}{}
		}
	}()
	r.gate <- struct{}{}
	if err := <-put; err != nil {
		t.Fatal(err)
	}
	if err := w.Stop(); err != nil {
		t.Fatal(err)
	}
	close(r.called)
	ids, sizes := r.all()
	want := make([]string, 20)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("stored %v, want %v in order", ids, want)
	}
	for i, n := range sizes {
		if n > 5 {
			t.Errorf("batch %d holds %d messages, more than MaxQueued (5)", i, n)
		}
	}
}

// TestWriterBatchesByBytes: a batch ends once its messages reach
// MaxQueuedBytes, whatever the count.
func TestWriterBatchesByBytes(t *testing.T) {
	r := newRecorder()
	w := start(r, Limits{MinBatch: 100, MaxQueued: 100, MaxQueuedBytes: 10}, nil)
	for i := range 12 {
		if err := w.Put([]*model.Message{msg(i, "four")}, Part{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Stop(); err != nil {
		t.Fatal(err)
	}
	ids, sizes := r.all()
	if len(ids) != 12 {
		t.Fatalf("stored %d messages, want 12", len(ids))
	}
	for i, n := range sizes {
		if n > 3 { // 3 × 4 bytes reach 10
			t.Errorf("batch %d holds %d messages of 4 bytes, MaxQueuedBytes is 10", i, n)
		}
	}
}

// TestWriterDelay: a batch below MinBatch is stored once Delay passed,
// without waiting for Stop or Sync.
func TestWriterDelay(t *testing.T) {
	r := newRecorder()
	w := start(r, Limits{MinBatch: 100, MaxQueued: 100, MaxQueuedBytes: 1 << 20, Delay: time.Millisecond}, nil)
	defer w.Stop()
	if err := w.Put([]*model.Message{msg(1, "x")}, Part{}); err != nil {
		t.Fatal(err)
	}
	if n := waitCall(t, r); n != 1 {
		t.Errorf("stored %d messages, want 1", n)
	}
}

// TestWriterOrderAndProgress: Do runs after everything put before it is
// stored; Sync waits for both; progress is reported once per mailbox and
// phase of a batch, cumulative.
func TestWriterOrderAndProgress(t *testing.T) {
	r := newRecorder()
	var mu sync.Mutex
	var got []mailsrc.Progress
	w := start(r, Limits{MinBatch: 100, MaxQueued: 100, MaxQueuedBytes: 1 << 20}, func(p mailsrc.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	defer w.Stop()
	w.Put([]*model.Message{msg(1, ""), msg(2, "")}, Part{Mailbox: "A", Phase: "bodies", N: 2, Total: 5})
	w.Put([]*model.Message{msg(3, "")}, Part{Mailbox: "B", Phase: "bodies", N: 1, Total: 1})
	w.Put([]*model.Message{msg(4, "")}, Part{Mailbox: "A", Phase: "bodies", N: 3, Total: 5})
	var storedBefore int
	if err := w.Do(func() error {
		ids, _ := r.all()
		storedBefore = len(ids)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if storedBefore != 4 {
		t.Errorf("Do ran with %d messages stored, want all 4 put before it", storedBefore)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []mailsrc.Progress{
		{Account: "acct", Mailbox: "A", Phase: "bodies", Done: 5, Total: 5},
		{Account: "acct", Mailbox: "B", Phase: "bodies", Done: 1, Total: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("progress = %+v, want %+v", got, want)
	}
}

// TestWriterError: after Store fails, Put and Sync return the error, Do
// functions are skipped and Stop returns it.
func TestWriterError(t *testing.T) {
	r := newRecorder()
	boom := errors.New("disk full")
	r.fail = boom
	w := start(r, Limits{MinBatch: 1, MaxQueued: 10, MaxQueuedBytes: 1 << 20}, nil)
	w.Put([]*model.Message{msg(7, "")}, Part{})
	ran := false
	w.Do(func() error { ran = true; return nil })
	if err := w.Sync(); !errors.Is(err, boom) || err.Error() != "store 7: disk full" {
		t.Errorf("Sync() = %v, want the wrapped store error", err)
	}
	if err := w.Put([]*model.Message{msg(8, "")}, Part{}); !errors.Is(err, boom) {
		t.Errorf("Put() after failure = %v, want the store error", err)
	}
	if err := w.Stop(); !errors.Is(err, boom) {
		t.Errorf("Stop() = %v, want the store error", err)
	}
	if ran {
		t.Error("Do function ran after the store failed")
	}
}

func TestMapKeepsOrder(t *testing.T) {
	in := make([]int, 100)
	for i := range in {
		in[i] = i
	}
	out := Map(4, in, func(i int) string { return fmt.Sprint(i * 2) })
	for i, s := range out {
		if s != fmt.Sprint(i*2) {
			t.Fatalf("Map(...)[%d] = %s, want %d", i, s, i*2)
		}
	}
	if got := Map(4, []int(nil), func(i int) int { return i }); len(got) != 0 {
		t.Errorf("Map(nil) = %v, want empty", got)
	}
}

// TestStream: every result reaches emit once; the first error of emit,
// or ctx ending, ends Stream with that error.
func TestStream(t *testing.T) {
	items := make([]int, 50)
	for i := range items {
		items[i] = i
	}
	seen := map[int]bool{}
	err := Stream(context.Background(), 3, items, func(i int) int { return i * 10 }, func(r int) error {
		seen[r] = true
		return nil
	})
	if err != nil || len(seen) != 50 || !seen[490] {
		t.Errorf("Stream() = %v with %d results, want nil and 50", err, len(seen))
	}

	boom := errors.New("boom")
	n := 0
	err = Stream(context.Background(), 3, items, func(i int) int { return i }, func(int) error {
		n++
		if n == 5 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n != 5 {
		t.Errorf("Stream() = %v after %d emits, want boom after 5", err, n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	err = Stream(ctx, 3, items, func(i int) int { return i }, func(r int) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Stream() after cancel = %v, want context.Canceled", err)
	}
}
