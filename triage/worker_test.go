package triage

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/mailsrc"
	"mailsift/mailsrc/demo"
	"mailsift/model"
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
	if err := st.SetOverride(ctx, tid, model.CategoryUrgent); err != nil {
		t.Fatal(err)
	}
	last0 := th.Messages[len(th.Messages)-1]
	raw := fmt.Sprintf("From: Bob <bob@partner.example>\r\nTo: %s\r\nSubject: Re: %s\r\nMessage-ID: <new-1@partner.example>\r\nIn-Reply-To: <%s>\r\nReferences: <%s>\r\nDate: Fri, 20 Nov 2026 12:30:00 +0000\r\n\r\nOne more thing: can you confirm?\r\n",
		demo.Principal().Email, th.Subject, last0.MessageID, last0.MessageID)
	m, err := mailsrc.Parse([]byte(raw))
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
	if sum.Section != store.SectionUrgent || sum.Override != model.CategoryUrgent {
		t.Errorf("after re-triage: section %q override %q, want urgent/urgent", sum.Section, sum.Override)
	}
	// And it was given to the model as an example of the user's preferences.
	sys := f.reqs[len(f.reqs)-1].Messages[0].Content
	if !strings.Contains(sys, "moved these threads") || !strings.Contains(sys, `-> "urgent"`) {
		t.Errorf("latest override not given as an example:\n%s", sys)
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
