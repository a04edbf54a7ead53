package mcp

import (
	"context"
	"strconv"
	"strings"
	"time"

	"mailsift/store"
)

// Searcher answers search_inbox. The lexical implementation here runs the
// store's full-text search; a semantic one (embeddings fused with the
// full-text ranking) plugs in through Options.Searcher.
type Searcher interface {
	Search(ctx context.Context, q SearchQuery) (*SearchPage, error)
}

// SearchQuery is one search_inbox request.
type SearchQuery struct {
	// Inbox is the account searched ("" = all accounts).
	Inbox string
	// Text is the query as the agent wrote it.
	Text string
	// Start and End bound the message date (zero = open; End inclusive).
	Start, End time.Time
	// Limit is the number of hits wanted (top_k).
	Limit int
	// Cursor continues a previous page ("" = the first page).
	Cursor string
}

// SearchPage is one page of hits, best first.
type SearchPage struct {
	Hits []SearchHit
	// NextCursor continues after the last hit ("" = no more).
	NextCursor string
	// Mode says how the hits were found: "lexical", "semantic" or "hybrid".
	Mode string
}

// SearchHit is one message found.
type SearchHit struct {
	// MessageID is the Message-ID without angle brackets.
	MessageID string
	ThreadID  int64
	// Score ranks hits (higher is better); comparable within one page.
	Score   float64
	Snippet string
}

// Lexical searches the store's full-text index (the `mailsift search`
// syntax), newest first within the time range; Score is FTS5's relevance.
// It searches every account: the index is not per account.
type Lexical struct{ Store *store.Store }

// Search implements Searcher.
func (l Lexical) Search(ctx context.Context, q SearchQuery) (*SearchPage, error) {
	var before int64
	if q.Cursor != "" {
		n, err := strconv.ParseInt(strings.TrimPrefix(q.Cursor, "fts-"), 10, 64)
		if err != nil || !strings.HasPrefix(q.Cursor, "fts-") {
			return nil, invalid("/cursor", "not a cursor from an earlier search")
		}
		before = n
	}
	hits, err := l.Store.SearchPage(ctx, q.Text, store.SearchPageOptions{Start: q.Start, End: q.End, Before: before, Limit: q.Limit + 1})
	if err != nil {
		return nil, err
	}
	page := &SearchPage{Mode: "lexical"}
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
		page.NextCursor = "fts-" + strconv.FormatInt(hits[len(hits)-1].Key, 10)
	}
	for _, h := range hits {
		page.Hits = append(page.Hits, SearchHit{MessageID: h.MessageID, ThreadID: h.ThreadID, Score: h.Score, Snippet: h.Snippet})
	}
	return page, nil
}
