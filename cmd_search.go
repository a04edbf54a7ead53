package main

import (
	"context"
	"errors"
	"fmt"
	"mailsift/internal/termsafe"
	"strings"
	"time"
)

// searchHitJSON is one line of `mailsift search --json`.
type searchHitJSON struct {
	ThreadID  int64       `json:"thread_id"`
	MessageID string      `json:"message_id"`
	Date      string      `json:"date,omitempty"`
	From      addressJSON `json:"from"`
	Subject   string      `json:"subject"`
	Snippet   string      `json:"snippet"`
	Unread    bool        `json:"unread"`
}

type addressJSON struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email"`
}

// cmdSearch is `mailsift search QUERY [--json] [--limit N]`: full-text
// search of the local store, newest first.
func cmdSearch(ctx context.Context, g *globals, args []string) error {
	fset := g.flagSet("search", "QUERY [--json] [--limit N]\n\nQUERY uses words, \"quoted phrases\", AND/OR/NOT, prefix* and\nfrom: to: subject: body: after:YYYY-MM-DD before:YYYY-MM-DD is:unread is:read")
	asJSON := fset.Bool("json", false, "print one JSON object per hit")
	limit := fset.Int("limit", 20, "show at most `N` hits")
	pos, err := g.parse(fset, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(pos, " "))
	if query == "" {
		return usageErrorf("missing QUERY, e.g. mailsift search 'from:alice invoice'")
	}
	if *limit <= 0 {
		return usageErrorf("--limit must be positive, got %d", *limit)
	}
	_, st, err := g.openExistingStore(ctx)
	if err != nil {
		return err
	}
	if st == nil {
		fmt.Fprintf(g.Stderr, "no messages match %q: the local store is empty; run `mailsift sync` first\n", query)
		return nil
	}
	defer st.Close()
	hits, err := st.Search(ctx, query, *limit)
	if err != nil {
		// The store's message already starts with "search:".
		return errors.New(strings.TrimPrefix(err.Error(), "search: "))
	}
	if *asJSON {
		enc := newJSONLines(g.Stdout)
		for _, h := range hits {
			j := searchHitJSON{ThreadID: h.ThreadID, MessageID: h.MessageID, Subject: termsafe.SanitizeLine(h.Subject), Snippet: termsafe.SanitizeLine(h.Snippet),
				Unread: h.Unread, From: addressJSON{Name: termsafe.SanitizeLine(h.From.Name), Email: termsafe.SanitizeLine(h.From.Email)}}
			if !h.Date.IsZero() {
				j.Date = h.Date.Format(time.RFC3339)
			}
			if err := enc.Encode(j); err != nil {
				return err
			}
		}
		return nil
	}
	if len(hits) == 0 {
		fmt.Fprintf(g.Stderr, "no messages match %q\n", query)
		return nil
	}
	for _, h := range hits {
		date := "          "
		if !h.Date.IsZero() {
			date = h.Date.Local().Format("2006-01-02")
		}
		// A name that sanitises to nothing (escapes, fillers) shows the address.
		from := termsafe.SanitizeLine(h.From.Name)
		if from == "" {
			from = h.From.Email
		}
		mark := " "
		if h.Unread {
			mark = "*"
		}
		fmt.Fprintf(g.Stdout, "%s %s  %-24s  %s\n", mark, date, cell(from, 24), termsafe.SanitizeLine(h.Subject))
		if h.Snippet != "" {
			fmt.Fprintf(g.Stdout, "             %s\n", cell(h.Snippet, 100))
		}
	}
	return nil
}

// cell makes mail-derived text safe for one line of a terminal table
// (termsafe) and shortens it to n runes.
func cell(s string, n int) string { return trunc(termsafe.SanitizeLine(s), n) }

// trunc shortens s to at most n runes, marking the cut with an ellipsis.
func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
