package schedule

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The contract's tables, written out again so a change to the code's
// tables fails here.
var contractAttendeePairs = []struct{ typ, sub, meta string }{
	{"Initiate", "", `{}`}, {"Initiate", "—", `{}`},
	{"Reply", "answer", `{}`}, {"Reply", "clarify", `{}`}, {"Reply", "persist", `{}`}, {"Reply", "request_alternatives", `{}`},
	{"Wait", "attendee", `{}`}, {"Follow_up", "", `{}`},
	{"Confirm", "pending_others", `{}`}, {"Confirm", "finalized", `{}`},
	{"Escalate", "alternatives_proposed", `{"attendee_message":"Thu is bad","alternatives_proposed":["Fri 10:00"]}`},
	{"Escalate", "unusual", `{"attendee_message":"m","unusual_reason":"u"}`},
	{"Escalate", "internal", `{"attendee_message":"m","uncertainty_reason":"u"}`},
	{"Close", "declined", `{}`}, {"Close", "unresponsive", `{}`}, {"Close", "removed", `{}`},
}

var contractEventPairs = []struct{ typ, sub, meta string }{
	{"Coordination in progress", "reaching_out", `{}`}, {"Coordination in progress", "collecting_responses", `{}`},
	{"Coordination in progress", "getting_alternatives", `{}`}, {"Coordination in progress", "all_confirmed", `{}`},
	{"Waiting for decision", "get_alternatives", `{}`},
	{"Waiting for decision", "reschedule", `{"alternatives":[{"date":"2026-12-04"}]}`},
	{"Waiting for decision", "resolve_conflict", `{"conflict_summary":"overlaps the board meeting"}`},
	{"Waiting for decision", "recommend_cancel", `{}`}, {"Waiting for decision", "unusual", `{}`},
	{"Complete", "scheduled", `{}`}, {"Complete", "cancelled", `{}`},
}

func withEvent(typ, sub, meta string) string {
	return `{"attendee_analysis":{"score":80,"reason":"r","engagement":"High","next_action":{"type":"Reply","subtype":"answer","metadata":{}},"suggested_alternative_times":[]},` +
		`"event_analysis":{"score":80,"reason":"e","next_action":{"type":"` + typ + `","subtype":"` + sub + `","metadata":` + meta + `}},"follow_up_date":null}`
}

func TestValidateAcceptsEveryContractPair(t *testing.T) {
	for _, p := range contractAttendeePairs {
		c, err := Validate([]byte(answerJSON(70, "Medium", p.typ, p.sub, p.meta, "")))
		if err != nil || len(c.Violations) != 0 || c.Output.AttendeeAnalysis.NextAction.Type != p.typ {
			t.Errorf("attendee %s/%s: err %v violations %v", p.typ, p.sub, err, c.Violations)
		}
	}
	for _, p := range contractEventPairs {
		c, err := Validate([]byte(withEvent(p.typ, p.sub, p.meta)))
		if err != nil || len(c.Violations) != 0 || c.Output.EventAnalysis.NextAction.Label() != p.typ+"/"+p.sub {
			t.Errorf("event %s/%s: err %v violations %v", p.typ, p.sub, err, c.Violations)
		}
	}
}

func TestValidateFallbacks(t *testing.T) {
	good := answerJSON(90, "High", "Confirm", "pending_others", `{}`, "")
	tests := []struct {
		name      string
		answer    string
		attendee  string // want attendee action label
		event     string // want event action label
		escalated bool
		field     string // a violation's field
		check     func(t *testing.T, c *Checked)
	}{
		{name: "engagement not in enum", answer: strings.Replace(good, `"High"`, `"Very High"`, 1),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.engagement",
			check: func(t *testing.T, c *Checked) {
				if c.Output.AttendeeAnalysis.Engagement != EngagementLow {
					t.Errorf("engagement = %q, want Low", c.Output.AttendeeAnalysis.Engagement)
				}
			}},
		{name: "unknown attendee type", answer: answerJSON(90, "High", "Ping", "", `{}`, ""),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.next_action.type"},
		{name: "subtype of another type", answer: answerJSON(90, "High", "Confirm", "clarify", `{}`, ""),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.next_action.subtype"},
		{name: "escalate alternatives without the list", answer: answerJSON(40, "High", "Escalate", "alternatives_proposed", `{"attendee_message":"no"}`, ""),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.next_action.metadata"},
		{name: "escalate alternatives with an empty message", answer: answerJSON(40, "High", "Escalate", "alternatives_proposed", `{"attendee_message":"","alternatives_proposed":["Fri"]}`, ""),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.next_action.metadata"},
		{name: "escalate unusual without reason", answer: answerJSON(40, "Low", "Escalate", "unusual", `{"attendee_message":"m"}`, ""),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.next_action.metadata"},
		{name: "metadata on an empty-metadata pair", answer: answerJSON(60, "Medium", "Reply", "answer", `{"draft":"hi"}`, ""),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.next_action.metadata"},
		{name: "metadata not an object", answer: answerJSON(60, "Medium", "Reply", "answer", `[]`, ""),
			attendee: "Reply/clarify", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.next_action.metadata"},
		{name: "unknown event type", answer: withEvent("Done", "scheduled", `{}`),
			attendee: "Reply/answer", event: "Coordination in progress/collecting_responses", field: "event_analysis.next_action.type"},
		{name: "event reschedule without alternatives", answer: withEvent("Waiting for decision", "reschedule", `{}`),
			attendee: "Reply/answer", event: "Coordination in progress/collecting_responses", field: "event_analysis.next_action.metadata"},
		{name: "event conflict without summary", answer: withEvent("Waiting for decision", "resolve_conflict", `{"conflict_summary":""}`),
			attendee: "Reply/answer", event: "Coordination in progress/collecting_responses", field: "event_analysis.next_action.metadata"},
		{name: "score over 100", answer: strings.Replace(good, `"score":90`, `"score":150`, 1),
			attendee: "Escalate/internal", event: "Coordination in progress/collecting_responses", escalated: true, field: "attendee_analysis",
			check: func(t *testing.T, c *Checked) {
				if c.Output.AttendeeAnalysis.Score != 0 {
					t.Errorf("score = %d, want 0", c.Output.AttendeeAnalysis.Score)
				}
			}},
		{name: "score not an integer", answer: strings.Replace(good, `"score":90`, `"score":55.5`, 1),
			attendee: "Escalate/internal", event: "Coordination in progress/collecting_responses", escalated: true, field: "attendee_analysis"},
		{name: "negative event score", answer: strings.Replace(good, `"event_analysis":{"score":90`, `"event_analysis":{"score":-1`, 1),
			attendee: "Confirm/pending_others", event: "Coordination in progress/collecting_responses", escalated: true, field: "event_analysis"},
		{name: "reason missing", answer: strings.Replace(good, `"reason":"r",`, ``, 1),
			attendee: "Escalate/internal", event: "Coordination in progress/collecting_responses", escalated: true, field: "attendee_analysis"},
		{name: "next_action missing", answer: `{"attendee_analysis":{"score":1,"reason":"r","engagement":"Low","suggested_alternative_times":[]},"event_analysis":{"score":1,"reason":"e","next_action":{"type":"Complete","subtype":"scheduled","metadata":{}}},"follow_up_date":null}`,
			attendee: "Escalate/internal", event: "Complete/scheduled", escalated: true, field: "attendee_analysis"},
		{name: "metadata missing", answer: strings.Replace(good, `"subtype":"pending_others","metadata":{}`, `"subtype":"pending_others"`, 1),
			attendee: "Escalate/internal", event: "Coordination in progress/collecting_responses", escalated: true, field: "attendee_analysis"},
		{name: "event_analysis missing", answer: `{"attendee_analysis":{"score":100,"reason":"r","engagement":"High","next_action":{"type":"Confirm","subtype":"finalized","metadata":{}},"suggested_alternative_times":[]},"follow_up_date":null}`,
			attendee: "Confirm/finalized", event: "Coordination in progress/collecting_responses", escalated: true, field: "event_analysis"},
		{name: "follow_up_date missing", answer: strings.Replace(good, `,"follow_up_date":null`, ``, 1),
			attendee: "Escalate/internal", event: "Coordination in progress/collecting_responses", escalated: true, field: "attendee_analysis"},
		{name: "follow_up_date not ISO", answer: answerJSON(20, "Low", "Follow_up", "", `{}`, "next tuesday"),
			attendee: "Follow_up", event: "Coordination in progress/collecting_responses", field: "follow_up_date",
			check: func(t *testing.T, c *Checked) {
				if c.Output.FollowUpDate != nil {
					t.Errorf("follow_up_date = %v, want null", *c.Output.FollowUpDate)
				}
			}},
		{name: "alternative times not an array", answer: strings.Replace(good, `"suggested_alternative_times":[]`, `"suggested_alternative_times":"Friday"`, 1),
			attendee: "Confirm/pending_others", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.suggested_alternative_times"},
		{name: "alternative time with a bad date", answer: strings.Replace(good, `"suggested_alternative_times":[]`,
			`"suggested_alternative_times":[{"date":"Friday","time_range":"10:00-11:00"},{"date":"2026-12-04","time_range":"afternoon"},{"date":"2026-12-05","time_range":"25:00-26:00"}]`, 1),
			attendee: "Confirm/pending_others", event: "Coordination in progress/collecting_responses", field: "attendee_analysis.suggested_alternative_times[0]",
			check: func(t *testing.T, c *Checked) {
				got := c.Output.AttendeeAnalysis.SuggestedAlternativeTimes
				if len(got) != 1 || got[0].Date != "2026-12-04" {
					t.Errorf("alternatives = %+v, want the one valid entry", got)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Validate([]byte(tt.answer))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Output.AttendeeAnalysis.NextAction.Label(); got != tt.attendee {
				t.Errorf("attendee action = %s, want %s", got, tt.attendee)
			}
			if got := c.Output.EventAnalysis.NextAction.Label(); got != tt.event {
				t.Errorf("event action = %s, want %s", got, tt.event)
			}
			if c.Escalated != tt.escalated {
				t.Errorf("escalated = %v, want %v", c.Escalated, tt.escalated)
			}
			found := false
			for _, v := range c.Violations {
				if v.Field == tt.field {
					found = true
				}
			}
			if !found {
				t.Errorf("violations %v lack field %s", c.Violations, tt.field)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
			// Whatever the model sent, the result is on contract.
			if _, err := Validate(mustJSON(c.Output)); err != nil {
				t.Errorf("fallback output does not validate: %v", err)
			}
		})
	}
}

func TestValidateInvalidJSON(t *testing.T) {
	for _, in := range []string{"", "Sure! The attendee will come.", `{"attendee_analysis":`, `null`, `{"a":1} trailing`, `[1,2]`} {
		if _, err := Validate([]byte(in)); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("Validate(%q) = %v, want ErrInvalidJSON", in, err)
		}
	}
}

// The schema sent as `format` is a valid JSON Schema that accepts a
// contract answer and rejects an off-enum one.
func TestOutputSchemaCompiles(t *testing.T) {
	var doc any
	if err := json.Unmarshal(OutputSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("out.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("out.json")
	if err != nil {
		t.Fatal(err)
	}
	var good, bad any
	_ = json.Unmarshal([]byte(answerJSON(100, "High", "Confirm", "finalized", `{}`, "2026-12-01T10:00:00Z")), &good)
	_ = json.Unmarshal([]byte(answerJSON(100, "Huge", "Confirm", "finalized", `{}`, "")), &bad)
	if err := sch.Validate(good); err != nil {
		t.Errorf("schema rejects a contract answer: %v", err)
	}
	if err := sch.Validate(bad); err == nil {
		t.Error("schema accepts engagement Huge")
	}
}

// FuzzValidate: whatever the model answers, Validate either says it is
// not JSON or returns an output that is on contract (validating it again
// finds nothing to fall back on).
func FuzzValidate(f *testing.F) {
	f.Add([]byte(answerJSON(100, "High", "Confirm", "finalized", `{}`, "")))
	f.Add([]byte(answerJSON(40, "High", "Escalate", "alternatives_proposed", `{"attendee_message":"m","alternatives_proposed":["Fri"]}`, "2026-12-01T10:00:00Z")))
	f.Add([]byte(withEvent("Waiting for decision", "reschedule", `{"alternatives":[{}]}`)))
	f.Add([]byte(`{"attendee_analysis":{"score":1e400}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Validate(b)
		if err != nil {
			if !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("error %v is not ErrInvalidJSON", err)
			}
			return
		}
		again, err := Validate(mustJSON(c.Output))
		if err != nil || len(again.Violations) != 0 {
			t.Fatalf("fallback output off contract: %v %v\n%s", err, again.Violations, mustJSON(c.Output))
		}
	})
}
