package store

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// FuzzSearch: any query either runs against the index or fails with the
// store's own "search:" error that says how to write one; none reaches
// SQLite as a syntax error of ours or panics.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{
		"invoice", `"a phrase"`, "a OR b", "pre*", "from:bob", `from:"bob smith"`, "to:carol subject:report",
		"body:ramen after:2026-01-01 before:2026-12-31", "is:unread", "is:read NOT lunch", "(a", `"unclosed`,
		"from:", "after:yesterday", "NOT", "AND OR", "a:b:c", "*", "\x00", "subject:\"x\" OR body:y*",
	} {
		f.Add(q)
	}
	s := searchFixture(f)
	ctx := context.Background()
	plain := regexp.MustCompile(`^[a-z0-9]+( [a-z0-9]+)*$`)
	f.Fuzz(func(t *testing.T, q string) {
		_, err := s.Search(ctx, q, 5)
		if err != nil && !strings.HasPrefix(err.Error(), "search: ") {
			t.Fatalf("Search(%q) = %v: want a result or the store's own search error", q, err)
		}
		// Plain lower-case words are always a valid query.
		if err != nil && plain.MatchString(q) {
			t.Fatalf("Search(%q) = %v: plain words must search", q, err)
		}
	})
}
