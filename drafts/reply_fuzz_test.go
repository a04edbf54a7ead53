package drafts

import (
	"strings"
	"testing"
)

// FuzzParseReply: no model answer makes the strict reply parser panic, and
// what it accepts has a body that is not blank.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		`{"body":"Hi Bob,\n\nThanks.","risk_flags":[],"cited_message_ids":["a@x"],"needs_human_approval":true}`,
		`{"body":""}`, `{"body":"x","extra":1}`, `{"body":"x"} {}`, `{"body":null}`, `[]`, `{`, `null`,
		`{"body":"x","risk_flags":null}`, `{"body":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReply(b)
		if err != nil {
			return
		}
		if r == nil || strings.TrimSpace(r.Body) == "" {
			t.Fatalf("ParseReply(%q) = %+v: accepted without a body", b, r)
		}
	})
}
