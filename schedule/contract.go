// Package schedule implements the scheduling contract v1
// (shared/contracts/scheduling-contract-v1.md) for mailsift: the
// <scheduling_operation> and <coordination> inputs built from a meeting
// thread, the agent's output schema with its validation rules and
// fallbacks, one Ollama call per attendee, a deterministic analysis for
// when the model is offline, and the event analysis that aggregates the
// attendees.
package schedule

import (
	"encoding/json"
	"time"
)

// Engagement levels of an attendee.
const (
	EngagementHigh   = "High"
	EngagementMedium = "Medium"
	EngagementLow    = "Low"
)

// Directions of a conv_history entry, relative to the principal.
const (
	DirInbound  = "inbound"
	DirOutbound = "outbound"
)

// NextAction is an attendee's or the event's next action. Subtype is ""
// for the attendee types whose table row has no subtype (Initiate,
// Follow_up).
type NextAction struct {
	Type     string          `json:"type"`
	Subtype  string          `json:"subtype"`
	Metadata json.RawMessage `json:"metadata"`
}

// AltTime is one suggested alternative time.
type AltTime struct {
	Date      string `json:"date"`
	TimeRange string `json:"time_range"`
}

// AttendeeAnalysis is the contract's attendee_analysis.
type AttendeeAnalysis struct {
	Score                     int        `json:"score"`
	Reason                    string     `json:"reason"`
	Engagement                string     `json:"engagement"`
	NextAction                NextAction `json:"next_action"`
	SuggestedAlternativeTimes []AltTime  `json:"suggested_alternative_times"`
}

// EventAnalysis is the contract's event_analysis.
type EventAnalysis struct {
	Score      int        `json:"score"`
	Reason     string     `json:"reason"`
	NextAction NextAction `json:"next_action"`
}

// Output is the agent's answer for one attendee.
type Output struct {
	AttendeeAnalysis AttendeeAnalysis `json:"attendee_analysis"`
	EventAnalysis    EventAnalysis    `json:"event_analysis"`
	// FollowUpDate is an ISO datetime or null.
	FollowUpDate *string `json:"follow_up_date"`
}

// DateRange is the operation's date object.
type DateRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// OpAttendee is one attendee of the <scheduling_operation>.
type OpAttendee struct {
	AttendeeEmail string `json:"attendee_email"`
	AttendeeName  string `json:"attendee_name"`
	IsInternal    bool   `json:"is_internal"`
	// IsOptional is nil when neither the invitation nor the thread says
	// (the contract lets the agent infer it then).
	IsOptional       *bool             `json:"is_optional,omitempty"`
	AttendeeAnalysis *AttendeeAnalysis `json:"attendee_analysis"`
}

// Operation is the contract's <scheduling_operation>.
type Operation struct {
	Title         string         `json:"title"`
	Duration      int            `json:"duration"`
	Location      string         `json:"location"`
	Timezone      string         `json:"timezone"`
	Date          DateRange      `json:"date"`
	Private       bool           `json:"private"`
	Attendees     []OpAttendee   `json:"attendees"`
	CreatedAt     string         `json:"created_at"`
	EventAnalysis *EventAnalysis `json:"event_analysis"`
}

// ConvEntry is one conv_history entry.
type ConvEntry struct {
	Direction string `json:"direction"`
	Email     string `json:"email"`
	Content   string `json:"content"`
	Timestamp string `json:"timestamp"`
}

// Coordination is the contract's <coordination> for one attendee.
type Coordination struct {
	AttendeeEmail    string            `json:"attendee_email"`
	AttendeeName     string            `json:"attendee_name"`
	IsInternal       bool              `json:"is_internal"`
	IsOptional       *bool             `json:"is_optional,omitempty"`
	ConvHistory      []ConvEntry       `json:"conv_history"`
	FollowupDate     *string           `json:"followup_date"`
	AttendeeAnalysis *AttendeeAnalysis `json:"attendee_analysis"`
}

// The attendee action table: type → subtype → required metadata fields
// (each a string, or a list of strings when the name ends in "[]").
var attendeeActions = map[string]map[string][]string{
	"Initiate":  {"": nil},
	"Reply":     {"answer": nil, "clarify": nil, "persist": nil, "request_alternatives": nil},
	"Wait":      {"attendee": nil},
	"Follow_up": {"": nil},
	"Confirm":   {"pending_others": nil, "finalized": nil},
	"Escalate": {
		"alternatives_proposed": {"attendee_message", "alternatives_proposed[]"},
		"unusual":               {"attendee_message", "unusual_reason"},
		"internal":              {"attendee_message", "uncertainty_reason"},
	},
	"Close": {"declined": nil, "unresponsive": nil, "removed": nil},
}

// The event action table; "alternatives{}" is a list of objects.
var eventActions = map[string]map[string][]string{
	"Coordination in progress": {"reaching_out": nil, "collecting_responses": nil, "getting_alternatives": nil, "all_confirmed": nil},
	"Waiting for decision": {
		"get_alternatives": nil, "reschedule": {"alternatives{}"}, "resolve_conflict": {"conflict_summary"},
		"recommend_cancel": nil, "unusual": nil,
	},
	"Complete": {"scheduled": nil, "cancelled": nil},
}

// AttendeeFallback is the contract's fallback for an invalid attendee
// action: Reply / clarify.
func AttendeeFallback() NextAction { return action("Reply", "clarify") }

// EventFallback is the contract's fallback for an invalid event action:
// Coordination in progress / collecting_responses.
func EventFallback() NextAction { return action("Coordination in progress", "collecting_responses") }

func action(typ, sub string) NextAction {
	return NextAction{Type: typ, Subtype: sub, Metadata: json.RawMessage(`{}`)}
}

// Label is the action as the UI shows it: "Reply/clarify", "Follow_up".
func (a NextAction) Label() string {
	if a.Subtype == "" {
		return a.Type
	}
	return a.Type + "/" + a.Subtype
}

// isoTime formats t as the contract's ISO datetime.
func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ParseISO reads an ISO datetime as the contract writes them (RFC 3339,
// with or without seconds or a zone; a date alone is midnight UTC).
func ParseISO(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
