package store

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"mailsift/model"
)

func searchFixture(t testing.TB) *Store {
	s := openTest(t)
	day := 24 * time.Hour
	put(t, s,
		mkMsg("1@x", "Quarterly report", from("Bob Smith", "bob@example.com"), body("the revenue numbers for Q3"), seen()),
		mkMsg("2@x", "Lunch friday", from("Carol", "carol@example.com"), body("shall we get ramen? revenue talk later"), at(10*day)),
		mkMsg("3@x", "Invoice 42", from("Billing", "billing@shop.example"), body("your invoice is attached \x1b[31mred\x1b[0m"), at(20*day),
			func(m *model.Message) { m.To = []model.Address{{Name: "Dave", Email: "dave@example.com"}} }),
		mkMsg("4@x", "Re: Quarterly report", inReplyTo("1@x"), from("Alice", "alice@example.com"), body("bob smith wrote the report"), at(30*day), seen()),
	)
	return s
}

func ids(hits []SearchHit) string {
	var out []string
	for _, h := range hits {
		out = append(out, h.MessageID)
	}
	return strings.Join(out, ",")
}

func TestSearchOperators(t *testing.T) {
	s := searchFixture(t)
	tests := []struct{ q, want string }{
		{"revenue", "2@x,1@x"},
		{"report", "4@x,1@x"},
		{`"bob smith"`, "4@x,1@x"},
		{`from:"bob smith"`, "1@x"},
		{"from:bob", "1@x"},
		{"from:carol@example.com", "2@x"},
		{"to:dave", "3@x"},
		{"subject:invoice", "3@x"},
		{"subject:report from:alice", "4@x"},
		{"revenue is:unread", "2@x"},
		{"is:unread", "3@x,2@x"},
		{"is:read", "4@x,1@x"},
		{"after:2026-03-15", "4@x,3@x"},
		{"before:2026-03-12", "2@x,1@x"},
		{"after:2026-03-05 before:2026-03-25", "3@x,2@x"},
		{"revenue OR invoice", "3@x,2@x,1@x"},
		{"report NOT alice", "1@x"},
		{"quart*", "4@x,1@x"},
		{"ramen?", "2@x"},
		{"nothingmatches", ""},
	}
	for _, tc := range tests {
		hits, err := s.Search(context.Background(), tc.q, 10)
		if err != nil {
			t.Errorf("Search(%q) error: %v", tc.q, err)
			continue
		}
		if got := ids(hits); got != tc.want {
			t.Errorf("Search(%q) = %s, want %s", tc.q, got, tc.want)
		}
	}
}

func TestSearchHitFields(t *testing.T) {
	s := searchFixture(t)
	hits, err := s.Search(context.Background(), "invoice", 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %v, %v", hits, err)
	}
	h := hits[0]
	if h.ThreadID == 0 || h.From.Email != "billing@shop.example" || h.Subject != "Invoice 42" || !h.Unread {
		t.Errorf("hit = %+v", h)
	}
	// The snippet is one line; making it safe for a terminal or JSON is
	// the surface's job (termsafe), so the store keeps the text as written.
	if strings.ContainsAny(h.Snippet, "\n\r") || !strings.Contains(h.Snippet, "invoice") {
		t.Errorf("snippet %q: want the match on one line", h.Snippet)
	}
}

func TestSearchBadQueries(t *testing.T) {
	s := searchFixture(t)
	tests := []struct{ q, want string }{
		{`"unclosed`, "unbalanced quote"},
		{`from:"bob`, "unbalanced quote"},
		{"after:yesterday", "YYYY-MM-DD"},
		{"is:flagged", "is:unread or is:read"},
		{"from:", "needs a value"},
		{"   ", "empty query"},
		{"report AND (revenue", "cannot parse query"},
		{"NEAR(", "cannot parse query"},
	}
	for _, tc := range tests {
		_, err := s.Search(context.Background(), tc.q, 10)
		if err == nil {
			t.Errorf("Search(%q) succeeded, want error containing %q", tc.q, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "search:") || strings.Contains(msg, "SQL logic") {
			t.Errorf("Search(%q) error = %q, want it to contain %q", tc.q, msg, tc.want)
		}
	}
}

func TestHostileTextStoredAndSearchable(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	text := "nul\x00byte bad\xff\xfeutf8 \x1b]8;;http://evil\x07click\x1b]8;;\x07 walrus"
	m := mkMsg("h@x", "Subj \x1b[2J\xff", body(text))
	put(t, s, m)
	th, err := s.Thread(ctx, threadOf(t, s, "h@x"))
	if err != nil {
		t.Fatal(err)
	}
	if got := th.Messages[0].Text; got != text {
		t.Errorf("text not stored byte for byte: %q", got)
	}
	hits, err := s.Search(ctx, "walrus", 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search(walrus) = %v, %v", hits, err)
	}
	for _, r := range hits[0].Snippet {
		if unicode.IsControl(r) {
			t.Fatalf("snippet %q contains control %U", hits[0].Snippet, r)
		}
	}
	if strings.Contains(hits[0].Snippet, "http://evil") {
		t.Errorf("snippet %q keeps an OSC 8 payload", hits[0].Snippet)
	}
}
