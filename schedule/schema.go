package schedule

import (
	"encoding/json"
	"sort"
)

// OutputSchema returns the contract's output schema as JSON Schema, the
// `format` of every model request: required fields, integer scores 0–100,
// the engagement enum, the attendee and event type and subtype enums
// ("" stands for the table's "—"), metadata objects, the alternative
// times and a follow_up_date that is a string or null. Pairing a type
// with its subtypes and metadata shapes is checked by Validate.
func OutputSchema() json.RawMessage {
	b, err := json.Marshal(schemaDoc())
	if err != nil {
		panic("schedule: output schema: " + err.Error())
	}
	return b
}

func schemaDoc() map[string]any {
	score := map[string]any{"type": "integer", "minimum": 0, "maximum": 100}
	str := map[string]any{"type": "string"}
	act := func(table map[string]map[string][]string) map[string]any {
		var types, subs []string
		seen := map[string]bool{}
		for t, ss := range table {
			types = append(types, t)
			for s := range ss {
				if !seen[s] {
					seen[s] = true
					subs = append(subs, s)
				}
			}
		}
		sort.Strings(types)
		sort.Strings(subs)
		return map[string]any{
			"type":     "object",
			"required": []string{"type", "subtype", "metadata"},
			"properties": map[string]any{
				"type":     map[string]any{"type": "string", "enum": types},
				"subtype":  map[string]any{"type": "string", "enum": subs},
				"metadata": map[string]any{"type": "object"},
			},
		}
	}
	return map[string]any{
		"type":     "object",
		"required": []string{"attendee_analysis", "event_analysis", "follow_up_date"},
		"properties": map[string]any{
			"attendee_analysis": map[string]any{
				"type":     "object",
				"required": []string{"score", "reason", "engagement", "next_action", "suggested_alternative_times"},
				"properties": map[string]any{
					"score":       score,
					"reason":      str,
					"engagement":  map[string]any{"type": "string", "enum": []string{EngagementHigh, EngagementMedium, EngagementLow}},
					"next_action": act(attendeeActions),
					"suggested_alternative_times": map[string]any{
						"type": "array",
						"items": map[string]any{
							"type":       "object",
							"required":   []string{"date", "time_range"},
							"properties": map[string]any{"date": str, "time_range": str},
						},
					},
				},
			},
			"event_analysis": map[string]any{
				"type":     "object",
				"required": []string{"score", "reason", "next_action"},
				"properties": map[string]any{
					"score":       score,
					"reason":      str,
					"next_action": act(eventActions),
				},
			},
			"follow_up_date": map[string]any{"type": []string{"string", "null"}},
		},
	}
}
