package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/x/exp/teatest"

	"mailsift/drafts"
	"mailsift/internal/invite"
	"mailsift/model"
	"mailsift/schedule"
	"mailsift/store"
)

// fakeScheduling serves a fixed panel for every thread and drafts
// answers through the real drafts engine (the ICS built by package
// invite), recording what it was asked.
type fakeScheduling struct {
	panel *schedule.Panel
	eng   *drafts.Engine
	st    *store.Store

	mu       sync.Mutex
	answers  []string
	proposed time.Time
	next     []string
}

func lunchPanel() *schedule.Panel {
	return &schedule.Panel{
		Title: "Ramen lunch", When: "Sun 22 Nov 2026 12:30–13:30 UTC", Status: "Coordination in progress/collecting_responses",
		Score: 75, Reason: "1 of 2 required attendee(s) confirmed.", Source: "offline (deterministic)",
		FollowUp: fixedNow.Add(26 * time.Hour),
		Invitation: &schedule.PanelInvitation{UID: "ramen-1@example.com", Method: "REQUEST", Summary: "Ramen lunch",
			When: "Sun 22 Nov 2026 12:30–13:30 UTC", Organizer: "dana@example.com", Sequence: 1, MyStatus: "NEEDS-ACTION",
			CanAnswer: true, Superseded: 1, Conflicts: []string{"Team stand-up (Sun 22 Nov 12:45)"}},
		Attendees: []schedule.PanelAttendee{
			{Name: "Dana", Email: "dana@example.com", Score: 100, Engagement: "High", NextAction: "Confirm/pending_others", Draftable: true},
			{Name: "Bob \x1b[31mBuilder", Email: "bob@example.com", Score: 50, Engagement: "Medium", NextAction: "Reply/clarify",
				Suggested: []string{"2026-11-23 afternoon"}, Draftable: true},
			{Name: "", Email: "eve@example.com", Optional: true, Score: 20, Engagement: "Low", NextAction: "Follow_up", Draftable: true},
		},
	}
}

func (f *fakeScheduling) Panel(ctx context.Context, threadID int64) (*schedule.Panel, error) {
	return f.panel, nil
}

func (f *fakeScheduling) AnswerInvitation(ctx context.Context, threadID int64, choice string, proposed time.Time) (*store.Draft, error) {
	f.mu.Lock()
	f.answers = append(f.answers, choice)
	f.proposed = proposed
	f.mu.Unlock()
	ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:ramen-1@example.com\r\nSEQUENCE:1\r\n" +
		"DTSTART:20261122T123000Z\r\nDTEND:20261122T133000Z\r\nSUMMARY:Ramen lunch\r\nORGANIZER;CN=Dana:mailto:dana@example.com\r\n" +
		"ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:me@example.com\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	ins, err := invite.Parse([]byte(ics))
	if err != nil {
		return nil, err
	}
	ans := invite.Answer{PartStat: invite.PartAccepted}
	if choice == choicePropose {
		ans = invite.Answer{PartStat: invite.PartTentative, Start: proposed, End: proposed.Add(time.Hour)}
	}
	method, data, err := invite.Build(ins[0], me.Email, ans, fixedNow)
	if err != nil {
		return nil, err
	}
	return f.eng.NewITIPDraft(ctx, drafts.ITIPAnswer{ThreadID: threadID, To: model.Address{Name: "Dana", Email: "dana@example.com"},
		Subject: "Accepted: Ramen lunch", Body: "Accepted: Ramen lunch\n", Method: method, UID: ins[0].UID, PartStat: ans.PartStat, ICS: string(data)})
}

func (f *fakeScheduling) DraftNextAction(ctx context.Context, threadID int64, attendee string) (*store.Draft, error) {
	f.mu.Lock()
	f.next = append(f.next, attendee)
	f.mu.Unlock()
	d := &store.Draft{ThreadID: threadID, From: me, To: []model.Address{{Email: attendee}}, Subject: "Re: Lunch tomorrow?",
		Body: "Hi,\n\nCould you confirm?\n", NeedsApproval: true, Source: "template"}
	return d, f.eng.SaveDraft(ctx, d)
}

func TestGoldenSchedulingPanel(t *testing.T) {
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	sc := &fakeScheduling{panel: lunchPanel()}
	m := New(Options{Store: st, Account: "test", Now: clock, Principal: me, Scheduling: sc})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	waitOutput(t, tm, "Not yet triaged")
	press(tm, "G", "k", "enter")
	waitOutput(t, tm, "i: scheduling keys")
	press(tm, "i", "j")
	waitOutput(t, tm, "a accept")
	requireGolden(t, finalView(t, tm))
}

func newSchedEnv(t *testing.T) (*draftEnv, *fakeScheduling) {
	t.Helper()
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	tr := &countingTransport{}
	eng := drafts.New(st, drafts.Options{Principal: me, UndoWindow: 10 * time.Second,
		Accounts: []drafts.Account{{Name: "test", From: me, Transport: tr}}})
	sc := &fakeScheduling{panel: lunchPanel(), eng: eng, st: st}
	d := newDriver(t, Options{Store: st, Drafts: eng, Principal: me, Scheduling: sc}, 120, 90)
	d.m.c.manualTicks = true
	d.m.thread.sched.input.Cursor.SetMode(cursor.CursorStatic) // no blink commands
	return &draftEnv{driver: d, st: st, eng: eng, tr: tr}, sc
}

func TestSchedulingAcceptGoesThroughConfirm(t *testing.T) {
	e, sc := newSchedEnv(t)
	e.keys("G", "k", "enter")
	v := e.view()
	for _, want := range []string{"Scheduling: Coordination in progress/collecting_responses", "Invitation: Ramen lunch",
		"replaces", "! Conflicts with your accepted Team stand-up", "Dana", "Confirm/pending_others",
		"alt: 2026-11-23 afternoon", "eve@example.com (opt)"} {
		if !strings.Contains(v, want) {
			t.Errorf("panel lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\x1b[31m") {
		t.Error("an escape sequence from mail reached the screen")
	}
	// a without the panel's keys is nothing; after i it accepts.
	e.keys("a")
	if len(sc.answers) != 0 {
		t.Fatal("a answered without the panel having the keys")
	}
	e.keys("i", "a")
	if len(sc.answers) != 1 || sc.answers[0] != choiceAccept {
		t.Fatalf("answers = %v", sc.answers)
	}
	if e.m.screen != stateDraft || e.m.draft.d == nil || e.m.draft.d.Subject != "Accepted: Ramen lunch" {
		t.Fatalf("did not open the answer's draft review:\n%s", e.view())
	}
	if len(e.outbox()) != 0 {
		t.Fatal("queued before the confirm screen")
	}
	e.keys("s")
	if e.m.screen != stateConfirm {
		t.Fatalf("s did not open the confirm screen:\n%s", e.view())
	}
	if cv := e.view(); !strings.Contains(cv, "Accepted: Ramen lunch") || !strings.Contains(cv, "text/calendar") {
		t.Errorf("confirm screen's view as read lacks the answer and its calendar part:\n%s", cv)
	}
	e.keys("tab") // the exact bytes
	cv := e.view()
	if !strings.Contains(cv, "method=REPLY") || !strings.Contains(cv, "METHOD:REPLY") || !strings.Contains(cv, "PARTSTAT=ACCEPTED") {
		t.Errorf("confirm screen does not show the REPLY bytes:\n%s", cv)
	}
	e.keys("y")
	items := e.outbox()
	if len(items) != 1 || !strings.Contains(string(items[0].Raw), "METHOD:REPLY") {
		t.Fatalf("outbox = %+v", items)
	}
}

func TestSchedulingProposeAndNextAction(t *testing.T) {
	e, sc := newSchedEnv(t)
	e.keys("G", "k", "enter", "i", "p")
	if !e.m.acceptsText() {
		t.Fatal("the new-time input does not take text")
	}
	// q is text here, not quit.
	nm, cmd := e.m.Update(keyMsg("q"))
	e.m = nm.(Model)
	if isQuit(cmd) {
		t.Fatal("q quit while typing a time")
	}
	e.keys("backspace")
	e.typeText("2026-11-23 15:00")
	e.keys("enter")
	if len(sc.answers) != 1 || sc.answers[0] != choicePropose || !sc.proposed.Equal(time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)) {
		t.Fatalf("propose = %v %v", sc.answers, sc.proposed)
	}
	if e.m.screen != stateDraft {
		t.Fatalf("propose did not open the draft review")
	}
	e.keys("esc") // back to the thread; the draft stays saved
	e.keys("i", "j", "n")
	if len(sc.next) != 1 || sc.next[0] != "bob@example.com" {
		t.Fatalf("next action drafted for %v, want bob (the selected attendee)", sc.next)
	}
	if e.m.screen != stateDraft || e.m.draft.d == nil || e.m.draft.d.To[0].Email != "bob@example.com" {
		t.Fatalf("next-action draft not in review:\n%s", e.view())
	}
}

func TestSchedulingPanelAbsentForOtherThreads(t *testing.T) {
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: st, Principal: me, Scheduling: &fakeScheduling{}}, 100, 30)
	d.keys("G", "k", "enter")
	if strings.Contains(d.view(), "Scheduling:") {
		t.Errorf("panel drawn for a thread without analysis")
	}
	d.keys("i") // nothing happens, nothing breaks
	if d.m.thread.sched.active {
		t.Error("panel keys on without a panel")
	}
}

func TestInboxMeetingBadge(t *testing.T) {
	ts := store.ThreadSummary{Scheduling: "Complete/scheduled"}
	if got := badgeText(ts); got != "[meeting: scheduled]" {
		t.Errorf("badge = %q", got)
	}
	if got := meetingBadge(store.BadgeNeedsAnswer); got != "answer" {
		t.Errorf("badge = %q", got)
	}
	if got := meetingBadge("Waiting for decision/reschedule"); got != "decide" {
		t.Errorf("badge = %q", got)
	}
}

// Keys typed faster than the terminal is read arrive as one message:
// "ia" still opens the panel's keys and then accepts.
func TestSchedulingKeysTypedTogether(t *testing.T) {
	e, sc := newSchedEnv(t)
	e.keys("G", "k", "enter", "ia")
	if len(sc.answers) != 1 || sc.answers[0] != choiceAccept || e.m.screen != stateDraft {
		t.Fatalf("answers = %v, screen %v", sc.answers, e.m.screen)
	}
}

// The help of a meeting thread lists the panel's key.
func TestSchedulingHelpListsPanelKey(t *testing.T) {
	e, _ := newSchedEnv(t)
	e.keys("G", "k", "enter", "?")
	if v := e.view(); !strings.Contains(v, "scheduling panel keys") {
		t.Errorf("help lacks the panel key:\n%s", v)
	}
}
