package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// ErrInvalidJSON is returned (wrapped) for an answer that is not one JSON
// object: the contract says to log it and mark the coordination failed.
var ErrInvalidJSON = errors.New("schedule: answer is not a JSON object")

// Violation is one broken output rule and the fallback applied for it.
type Violation struct {
	// Field is the JSON path, e.g. "attendee_analysis.engagement".
	Field string
	// Problem says what was wrong.
	Problem string
	// Fallback says what replaced it.
	Fallback string
}

// String is the violation as logs and the panel show it.
func (v Violation) String() string { return v.Field + ": " + v.Problem + " → " + v.Fallback }

// Checked is a validated answer: the output with every fallback applied,
// the rules it broke, and whether a missing or out-of-range field means
// the user must look (the contract's "escalate to user").
type Checked struct {
	Output     Output
	Violations []Violation
	Escalated  bool
}

var (
	dateRE      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	timeRangeRE = regexp.MustCompile(`^(?:[01]\d|2[0-3]):[0-5]\d-(?:[01]\d|2[0-3]):[0-5]\d$`)
)

// Validate checks an answer against the contract's output rules and
// applies its fallbacks:
//
//   - not one JSON object: ErrInvalidJSON (the coordination is failed);
//   - a required field missing, or a score that is not an integer 0–100:
//     escalated to the user (the attendee's action becomes
//     Escalate/internal naming the field, the event's the event fallback;
//     a bad score becomes 0);
//   - engagement, or the attendee's type/subtype, not in the contract's
//     enums, or its metadata not the shape its pair requires: the attendee
//     fallback Reply/clarify (an invalid engagement becomes Low);
//   - the event's type/subtype or metadata invalid: the event fallback
//     Coordination in progress/collecting_responses;
//   - suggested_alternative_times not an array, or an entry without a
//     YYYY-MM-DD date and a time range: the bad entries are dropped;
//   - follow_up_date neither an ISO datetime nor null: null.
func Validate(b []byte) (*Checked, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil || raw == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the object", ErrInvalidJSON)
	}
	c := &Checked{}
	v := &validator{c: c}
	aa := v.object(raw, "attendee_analysis")
	ea := v.object(raw, "event_analysis")
	out := &c.Output

	// attendee_analysis
	attEsc := ""
	out.AttendeeAnalysis.Score, attEsc = v.score(aa, "attendee_analysis.score", attEsc)
	out.AttendeeAnalysis.Reason, attEsc = v.str(aa, "attendee_analysis.reason", attEsc)
	eng, ok := v.field(aa, "attendee_analysis.engagement")
	attFallback := false
	if !ok {
		attEsc = firstOf(attEsc, "attendee_analysis.engagement is missing")
		out.AttendeeAnalysis.Engagement = EngagementLow
	} else {
		var s string
		if json.Unmarshal(eng, &s) != nil || (s != EngagementHigh && s != EngagementMedium && s != EngagementLow) {
			v.add("attendee_analysis.engagement", fmt.Sprintf("%s is not High, Medium or Low", clip(eng)), "Low, next action Reply/clarify")
			out.AttendeeAnalysis.Engagement = EngagementLow
			attFallback = true
		} else {
			out.AttendeeAnalysis.Engagement = s
		}
	}
	na, missing := v.action(aa, "attendee_analysis.next_action", attendeeActions)
	switch {
	case missing != "":
		attEsc = firstOf(attEsc, missing)
	case na == nil:
		attFallback = true
	case attFallback:
	default:
		out.AttendeeAnalysis.NextAction = *na
	}
	if attFallback && attEsc == "" {
		out.AttendeeAnalysis.NextAction = AttendeeFallback()
	}
	out.AttendeeAnalysis.SuggestedAlternativeTimes = v.altTimes(aa)

	// event_analysis
	evEsc := ""
	out.EventAnalysis.Score, evEsc = v.score(ea, "event_analysis.score", evEsc)
	out.EventAnalysis.Reason, evEsc = v.str(ea, "event_analysis.reason", evEsc)
	ena, emissing := v.action(ea, "event_analysis.next_action", eventActions)
	if emissing != "" {
		evEsc = firstOf(evEsc, emissing)
	}
	if ena != nil {
		out.EventAnalysis.NextAction = *ena
	} else {
		// action() recorded an invalid pair; a missing one escalates below.
		out.EventAnalysis.NextAction = EventFallback()
	}

	// follow_up_date
	if fd, ok := raw["follow_up_date"]; !ok {
		attEsc = firstOf(attEsc, "follow_up_date is missing")
	} else if string(bytes.TrimSpace(fd)) != "null" {
		var s string
		if json.Unmarshal(fd, &s) != nil {
			v.add("follow_up_date", fmt.Sprintf("%s is not an ISO datetime or null", clip(fd)), "null")
		} else if _, ok := ParseISO(s); !ok {
			v.add("follow_up_date", fmt.Sprintf("%q is not an ISO datetime or null", s), "null")
		} else {
			out.FollowUpDate = &s
		}
	}

	if attEsc != "" {
		c.Escalated = true
		meta, _ := json.Marshal(map[string]string{"attendee_message": "(none: the model's answer was invalid)", "uncertainty_reason": "model answer invalid: " + attEsc})
		out.AttendeeAnalysis.NextAction = NextAction{Type: "Escalate", Subtype: "internal", Metadata: meta}
		v.add("attendee_analysis", attEsc, "Escalate/internal (escalated to the user)")
	}
	if evEsc != "" {
		c.Escalated = true
		out.EventAnalysis.NextAction = EventFallback()
		v.add("event_analysis", evEsc, "Coordination in progress/collecting_responses (escalated to the user)")
	}
	return c, nil
}

type validator struct{ c *Checked }

func (v *validator) add(field, problem, fallback string) {
	v.c.Violations = append(v.c.Violations, Violation{Field: field, Problem: problem, Fallback: fallback})
}

func (v *validator) object(m map[string]json.RawMessage, name string) map[string]json.RawMessage {
	var o map[string]json.RawMessage
	if raw, ok := m[name]; ok {
		_ = json.Unmarshal(raw, &o)
	}
	return o // nil: every field below reports missing
}

func (v *validator) field(m map[string]json.RawMessage, path string) (json.RawMessage, bool) {
	name := path[strings.LastIndexByte(path, '.')+1:]
	raw, ok := m[name]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, false
	}
	return raw, true
}

// score reads a required integer score 0–100; a bad one is 0 and escalated.
func (v *validator) score(m map[string]json.RawMessage, path, esc string) (int, string) {
	raw, ok := v.field(m, path)
	if !ok {
		return 0, firstOf(esc, path+" is missing")
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || f < 0 || f > 100 {
		return 0, firstOf(esc, fmt.Sprintf("%s %s is not an integer 0-100", path, clip(raw)))
	}
	return int(f), esc
}

func (v *validator) str(m map[string]json.RawMessage, path, esc string) (string, string) {
	raw, ok := v.field(m, path)
	var s string
	if !ok || json.Unmarshal(raw, &s) != nil {
		return "", firstOf(esc, path+" is missing or not a string")
	}
	return s, esc
}

// action reads a next_action against its table. It returns the action
// when valid; nil with missing set when a required part is absent; nil
// alone (the violation recorded) when type/subtype or metadata is invalid.
func (v *validator) action(m map[string]json.RawMessage, path string, table map[string]map[string][]string) (*NextAction, string) {
	raw, ok := v.field(m, path)
	if !ok {
		return nil, path + " is missing"
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil {
		return nil, path + " is not an object"
	}
	var typ, sub string
	tr, tok := o["type"]
	sr, sok := o["subtype"]
	mr, mok := o["metadata"]
	if !tok || json.Unmarshal(tr, &typ) != nil {
		return nil, path + ".type is missing"
	}
	if !sok {
		return nil, path + ".subtype is missing"
	}
	if string(bytes.TrimSpace(sr)) != "null" && json.Unmarshal(sr, &sub) != nil {
		return nil, path + ".subtype is not a string"
	}
	if !mok {
		return nil, path + ".metadata is missing"
	}
	fb := "Reply/clarify"
	if path == "event_analysis.next_action" {
		fb = "Coordination in progress/collecting_responses"
	}
	subs, ok := table[typ]
	if !ok {
		v.add(path+".type", fmt.Sprintf("%q is not one of %s", typ, strings.Join(keys(table), ", ")), fb)
		return nil, ""
	}
	sub = normSubtype(sub)
	fields, ok := subs[sub]
	if !ok {
		v.add(path+".subtype", fmt.Sprintf("%q is not a subtype of %s (want %s)", sub, typ, strings.Join(keys(subs), ", ")), fb)
		return nil, ""
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(mr, &meta) != nil || meta == nil {
		v.add(path+".metadata", fmt.Sprintf("%s is not an object", clip(mr)), fb)
		return nil, ""
	}
	if p := metadataProblem(meta, fields); p != "" {
		v.add(path+".metadata", fmt.Sprintf("%s/%s: %s", typ, sub, p), fb)
		return nil, ""
	}
	if len(fields) == 0 {
		mr = json.RawMessage(`{}`)
	}
	return &NextAction{Type: typ, Subtype: sub, Metadata: compact(mr)}, ""
}

// normSubtype maps the table's "—" (no subtype) to "".
func normSubtype(s string) string {
	switch strings.TrimSpace(s) {
	case "—", "-", "–":
		return ""
	}
	return s
}

// metadataProblem checks metadata against the pair's required fields.
// Pairs whose table entry is {} accept an empty object only.
func metadataProblem(meta map[string]json.RawMessage, fields []string) string {
	if len(fields) == 0 {
		if len(meta) != 0 {
			return fmt.Sprintf("metadata must be {}, has %s", strings.Join(keys(meta), ", "))
		}
		return ""
	}
	for _, f := range fields {
		name := strings.TrimSuffix(strings.TrimSuffix(f, "[]"), "{}")
		raw, ok := meta[name]
		if !ok {
			return name + " is missing"
		}
		switch {
		case strings.HasSuffix(f, "[]"):
			var l []string
			if json.Unmarshal(raw, &l) != nil || len(l) == 0 {
				return name + " must be a non-empty list of strings"
			}
		case strings.HasSuffix(f, "{}"):
			var l []map[string]any
			if json.Unmarshal(raw, &l) != nil {
				return name + " must be a list of objects"
			}
		default:
			var s string
			if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
				return name + " must be a non-empty string"
			}
		}
	}
	return ""
}

func (v *validator) altTimes(m map[string]json.RawMessage) []AltTime {
	out := []AltTime{}
	raw, ok := v.field(m, "attendee_analysis.suggested_alternative_times")
	if !ok {
		return out
	}
	var l []json.RawMessage
	if json.Unmarshal(raw, &l) != nil {
		v.add("attendee_analysis.suggested_alternative_times", "not an array", "[]")
		return out
	}
	for i, e := range l {
		var a AltTime
		if json.Unmarshal(e, &a) != nil || !dateRE.MatchString(a.Date) || !validTimeRange(a.TimeRange) {
			v.add(fmt.Sprintf("attendee_analysis.suggested_alternative_times[%d]", i),
				fmt.Sprintf("%s needs a YYYY-MM-DD date and an HH:MM-HH:MM or morning/afternoon/evening time_range", clip(e)), "dropped")
			continue
		}
		out = append(out, a)
	}
	return out
}

func validTimeRange(s string) bool {
	switch s {
	case "morning", "afternoon", "evening":
		return true
	}
	return timeRangeRE.MatchString(s)
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k == "" {
			k = "—"
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func clip(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

func compact(b []byte) json.RawMessage {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return json.RawMessage(`{}`)
	}
	return out.Bytes()
}
