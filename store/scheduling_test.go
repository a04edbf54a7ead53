package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"mailsift/model/contract"
)

func TestSchedulingResurfaceFollowUp(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock(t0)
	s := openTestAt(t, clk)
	put(t, s, mkMsg("meet@x", "Roadmap review", at(time.Hour)))
	id := threadOf(t, s, "meet@x")
	if err := s.SaveTriage(ctx, triageRec(t, s, id, "k", contract.CategoryInformational, false)); err != nil {
		t.Fatal(err)
	}
	due := t0.Add(48 * time.Hour)
	rec := SchedulingRecord{ThreadID: id, IsMeeting: true, State: []byte(`{"x":1}`), Badge: "Coordination in progress/collecting_responses",
		ContentHash: "h", FollowUpAt: due}
	if err := s.SaveScheduling(ctx, rec, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Scheduling(ctx, id)
	if err != nil || !got.FollowUpAt.Equal(due) || string(got.State) != `{"x":1}` || !got.IsMeeting {
		t.Fatalf("Scheduling = %+v, %v", got, err)
	}
	sum, _ := s.ThreadSummaryByID(ctx, id)
	if sum.Scheduling != rec.Badge || sum.Section != SectionInformational {
		t.Errorf("summary = %q in %s", sum.Scheduling, sum.Section)
	}
	if ids, _ := s.DueFollowUps(ctx, due.Add(-time.Second)); len(ids) != 0 {
		t.Errorf("due before time: %v", ids)
	}
	if next, ok, _ := s.NextFollowUp(ctx); !ok || !next.Equal(due) {
		t.Errorf("NextFollowUp = %v %v", next, ok)
	}
	ids, _ := s.DueFollowUps(ctx, due)
	if len(ids) != 1 || ids[0] != id {
		t.Fatalf("DueFollowUps = %v", ids)
	}
	// The follow-up came due: the thread resurfaces in Actionable.
	rec.Resurfaced, rec.FollowUpAt = true, time.Time{}
	if err := s.SaveScheduling(ctx, rec, []AuditEvent{{TraceID: "sched-1", Type: "scheduling.follow_up", Summary: "due"}}); err != nil {
		t.Fatal(err)
	}
	sum, _ = s.ThreadSummaryByID(ctx, id)
	if sum.Section != SectionActionable {
		t.Errorf("section after follow-up = %s, want actionable", sum.Section)
	}
	checkSectionCounts(t, s)
	if ev, _ := s.AuditEvents(ctx, "sched-1", 0); len(ev) != 1 {
		t.Errorf("audit = %v", ev)
	}
	// Re-triage keeps it there; the user's override still wins.
	if err := s.SaveTriage(ctx, triageRec(t, s, id, "k2", contract.CategoryLowPriority, false)); err != nil {
		t.Fatal(err)
	}
	if sum, _ = s.ThreadSummaryByID(ctx, id); sum.Section != SectionActionable {
		t.Errorf("re-triage moved a resurfaced thread to %s", sum.Section)
	}
	if err := s.SetOverride(ctx, id, contract.CategoryLowPriority); err != nil {
		t.Fatal(err)
	}
	if sum, _ = s.ThreadSummaryByID(ctx, id); sum.Section != SectionLowPriority {
		t.Errorf("override lost to resurfacing: %s", sum.Section)
	}
	if _, err := s.Scheduling(ctx, 9999); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing thread: %v", err)
	}
	if err := s.SaveScheduling(ctx, SchedulingRecord{ThreadID: 9999}, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("save for a missing thread: %v", err)
	}
}

func TestInvitationsSuperseded(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("inv1@x", "Roadmap review"))
	id := threadOf(t, s, "inv1@x")
	start := t0.Add(72 * time.Hour)
	v := func(mid, method string, seq int, part string) Invitation {
		return Invitation{MessageID: mid, UID: "u1", ThreadID: id, Method: method, Sequence: seq, Organizer: "o@x",
			Start: start, End: start.Add(time.Hour), MyPartStat: part, ICS: "BEGIN:VCALENDAR"}
	}
	if err := s.SaveInvitations(ctx, []Invitation{v("inv1@x", "REQUEST", 0, "ACCEPTED")}); err != nil {
		t.Fatal(err)
	}
	acc, _ := s.AcceptedInvitations(ctx)
	if len(acc) != 1 {
		t.Fatalf("accepted = %v", acc)
	}
	// An update with a higher SEQUENCE supersedes the first.
	if err := s.SaveInvitations(ctx, []Invitation{v("inv2@x", "REQUEST", 1, "NEEDS-ACTION")}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Invitations(ctx, id)
	if len(got) != 2 || !got[0].Superseded || got[1].Superseded {
		t.Fatalf("after update: %+v", got)
	}
	if acc, _ = s.AcceptedInvitations(ctx); len(acc) != 0 {
		t.Errorf("a superseded invitation counts as accepted: %v", acc)
	}
	// A CANCEL of the same sequence supersedes the update.
	if err := s.SaveInvitations(ctx, []Invitation{v("inv3@x", "CANCEL", 1, "")}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Invitations(ctx, id)
	for _, g := range got {
		if g.Method == "REQUEST" && !g.Superseded {
			t.Errorf("request %s not superseded by CANCEL", g.MessageID)
		}
	}
	// A REPLY never supersedes anything and the same part saved again
	// replaces itself.
	if err := s.SaveInvitations(ctx, []Invitation{v("inv3@x", "CANCEL", 1, ""), v("r@x", "REPLY", 5, "")}); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Invitations(ctx, id); len(got) != 4 {
		t.Errorf("invitations = %d, want 4", len(got))
	}
}

func TestITIPDraftAcceptedThroughMailsift(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("inv@x", "Coffee"))
	id := threadOf(t, s, "inv@x")
	if err := s.SaveInvitations(ctx, []Invitation{{MessageID: "inv@x", UID: "u2", ThreadID: id, Method: "REQUEST",
		MyPartStat: "NEEDS-ACTION", Start: t0, End: t0.Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	d := &Draft{ThreadID: id, Subject: "Accepted: Coffee", Body: "x"}
	if err := s.SaveDraft(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveITIPDraft(ctx, ITIPDraft{DraftID: d.ID, Method: "REPLY", UID: "u2", PartStat: "ACCEPTED", ICS: "ics"}); err != nil {
		t.Fatal(err)
	}
	x, ok, err := s.ITIPForDraft(ctx, d.ID)
	if err != nil || !ok || x.Method != "REPLY" || x.ICS != "ics" {
		t.Fatalf("ITIPForDraft = %+v %v %v", x, ok, err)
	}
	// An open draft is not an acceptance yet.
	if acc, _ := s.AcceptedInvitations(ctx); len(acc) != 0 {
		t.Errorf("open draft counted: %v", acc)
	}
	if _, err := s.w.ExecContext(ctx, `UPDATE drafts SET state = 'queued' WHERE id = ?`, d.ID); err != nil {
		t.Fatal(err)
	}
	if acc, _ := s.AcceptedInvitations(ctx); len(acc) != 1 || acc[0].UID != "u2" {
		t.Errorf("accepted after queueing = %v", acc)
	}
	if _, ok, _ := s.ITIPForDraft(ctx, "nope"); ok {
		t.Error("iTIP for an unknown draft")
	}
}

// An invitation the user accepted in another client (their REPLY is in
// the mail) counts as accepted.
func TestAcceptedByOwnReply(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("req@x", "Sync"))
	id := threadOf(t, s, "req@x")
	if err := s.SaveInvitations(ctx, []Invitation{
		{MessageID: "req@x", UID: "u3", ThreadID: id, Method: "REQUEST", MyPartStat: "NEEDS-ACTION", Start: t0, End: t0.Add(time.Hour)},
		{MessageID: "rep@x", UID: "u3", ThreadID: id, Method: "REPLY", MyPartStat: "ACCEPTED"},
	}); err != nil {
		t.Fatal(err)
	}
	if acc, _ := s.AcceptedInvitations(ctx); len(acc) != 1 {
		t.Fatalf("accepted = %v", acc)
	}
	if err := s.SaveInvitations(ctx, []Invitation{{MessageID: "rep2@x", UID: "u3", ThreadID: id, Method: "REPLY", MyPartStat: "DECLINED"}}); err != nil {
		t.Fatal(err)
	}
	if acc, _ := s.AcceptedInvitations(ctx); len(acc) != 0 {
		t.Errorf("a later decline still counts as accepted: %v", acc)
	}
}
