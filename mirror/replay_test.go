package mirror

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/mailsrc"
	"mailsift/model"
	"mailsift/store"
)

// flakyMover applies the first `ok` moves of each call, then fails, and
// counts how often each move was applied.
type flakyMover struct {
	mailsrc.Source
	ok      int
	applied map[int64]int
}

func (f *flakyMover) PushFlags(context.Context, []model.FlagChange) error { return nil }

func (f *flakyMover) MoveMessages(_ context.Context, moves []model.Move) ([]model.MoveResult, error) {
	var out []model.MoveResult
	for i, m := range moves {
		if i == f.ok {
			return out, errors.New("connection reset")
		}
		f.applied[m.ID]++
		out = append(out, model.MoveResult{ID: m.ID, UID: uint32(1000 + m.ID)})
	}
	return out, nil
}

// TestReplayAppliesEachMoveOnce: a replay that fails half-way keeps the
// rest queued, and the next one applies only those: every move once.
func TestReplayAppliesEachMoveOnce(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var msgs []*model.Message
	for i := range 6 {
		msgs = append(msgs, &model.Message{Loc: model.Location{Account: "a", Mailbox: "INBOX", UID: uint32(i + 1), Key: fmt.Sprint(i + 1)},
			MessageID: fmt.Sprintf("m%d@x", i), Subject: "s", Text: "t", HasBody: true, ContentHash: fmt.Sprint("h", i), Size: 1})
	}
	if err := st.PutMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 6 {
		id, _ := st.ThreadIDForMessage(ctx, fmt.Sprintf("m%d@x", i))
		ids = append(ids, id)
	}
	if _, err := st.MoveThreads(ctx, store.MoveRequest{Kind: "archive", Label: "archive", Threads: ids,
		Dest: func(_, box string, _ model.Role) (string, model.Role) {
			if box == "INBOX" {
				return "Archive", model.RoleArchive
			}
			return "", ""
		}}); err != nil {
		t.Fatal(err)
	}
	src := &flakyMover{ok: 4, applied: map[int64]int{}}
	if err := Replay(ctx, st, "a", src); err == nil {
		t.Fatal("Replay through a failing source reported no error")
	}
	if p, _ := st.PendingMoves(ctx, "a", 0); len(p) != 2 {
		t.Fatalf("%d moves still queued after 4 of 6 applied, want 2", len(p))
	}
	src.ok = 100
	if err := Replay(ctx, st, "a", src); err != nil {
		t.Fatal(err)
	}
	if len(src.applied) != 6 {
		t.Errorf("%d moves applied, want 6", len(src.applied))
	}
	for id, n := range src.applied {
		if n != 1 {
			t.Errorf("move %d applied %d times, want once", id, n)
		}
	}
	locs, _ := st.Locations(ctx, "a", "Archive")
	if len(locs) != 6 {
		t.Errorf("Archive holds %d locations, want 6", len(locs))
	}
	for l := range locs {
		if store.IsPlaceholderKey(l.Key) || l.UID < 1000 {
			t.Errorf("location %+v kept a placeholder after the ack", l)
		}
	}
}

// TestDemoKeepsActionsAcrossSyncs: the read-only demo applies moves in
// the store only, and its next sync (the next start) neither brings an
// archived thread back nor adds a second copy of its messages.
func TestDemoKeepsActionsAcrossSyncs(t *testing.T) {
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }
	acct := &config.Account{Name: "demo", Src: config.Source{Scheme: "demo"}}
	src, err := Open(acct, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	if err := Sync(ctx, st, "demo", src, nil); err != nil {
		t.Fatal(err)
	}
	ids, err := st.SectionThreadIDs(ctx, store.SectionUntriaged)
	if err != nil || len(ids) == 0 {
		t.Fatalf("no demo threads: %v", err)
	}
	if _, err := st.MoveThreads(ctx, store.MoveRequest{Kind: "archive", Label: "archive", Threads: ids[:1],
		Dest: func(_, _ string, role model.Role) (string, model.Role) {
			if role == model.RoleInbox {
				return "Archive", model.RoleArchive
			}
			return "", ""
		}}); err != nil {
		t.Fatal(err)
	}
	if err := Replay(ctx, st, "demo", src); err != nil {
		t.Fatal(err)
	}
	// The next start: a new source over the same store, a day later.
	src2, _ := Open(acct, Options{Now: func() time.Time { return now().Add(24 * time.Hour) }})
	if err := Sync(ctx, st, "demo", src2, nil); err != nil {
		t.Fatal(err)
	}
	if st2, _ := st.ThreadStatus(ctx, ids[0]); st2.Status != store.StatusClosed {
		t.Errorf("archived demo thread is %q after the next start, want closed", st2.Status)
	}
	if again, _ := st.SectionThreadIDs(ctx, store.SectionUntriaged); len(again) != len(ids)-1 {
		t.Errorf("%d untriaged threads after the next start, want %d", len(again), len(ids)-1)
	}
}
