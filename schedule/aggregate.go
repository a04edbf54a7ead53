package schedule

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Aggregate computes the event analysis from every attendee's analysis:
// the score is the mean of the required attendees' scores (of all
// attendees when every one is optional); the next action is
//
//   - Complete/cancelled when the invitation was cancelled;
//   - Waiting for decision/reschedule (with the alternatives) when a
//     required attendee proposed other times;
//   - Waiting for decision/recommend_cancel when a required attendee
//     declined (or the meeting is past without everyone's yes);
//   - Complete/scheduled when every required attendee confirmed and the
//     meeting has a date, Coordination in progress/all_confirmed without;
//   - Coordination in progress/reaching_out while someone is still to be
//     contacted, else collecting_responses.
//
// Confirmed attendees become Confirm/finalized once all required ones
// confirmed (Confirm/pending_others until then). op is changed in place.
func Aggregate(op *Operation, cancelled bool, now time.Time) EventAnalysis {
	var req []int
	for i, a := range op.Attendees {
		if a.IsOptional == nil || !*a.IsOptional {
			req = append(req, i)
		}
	}
	if len(req) == 0 {
		for i := range op.Attendees {
			req = append(req, i)
		}
	}
	sum, n := 0, 0
	var confirmed, declined, initiate int
	var alts []map[string]any
	for _, i := range req {
		aa := op.Attendees[i].AttendeeAnalysis
		if aa == nil {
			initiate++
			n++
			continue
		}
		sum += aa.Score
		n++
		switch aa.NextAction.Type {
		case "Confirm":
			confirmed++
		case "Close":
			if aa.NextAction.Subtype == "declined" {
				declined++
			}
		case "Initiate":
			initiate++
		case "Escalate":
			if aa.NextAction.Subtype == "alternatives_proposed" {
				var meta struct {
					Alternatives []string `json:"alternatives_proposed"`
				}
				_ = json.Unmarshal(aa.NextAction.Metadata, &meta)
				alts = append(alts, map[string]any{"attendee": op.Attendees[i].AttendeeEmail, "proposed": meta.Alternatives})
			}
		}
	}
	ev := EventAnalysis{NextAction: EventFallback()}
	if n > 0 {
		ev.Score = int(math.Round(float64(sum) / float64(n)))
	}
	end, hasDate := ParseISO(op.Date.End)
	past := hasDate && end.Before(now)
	all := confirmed == len(req) && len(req) > 0
	switch {
	case cancelled:
		ev.Score = 0
		ev.NextAction = action("Complete", "cancelled")
		ev.Reason = "The organizer cancelled the meeting."
	case len(alts) > 0:
		meta, _ := json.Marshal(map[string]any{"alternatives": alts})
		ev.NextAction = NextAction{Type: "Waiting for decision", Subtype: "reschedule", Metadata: meta}
		ev.Reason = fmt.Sprintf("%d required attendee(s) proposed other times.", len(alts))
	case declined > 0:
		ev.NextAction = action("Waiting for decision", "recommend_cancel")
		ev.Reason = fmt.Sprintf("%d required attendee(s) declined.", declined)
	case all && hasDate:
		ev.NextAction = action("Complete", "scheduled")
		ev.Reason = "Every required attendee confirmed."
	case all:
		ev.NextAction = action("Coordination in progress", "all_confirmed")
		ev.Reason = "Every required attendee confirmed; no time is fixed yet."
	case past:
		ev.NextAction = action("Waiting for decision", "get_alternatives")
		ev.Reason = "The meeting time has passed without every required attendee's confirmation."
	case initiate > 0:
		ev.NextAction = action("Coordination in progress", "reaching_out")
		ev.Reason = fmt.Sprintf("%d attendee(s) not contacted yet.", initiate)
	default:
		ev.NextAction = action("Coordination in progress", "collecting_responses")
		ev.Reason = fmt.Sprintf("%d of %d required attendee(s) confirmed.", confirmed, len(req))
	}
	for i := range op.Attendees {
		aa := op.Attendees[i].AttendeeAnalysis
		if aa == nil || aa.NextAction.Type != "Confirm" {
			continue
		}
		if all {
			aa.NextAction = action("Confirm", "finalized")
		} else {
			aa.NextAction = action("Confirm", "pending_others")
		}
	}
	op.EventAnalysis = &ev
	return ev
}
