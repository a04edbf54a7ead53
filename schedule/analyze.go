package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"mailsift/internal/invite"
	"mailsift/model"
)

// Analyst is the model side of the analysis: one call per attendee.
// *Model satisfies it.
type Analyst interface {
	Analyze(ctx context.Context, op Operation, co Coordination, now time.Time) (*Checked, error)
	Name() string
}

// Sources of an attendee's analysis.
const (
	SourceModel         = "model"
	SourceDeterministic = "deterministic"
	SourcePrevious      = "previous"
)

// AttendeeStatus says how one attendee's analysis came about.
type AttendeeStatus struct {
	Email string `json:"email"`
	// Source is model, deterministic, or previous (the coordination
	// failed and the earlier analysis stays).
	Source string `json:"source"`
	// Failed holds the error when the model's answer was not JSON (the
	// contract: mark the coordination failed).
	Failed string `json:"failed,omitempty"`
	// Violations are the output rules the model's answer broke, each
	// with the fallback applied.
	Violations []string `json:"violations,omitempty"`
	// Escalated says a missing or invalid field needs the user's eye.
	Escalated bool `json:"escalated,omitempty"`
	// InputProblem names a contract input rule the thread breaks (an
	// empty conv_history on a non-initial run, is_optional missing).
	InputProblem string `json:"input_problem,omitempty"`
}

// State is a thread's scheduling analysis as it is stored: the contract's
// objects with every attendee's and the event's analysis, and how each
// came about.
type State struct {
	Operation     Operation        `json:"scheduling_operation"`
	Coordinations []Coordination   `json:"coordinations"`
	Status        []AttendeeStatus `json:"attendee_status"`
	// Model is the model's name when it answered for any attendee.
	Model string `json:"model,omitempty"`
	// Offline says the model was not asked or not reachable.
	Offline   bool `json:"offline,omitempty"`
	Cancelled bool `json:"cancelled,omitempty"`
	// FollowUp is the earliest follow_up_date of the attendees.
	FollowUp *time.Time `json:"follow_up,omitempty"`
	// InviteUID is the meeting's iCalendar UID ("" without invitation).
	InviteUID string `json:"invite_uid,omitempty"`
	// Notes are problems with the thread's calendar parts (unreadable,
	// malformed, or claiming to come from someone else), set by the caller.
	Notes []string `json:"notes,omitempty"`
}

// MaxModelAttendees bounds the model calls of one analysis: attendees
// past it (a large invitation) get the deterministic analysis.
const MaxModelAttendees = 20

// Options configure one analysis run.
type Options struct {
	// Analyst is the model; nil means the deterministic analysis.
	Analyst Analyst
	// Now is the analysis time.
	Now time.Time
	// Logger receives violations and failures; nil discards.
	Logger *slog.Logger
}

// Run analyses a meeting thread: the inputs from BuildInputs, one model
// call per attendee (or the deterministic analysis offline, or for every
// attendee after the model turned out unreachable), the contract's
// fallbacks, and the event analysis aggregated over the attendees.
func Run(ctx context.Context, t *model.Thread, invites []MessageInvite, principal model.Address, prev *State, opts Options) (*State, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := opts.Now
	op, coords := BuildInputs(t, invites, principal, prev, now)
	st := &State{Offline: opts.Analyst == nil}
	if li := Latest(invites); li != nil {
		st.InviteUID = li.Invite.UID
		st.Cancelled = li.Invite.Method == invite.MethodCancel
	}
	analyst := opts.Analyst
	for i := range coords {
		co := &coords[i]
		status := AttendeeStatus{Email: co.AttendeeEmail, Source: SourceDeterministic}
		switch {
		case len(co.ConvHistory) == 0 && co.AttendeeAnalysis != nil:
			status.InputProblem = "conv_history is empty on a non-initial run"
		case co.IsOptional == nil:
			status.InputProblem = "is_optional is missing; inferred"
		}
		var out *Output
		if analyst != nil && i < MaxModelAttendees && !(len(co.ConvHistory) == 0 && co.AttendeeAnalysis != nil) {
			checked, err := analyst.Analyze(ctx, op, *co, now)
			switch {
			case err == nil:
				out = &checked.Output
				status.Source = SourceModel
				status.Escalated = checked.Escalated
				for _, v := range checked.Violations {
					status.Violations = append(status.Violations, v.String())
					log.Warn("schedule: model answer broke the contract", "attendee", co.AttendeeEmail, "field", v.Field,
						"problem", v.Problem, "fallback", v.Fallback)
				}
				st.Model = analyst.Name()
			case errors.Is(err, ErrInvalidJSON):
				status.Failed = err.Error()
				status.Source = SourcePrevious
				log.Error("schedule: model answer is not JSON; coordination failed", "attendee", co.AttendeeEmail, "err", err)
			case ctx.Err() != nil:
				return nil, fmt.Errorf("schedule: %w", ctx.Err())
			default:
				log.Warn("schedule: model unreachable; deterministic analysis", "err", err)
				analyst = nil
				st.Offline = true
			}
		}
		if out == nil && status.Failed == "" {
			d := Deterministic(op, *co, now)
			out = &d
		}
		if out != nil {
			aa := out.AttendeeAnalysis
			co.AttendeeAnalysis = &aa
			co.FollowupDate = out.FollowUpDate
			op.Attendees[i].AttendeeAnalysis = co.AttendeeAnalysis
		}
		st.Status = append(st.Status, status)
	}
	Aggregate(&op, st.Cancelled, now)
	// Aggregate rewrites Confirm subtypes through the shared pointers;
	// the coordinations hold the same analyses.
	for i := range coords {
		if fd := coords[i].FollowupDate; fd != nil && !st.Cancelled {
			if t, ok := ParseISO(*fd); ok {
				if !t.After(now) {
					t = now.Add(time.Hour) // a date in the past: check again soon, not in a loop
				}
				if st.FollowUp == nil || t.Before(*st.FollowUp) {
					tt := t.UTC()
					st.FollowUp = &tt
				}
			}
		}
	}
	st.Operation, st.Coordinations = op, coords
	if coords == nil {
		st.Coordinations = []Coordination{}
	}
	return st, nil
}

// Badge is the short status the inbox shows for the thread.
func (s *State) Badge() string {
	if s.Operation.EventAnalysis == nil {
		return "scheduling"
	}
	return s.Operation.EventAnalysis.NextAction.Label()
}
