package app

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

func TestRetriageInvalidatesCache(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := &model.Message{
		Loc: model.Location{Account: "a", Mailbox: "INBOX", Key: "1"}, MessageID: "1@x",
		From: model.Address{Email: "bob@example.com"}, Subject: "hello", Text: "hi", HasBody: true,
		Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), ContentHash: "h1",
	}
	if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
	id, err := st.ThreadIDForMessage(ctx, "1@x")
	if err != nil {
		t.Fatal(err)
	}
	hash, err := st.ThreadContentHash(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec := store.TriageRecord{ThreadID: id, CacheKey: "k", ContentHash: hash, Source: "ollama",
		Result: contract.Result{Category: contract.CategoryActionable, Summary: "s"}}
	if err := st.SaveTriage(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if ids, _ := st.ThreadsNeedingTriage(ctx, "k", 0); len(ids) != 0 {
		t.Fatalf("before re-triage: %v need triage", ids)
	}
	woken := 0
	a := New(&config.Config{}, st, Options{})
	if err := a.Retriage(ctx, id, func() { woken++ }); err != nil {
		t.Fatalf("retriage: %v", err)
	}
	if woken != 1 {
		t.Errorf("worker woken %d times, want 1", woken)
	}
	ids, err := st.ThreadsNeedingTriage(ctx, "k", 0)
	if err != nil || !slices.Contains(ids, id) {
		t.Fatalf("after re-triage ThreadsNeedingTriage = %v, %v; want thread %d", ids, err, id)
	}
	ts, _ := st.ThreadSummaryByID(ctx, id)
	if ts.Section != store.SectionActionable {
		t.Errorf("re-triage moved the thread to %q before the new result", ts.Section)
	}
}
