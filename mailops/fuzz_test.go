package mailops

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzParse: any answer either is refused or gives args on the contract
// that survive a round trip unchanged.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"operation":"replyPreview","filters":{"from":"Dana","maxResults":1}}`,
		`{"operation":"getEmailById","selectionIndex":3}`,
		`{"operation":"markAsRead","filters":{"from":"Tom","subjectContains":"invoice"}}`,
		`{"operation":"sendPreview","to":["a@b"],"body":"hi"}`,
		`{"operation":"unsupported","requested":"archive"}`,
		`{"operation":"listEmails","filters":{"labelIds":["UNREAD"],"includeBody":true}}`,
		`{"operation":"deleteAll"}`, `[]`, `null`, `{"operation":1}`, `{"operation":"listEmails"}{}`,
	} {
		f.Add([]byte(s))
	}
	ops := append(Operations(), Unsupported)
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Parse(b)
		if err != nil {
			if _, ok := err.(*OffContractError); !ok {
				t.Fatalf("Parse error %T %v, want *OffContractError", err, err)
			}
			return
		}
		if !slices.Contains(ops, a.Operation) {
			t.Fatalf("accepted operation %q", a.Operation)
		}
		again, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		b2, err := Parse(again)
		if err != nil || b2.Describe() != a.Describe() {
			t.Fatalf("round trip of %s: %+v, %v; want %+v", again, b2, err, a)
		}
	})
}
