package store

import (
	"context"
	"testing"
	"time"

	"mailsift/model"
)

// TestMovePlaceholdersNeverReused: a move the source applied without
// saying where the copy landed keeps its placeholder location until the
// next sync, after its queue row is gone. A later move must not take the
// same queue id (and so the same placeholder key): archiving a second
// thread then failed with a UNIQUE constraint on locations.
func TestMovePlaceholdersNeverReused(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("a1", "first"), mkMsg("b1", "second", at(time.Hour)))
	if err := s.SetMailbox(ctx, model.Mailbox{Account: "acct", Name: "Archive", Role: model.RoleArchive}); err != nil {
		t.Fatal(err)
	}
	archive := func(mid string) {
		t.Helper()
		if _, err := s.MoveThreads(ctx, MoveRequest{Kind: "archive", Label: "archive 1 thread",
			Threads: []int64{threadOf(t, s, mid)}, Dest: archiveDest}); err != nil {
			t.Fatalf("archive %s: %v", mid, err)
		}
	}
	archive("a1")
	pend, err := s.PendingMoves(ctx, "acct", 0)
	if err != nil || len(pend) != 1 {
		t.Fatalf("PendingMoves = %v, %v; want one", pend, err)
	}
	// Applied, but without a UID: the placeholder stays for the next sync.
	if err := s.AckMoves(ctx, []model.MoveResult{{ID: pend[0].ID}}); err != nil {
		t.Fatal(err)
	}
	if locs := locationsOf(t, s, "a1"); len(locs) != 1 || !IsPlaceholderKey(locs[0].Key) {
		t.Fatalf("locations after an unplaced ack = %+v, want the placeholder kept", locs)
	}
	archive("b1")
	locs := locationsOf(t, s, "b1")
	if len(locs) != 1 || locs[0].Mailbox != "Archive" || locs[0].Key == locationsOf(t, s, "a1")[0].Key {
		t.Errorf("second archive's location %+v reuses the first's placeholder", locs)
	}
}
