package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"mailsift/model/contract"
)

func triageRec(t *testing.T, s *Store, tid int64, key, category string, spam bool) TriageRecord {
	t.Helper()
	h, err := s.ThreadContentHash(context.Background(), tid)
	if err != nil {
		t.Fatal(err)
	}
	return TriageRecord{ThreadID: tid, CacheKey: key, ContentHash: h, Source: "deterministic",
		Result:      contract.Result{Category: category, IsSpam: spam, Summary: "sum " + category},
		SpamReasons: []string{"reason"}, Confidence: 0.5}
}

func TestSectionsTriageAndOverrides(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s,
		mkMsg("a@x", "Server down", at(1*time.Hour)),
		mkMsg("b@x", "Please review", at(2*time.Hour)),
		mkMsg("c@x", "Win a prize", at(3*time.Hour)),
		mkMsg("d@x", "Newsletter", at(4*time.Hour)),
	)
	a, b, c, d := threadOf(t, s, "a@x"), threadOf(t, s, "b@x"), threadOf(t, s, "c@x"), threadOf(t, s, "d@x")
	counts, err := s.SectionCounts(ctx)
	if err != nil || counts[SectionUntriaged] != 4 || len(counts) != len(Sections()) {
		t.Fatalf("SectionCounts = %v, %v", counts, err)
	}
	for _, r := range []TriageRecord{
		triageRec(t, s, a, "k1", contract.CategoryUrgent, false),
		triageRec(t, s, b, "k1", contract.CategoryActionable, false),
		triageRec(t, s, c, "k1", contract.CategoryLowPriority, true),
	} {
		if err := s.SaveTriage(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	counts, _ = s.SectionCounts(ctx)
	want := map[Section]int{SectionUrgent: 1, SectionActionable: 1, SectionQuarantine: 1, SectionUntriaged: 1}
	for sec, n := range want {
		if counts[sec] != n {
			t.Errorf("counts[%s] = %d, want %d (all %v)", sec, counts[sec], n, counts)
		}
	}
	list, err := s.ListThreads(ctx, SectionUrgent, 0, 10)
	if err != nil || len(list) != 1 || list[0].ID != a {
		t.Fatalf("ListThreads(urgent) = %+v, %v", list, err)
	}
	if list[0].Triage == nil || list[0].Triage.Result.Summary != "sum urgent" || list[0].Triage.SpamReasons[0] != "reason" {
		t.Fatalf("triage not joined: %+v", list[0].Triage)
	}
	// Override moves the thread and survives a new triage.
	if err := s.SetOverride(ctx, c, contract.CategoryInformational); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTriage(ctx, triageRec(t, s, c, "k2", contract.CategoryLowPriority, true)); err != nil {
		t.Fatal(err)
	}
	ts, _ := s.ThreadSummaryByID(ctx, c)
	if ts.Section != SectionInformational || ts.Override != contract.CategoryInformational {
		t.Fatalf("overridden thread section = %q override %q", ts.Section, ts.Override)
	}
	ov, err := s.RecentOverrides(ctx, 5)
	if err != nil || len(ov) != 1 || ov[0].ThreadID != c || ov[0].Subject != "Win a prize" {
		t.Fatalf("RecentOverrides = %+v, %v", ov, err)
	}
	if err := s.SetOverride(ctx, c, "bogus"); err == nil {
		t.Fatal("SetOverride(bogus) succeeded")
	}
	if err := s.SetOverride(ctx, 9999, contract.CategoryUrgent); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetOverride on missing thread err = %v", err)
	}
	if err := s.SetOverride(ctx, c, ""); err != nil {
		t.Fatal(err)
	}
	if ts, _ := s.ThreadSummaryByID(ctx, c); ts.Section != SectionQuarantine {
		t.Fatalf("after clearing override section = %q, want quarantine", ts.Section)
	}
	checkSectionCounts(t, s)
	_ = d
	// Paging: newest first.
	if err := s.SaveTriage(ctx, triageRec(t, s, a, "k1", contract.CategoryActionable, false)); err != nil {
		t.Fatal(err)
	}
	p1, _ := s.ListThreads(ctx, SectionActionable, 0, 1)
	p2, _ := s.ListThreads(ctx, SectionActionable, 1, 1)
	if len(p1) != 1 || len(p2) != 1 || p1[0].ID != b || p2[0].ID != a {
		t.Fatalf("pages = %v / %v, want b then a", p1, p2)
	}
}

func TestThreadsNeedingTriage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s,
		mkMsg("old@x", "Old unread", at(1*time.Hour)),
		mkMsg("new@x", "New read", at(5*time.Hour), seen()),
		mkMsg("mid@x", "Mid unread", at(3*time.Hour)),
		mkMsg("env@x", "Envelope only", envelopeOnly(), at(9*time.Hour)),
	)
	old, nw, mid := threadOf(t, s, "old@x"), threadOf(t, s, "new@x"), threadOf(t, s, "mid@x")
	got, err := s.ThreadsNeedingTriage(ctx, "k1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != mid || got[1] != old || got[2] != nw {
		t.Fatalf("ThreadsNeedingTriage = %v, want [mid old new] = [%d %d %d] (unread first, newest first, no envelope-only)", got, mid, old, nw)
	}
	if err := s.SaveTriage(ctx, triageRec(t, s, mid, "k1", contract.CategoryUrgent, false)); err != nil {
		t.Fatal(err)
	}
	got, _ = s.ThreadsNeedingTriage(ctx, "k1", 0)
	if len(got) != 2 || got[0] != old {
		t.Fatalf("after triage = %v, want [old new]", got)
	}
	// Another triager identity still needs it.
	if got, _ := s.ThreadsNeedingTriage(ctx, "k2", 0); len(got) != 3 {
		t.Fatalf("other cache key = %v, want 3", got)
	}
	// A new message changes the content hash: the thread needs triage again.
	h1, _ := s.ThreadContentHash(ctx, mid)
	put(t, s, mkMsg("mid2@x", "Re: Mid unread", inReplyTo("mid@x"), at(4*time.Hour)))
	h2, _ := s.ThreadContentHash(ctx, mid)
	if h1 == h2 || h2 == "" {
		t.Fatalf("content hash did not change: %q -> %q", h1, h2)
	}
	got, _ = s.ThreadsNeedingTriage(ctx, "k1", 1)
	if len(got) != 1 || got[0] != mid {
		t.Fatalf("after new message = %v, want [%d]", got, mid)
	}
	// Still shown in its old section until re-triaged.
	if ts, _ := s.ThreadSummaryByID(ctx, mid); ts.Section != SectionUrgent || ts.Triage == nil {
		t.Fatalf("section = %q", ts.Section)
	}
}
