package store

import (
	"context"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// TestMovedMessageKeepsItsThread: a message whose only location goes
// (expunged from INBOX) and that is found in Archive later in the same
// sync (a move on the server) stays the same message, in the same
// thread, with its triage result and override; one that is found
// nowhere is deleted when the sync ends, with its thread, triage,
// override and search entry. Until then neither is in the inbox.
func TestMovedMessageKeepsItsThread(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	moved := mkMsg("moved@x", "Quarterly numbers", body("the okapi forecast"))
	gone := mkMsg("gone@x", "Old newsletter", body("the narwhal digest"), at(time.Hour))
	put(t, s, moved, gone)
	mt, gt := threadOf(t, s, "moved@x"), threadOf(t, s, "gone@x")
	for _, th := range []int64{mt, gt} {
		hash, err := s.ThreadContentHash(ctx, th)
		if err != nil {
			t.Fatal(err)
		}
		rec := TriageRecord{ThreadID: th, CacheKey: "k", ContentHash: hash, Source: "ollama",
			Result: contract.Result{Category: contract.CategoryUrgent, Summary: "s"}}
		if err := s.SaveTriage(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if err := s.SetOverride(ctx, th, contract.CategoryActionable); err != nil {
			t.Fatal(err)
		}
	}

	// The sync: INBOX first (both expunged), then Archive (one found).
	if err := s.RemoveLocations(ctx, []model.Location{moved.Loc, gone.Loc}); err != nil {
		t.Fatal(err)
	}
	if c := s.sectionCount(t, SectionActionable); c != 0 {
		t.Errorf("%d threads still in the inbox sections after their messages left INBOX", c)
	}
	archived := *moved
	archived.Loc = model.Location{Account: "acct", Mailbox: "Archive", Key: "a1"}
	put(t, s, &archived)
	endSync(t, s)

	if got := threadOf(t, s, "moved@x"); got != mt {
		t.Errorf("moved message in thread %d, was %d", got, mt)
	}
	sum, err := s.ThreadSummaryByID(ctx, mt)
	if err != nil || sum.Count != 1 || sum.Triage == nil || sum.Override != contract.CategoryActionable {
		t.Errorf("moved message's thread = %+v, %v; want 1 message, triage and override kept", sum, err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM messages WHERE message_id = 'moved@x'`); n != 1 {
		t.Errorf("%d rows for the moved message, want 1", n)
	}
	if _, err := s.ThreadIDForMessage(ctx, "gone@x"); err == nil {
		t.Error("message found nowhere is still stored after the sync")
	}
	if n := countRows(t, s, `SELECT count(*) FROM triage WHERE thread_id = ?`, gt) +
		countRows(t, s, `SELECT count(*) FROM overrides WHERE thread_id = ?`, gt); n != 0 {
		t.Errorf("%d triage rows or overrides left of the deleted thread", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM orphans`); n != 0 {
		t.Errorf("%d orphans left after CollectOrphans", n)
	}
	if hits, err := s.Search(ctx, "narwhal", 10); err != nil || len(hits) != 0 {
		t.Errorf("Search(narwhal) = %v, %v; want nothing", hits, err)
	}
	if hits, err := s.Search(ctx, "okapi", 10); err != nil || len(hits) != 1 {
		t.Errorf("Search(okapi) = %v, %v; want the moved message", hits, err)
	}
	checkSectionCounts(t, s)
}

// sectionCount returns the trigger-kept number of inbox threads in sec.
func (s *Store) sectionCount(t *testing.T, sec Section) int {
	t.Helper()
	counts, err := s.SectionCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return counts[sec]
}
