package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"mailsift/drafts"
	"mailsift/internal/app/event"
	"mailsift/internal/invite"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/schedule"
	"mailsift/store"
)

// RawSource gives a message's raw bytes (*Mail and *store.Store do).
type RawSource interface {
	RawMessage(ctx context.Context, messageID string) ([]byte, error)
}

// Scheduler is the scheduling assistant: it finds meeting threads, reads
// their calendar parts, analyses every attendee (the model, or the
// deterministic analysis offline) per the scheduling contract, runs due
// follow-ups, and drafts invitation answers and next actions. Every
// surface uses it through the app layer.
type Scheduler struct {
	app     *App
	raw     RawSource
	drafts  *drafts.Engine
	analyst schedule.Analyst
	// Loc is the zone the panel shows times in (default time.Local).
	Loc *time.Location
	// timer arms the wait for the next follow-up (tests use a fake clock).
	timer func(d time.Duration) (<-chan time.Time, func() bool)
}

// Scheduler returns the scheduling service over raw (message bytes for
// calendar parts) and eng (drafts; nil: no answers). The model is the
// configured Ollama with triage's num_ctx and keep_alive, unless triage
// is offline.
func (a *App) Scheduler(raw RawSource, eng *drafts.Engine) *Scheduler {
	s := &Scheduler{app: a, raw: raw, drafts: eng, Loc: time.Local, timer: func(d time.Duration) (<-chan time.Time, func() bool) {
		t := time.NewTimer(d)
		return t.C, t.Stop
	}}
	if !a.cfg.Triage.Offline {
		c := a.cfg.Ollama
		m, err := schedule.NewModel(schedule.ModelOptions{Host: c.Host, Model: c.Model, NumCtx: c.NumCtx, Timeout: c.Timeout})
		if err != nil {
			a.log.Warn("scheduling: deterministic analysis only", "err", err)
		} else {
			s.analyst = m
		}
	}
	return s
}

// SetAnalyst replaces the model (nil: deterministic only).
func (s *Scheduler) SetAnalyst(an schedule.Analyst) { s.analyst = an }

// Pass analyses the scheduling candidates whose content changed since
// their last analysis (at most limit threads) and returns how many it
// analysed.
func (s *Scheduler) Pass(ctx context.Context, limit int) (int, error) {
	ids, err := s.app.st.SchedulingCandidates(ctx, limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if err := s.Analyze(ctx, id, false); err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			s.app.log.Warn("scheduling: analysis failed", "thread", id, "err", err)
			continue
		}
		n++
	}
	return n, nil
}

// RunDue runs every follow-up due now (also those that came due while
// mailsift was not running): each thread is analysed again and resurfaces
// in Actionable. It returns how many ran.
func (s *Scheduler) RunDue(ctx context.Context) (int, error) {
	ids, err := s.app.st.DueFollowUps(ctx, s.app.now())
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		if err := s.Analyze(ctx, id, true); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			s.app.log.Warn("scheduling: follow-up failed", "thread", id, "err", err)
		}
	}
	return len(ids), nil
}

// NextFollowUp is when the next follow-up is due (ok false: none).
func (s *Scheduler) NextFollowUp(ctx context.Context) (time.Time, bool, error) {
	return s.app.st.NextFollowUp(ctx)
}

// Analyze analyses one thread and stores the result. followUp says a due
// follow-up triggered it: the thread then resurfaces in Actionable.
func (s *Scheduler) Analyze(ctx context.Context, threadID int64, followUp bool) error {
	st := s.app.st
	t, err := st.ThreadHeaders(ctx, threadID, schedule.MaxThreadMessages)
	if err != nil {
		return fmt.Errorf("scheduling: %w", err)
	}
	hash, err := st.ThreadContentHash(ctx, threadID)
	if err != nil {
		return fmt.Errorf("scheduling: %w", err)
	}
	principal := s.app.Principal()
	invs, notes := s.calendarParts(ctx, t, principal)
	if err := st.SaveInvitations(ctx, storedInvitations(threadID, invs, principal)); err != nil {
		return err
	}
	var prev *schedule.State
	var prevRec *store.SchedulingRecord
	if rec, err := st.Scheduling(ctx, threadID); err == nil {
		prevRec = rec
		if rec.IsMeeting {
			var ps schedule.State
			if json.Unmarshal(rec.State, &ps) == nil {
				prev = &ps
			}
		}
	}
	if !schedule.Detect(t, invs) {
		return st.SaveScheduling(ctx, store.SchedulingRecord{ThreadID: threadID, ContentHash: hash}, nil)
	}
	now := s.app.now()
	state, err := schedule.Run(ctx, t, invs, principal, prev, schedule.Options{Analyst: s.analyst, Now: now, Logger: s.app.log})
	if err != nil {
		return err
	}
	state.Notes = notes
	data, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("scheduling: encode analysis: %w", err)
	}
	rec := store.SchedulingRecord{ThreadID: threadID, IsMeeting: true, State: data, Badge: state.Badge(), ContentHash: hash}
	if state.FollowUp != nil {
		rec.FollowUpAt = *state.FollowUp
	}
	// Resurfaced by a follow-up, the thread stays in Actionable until new
	// mail arrives in it.
	rec.Resurfaced = followUp || (prevRec != nil && prevRec.Resurfaced && prevRec.ContentHash == hash)
	return st.SaveScheduling(ctx, rec, s.audit(threadID, state, followUp))
}

// audit lists the audit events of an analysis: each contract violation
// with its fallback, each failed coordination, each escalation, and the
// follow-up that ran.
func (s *Scheduler) audit(threadID int64, state *schedule.State, followUp bool) []store.AuditEvent {
	trace := fmt.Sprintf("scheduling-%d-%d", threadID, s.app.now().UnixMilli())
	var out []store.AuditEvent
	add := func(typ, outcome, summary string, details map[string]any) {
		det, _ := json.Marshal(details)
		out = append(out, store.AuditEvent{TraceID: trace, Stage: "tool_call", Type: typ, Outcome: outcome, Summary: summary, Details: det})
	}
	for _, a := range state.Status {
		for _, v := range a.Violations {
			add("scheduling.fallback", "failure", "model answer broke the scheduling contract; fallback applied",
				map[string]any{"thread_id": threadID, "attendee": a.Email, "violation": v})
		}
		if a.Failed != "" {
			add("scheduling.failed", "failure", "model answer was not JSON; coordination marked failed",
				map[string]any{"thread_id": threadID, "attendee": a.Email, "error": a.Failed})
		}
		if a.Escalated {
			add("scheduling.escalated", "info", "a required field was missing or invalid; escalated to the user",
				map[string]any{"thread_id": threadID, "attendee": a.Email})
		}
	}
	if followUp {
		add("scheduling.follow_up", "success", "follow-up ran; thread resurfaced in Actionable", map[string]any{"thread_id": threadID})
	}
	return out
}

// calendarParts reads every text/calendar part of the thread. A part
// that does not parse, or that claims to come from someone other than
// its message's sender (a REQUEST or CANCEL whose organizer, a REPLY or
// COUNTER whose attendee, is not the From), is left out with a note.
func (s *Scheduler) calendarParts(ctx context.Context, t *model.Thread, principal model.Address) ([]schedule.MessageInvite, []string) {
	var out []schedule.MessageInvite
	var notes []string
	for _, m := range t.Messages {
		var raw []byte
		for _, a := range m.Attachments {
			if a.ContentType != "text/calendar" && !strings.HasSuffix(strings.ToLower(a.Filename), ".ics") {
				continue
			}
			if s.raw == nil {
				continue
			}
			var err error
			if raw == nil {
				raw, err = s.raw.RawMessage(ctx, m.MessageID)
			}
			if err != nil {
				notes = append(notes, fmt.Sprintf("calendar part of the message of %s not readable: %v", m.Date.UTC().Format("2006-01-02 15:04"), err))
				continue
			}
			_, data, err := rfc822.AttachmentContent(raw, a.Part)
			if err != nil {
				notes = append(notes, fmt.Sprintf("calendar part of the message of %s not readable: %v", m.Date.UTC().Format("2006-01-02 15:04"), err))
				continue
			}
			ins, err := invite.Parse(data)
			if err != nil {
				notes = append(notes, fmt.Sprintf("calendar part of the message of %s ignored: %v", m.Date.UTC().Format("2006-01-02 15:04"), err))
				continue
			}
			from := strings.ToLower(m.From.Email)
			for _, in := range ins {
				if why := claimProblem(in, from); why != "" {
					notes = append(notes, why)
					continue
				}
				out = append(out, schedule.MessageInvite{Message: m, Invite: in})
			}
		}
	}
	return out, notes
}

// claimProblem says why a calendar part does not come from its sender.
func claimProblem(in *invite.Invite, from string) string {
	switch in.Method {
	case invite.MethodRequest, invite.MethodCancel:
		if in.Organizer.Email != "" && in.Organizer.Email != from {
			// A forwarded invitation is legitimate, but it cannot be
			// trusted to speak for the organizer: kept, and answering it
			// is refused later unless the organizer wrote in the thread.
			return ""
		}
	case invite.MethodReply, invite.MethodCounter:
		for _, a := range in.Attendees {
			if a.Email != from {
				return fmt.Sprintf("calendar %s in mail from %s speaks for %s; ignored", strings.ToLower(in.Method), from, a.Email)
			}
		}
	}
	return ""
}

func storedInvitations(threadID int64, invs []schedule.MessageInvite, principal model.Address) []store.Invitation {
	var out []store.Invitation
	for _, mi := range invs {
		in := mi.Invite
		my := ""
		if a, ok := in.Attendee(principal.Email); ok {
			my = a.PartStat
		}
		var ics []byte
		if _, data, err := reencode(in); err == nil {
			ics = data
		}
		out = append(out, store.Invitation{MessageID: mi.Message.MessageID, UID: in.UID, ThreadID: threadID, Method: in.Method,
			Sequence: in.Sequence, Organizer: in.Organizer.Email, Summary: in.Summary, Start: in.Start, End: in.End,
			MyPartStat: my, ICS: string(ics)})
	}
	return out
}

// reencode keeps what conflict checks need of an invitation: a minimal
// calendar of its times and RRULE.
func reencode(in *invite.Invite) (string, []byte, error) {
	var b strings.Builder
	b.WriteString("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:" + in.Method + "\r\nBEGIN:VEVENT\r\nUID:x\r\n")
	switch {
	case in.AllDay:
		b.WriteString("DTSTART;VALUE=DATE:" + in.Start.Format("20060102") + "\r\nDTEND;VALUE=DATE:" + in.End.Format("20060102") + "\r\n")
	default:
		b.WriteString("DTSTART:" + in.Start.UTC().Format("20060102T150405Z") + "\r\nDTEND:" + in.End.UTC().Format("20060102T150405Z") + "\r\n")
	}
	if in.RRule != "" && !strings.ContainsAny(in.RRule, "\r\n") {
		b.WriteString("RRULE:" + in.RRule + "\r\n")
	}
	b.WriteString("END:VEVENT\r\nEND:VCALENDAR\r\n")
	return in.UID, []byte(b.String()), nil
}

// Panel returns the scheduling panel of a thread; nil when the thread
// is not a meeting thread (or not analysed yet).
func (s *Scheduler) Panel(ctx context.Context, threadID int64) (*schedule.Panel, error) {
	st := s.app.st
	rec, err := st.Scheduling(ctx, threadID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !rec.IsMeeting {
		return nil, nil
	}
	var state schedule.State
	if err := json.Unmarshal(rec.State, &state); err != nil {
		return nil, fmt.Errorf("scheduling: stored analysis of thread %d: %w", threadID, err)
	}
	op := state.Operation
	p := &schedule.Panel{Title: op.Title, FollowUp: rec.FollowUpAt, Notes: append([]string{}, state.Notes...)}
	if ev := op.EventAnalysis; ev != nil {
		p.Status, p.Score, p.Reason = ev.NextAction.Label(), ev.Score, ev.Reason
	}
	switch {
	case state.Model != "" && state.Offline:
		p.Source = "model " + state.Model + ", then deterministic (model unreachable)"
	case state.Model != "":
		p.Source = "model " + state.Model
	default:
		p.Source = "offline (deterministic)"
	}
	status := map[string]schedule.AttendeeStatus{}
	for _, a := range state.Status {
		status[a.Email] = a
		for _, v := range a.Violations {
			p.Notes = append(p.Notes, a.Email+": "+v)
		}
		if a.Failed != "" {
			p.Notes = append(p.Notes, a.Email+": analysis failed: "+a.Failed)
		}
	}
	for _, a := range op.Attendees {
		row := schedule.PanelAttendee{Name: a.AttendeeName, Email: a.AttendeeEmail, Optional: a.IsOptional != nil && *a.IsOptional}
		if aa := a.AttendeeAnalysis; aa != nil {
			row.Score, row.Engagement, row.NextAction = aa.Score, aa.Engagement, aa.NextAction.Label()
			for _, t := range aa.SuggestedAlternativeTimes {
				row.Suggested = append(row.Suggested, t.Date+" "+t.TimeRange)
			}
			row.Draftable = draftable(aa.NextAction.Type)
		}
		row.Failed = status[a.AttendeeEmail].Failed != ""
		row.Escalated = status[a.AttendeeEmail].Escalated
		p.Attendees = append(p.Attendees, row)
	}
	inv, err := s.invitationPanel(ctx, threadID, state.InviteUID)
	if err != nil {
		return nil, err
	}
	p.Invitation = inv
	if inv != nil {
		p.When = inv.When
		if inv.CanAnswer && inv.MyStatus == invite.PartNeedsAction {
			p.Reason = strings.TrimSpace(p.Reason + " Your own answer is pending.")
		}
	}
	return p, nil
}

func draftable(typ string) bool {
	switch typ {
	case "Initiate", "Reply", "Follow_up", "Escalate", "Confirm":
		return true
	}
	return false
}

// current returns the thread's invitation that is in force for uid: the
// REQUEST or CANCEL not superseded, with its message.
func (s *Scheduler) current(ctx context.Context, threadID int64, uid string) (*invite.Invite, *model.Message, []store.Invitation, error) {
	if uid == "" {
		return nil, nil, nil, nil
	}
	rows, err := s.app.st.Invitations(ctx, threadID)
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := s.app.st.ThreadHeaders(ctx, threadID, schedule.MaxThreadMessages)
	if err != nil {
		return nil, nil, nil, err
	}
	invs, _ := s.calendarParts(ctx, t, s.app.Principal())
	li := schedule.Latest(invs)
	if li == nil || li.Invite.UID != uid {
		return nil, nil, rows, nil
	}
	return li.Invite, li.Message, rows, nil
}

func (s *Scheduler) invitationPanel(ctx context.Context, threadID int64, uid string) (*schedule.PanelInvitation, error) {
	in, m, rows, err := s.current(ctx, threadID, uid)
	if err != nil || in == nil {
		return nil, err
	}
	p := &schedule.PanelInvitation{UID: in.UID, Method: in.Method, Summary: in.Summary, When: s.when(in),
		Organizer: in.Organizer.Email, Sequence: in.Sequence, Problems: in.Problems}
	if a, ok := in.Attendee(s.app.Principal().Email); ok {
		p.MyStatus = a.PartStat
	}
	for _, r := range rows {
		if r.UID == uid && r.Superseded {
			p.Superseded++
		}
		// The user's own answer sent from another client (rows are in
		// thread order: the latest wins).
		if r.UID == uid && r.Method == invite.MethodReply && r.MyPartStat != "" {
			p.MyStatus = r.MyPartStat + " (your reply)"
		}
	}
	if x := s.queuedAnswer(ctx, threadID, uid); x != "" {
		p.MyStatus = x + " (answer in the outbox or sent)"
	}
	p.Why = s.answerProblem(ctx, in, m, threadID)
	p.CanAnswer = p.Why == ""
	if in.Method == invite.MethodRequest {
		p.Conflicts = s.conflicts(ctx, in)
	}
	return p, nil
}

// queuedAnswer is the PARTSTAT of an answer to uid the user confirmed in
// mailsift ("" when none).
func (s *Scheduler) queuedAnswer(ctx context.Context, threadID int64, uid string) string {
	ds, err := s.app.st.Drafts(ctx, threadID, store.DraftQueued, store.DraftSent)
	if err != nil {
		return ""
	}
	for _, d := range ds {
		if x, ok, _ := s.app.st.ITIPForDraft(ctx, d.ID); ok && x.UID == uid {
			return x.PartStat
		}
	}
	return ""
}

// answerProblem says why the user cannot answer the invitation ("" when
// they can): it is not a current REQUEST, the user is not invited, or its
// organizer never wrote in this thread (the REPLY goes to the organizer,
// and only an address the thread's mail came from is trusted).
func (s *Scheduler) answerProblem(ctx context.Context, in *invite.Invite, m *model.Message, threadID int64) string {
	me := s.app.Principal().Email
	switch {
	case in.Method == invite.MethodCancel:
		return "the invitation was cancelled"
	case in.Method != invite.MethodRequest:
		return "a " + in.Method + " is not an invitation"
	case in.Organizer.Email == "":
		return "the invitation names no organizer"
	case strings.EqualFold(in.Organizer.Email, me):
		return "you are the organizer"
	}
	if _, ok := in.Attendee(me); !ok {
		return "you are not among its attendees"
	}
	t, err := s.app.st.ThreadHeaders(ctx, threadID, 0)
	if err != nil {
		return "thread not readable"
	}
	for _, tm := range t.Messages {
		if strings.EqualFold(tm.From.Email, in.Organizer.Email) {
			return ""
		}
	}
	return "its organizer " + in.Organizer.Email + " never wrote in this thread"
}

// conflicts lists the user's other accepted invitations overlapping in
// (within a year of its start; recurrences bounded by invite.MaxSteps).
func (s *Scheduler) conflicts(ctx context.Context, in *invite.Invite) []string {
	acc, err := s.app.st.AcceptedInvitations(ctx)
	if err != nil {
		return nil
	}
	from, to := in.Start.Add(-24*time.Hour), in.Start.AddDate(1, 0, 0)
	mine := in.Occurrences(from, to)
	var out []string
	seen := map[string]bool{}
	for _, a := range acc {
		if a.UID == in.UID || seen[a.UID] {
			continue
		}
		ins, err := invite.Parse([]byte(a.ICS))
		if err != nil {
			continue
		}
		for _, o := range ins[0].Occurrences(from, to) {
			hit := false
			for _, m := range mine {
				if m.Overlaps(o) {
					hit = true
					break
				}
			}
			if hit {
				seen[a.UID] = true
				out = append(out, fmt.Sprintf("%s (%s)", a.Summary, o.Start.In(s.Loc).Format("Mon 2 Jan 15:04")))
				break
			}
		}
		if len(out) >= 5 {
			break
		}
	}
	return out
}

func (s *Scheduler) when(in *invite.Invite) string {
	switch {
	case in.Start.IsZero():
		return ""
	case in.AllDay:
		w := in.Start.Format("Mon 2 Jan 2006")
		if last := in.End.AddDate(0, 0, -1); last.After(in.Start) {
			w += " – " + last.Format("Mon 2 Jan 2006")
		}
		return w + " (all day)"
	case in.Floating:
		return in.Start.Format("Mon 2 Jan 2006 15:04") + "–" + in.End.Format("15:04") + " (local time of the meeting)"
	}
	w := in.Start.In(s.Loc).Format("Mon 2 Jan 2006 15:04") + "–" + in.End.In(s.Loc).Format("15:04 MST")
	if in.Recurring() {
		w += ", repeats (" + in.RRule + ")"
	}
	return w
}

// Answer choices for AnswerInvitation.
const (
	AnswerAccept    = "accept"
	AnswerTentative = "tentative"
	AnswerDecline   = "decline"
	AnswerPropose   = "propose"
)

// AnswerInvitation drafts the user's answer to the thread's current
// invitation: an iTIP REPLY with PARTSTAT ACCEPTED, TENTATIVE or DECLINED,
// or for "propose" a COUNTER with the new start (the meeting's duration
// kept). The draft goes to the organizer only (checked against the
// thread's senders, never taken from a model) and, like every reply, is
// sent only from the confirm screen. It returns the draft.
func (s *Scheduler) AnswerInvitation(ctx context.Context, threadID int64, choice string, proposed time.Time) (*store.Draft, error) {
	if s.drafts == nil {
		return nil, errors.New("scheduling: answers are not available (no send engine)")
	}
	rec, err := s.app.st.Scheduling(ctx, threadID)
	if err != nil {
		return nil, fmt.Errorf("scheduling: %w", err)
	}
	var state schedule.State
	if err := json.Unmarshal(rec.State, &state); err != nil {
		return nil, fmt.Errorf("scheduling: stored analysis: %w", err)
	}
	in, m, _, err := s.current(ctx, threadID, state.InviteUID)
	if err != nil {
		return nil, err
	}
	if in == nil {
		return nil, errors.New("scheduling: this thread has no invitation to answer")
	}
	if why := s.answerProblem(ctx, in, m, threadID); why != "" {
		return nil, fmt.Errorf("scheduling: cannot answer: %s", why)
	}
	ans := invite.Answer{}
	verb := ""
	switch choice {
	case AnswerAccept:
		ans.PartStat, verb = invite.PartAccepted, "Accepted"
	case AnswerTentative:
		ans.PartStat, verb = invite.PartTentative, "Tentative"
	case AnswerDecline:
		ans.PartStat, verb = invite.PartDeclined, "Declined"
	case AnswerPropose:
		if proposed.IsZero() {
			return nil, errors.New("scheduling: propose needs a new time")
		}
		d := in.Duration()
		if d <= 0 {
			d = 30 * time.Minute
		}
		ans.PartStat, ans.Start, ans.End, verb = invite.PartTentative, proposed, proposed.Add(d), "New time proposed"
	default:
		return nil, fmt.Errorf("scheduling: unknown answer %q", choice)
	}
	me := s.app.Principal()
	method, ics, err := invite.Build(in, me.Email, ans, s.app.now())
	if err != nil {
		return nil, err
	}
	summary := in.Summary
	if summary == "" {
		summary = state.Operation.Title
	}
	body := fmt.Sprintf("%s: %s\n%s\n", verb, summary, s.when(in))
	if ans.Counter() {
		body = fmt.Sprintf("I can't make %s. Could we move %s to %s–%s?\n", s.when(in), summary,
			ans.Start.In(s.Loc).Format("Mon 2 Jan 2006 15:04"), ans.End.In(s.Loc).Format("15:04 MST"))
	}
	org := model.Address{Name: in.Organizer.Name, Email: in.Organizer.Email}
	d, err := s.drafts.NewITIPDraft(ctx, drafts.ITIPAnswer{ThreadID: threadID, Invitation: m, To: org,
		Subject: verb + ": " + oneLine(summary), Body: body, Method: method, UID: in.UID, PartStat: ans.PartStat, ICS: string(ics)})
	if err != nil {
		return nil, err
	}
	s.app.log.Info("scheduling: invitation answer drafted", "thread", threadID, "method", method, "partstat", ans.PartStat)
	return d, nil
}

// DraftNextAction drafts the message an attendee's next action calls for
// (a clarification for Reply/clarify, a nudge for Follow_up, ...), to
// that attendee only, for the user to edit and confirm.
func (s *Scheduler) DraftNextAction(ctx context.Context, threadID int64, attendee string) (*store.Draft, error) {
	if s.drafts == nil {
		return nil, errors.New("scheduling: drafts are not available (no send engine)")
	}
	p, err := s.Panel(ctx, threadID)
	if err != nil || p == nil {
		return nil, fmt.Errorf("scheduling: thread %d has no scheduling analysis", threadID)
	}
	var row *schedule.PanelAttendee
	for i := range p.Attendees {
		if strings.EqualFold(p.Attendees[i].Email, attendee) {
			row = &p.Attendees[i]
		}
	}
	if row == nil {
		return nil, fmt.Errorf("scheduling: %s is not an attendee of this meeting", attendee)
	}
	if !row.Draftable {
		return nil, fmt.Errorf("scheduling: nothing to write to %s for %s", attendee, row.NextAction)
	}
	t, err := s.app.st.ThreadHeaders(ctx, threadID, 0)
	if err != nil {
		return nil, err
	}
	var last *model.Message
	for _, m := range t.Messages {
		if strings.EqualFold(m.From.Email, attendee) || (strings.EqualFold(m.From.Email, s.app.Principal().Email) && addressedTo(m, attendee)) {
			last = m
		}
	}
	if last == nil && len(t.Messages) > 0 {
		last = t.Messages[len(t.Messages)-1]
	}
	d := &store.Draft{ThreadID: threadID, From: s.app.Principal(), To: []model.Address{{Name: row.Name, Email: row.Email}},
		Subject: drafts.ReplySubject(t.Subject), Body: nextActionBody(row, p), NeedsApproval: true, Source: "template"}
	if last != nil {
		d.InReplyTo, d.References = drafts.Threading(last)
	}
	if err := s.drafts.SaveDraft(ctx, d); err != nil {
		return nil, err
	}
	return d, nil
}

func nextActionBody(a *schedule.PanelAttendee, p *schedule.Panel) string {
	name := a.Name
	if f := strings.Fields(name); len(f) > 0 {
		name = f[0]
	} else {
		name = strings.SplitN(a.Email, "@", 2)[0]
	}
	when := p.When
	if when == "" {
		when = "the time we discussed"
	}
	var body string
	switch {
	case strings.HasPrefix(a.NextAction, "Reply/clarify"):
		body = fmt.Sprintf("Thanks for getting back to me. Could you confirm whether %s works for you for %s, or suggest a time that does?", when, p.Title)
	case strings.HasPrefix(a.NextAction, "Reply/request_alternatives"):
		body = fmt.Sprintf("Could you suggest two or three times that would work for you for %s?", p.Title)
	case strings.HasPrefix(a.NextAction, "Follow_up"), strings.HasPrefix(a.NextAction, "Reply/persist"):
		body = fmt.Sprintf("Just following up on %s (%s): does that work for you?", p.Title, when)
	case strings.HasPrefix(a.NextAction, "Initiate"):
		body = fmt.Sprintf("Would %s work for you for %s?", when, p.Title)
	case strings.HasPrefix(a.NextAction, "Escalate/alternatives_proposed"):
		body = "Thanks for suggesting other times. Let me check with the others and come back to you."
	case strings.HasPrefix(a.NextAction, "Confirm"):
		body = fmt.Sprintf("Great, see you at %s.", when)
	default:
		body = ""
	}
	return fmt.Sprintf("Hi %s,\n\n%s\n", name, body)
}

func addressedTo(m *model.Message, email string) bool {
	for _, l := range [][]model.Address{m.To, m.Cc} {
		for _, a := range l {
			if strings.EqualFold(a.Email, email) {
				return true
			}
		}
	}
	return false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// schedulingBatch is how many threads one scheduling pass analyses
// before it looks at due follow-ups again.
const schedulingBatch = 50

// startScheduling runs the scheduling assistant until ctx ends: due
// follow-ups first (also those that came due while mailsift was not
// running), then the meeting threads whose mail changed; again after
// every triage pass and when the next follow-up comes due.
func (s *Session) startScheduling(ctx context.Context) {
	s.Scheduler = s.app.Scheduler(s.Mail, s.Drafts)
	s.goRun(func() { s.runScheduling(ctx, s.Scheduler) })
}

func (s *Session) wakeScheduling() {
	select {
	case s.schedWake <- struct{}{}:
	default:
	}
}

func (s *Session) runScheduling(ctx context.Context, sch *Scheduler) {
	for {
		due, err := sch.RunDue(ctx)
		if err != nil && ctx.Err() == nil {
			s.app.log.Warn("scheduling: follow-ups", "err", err)
		}
		n := 0
		for {
			k, err := sch.Pass(ctx, schedulingBatch)
			n += k
			if err != nil || k < schedulingBatch || ctx.Err() != nil {
				break
			}
		}
		if ctx.Err() != nil {
			return
		}
		if due+n > 0 {
			s.send(ctx, event.ThreadsChanged{})
		}
		var fire <-chan time.Time
		stop := func() bool { return false }
		if next, ok, err := sch.NextFollowUp(ctx); err == nil && ok {
			fire, stop = sch.timer(max(next.Sub(s.app.now()), 0))
		}
		select {
		case <-ctx.Done():
		case <-s.schedWake:
		case <-fire:
		}
		stop()
		if ctx.Err() != nil {
			return
		}
	}
}
