package main

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/model"
	"mailsift/semantic"
	"mailsift/store"
)

// TestMCPBackgroundEmbedsAfterSync: with an embed model, `mailsift mcp`
// starts the embedder after the handshake and wakes it once its start-up
// sync is done, so mail that sync brought in is embedded (search_inbox
// finds it by meaning) without another trigger; nothing runs before the
// handshake, and everything ends with the context.
func TestMCPBackgroundEmbedsAfterSync(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fake := ollamatest.New(t, []string{"emb"}, nil)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(key, text string) {
		t.Helper()
		m := &model.Message{Loc: model.Location{Account: "work", Mailbox: "INBOX", Key: key}, MessageID: key + "@example.com",
			From: model.Address{Email: "bob@example.com"}, Subject: text, Text: text, HasBody: true,
			Date: time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC), ContentHash: key, Size: int64(len(text))}
		if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
			t.Fatal(err)
		}
	}
	put("old", "The quarterly figures are attached.")
	a := app.New(&config.Config{Ollama: config.Ollama{Host: fake.URL, EmbedModel: "emb"}}, st, app.Options{})

	initialized, syncGo := make(chan struct{}), make(chan struct{})
	progress := make(chan semantic.Progress)
	wait := mcpBackground(ctx, a, initialized, mcpWork{sync: func(context.Context) {
		<-syncGo // the sync brings new mail once the first pass is done
		put("new", "The invoice for October.")
	}, progress: progress})
	next := func() semantic.Progress {
		t.Helper()
		guard := time.NewTimer(30 * time.Second)
		defer guard.Stop()
		select {
		case p := <-progress:
			if p.Err != nil {
				t.Fatalf("embedding pass: %v", p.Err)
			}
			return p
		case <-guard.C:
			t.Fatal("no embedding pass")
		}
		return semantic.Progress{}
	}
	if n := len(fake.EmbedCalls()); n != 0 {
		t.Fatalf("%d embed requests before the handshake", n)
	}
	close(initialized)
	if p := next(); p.Indexed != 1 {
		t.Fatalf("first pass indexed %d, want the stored message", p.Indexed)
	}
	close(syncGo)
	if p := next(); p.Embedded != 1 || p.Indexed != 2 {
		t.Fatalf("after the sync: embedded %d, indexed %d; want the synced message too", p.Embedded, p.Indexed)
	}
	res, err := a.Search(ctx, app.SearchQuery{Text: "invoice"})
	if err != nil || res.Mode != app.SearchHybrid || len(res.Hits) == 0 || res.Hits[0].MessageID != "new@example.com" {
		t.Errorf("search after the sync = %+v, %v; want hybrid with the synced message first", res, err)
	}
	cancel()
	wait()
}

// mcpClock is a clock that moves only when the test says.
type mcpClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *mcpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *mcpClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestMCPBackgroundWakesSnoozed: `mailsift mcp` alone wakes snoozed
// threads as the TUI does — after the handshake, at once for a snooze
// whose time passed while nothing ran, then each when its time comes on
// the injected clock, waiting at most snoozeRecheck between looks.
func TestMCPBackgroundWakesSnoozed(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk := &mcpClock{now: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), &store.Options{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids := map[string]int64{}
	for i, key := range []string{"due", "soon", "later"} {
		m := &model.Message{Loc: model.Location{Account: "work", Mailbox: "INBOX", Key: key}, MessageID: key + "@example.com",
			From: model.Address{Email: "bob@example.com"}, Subject: "Thread " + key, Text: "Text of " + key, HasBody: true,
			Date: clk.Now().Add(-time.Duration(i+1) * time.Hour), ContentHash: key}
		if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
			t.Fatal(err)
		}
		if ids[key], err = st.ThreadIDForMessage(ctx, m.MessageID); err != nil {
			t.Fatal(err)
		}
	}
	for key, until := range map[string]time.Time{"due": clk.Now().Add(-time.Hour), "soon": clk.Now().Add(3 * time.Minute),
		"later": clk.Now().Add(time.Hour)} {
		if _, err := st.Snooze(ctx, []int64{ids[key]}, until, "snooze"); err != nil {
			t.Fatal(err)
		}
	}
	a := app.New(&config.Config{}, st, app.Options{Now: clk.Now})

	type timer struct {
		d    time.Duration
		fire chan time.Time
	}
	timers, woke := make(chan timer), make(chan []int64)
	initialized := make(chan struct{})
	wait := mcpBackground(ctx, a, initialized, mcpWork{snooze: app.SnoozeWakerOptions{
		After: func(d time.Duration) <-chan time.Time {
			tm := timer{d: d, fire: make(chan time.Time, 1)}
			select {
			case timers <- tm:
			case <-ctx.Done():
			}
			return tm.fire
		},
		Woke: func(ids []int64) {
			select {
			case woke <- ids:
			case <-ctx.Done():
			}
		},
	}})
	guard := func() <-chan time.Time { return time.After(30 * time.Second) } // a hang fails, never a pass
	nextWoke := func(want string) {
		t.Helper()
		select {
		case got := <-woke:
			if len(got) != 1 || got[0] != ids[want] {
				t.Fatalf("woke %v, want %s (%d)", got, want, ids[want])
			}
		case <-timers:
			t.Fatalf("the waker set a timer without waking %s", want)
		case <-guard():
			t.Fatalf("%s did not wake", want)
		}
	}
	nextTimer := func(want time.Duration) timer {
		t.Helper()
		select {
		case tm := <-timers:
			if tm.d != want {
				t.Errorf("the waker waits %v, want %v", tm.d, want)
			}
			return tm
		case ids := <-woke:
			t.Fatalf("woke %v, want a timer", ids)
		case <-guard():
			t.Fatal("the waker set no timer")
		}
		return timer{}
	}
	status := func(key string) store.ThreadStatus {
		t.Helper()
		s, err := st.ThreadStatus(ctx, ids[key])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	if s := status("due"); s.Status != store.StatusSnoozed {
		t.Fatalf("before the handshake the due thread is %q, want still snoozed", s.Status)
	}
	close(initialized)
	nextWoke("due")
	tm := nextTimer(3*time.Minute + time.Second)
	if s := status("due"); s.Status != store.StatusOpen || !s.Returned {
		t.Errorf("due thread after the wake: %+v, want open and marked back from snooze", s)
	}
	if s := status("soon"); s.Status != store.StatusSnoozed {
		t.Errorf("soon thread woke early: %q", s.Status)
	}
	clk.Advance(tm.d)
	tm.fire <- clk.Now()
	nextWoke("soon")
	tm = nextTimer(5 * time.Minute) // "later" is 56 minutes away: look again in 5
	if s := status("later"); s.Status != store.StatusSnoozed {
		t.Errorf("later thread woke early: %q", s.Status)
	}
	clk.Advance(time.Hour)
	tm.fire <- clk.Now()
	nextWoke("later")
	nextTimer(5 * time.Minute) // nothing snoozed: the recheck
	if s := status("later"); s.Status != store.StatusOpen || !s.Returned {
		t.Errorf("later thread after its time: %+v", s)
	}
	cancel()
	wait()
}
