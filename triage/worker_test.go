package triage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mailsift/mailsrc/demo"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

var demoNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func openDemoStore(t testing.TB, path string, sync bool) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path, &store.Options{Principal: demo.Principal()})
	if err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := demo.New("demo", func() time.Time { return demoNow }).Sync(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func drain(ch chan Event) []Event {
	var evs []Event
	for ev := range ch {
		evs = append(evs, ev)
	}
	return evs
}

func runPass(t *testing.T, w *Worker) (PassResult, []Event) {
	t.Helper()
	ch := make(chan Event, 16)
	var evs []Event
	done := make(chan struct{})
	go func() { evs = drain(ch); close(done) }()
	res, err := w.Run(context.Background(), ch)
	close(ch)
	<-done
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res, evs
}

func TestWorkerTriagesOnceAcrossRestarts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mailsift.db")
	st := openDemoStore(t, path, true)

	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	o := f.triager(t, nil)
	w := NewWorker(st, WorkerOptions{Triager: o, Principal: demo.Principal(), Parallel: 4})

	need, err := st.ThreadsNeedingTriage(ctx, o.CacheKey(), 0)
	if err != nil {
		t.Fatal(err)
	}
	threads := len(need)
	if threads < 30 {
		t.Fatalf("demo store has %d threads needing triage, want >= 30", threads)
	}
	res, evs := runPass(t, w)
	if res.Triaged != threads || int(f.calls.Load()) != threads {
		t.Fatalf("first pass: triaged %d, chat calls %d, want %d each", res.Triaged, f.calls.Load(), threads)
	}
	last := evs[len(evs)-1]
	if last.Done != threads || last.Total != threads || last.Model != "llama3.2:3b" || last.Offline {
		t.Errorf("last event = %+v", last)
	}
	st.Close()

	// Restart: a new store handle and a new worker triage nothing.
	st = openDemoStore(t, path, true)
	defer st.Close()
	w = NewWorker(st, WorkerOptions{Triager: o, Principal: demo.Principal(), Parallel: 4})
	res, _ = runPass(t, w)
	if res.Triaged != 0 || int(f.calls.Load()) != threads {
		t.Fatalf("after restart: triaged %d, chat calls %d (want 0 new)", res.Triaged, int(f.calls.Load())-threads)
	}

	// The user moves a thread; a new message arrives in it.
	tid := need[len(need)-1]
	th, err := st.Thread(ctx, tid)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetOverride(ctx, tid, contract.CategoryUrgent); err != nil {
		t.Fatal(err)
	}
	last0 := th.Messages[len(th.Messages)-1]
	raw := fmt.Sprintf("From: Bob <bob@partner.example>\r\nTo: %s\r\nSubject: Re: %s\r\nMessage-ID: <new-1@partner.example>\r\nIn-Reply-To: <%s>\r\nReferences: <%s>\r\nDate: Fri, 20 Nov 2026 12:30:00 +0000\r\n\r\nOne more thing: can you confirm?\r\n",
		demo.Principal().Email, th.Subject, last0.MessageID, last0.MessageID)
	m, err := rfc822.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	m.Loc = model.Location{Account: "demo", Mailbox: "INBOX", Key: "new-1"}
	m.HasBody, m.Raw = true, []byte(raw)
	if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
	got, err := st.ThreadIDForMessage(ctx, "new-1@partner.example")
	if err != nil || got != tid {
		t.Fatalf("new message landed in thread %d (err %v), want %d", got, err, tid)
	}
	before := f.calls.Load()
	res, evs = runPass(t, w)
	if res.Triaged != 1 || f.calls.Load() != before+1 || evs[len(evs)-1].ThreadID != tid {
		t.Fatalf("after new message: triaged %d, calls +%d; want exactly thread %d", res.Triaged, f.calls.Load()-before, tid)
	}
	// The override survives re-triage (the model said actionable).
	sum, err := st.ThreadSummaryByID(ctx, tid)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Section != store.SectionUrgent || sum.Override != contract.CategoryUrgent {
		t.Errorf("after re-triage: section %q override %q, want urgent/urgent", sum.Section, sum.Override)
	}
	// And it was given to the model as an example of the user's preferences.
	req := f.reqs[len(f.reqs)-1]
	if !strings.Contains(req.Messages[0].Content, "moved to other categories") || !strings.Contains(req.Messages[1].Content, `-> "urgent"`) {
		t.Errorf("latest override not given as an example:\n%s\n%s", req.Messages[0].Content, req.Messages[1].Content)
	}
}

func TestWorkerOfflineFallsBackOnce(t *testing.T) {
	ctx := context.Background()
	st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
	defer st.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := "http://" + ln.Addr().String()
	ln.Close()
	o, err := NewOllama(OllamaOptions{Host: host, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorker(st, WorkerOptions{Triager: o, Principal: demo.Principal(), Parallel: 2})
	res, evs := runPass(t, w)
	if res.Offline == nil || res.Triaged < 30 {
		t.Fatalf("offline pass: %+v", res)
	}
	var offline int
	for _, ev := range evs {
		if ev.Err != nil {
			offline++
			if !ev.Offline || !strings.Contains(ev.Err.Error(), "offline triage: Ollama not reachable at "+host) {
				t.Errorf("event error = %v", ev.Err)
			}
		}
	}
	if offline != 1 {
		t.Errorf("offline reported %d times, want once", offline)
	}
	// Every thread has a deterministic record; the model's key still needs them.
	if n, _ := st.ThreadsNeedingTriage(ctx, DeterministicCacheKey(), 0); len(n) != 0 {
		t.Errorf("%d threads without deterministic triage", len(n))
	}
	if n, _ := st.ThreadsNeedingTriage(ctx, o.CacheKey(), 0); len(n) != res.Triaged {
		t.Errorf("model key: %d threads pending, want %d (for when Ollama is back)", len(n), res.Triaged)
	}
	// A second pass stays quiet: no new offline event, nothing re-triaged.
	res2, evs2 := runPass(t, w)
	if res2.Triaged != 0 || len(evs2) != 0 {
		t.Errorf("second offline pass: %+v, %d events", res2, len(evs2))
	}
}

func TestWorkerCancellation(t *testing.T) {
	st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
	defer st.Close()
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	f.delay = 10 * time.Second
	o := f.triager(t, func(op *OllamaOptions) { op.Timeout = time.Minute })
	w := NewWorker(st, WorkerOptions{Triager: o, Principal: demo.Principal(), Parallel: 2})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := w.Run(ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("cancellation took %v", el)
	}
}

// pacedFake is a Triager that paces itself with Input.Slot like Ollama:
// it prepares in a background turn, holds a request slot while "the
// model" answers (until the test releases it), and records how many
// calls are with the model and how many are prepared and waiting.
type pacedFake struct {
	release  chan struct{}
	inModel  atomic.Int64
	maxModel atomic.Int64
	ready    atomic.Int64 // prepared, waiting for a request slot
	calls    atomic.Int64
	changed  changes // signalled after each change of the counts
	mu       sync.Mutex
	seen     map[string]int
}

func (f *pacedFake) Triage(ctx context.Context, in Input) (*Outcome, error) {
	in.Slot.Release()
	if err := in.Slot.Background(ctx); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.seen[in.Messages[0].MessageID]++
	f.mu.Unlock()
	f.ready.Add(1)
	f.changed.signal()
	err := in.Slot.Acquire(ctx)
	f.ready.Add(-1)
	if err != nil {
		f.changed.signal()
		return nil, err
	}
	in.Slot.Sent()
	n := f.inModel.Add(1)
	for m := f.maxModel.Load(); n > m && !f.maxModel.CompareAndSwap(m, n); m = f.maxModel.Load() {
	}
	f.calls.Add(1)
	f.changed.signal()
	select {
	case <-f.release:
	case <-ctx.Done():
	}
	f.inModel.Add(-1)
	f.changed.signal()
	in.Slot.Release()
	if err := in.Slot.Background(ctx); err != nil {
		return nil, err
	}
	return &Outcome{Result: contract.Result{Category: contract.CategoryInformational, Summary: "s", ActionItems: []contract.ActionItem{}}, Source: SourceOllama, Model: "paced"}, nil
}

func (f *pacedFake) CacheKey() string { return OllamaCacheKey("paced") }
func (f *pacedFake) Model() string    { return "paced" }

// TestWorkerKeepsRequestsReady checks the pacing of a self-pacing
// triager: never more than Parallel requests with the model, and while
// the model holds Parallel requests the worker has Parallel more threads
// prepared, so each answer is followed by the next request at once.
func TestWorkerKeepsRequestsReady(t *testing.T) {
	ctx := context.Background()
	st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
	defer st.Close()
	const parallel = 3
	f := &pacedFake{release: make(chan struct{}), seen: map[string]int{}}
	need, err := st.ThreadsNeedingTriage(ctx, f.CacheKey(), 0)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorker(st, WorkerOptions{Triager: f, Principal: demo.Principal(), Parallel: parallel})
	type runResult struct {
		res PassResult
		err error
	}
	done := make(chan runResult, 1)
	go func() {
		res, err := w.Run(ctx, nil)
		done <- runResult{res, err}
	}()
	saturated := func() bool { return f.inModel.Load() == parallel && f.ready.Load() == parallel }
	waitFor(t, "parallel requests with the model and as many prepared", &f.changed, saturated)
	// Answer one at a time: each answer lets exactly one prepared request
	// in, and the worker prepares the next one behind it.
	for i := 1; i <= len(need)-2*parallel; i++ {
		f.release <- struct{}{}
		waitFor(t, fmt.Sprintf("request %d", parallel+i), &f.changed, func() bool { return f.calls.Load() == int64(parallel+i) })
		waitFor(t, "saturation after an answer", &f.changed, saturated)
	}
	for range 2 * parallel {
		f.release <- struct{}{}
	}
	r := <-done
	if r.err != nil || r.res.Triaged != len(need) {
		t.Fatalf("Run = %+v, %v; want %d triaged", r.res, r.err, len(need))
	}
	if got := f.maxModel.Load(); got != parallel {
		t.Errorf("at most %d requests with the model at once, want %d", got, parallel)
	}
	if got := f.calls.Load(); got != int64(len(need)) {
		t.Errorf("%d model calls, want %d", got, len(need))
	}
	for id, n := range f.seen {
		if n != 1 {
			t.Errorf("thread of %s triaged %d times in one pass", id, n)
		}
	}
	if left, _ := st.ThreadsNeedingTriage(ctx, f.CacheKey(), 0); len(left) != 0 {
		t.Errorf("%d threads left untriaged", len(left))
	}
}

// unpacedFake ignores Input.Slot; it records how many calls run at once.
// Each call is held until the test releases it, so calls that the worker
// lets run at once are all seen running together.
type unpacedFake struct {
	release             chan struct{}
	entered             chan struct{}
	running, max, calls atomic.Int64
}

func (f *unpacedFake) Triage(ctx context.Context, in Input) (*Outcome, error) {
	n := f.running.Add(1)
	for m := f.max.Load(); n > m && !f.max.CompareAndSwap(m, n); m = f.max.Load() {
	}
	f.entered <- struct{}{}
	select {
	case <-f.release:
	case <-ctx.Done():
	}
	f.calls.Add(1)
	f.running.Add(-1)
	return NewOffline(nil).Triage(ctx, in)
}

func (f *unpacedFake) CacheKey() string { return OllamaCacheKey("unpaced") }
func (f *unpacedFake) Model() string    { return "unpaced" }

// TestWorkerBoundsUnpacedTriager checks that a triager that does not use
// its Slot still runs exactly Parallel calls at once, although the worker
// starts twice as many goroutines: calls are held until the test releases
// them, and the test releases one only when Parallel calls are inside, so
// a third call let in would be counted.
func TestWorkerBoundsUnpacedTriager(t *testing.T) {
	ctx := context.Background()
	st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
	defer st.Close()
	need, err := st.ThreadsNeedingTriage(ctx, OllamaCacheKey("unpaced"), 0)
	if err != nil || len(need) < 30 {
		t.Fatalf("demo store: %d threads need triage, %v; want >= 30", len(need), err)
	}
	f := &unpacedFake{release: make(chan struct{}), entered: make(chan struct{}, len(need)+4)}
	const parallel = 2
	w := NewWorker(st, WorkerOptions{Triager: f, Principal: demo.Principal(), Parallel: parallel})
	done := make(chan PassResult, 1)
	go func() {
		res, err := w.Run(ctx, nil)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- res
	}()
	guard := time.NewTimer(hangGuard)
	defer guard.Stop()
	started := 0
	for released := 0; released < len(need); released++ {
		// Wait until as many calls as may run are inside (or all that remain).
		for started-released < min(parallel, len(need)-released) {
			select {
			case <-f.entered:
				started++
			case <-guard.C:
				t.Fatalf("the worker stopped calling the triager after %d calls, want %d", started, len(need))
			}
		}
		select {
		case f.release <- struct{}{}:
		case <-guard.C:
			t.Fatalf("no call to release after %d releases", released)
		}
	}
	res := <-done
	if res.Triaged != len(need) || f.calls.Load() != int64(res.Triaged) {
		t.Fatalf("pass: %+v, %d calls; want %d", res, f.calls.Load(), len(need))
	}
	if got := f.max.Load(); got != parallel {
		t.Errorf("%d calls at once, want %d", got, parallel)
	}
}

// TestWorkerOllamaInFlight runs the real Ollama triager against a fake
// server that holds every answer until the test lets it go: the server
// never sees more than Parallel requests at once, and each answer is
// followed by exactly one new request.
func TestWorkerOllamaInFlight(t *testing.T) {
	ctx := context.Background()
	st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
	defer st.Close()
	const parallel = 4
	release := make(chan struct{})
	var inFlight, maxInFlight, arrived atomic.Int64
	var changed changes
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) {
		c := inFlight.Add(1)
		for m := maxInFlight.Load(); c > m && !maxInFlight.CompareAndSwap(m, c); m = maxInFlight.Load() {
		}
		arrived.Add(1)
		changed.signal()
		<-release
		inFlight.Add(-1)
		return 200, chatAnswer(req, goodResult, -1)
	})
	o := f.triager(t, nil)
	need, err := st.ThreadsNeedingTriage(ctx, o.CacheKey(), 0)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorker(st, WorkerOptions{Triager: o, Principal: demo.Principal(), Parallel: parallel})
	done := make(chan PassResult, 1)
	go func() {
		res, err := w.Run(ctx, nil)
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		done <- res
	}()
	waitFor(t, "the first requests", &changed, func() bool { return arrived.Load() == parallel })
	for i := 1; i <= len(need)-parallel; i++ {
		release <- struct{}{}
		waitFor(t, fmt.Sprintf("request %d", parallel+i), &changed, func() bool { return arrived.Load() == int64(parallel+i) })
		if got := inFlight.Load(); got > parallel {
			t.Fatalf("%d requests in flight, want <= %d", got, parallel)
		}
	}
	for range parallel {
		release <- struct{}{}
	}
	res := <-done
	if res.Triaged != len(need) || int(f.calls.Load()) != len(need) {
		t.Fatalf("triaged %d with %d chat calls, want %d each", res.Triaged, f.calls.Load(), len(need))
	}
	if got := maxInFlight.Load(); got != parallel {
		t.Errorf("at most %d requests in flight, want %d", got, parallel)
	}
}
