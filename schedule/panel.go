package schedule

import "time"

// Panel is what the thread view's scheduling panel shows: plain values,
// so the UI needs no other part of this package.
type Panel struct {
	Title string
	// When is the meeting's time as text ("" when not fixed).
	When string
	// Status is the event's next action ("Coordination in progress/collecting_responses").
	Status string
	Score  int
	Reason string
	// Source says where the analysis came from: "model NAME", "offline
	// (deterministic)" or "model NAME, some attendees deterministic".
	Source    string
	FollowUp  time.Time
	Attendees []PanelAttendee
	// Invitation is the current invitation, nil without one.
	Invitation *PanelInvitation
	// Notes are problems worth the user's eye (violations, failures).
	Notes []string
}

// PanelAttendee is one attendee's row.
type PanelAttendee struct {
	Name, Email string
	Optional    bool
	Score       int
	Engagement  string
	// NextAction is the attendee's next action label ("Reply/clarify").
	NextAction string
	// Suggested lists alternative times ("2026-12-04 afternoon").
	Suggested []string
	// Failed says the model's answer for this attendee was not JSON.
	Failed    bool
	Escalated bool
	// Draftable says the draft flow can start from the next action.
	Draftable bool
}

// PanelInvitation is the meeting's current calendar invitation.
type PanelInvitation struct {
	UID, Method, Summary, When, Organizer string
	Sequence                              int
	// MyStatus is the user's PARTSTAT (or the answer queued in mailsift).
	MyStatus string
	// CanAnswer is set for a current REQUEST the user is invited to whose
	// organizer is one of the thread's senders.
	CanAnswer bool
	// Why says why it cannot be answered ("" when it can).
	Why string
	// Superseded lists older versions replaced by this one.
	Superseded int
	Problems   []string
	// Conflicts are the user's other accepted invitations that overlap.
	Conflicts []string
}
