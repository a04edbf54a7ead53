package triage

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestQuoteOrSignatureHint checks the one-scan hint against the plain
// substring tests it replaces.
func TestQuoteOrSignatureHint(t *testing.T) {
	old := func(body string) bool {
		return strings.Contains(body, "\n>") || strings.HasPrefix(body, ">") ||
			strings.Contains(body, "wrote:") || strings.Contains(body, "\n--") ||
			strings.Contains(body, "-----") || strings.Contains(body, "Sent from my")
	}
	for _, b := range []string{"", ">", "> quoted", "a\n>b", "a\n-b", "a\n--", "a\n--\nsig", "x -- y", "Bob wrote:",
		"----", "-----", "Sent from my phone", "Sent from me", "plain\ntext\n", "\n", "\n\n", "a\n", "end\n-"} {
		if got, want := quoteOrSignatureHint(b), old(b); got != want {
			t.Errorf("quoteOrSignatureHint(%q) = %v, want %v", b, got, want)
		}
	}
}
