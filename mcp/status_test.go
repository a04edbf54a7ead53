package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// listSubjects lists the threads of a status through list_threads, limit
// at a time, and returns "subject/status" in order.
func (f *fixture) listSubjects(status string, limit int) string {
	f.t.Helper()
	var got []string
	cur := ""
	for i := 0; i < 20; i++ {
		args := map[string]any{"inbox_id": "work", "status": status, "limit": limit}
		if cur != "" {
			args["cursor"] = cur
		}
		var out listThreadsOut
		f.ok(ToolListThreads, args, &out)
		for _, th := range out.Threads {
			got = append(got, th.Subject+"/"+th.Status)
		}
		if cur = out.NextCursor; cur == "" {
			return strings.Join(got, "|")
		}
	}
	f.t.Fatalf("list_threads %s: more than 20 pages", status)
	return ""
}

// TestListThreadsStatusFromStore: list_threads' open, closed and snoozed
// are the store's thread status: an archived thread is closed, a snoozed
// one (by the injected clock) is snoozed and not open, until its time
// passes and it wakes; get_thread and the threads resource agree.
func TestListThreadsStatusFromStore(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2025, 11, 10, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	f := newFixtureAt(t, "", clock)
	x := f.app.Actions(nil)
	id := func(mid string) int64 {
		n, err := f.st.ThreadIDForMessage(ctx, mid)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	inv, fig, evil := id("inv@acme.example"), id("q1@example.com"), id("e1@example.net")
	if _, err := x.Archive(ctx, []int64{inv}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Snooze(ctx, []int64{fig}, now.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ status, want string }{
		{"open", "hithere/open"},
		{"closed", "Invoice 4711/closed|Old news/closed"},
		{"snoozed", "Quarterly figures/snoozed"},
	} {
		if got := f.listSubjects(c.status, 1); got != c.want {
			t.Errorf("status %s = %s, want %s", c.status, got, c.want)
		}
	}
	for tid, want := range map[int64]string{inv: "closed", fig: "snoozed", evil: "open"} {
		var gt getThreadOut
		f.ok(ToolGetThread, map[string]any{"thread_id": threadID(tid), "include_messages": false}, &gt)
		if gt.Thread.Status != want {
			t.Errorf("get_thread %s status = %s, want %s", gt.Thread.Subject, gt.Thread.Status, want)
		}
	}
	res, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "email://inboxes/work/threads?status=snoozed"})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"status":"snoozed"`) ||
		!strings.Contains(res.Contents[0].Text, threadID(fig)) {
		t.Errorf("snoozed threads resource = %+v, %v", res, err)
	}

	// An hour before the snooze ends nothing wakes; after it, the thread
	// is open again.
	mu.Lock()
	now = now.Add(23 * time.Hour)
	mu.Unlock()
	if woke, err := f.st.WakeSnoozed(ctx); err != nil || len(woke) != 0 {
		t.Fatalf("woke %v, %v before the time", woke, err)
	}
	if got := f.listSubjects("snoozed", 50); got != "Quarterly figures/snoozed" {
		t.Errorf("an hour before waking, snoozed = %s", got)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	if woke, err := f.st.WakeSnoozed(ctx); err != nil || len(woke) != 1 || woke[0] != fig {
		t.Fatalf("woke %v, %v; want the figures thread", woke, err)
	}
	if got := f.listSubjects("open", 50); got != "hithere/open|Quarterly figures/open" {
		t.Errorf("after waking, open = %s", got)
	}
	if got := f.listSubjects("snoozed", 50); got != "" {
		t.Errorf("after waking, snoozed = %s, want none", got)
	}

	// Two snoozed threads page one at a time, newest first.
	if _, err := x.Snooze(ctx, []int64{fig, evil}, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := f.listSubjects("snoozed", 1); got != "hithere/snoozed|Quarterly figures/snoozed" {
		t.Errorf("two snoozed, a page each = %s", got)
	}
	if got := f.listSubjects("open", 50); got != "" {
		t.Errorf("with both inbox threads snoozed, open = %s, want none", got)
	}
}
