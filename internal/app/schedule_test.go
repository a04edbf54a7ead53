package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/drafts"
	"mailsift/internal/app/event"
	"mailsift/internal/invite"
	"mailsift/mailsrc/demo"
	"mailsift/mailsrc/rfc822"
	"mailsift/mirror"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/schedule"
	"mailsift/store"
)

var (
	schedMe  = model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	schedNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
)

// schedClock is a clock that moves only when told.
type schedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *schedClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *schedClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// rawMail renders a message; ics != "" adds a text/calendar part.
func rawMail(id, from, to, subject string, date time.Time, text, method, ics string, refs ...string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s>\r\nMIME-Version: 1.0\r\n", from, to, subject, date.Format(time.RFC1123Z), id)
	if len(refs) > 0 {
		fmt.Fprintf(&b, "In-Reply-To: <%s>\r\nReferences: <%s>\r\n", refs[len(refs)-1], strings.Join(refs, "> <"))
	}
	if ics == "" {
		b.WriteString("Content-Type: text/plain; charset=utf-8\r\n\r\n" + text + "\r\n")
		return []byte(b.String())
	}
	b.WriteString("Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + text +
		"\r\n--b1\r\nContent-Type: text/calendar; charset=utf-8; method=" + method + "\r\n\r\n" + ics + "--b1--\r\n")
	return []byte(b.String())
}

type schedFixture struct {
	st    *store.Store
	app   *App
	clk   *schedClock
	sched *Scheduler
	eng   *drafts.Engine
}

func newSchedFixture(t testing.TB) *schedFixture {
	t.Helper()
	ctx := context.Background()
	clk := &schedClock{now: schedNow}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "m.db"), &store.Options{Principal: schedMe, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := &config.Config{Principal: config.Principal{Name: schedMe.Name, Email: schedMe.Email}}
	cfg.Triage.Offline = true
	a := New(cfg, st, Options{Now: clk.Now})
	eng := drafts.New(st, drafts.Options{Principal: schedMe, Now: clk.Now,
		Accounts: []drafts.Account{{From: schedMe, Transport: &drafts.NoSend{Reason: "test"}}}})
	s := a.Scheduler(st, eng)
	s.Loc = time.UTC
	return &schedFixture{st: st, app: a, clk: clk, sched: s, eng: eng}
}

func (f *schedFixture) put(t *testing.T, raws ...[]byte) int64 {
	t.Helper()
	var msgs []*model.Message
	for i, raw := range raws {
		m, err := rfc822.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		m.Raw = raw
		m.Loc = model.Location{Account: "a", Mailbox: "INBOX", Key: fmt.Sprint(m.MessageID, i)}
		msgs = append(msgs, m)
	}
	if err := f.st.PutMessages(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	id, err := f.st.ThreadIDForMessage(context.Background(), msgs[0].MessageID)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func readICS(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "invite", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSchedulerInvitationAcceptThroughDraft(t *testing.T) {
	ctx := context.Background()
	f := newSchedFixture(t)
	ics := readICS(t, "google.ics")
	id := f.put(t, rawMail("inv-1@contoso.example", "Priya Shah <priya.shah@contoso.example>", "alex.morgan@northwind.example",
		"Invitation: Roadmap review @ Thu 3 Dec 2026 15:00 - 15:45 (UTC)", schedNow.Add(-2*time.Hour), "You have been invited.", "REQUEST", ics))
	if err := f.sched.Analyze(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	p, err := f.sched.Panel(ctx, id)
	if err != nil || p == nil {
		t.Fatalf("Panel = %v, %v", p, err)
	}
	if p.Title != "Roadmap review" || p.Invitation == nil || !p.Invitation.CanAnswer || p.Invitation.MyStatus != "NEEDS-ACTION" {
		t.Fatalf("panel = %+v inv %+v", p, p.Invitation)
	}
	if p.When != "Thu 3 Dec 2026 15:00–15:45 UTC" {
		t.Errorf("when = %q", p.When)
	}
	if len(p.Attendees) != 2 { // Priya (organizer) and Jamie; never the principal
		t.Errorf("attendees = %+v", p.Attendees)
	}
	if sum, _ := f.st.ThreadSummaryByID(ctx, id); sum.Scheduling != store.BadgeNeedsAnswer {
		t.Errorf("inbox badge = %q, want %q", sum.Scheduling, store.BadgeNeedsAnswer)
	}
	d, err := f.sched.AnswerInvitation(ctx, id, AnswerAccept, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.To) != 1 || d.To[0].Email != "priya.shah@contoso.example" || d.Subject != "Accepted: Roadmap review" {
		t.Errorf("draft = %+v", d)
	}
	// Nothing is queued until the confirm screen: the draft is open.
	if items, _ := f.eng.Outbox(ctx); len(items) != 0 {
		t.Fatalf("answer queued without confirmation: %v", items)
	}
	a, err := f.eng.Approve(ctx, d.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.What.Message, "method=REPLY") || !strings.Contains(strings.ReplaceAll(a.What.Message, "\r\n ", ""), "PARTSTAT=ACCEPTED:mailto:alex.morgan@northwind.example") {
		t.Errorf("approved message lacks the REPLY:\n%s", a.What.Message)
	}
	if _, err := f.eng.Confirm(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	p, _ = f.sched.Panel(ctx, id)
	if !strings.HasPrefix(p.Invitation.MyStatus, "ACCEPTED") {
		t.Errorf("after confirming, my status = %q", p.Invitation.MyStatus)
	}
	// The inbox stops asking for an answer at once.
	if sum, _ := f.st.ThreadSummaryByID(ctx, id); sum.Scheduling == store.BadgeNeedsAnswer || sum.Scheduling == "" {
		t.Errorf("inbox badge after answering = %q", sum.Scheduling)
	}
}

func TestSchedulerUpdateSupersedesAndConflicts(t *testing.T) {
	ctx := context.Background()
	f := newSchedFixture(t)
	// An accepted stand-up series (my PARTSTAT ACCEPTED in the request).
	standup := strings.Replace(readICS(t, "recurring.ics"), "ATTENDEE;PARTSTAT=NEEDS-ACTION", "ATTENDEE;PARTSTAT=ACCEPTED", 1)
	s1 := f.put(t, rawMail("standup@northwind.example", "Jamie Lee <jamie.lee@northwind.example>", "alex.morgan@northwind.example",
		"Invitation: Team stand-up", schedNow.Add(-5*time.Hour), "Stand-up.", "REQUEST", standup))
	if err := f.sched.Analyze(ctx, s1, false); err != nil {
		t.Fatal(err)
	}
	// An invitation on Wednesday 2 Dec at 09:40 UTC overlaps it.
	clash := strings.NewReplacer("DTSTART:20261203T150000Z", "DTSTART:20261202T094000Z", "DTEND:20261203T154500Z", "DTEND:20261202T101500Z").Replace(readICS(t, "google.ics"))
	id := f.put(t, rawMail("inv-1@contoso.example", "Priya Shah <priya.shah@contoso.example>", "alex.morgan@northwind.example",
		"Invitation: Roadmap review", schedNow.Add(-2*time.Hour), "Invited.", "REQUEST", clash))
	if err := f.sched.Analyze(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	p, _ := f.sched.Panel(ctx, id)
	if len(p.Invitation.Conflicts) != 1 || !strings.Contains(p.Invitation.Conflicts[0], "Team stand-up (Wed 2 Dec 09:30)") {
		t.Errorf("conflicts = %v", p.Invitation.Conflicts)
	}
	// The organizer cancels (SEQUENCE 1, METHOD:CANCEL): the request is
	// superseded and cannot be answered any more.
	f.put(t, rawMail("cancel-1@contoso.example", "Priya Shah <priya.shah@contoso.example>", "alex.morgan@northwind.example",
		"Canceled: Roadmap review", schedNow.Add(-time.Hour), "Cancelled.", "CANCEL", readICS(t, "cancel.ics"), "inv-1@contoso.example"))
	if err := f.sched.Analyze(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	p, _ = f.sched.Panel(ctx, id)
	if p.Invitation == nil || p.Invitation.Method != "CANCEL" || p.Invitation.CanAnswer || p.Invitation.Superseded != 1 {
		t.Fatalf("after cancel: %+v", p.Invitation)
	}
	if p.Status != "Complete/cancelled" {
		t.Errorf("event status = %q", p.Status)
	}
	if _, err := f.sched.AnswerInvitation(ctx, id, AnswerAccept, time.Time{}); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("answering a cancelled invitation: %v", err)
	}
}

func TestSchedulerRefusesUntrustedOrganizerAndSpoofedReply(t *testing.T) {
	ctx := context.Background()
	f := newSchedFixture(t)
	// Forwarded by someone else: the organizer never wrote here, so the
	// REPLY would go to an address the thread does not vouch for.
	id := f.put(t, rawMail("fwd-1@else.example", "Mallory <mallory@else.example>", "alex.morgan@northwind.example",
		"Fwd: Invitation", schedNow.Add(-2*time.Hour), "FYI", "REQUEST", readICS(t, "google.ics")))
	if err := f.sched.Analyze(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	p, _ := f.sched.Panel(ctx, id)
	if p.Invitation.CanAnswer || !strings.Contains(p.Invitation.Why, "never wrote in this thread") {
		t.Errorf("untrusted organizer: %+v", p.Invitation)
	}
	if _, err := f.sched.AnswerInvitation(ctx, id, AnswerAccept, time.Time{}); err == nil {
		t.Error("answered an invitation whose organizer is not a sender")
	}
	// A REPLY in mail from Mallory claiming to be Lena's answer is
	// ignored, with a note; malformed calendar data is reported, the mail kept.
	id2 := f.put(t,
		rawMail("inv-o@fabrikam.example", "Hans Becker <hans.becker@fabrikam.example>", "alex.morgan@northwind.example",
			"Liefervertrag", schedNow.Add(-3*time.Hour), "Einladung", "REQUEST", readICS(t, "outlook.ics")),
		rawMail("spoof@else.example", "Mallory <mallory@else.example>", "alex.morgan@northwind.example",
			"Re: Liefervertrag", schedNow.Add(-2*time.Hour), "Accepted", "REPLY", readICS(t, "reply.ics"), "inv-o@fabrikam.example"),
		rawMail("broken@fabrikam.example", "Hans Becker <hans.becker@fabrikam.example>", "alex.morgan@northwind.example",
			"Re: Liefervertrag", schedNow.Add(-time.Hour), "Update", "REQUEST", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n", "inv-o@fabrikam.example"))
	if err := f.sched.Analyze(ctx, id2, false); err != nil {
		t.Fatal(err)
	}
	p, _ = f.sched.Panel(ctx, id2)
	notes := strings.Join(p.Notes, "\n")
	if !strings.Contains(notes, "speaks for lena.vogel@fabrikam.example; ignored") || !strings.Contains(notes, "not an iCalendar object") {
		t.Errorf("notes = %s", notes)
	}
	for _, a := range p.Attendees {
		if a.Email == "lena.vogel@fabrikam.example" && a.NextAction == "Reply/clarify" {
			t.Errorf("spoofed TENTATIVE counted for Lena: %+v", a)
		}
	}
	if !p.Invitation.CanAnswer {
		t.Errorf("Hans's own invitation not answerable: %s", p.Invitation.Why)
	}
}

func TestSchedulerFollowUpResurfaces(t *testing.T) {
	ctx := context.Background()
	f := newSchedFixture(t)
	id := f.put(t, rawMail("ask-1@northwind.example", "Alex Morgan <alex.morgan@northwind.example>", "Priya Shah <priya.shah@contoso.example>",
		"Roadmap call", schedNow.Add(-time.Hour), "Could we have a call on Thursday at 3pm?", "", ""))
	// Triage filed it as informational; only its scheduling follow-up
	// brings it back.
	hash, _ := f.st.ThreadContentHash(ctx, id)
	if err := f.st.SaveTriage(ctx, store.TriageRecord{ThreadID: id, CacheKey: "k", ContentHash: hash, Intent: "meeting",
		Result: resultInformational()}); err != nil {
		t.Fatal(err)
	}
	if n, err := f.sched.Pass(ctx, 10); err != nil || n != 1 {
		t.Fatalf("Pass = %d, %v", n, err)
	}
	p, _ := f.sched.Panel(ctx, id)
	if p.Attendees[0].NextAction != "Wait/attendee" {
		t.Fatalf("priya = %+v", p.Attendees[0])
	}
	due := p.FollowUp
	if want := schedNow.Add(-time.Hour + 48*time.Hour); !due.Equal(want) {
		t.Fatalf("follow-up = %v, want %v", due, want)
	}
	if n, _ := f.sched.RunDue(ctx); n != 0 {
		t.Fatalf("follow-up ran early")
	}
	// mailsift was closed meanwhile: at the next start the passed
	// follow-up runs at once.
	f.clk.Set(due.Add(6 * time.Hour))
	later := New(f.app.cfg, f.st, Options{Now: f.clk.Now}).Scheduler(f.st, f.eng)
	if n, err := later.RunDue(ctx); err != nil || n != 1 {
		t.Fatalf("RunDue = %d, %v", n, err)
	}
	sum, _ := f.st.ThreadSummaryByID(ctx, id)
	if sum.Section != store.SectionActionable {
		t.Errorf("section = %s, want actionable after the follow-up", sum.Section)
	}
	p, _ = later.Panel(ctx, id)
	if p.Attendees[0].NextAction != "Follow_up" || !p.FollowUp.After(f.clk.Now()) {
		t.Errorf("after follow-up: %+v next %v", p.Attendees[0], p.FollowUp)
	}
	ev, _ := f.st.AuditEvents(ctx, "", 0)
	found := false
	for _, e := range ev {
		found = found || e.Type == "scheduling.follow_up"
	}
	if !found {
		t.Error("follow-up not audited")
	}
	// The draft flow starts from the attendee's next action.
	d, err := later.DraftNextAction(ctx, id, "priya.shah@contoso.example")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.To) != 1 || d.To[0].Email != "priya.shah@contoso.example" || !strings.Contains(d.Body, "Just following up on Roadmap call") ||
		d.InReplyTo != "ask-1@northwind.example" {
		t.Errorf("next-action draft = %+v", d)
	}
}

func TestSchedulerProposeNewTime(t *testing.T) {
	ctx := context.Background()
	f := newSchedFixture(t)
	id := f.put(t, rawMail("inv-a@rivera.example", "Sam Rivera <sam@rivera.example>", "alex.morgan@northwind.example",
		"Invitation: Coffee", schedNow.Add(-time.Hour), "Coffee?", "REQUEST", readICS(t, "apple.ics")))
	if err := f.sched.Analyze(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	d, err := f.sched.AnswerInvitation(ctx, id, AnswerPropose, time.Date(2026, 12, 11, 15, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	x, ok, _ := f.st.ITIPForDraft(ctx, d.ID)
	ins, err := invite.Parse([]byte(x.ICS))
	if !ok || err != nil || ins[0].Method != "COUNTER" || !ins[0].Start.Equal(time.Date(2026, 12, 11, 15, 0, 0, 0, time.UTC)) ||
		ins[0].Duration() != 30*time.Minute {
		t.Errorf("COUNTER = %+v %v", ins, err)
	}
}

func resultInformational() contract.Result {
	return contract.Result{Category: contract.CategoryInformational, Summary: "s"}
}

// The session's scheduling loop runs a follow-up when it comes due while
// mailsift runs: it waits exactly until the follow-up, then re-analyses
// the thread, resurfaces it in Actionable and says the threads changed.
func TestSessionSchedulingLoopFollowUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newSchedFixture(t)
	id := f.put(t, rawMail("ask-2@northwind.example", "Alex Morgan <alex.morgan@northwind.example>", "Priya Shah <priya.shah@contoso.example>",
		"Roadmap call", schedNow.Add(-time.Hour), "Could we have a call on Thursday at 3pm?", "", ""))
	hash, _ := f.st.ThreadContentHash(ctx, id)
	if err := f.st.SaveTriage(ctx, store.TriageRecord{ThreadID: id, CacheKey: "k", ContentHash: hash, Intent: "meeting",
		Result: resultInformational()}); err != nil {
		t.Fatal(err)
	}
	armed := make(chan time.Duration, 4)
	fire := make(chan time.Time)
	f.sched.timer = func(d time.Duration) (<-chan time.Time, func() bool) {
		armed <- d
		return fire, func() bool { return true }
	}
	s := &Session{app: f.app, events: make(chan event.Event, 8), schedWake: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() { defer close(done); s.runScheduling(ctx, f.sched) }()
	waitChanged := func() {
		t.Helper()
		for ev := range s.events {
			if _, ok := ev.(event.ThreadsChanged); ok {
				return
			}
		}
	}
	waitChanged() // the first pass analysed the thread
	if d := <-armed; d != 47*time.Hour {
		t.Fatalf("timer armed for %v, want 47h (48h after the question)", d)
	}
	if sum, _ := f.st.ThreadSummaryByID(ctx, id); sum.Section != store.SectionInformational {
		t.Fatalf("resurfaced early: %s", sum.Section)
	}
	f.clk.Set(schedNow.Add(47 * time.Hour))
	fire <- schedNow.Add(47 * time.Hour)
	waitChanged()
	if sum, _ := f.st.ThreadSummaryByID(ctx, id); sum.Section != store.SectionActionable {
		t.Errorf("section = %s, want actionable when the follow-up came due", sum.Section)
	}
	<-armed // the loop armed the next follow-up
	cancel()
	<-done
}

// With the model, an answer that breaks the contract gets its fallback
// and an audit event, and one that is not JSON marks the coordination
// failed (audited, shown in the panel).
func TestSchedulerModelViolationsAudited(t *testing.T) {
	ctx := context.Background()
	f := newSchedFixture(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		content := "I think they will come."
		if len(req.Messages) == 2 && strings.Contains(req.Messages[1].Content[strings.Index(req.Messages[1].Content, "<coordination>"):],
			`"attendee_email": "priya.shah@contoso.example"`) {
			content = `{"attendee_analysis":{"score":100,"reason":"r","engagement":"Enthusiastic","next_action":{"type":"Confirm","subtype":"pending_others","metadata":{}},"suggested_alternative_times":[]},` +
				`"event_analysis":{"score":100,"reason":"e","next_action":{"type":"Complete","subtype":"scheduled","metadata":{}}},"follow_up_date":null}`
		}
		b, _ := json.Marshal(map[string]any{"model": "m", "message": map[string]string{"role": "assistant", "content": content}, "done": true})
		w.Write(b)
	}))
	defer srv.Close()
	m, err := schedule.NewModel(schedule.ModelOptions{Host: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	f.sched.SetAnalyst(m)
	id := f.put(t, rawMail("ask-3@northwind.example", "Alex Morgan <alex.morgan@northwind.example>",
		"Priya Shah <priya.shah@contoso.example>, Hans Becker <hans.becker@fabrikam.example>",
		"Roadmap call", schedNow.Add(-3*time.Hour), "Could we have a call on Thursday at 3pm?", "", ""),
		rawMail("re-3@contoso.example", "Priya Shah <priya.shah@contoso.example>", "Alex Morgan <alex.morgan@northwind.example>",
			"Re: Roadmap call", schedNow.Add(-time.Hour), "Thursday 3pm works for me.", "", "", "ask-3@northwind.example"))
	if err := f.sched.Analyze(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	p, _ := f.sched.Panel(ctx, id)
	byEmail := map[string]schedule.PanelAttendee{}
	for _, a := range p.Attendees {
		byEmail[a.Email] = a
	}
	if a := byEmail["priya.shah@contoso.example"]; a.NextAction != "Reply/clarify" || a.Engagement != "Low" {
		t.Errorf("priya = %+v, want the fallback Reply/clarify", a)
	}
	if a := byEmail["hans.becker@fabrikam.example"]; !a.Failed {
		t.Errorf("hans = %+v, want failed", a)
	}
	if !strings.HasPrefix(p.Source, "model m") {
		t.Errorf("source = %q", p.Source)
	}
	evs, _ := f.st.AuditEvents(ctx, "", 0)
	types := map[string]int{}
	for _, e := range evs {
		types[e.Type]++
		if e.Type == "scheduling.fallback" && !strings.Contains(string(e.Details), "engagement") {
			t.Errorf("fallback audit lacks the field: %s", e.Details)
		}
	}
	if types["scheduling.fallback"] != 1 || types["scheduling.failed"] != 1 {
		t.Errorf("audit events = %v", types)
	}
}

// On the demo mailbox the scheduling pass finds the meeting threads; the
// Google invitation from an external organizer can be answered, the
// meeting the principal organised cannot (and shows its attendees).
func TestSchedulerDemoMailbox(t *testing.T) {
	ctx := context.Background()
	f := newSchedFixture(t)
	src := demo.New("demo", f.clk.Now)
	defer src.Close()
	if err := mirror.Sync(ctx, f.st, "demo", src, nil); err != nil {
		t.Fatal(err)
	}
	// Offline triage marks meeting intents, as the session does first.
	a := New(f.app.cfg, f.st, Options{Now: f.clk.Now})
	an := a.Analyzer()
	tr, err := a.Triager(an, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Worker(tr, an).Run(ctx, nil); err != nil {
		t.Fatal(err)
	}
	n, err := f.sched.Pass(ctx, 1000)
	if err != nil || n == 0 {
		t.Fatalf("Pass = %d, %v", n, err)
	}
	panels := map[string]*schedule.Panel{}
	for _, mid := range []string{"37-roadmap-invite-1.0k3v9b2q@google.com", "09-capacity-meeting-1.1777@northwind.example"} {
		id, err := f.st.ThreadIDForMessage(ctx, mid)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.sched.Panel(ctx, id)
		if err != nil || p == nil {
			t.Fatalf("%s: panel %v, %v", mid, p, err)
		}
		panels[mid] = p
	}
	inv := panels["37-roadmap-invite-1.0k3v9b2q@google.com"]
	if inv.Invitation == nil || !inv.Invitation.CanAnswer || inv.Invitation.MyStatus != "NEEDS-ACTION" || inv.Title != "Contoso roadmap review" {
		t.Errorf("roadmap invitation panel = %+v / %+v", inv, inv.Invitation)
	}
	capacity := panels["09-capacity-meeting-1.1777@northwind.example"]
	if capacity.Invitation == nil || capacity.Invitation.CanAnswer || capacity.Invitation.Why != "you are the organizer" || len(capacity.Attendees) != 2 {
		t.Errorf("capacity panel = %+v / %+v", capacity, capacity.Invitation)
	}
}
