package schedule

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// SilenceWait is how long an attendee may stay silent after the last
// message to them before the deterministic analysis says Follow_up.
const SilenceWait = 48 * time.Hour

var (
	calReplyRE   = regexp.MustCompile(`\[calendar reply: ([A-Z-]+)\]`)
	calCounterRE = regexp.MustCompile(`\[calendar counter: proposes ([^\]]+)\]`)
	yesRE        = regexp.MustCompile(`(?i)\b(works for me|works great|that works|sounds good|confirmed?|i'?ll be there|see you (then|there)|count me in|yes|accept(ed)?|perfect|looking forward)\b`)
	noRE         = regexp.MustCompile(`(?i)\b(can(no|')t (make|do|attend)|cannot (make|do|attend)|won'?t (make|be able)|not available|unavailable|unfortunately|declin(e|ed)|no,|doesn'?t work)\b`)
	maybeRE      = regexp.MustCompile(`(?i)\b(maybe|might|not sure|tentative(ly)?|possibly|perhaps|probably|let me check|i'?ll try)\b`)
	isoSpanRE    = regexp.MustCompile(`(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})-(\d{2}:\d{2})`)
	sentenceRE   = regexp.MustCompile(`[.!?\n]+`)
	altRE        = regexp.MustCompile(`(?i)\b(how about|what about|instead|alternatively|could we do|would .{0,20} work|(monday|tuesday|wednesday|thursday|friday|saturday|sunday)( (morning|afternoon|evening|at \d{1,2}(:\d{2})?\s?(am|pm)?))?|\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?)\b`)
)

// Deterministic is the offline analysis of one attendee: it reads the
// attendee's iCalendar answers and explicit yes / no / maybe in their
// latest message; silence after the principal wrote is a Follow_up once
// SilenceWait has passed (a Wait until then); a meeting already past
// closes silent attendees. The event analysis is left for Aggregate.
func Deterministic(op Operation, co Coordination, now time.Time) Output {
	out := Output{AttendeeAnalysis: AttendeeAnalysis{SuggestedAlternativeTimes: []AltTime{}}, EventAnalysis: EventAnalysis{NextAction: EventFallback()}}
	a := &out.AttendeeAnalysis
	set := func(score int, eng string, na NextAction, reason string) {
		a.Score, a.Engagement, a.NextAction, a.Reason = score, eng, na, reason
	}
	var lastIn, lastOut *ConvEntry
	var yesSeen, noSeen bool
	for i := range co.ConvHistory {
		e := &co.ConvHistory[i]
		switch e.Direction {
		case DirInbound:
			lastIn = e
			v := verdict(e.Content)
			yesSeen = yesSeen || v == "yes"
			noSeen = noSeen || v == "no"
		case DirOutbound:
			lastOut = e
		}
	}
	past := false
	if end, ok := ParseISO(op.Date.End); ok && end.Before(now) {
		past = true
	}
	switch {
	case len(co.ConvHistory) == 0 && co.AttendeeAnalysis != nil:
		meta, _ := json.Marshal(map[string]string{"attendee_message": "(none in this thread)", "uncertainty_reason": "no conversation with this attendee on a follow-up run"})
		set(co.AttendeeAnalysis.Score, EngagementLow, NextAction{Type: "Escalate", Subtype: "internal", Metadata: meta},
			"No conversation history although an earlier analysis exists; the user should check.")
	case lastIn == nil && lastOut == nil:
		if past {
			set(0, EngagementLow, action("Close", "unresponsive"), "The meeting is over and this attendee was never contacted in this thread.")
			break
		}
		if op.Date.Start != "" {
			// On the invitation but not written to in this thread: the
			// organizer's invitation reached them; wait for their answer.
			set(30, EngagementLow, action("Wait", "attendee"), "Invited; no answer from this attendee in this thread yet.")
			break
		}
		set(0, EngagementLow, action("Initiate", ""), "Nobody has written to this attendee about the meeting yet.")
	case lastIn == nil || (lastOut != nil && later(lastOut.Timestamp, lastIn.Timestamp) &&
		(verdict(lastIn.Content) == "" || strings.Contains(lastOut.Content, "[calendar invitation:"))):
		// Silent, or an invitation went out after their last answer (a
		// new time or version): what they said before does not answer it.
		if past {
			set(0, EngagementLow, action("Close", "unresponsive"), "The meeting is over without an answer from this attendee.")
			break
		}
		sent, _ := ParseISO(lastOut.Timestamp)
		if now.Sub(sent) >= SilenceWait {
			next := isoTime(now.Add(24 * time.Hour))
			out.FollowUpDate = &next
			set(20, EngagementLow, action("Follow_up", ""), "No answer since "+sent.UTC().Format("2006-01-02 15:04")+" UTC.")
		} else {
			next := isoTime(sent.Add(SilenceWait))
			out.FollowUpDate = &next
			set(30, EngagementMedium, action("Wait", "attendee"), "Asked recently; waiting for an answer.")
		}
	default:
		v := verdict(lastIn.Content)
		contradict := ""
		if yesSeen && noSeen {
			contradict = " An earlier message said otherwise; the latest counts."
		}
		switch v {
		case "yes":
			set(100, EngagementHigh, action("Confirm", "pending_others"), "Confirmed explicitly."+contradict)
		case "maybe":
			set(50, EngagementMedium, AttendeeFallback(), "Answered without committing (maybe)."+contradict)
		case "no":
			alts := alternatives(lastIn.Content)
			if len(alts) > 0 {
				meta, _ := json.Marshal(map[string]any{"attendee_message": head(oneLine(stripNotes(lastIn.Content)), 300), "alternatives_proposed": alts})
				set(40, EngagementHigh, NextAction{Type: "Escalate", Subtype: "alternatives_proposed", Metadata: meta},
					"Cannot make the proposed time and proposed alternatives."+contradict)
				a.SuggestedAlternativeTimes = altTimes(alts)
			} else {
				set(0, EngagementMedium, action("Close", "declined"), "Declined."+contradict)
			}
		default:
			if strings.Contains(lastIn.Content, "?") {
				set(40, EngagementMedium, action("Reply", "answer"), "Asked a question that needs an answer.")
			} else {
				set(40, EngagementMedium, AttendeeFallback(), "Answered without a clear yes or no.")
			}
		}
	}
	return out
}

// verdict reads a message's answer: "yes", "no", "maybe" or "". A calendar
// answer wins over the words.
func verdict(content string) string {
	if m := calReplyRE.FindStringSubmatch(content); m != nil {
		switch m[1] {
		case "ACCEPTED":
			return "yes"
		case "DECLINED":
			return "no"
		case "TENTATIVE":
			return "maybe"
		}
	}
	if calCounterRE.MatchString(content) {
		return "no"
	}
	text := stripNotes(content)
	switch {
	case noRE.MatchString(text):
		return "no"
	case maybeRE.MatchString(text):
		return "maybe"
	case yesRE.MatchString(text):
		return "yes"
	}
	return ""
}

// alternatives lists the times a declining message proposes instead.
func alternatives(content string) []string {
	var out []string
	for _, m := range calCounterRE.FindAllStringSubmatch(content, 3) {
		out = append(out, m[1])
	}
	text := stripNotes(content)
	if !altRE.MatchString(text) {
		return out
	}
	for _, sent := range splitSentences(text) {
		if altRE.MatchString(sent) && !noRE.MatchString(sent) && len(out) < 5 {
			out = append(out, head(oneLine(sent), 200))
		}
	}
	return out
}

// altTimes turns proposals with an ISO date into suggested times.
func altTimes(alts []string) []AltTime {
	out := []AltTime{}
	for _, a := range alts {
		if m := isoSpanRE.FindStringSubmatch(a); m != nil {
			out = append(out, AltTime{Date: m[1], TimeRange: m[2] + "-" + m[3]})
		}
	}
	return out
}

func stripNotes(s string) string {
	s = calReplyRE.ReplaceAllString(s, "")
	s = calCounterRE.ReplaceAllString(s, "")
	return s
}

func splitSentences(s string) []string {
	return sentenceRE.Split(s, 20)
}

func later(a, b string) bool {
	ta, ok1 := ParseISO(a)
	tb, ok2 := ParseISO(b)
	return ok1 && ok2 && ta.After(tb)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
