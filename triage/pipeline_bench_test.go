package triage

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"mailsift/mailsrc"
	"mailsift/model"
	"mailsift/store"
)

// BenchmarkPipelineFakeModelSteady is BenchmarkPipelineFakeModel over
// 400 threads (100 rounds of the fake's 50 ms answer at parallel 4), so
// that a pass's start and end weigh less: the steady-state rate. The
// bound is again 80 threads/s.
func BenchmarkPipelineFakeModelSteady(b *testing.B) {
	const threads, latency, parallel = 400, 50 * time.Millisecond, 4
	var calls, served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		var req wireChat
		json.NewDecoder(r.Body).Decode(&req)
		calls.Add(1)
		time.Sleep(latency)
		io.WriteString(w, chatAnswer(req, goodResult, -1))
		served.Add(int64(time.Since(t0)))
	}))
	defer srv.Close()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), &store.Options{Principal: principal})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var msgs []*model.Message
	for i := range threads {
		raw := fmt.Sprintf("From: Sender %d <s%d@example.org>\r\nTo: alice@example.com\r\nSubject: Topic number %d\r\nMessage-ID: <t%d@example.org>\r\nDate: Fri, 20 Nov 2026 %02d:%02d:00 +0000\r\n\r\nHello Alice, could you review item %d by Friday? Thanks.\r\n", i, i, i, i, 10+i/60, i%60, i)
		m, err := mailsrc.Parse([]byte(raw))
		if err != nil {
			b.Fatal(err)
		}
		m.Loc = model.Location{Account: "bench", Mailbox: "INBOX", Key: fmt.Sprint(i)}
		m.HasBody, m.Raw = true, []byte(raw)
		msgs = append(msgs, m)
	}
	if err := st.PutMessages(ctx, msgs); err != nil {
		b.Fatal(err)
	}
	an := NewAnalyzer(nil)
	b.ResetTimer()
	calls.Store(0)
	served.Store(0)
	total, iter := 0, 0
	for b.Loop() {
		o, err := NewOllama(OllamaOptions{Host: srv.URL, Model: fmt.Sprintf("fake:%d", iter), Timeout: 10 * time.Second, Analyzer: an})
		if err != nil {
			b.Fatal(err)
		}
		iter++
		w := NewWorker(st, WorkerOptions{Triager: &noProbe{o}, Principal: principal, Parallel: parallel})
		res, err := w.Run(ctx, nil)
		if err != nil || res.Triaged != threads {
			b.Fatalf("pass: %+v %v", res, err)
		}
		total += res.Triaged
	}
	rate := float64(total) / b.Elapsed().Seconds()
	bound := float64(parallel) / latency.Seconds()
	b.ReportMetric(rate, "threads/s")
	b.ReportMetric(100*rate/bound, "%bound")
	if n := calls.Load(); n > 0 {
		perCall := time.Duration(served.Load() / n)
		b.ReportMetric(float64(perCall.Microseconds())/1000, "fake-ms/answer")
		b.ReportMetric(100*rate/(float64(parallel)/perCall.Seconds()), "%achievable")
	}
}
