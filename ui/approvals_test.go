package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"mailsift/drafts"
	"mailsift/store"
)

// storeApprover is the approvals service over a store and engine.
type storeApprover struct {
	st  *store.Store
	eng *drafts.Engine
}

func (s storeApprover) List(ctx context.Context, states ...store.ApprovalStatus) ([]store.Approval, error) {
	return s.st.Approvals(ctx, 0, states...)
}

func (s storeApprover) Deny(ctx context.Context, id, reason string) error {
	return s.eng.Deny(ctx, id, reason)
}

// agentApproval makes a pending approval of a reply to a thread, as an
// agent's send_reply does.
func agentApproval(t *testing.T, st *store.Store, eng *drafts.Engine, msgID string) *store.Approval {
	t.Helper()
	ctx := context.Background()
	tid, err := st.ThreadIDForMessage(ctx, msgID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := eng.NewDraft(ctx, tid, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	a, err := eng.Approve(ctx, d.ID, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestApprovalsScreen: the badge counts the pending approvals; P lists
// them; enter shows the exact message on the confirm screen, where any key
// but y goes back and leaves it pending, and y queues exactly those bytes
// once; d denies.
func TestApprovalsScreen(t *testing.T) {
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	tr := &countingTransport{}
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: tr}}})
	a := agentApproval(t, st, eng, "lunch2@x")
	b := agentApproval(t, st, eng, "budget@x")
	d := newDriver(t, Options{Store: st, Drafts: eng, Principal: me, Approvals: storeApprover{st, eng}}, 140, 50)
	d.m.c.manualTicks = true
	if v := d.view(); !strings.Contains(v, "2 approvals waiting (P)") {
		t.Fatalf("no badge:\n%s", v)
	}
	d.keys("P")
	if d.m.screen != stateApprovals || !strings.Contains(d.view(), "dana@example.com") || !strings.Contains(d.view(), "Approvals waiting (2)") {
		t.Fatalf("P did not list the approvals:\n%s", d.view())
	}
	// newest first: b, then a
	d.keys("j", "enter")
	if d.m.screen != stateConfirm || d.m.confirm.a == nil || d.m.confirm.a.ID != a.ID {
		t.Fatalf("enter did not open approval %s on the confirm screen:\n%s", a.ID, d.view())
	}
	if v := d.view(); !strings.Contains(v, "Re: Lunch tomorrow?") || !strings.Contains(v, "back to the approvals") {
		t.Fatalf("confirm screen as read lacks the message or the way back:\n%s", v)
	}
	d.keys("tab") // the exact bytes
	if v := d.view(); !strings.Contains(v, "Message-ID: <"+a.What.MessageID+">") || !strings.Contains(v, "y send this message") ||
		!strings.Contains(v, "back to the approvals") || !strings.Contains(v, "(valid 24h0m0s)") {
		t.Fatalf("confirm screen lacks the exact message:\n%s", v)
	}
	d.keys("n")
	if d.m.screen != stateApprovals {
		t.Fatalf("a key other than y did not go back to the approvals:\n%s", d.view())
	}
	if got, _ := st.Approval(context.Background(), a.ID); got.Status != store.ApprovalPending {
		t.Fatalf("going back changed the approval to %s; it must stay pending", got.Status)
	}
	items, _ := eng.Outbox(context.Background())
	if len(items) != 0 {
		t.Fatalf("going back queued %d items", len(items))
	}
	d.keys("enter", "y")
	items, _ = eng.Outbox(context.Background())
	if len(items) != 1 || string(items[0].Raw) != a.What.Message || items[0].ApprovalID != a.ID {
		t.Fatalf("y queued %+v, want exactly approval %s's bytes", items, a.ID)
	}
	// Back on the list only b is left: a stray y does nothing there;
	// enter and y approve b.
	d.keys("y", "enter", "y")
	items, _ = eng.Outbox(context.Background())
	if len(items) != 2 || (items[0].ApprovalID != b.ID && items[1].ApprovalID != b.ID) {
		t.Fatalf("outbox = %+v, want a's and b's messages once each", items)
	}
	if tr.n != 0 {
		t.Errorf("the transport was called %d times inside the undo window", tr.n)
	}
}

// TestApprovalsDeny: d on the approvals screen denies; nothing is queued.
func TestApprovalsDeny(t *testing.T) {
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	eng := drafts.New(st, drafts.Options{Principal: me, Accounts: []drafts.Account{{Name: "test", From: me, Transport: &countingTransport{}}}})
	a := agentApproval(t, st, eng, "lunch2@x")
	d := newDriver(t, Options{Store: st, Drafts: eng, Principal: me, Approvals: storeApprover{st, eng}}, 140, 50)
	d.m.c.manualTicks = true
	d.keys("P", "d")
	got, _ := st.Approval(context.Background(), a.ID)
	if got.Status != store.ApprovalDenied {
		t.Fatalf("after d: %s, want denied", got.Status)
	}
	if v := d.view(); !strings.Contains(v, "No approvals waiting") || strings.Contains(v, "approval waiting (P)") {
		t.Errorf("after deny the list and badge should be empty:\n%s", v)
	}
	if items, _ := eng.Outbox(context.Background()); len(items) != 0 {
		t.Errorf("deny queued %d items", len(items))
	}
}
