package mcp

import (
	"context"
	"errors"
	"time"

	"mailsift/internal/app"
)

// Searcher answers search_inbox. AppSearch, the default, is the app
// layer's search (the TUI's `/`): by meaning and text fused when an embed
// model is configured, by text alone otherwise.
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
	// Reason says why a search is lexical ("" when it is not, or unknown).
	Reason string
}

// SearchHit is one message found.
type SearchHit struct {
	// MessageID is the Message-ID without angle brackets.
	MessageID string
	ThreadID  int64
	// Score ranks hits (higher is better); comparable within one search.
	Score   float64
	Snippet string
}

// AppSearch answers search_inbox with (*app.App).Search: the time range,
// limit and cursor map onto app.SearchQuery, and Inbox onto its Account
// (hits whose thread has a message in that account; the app drops the
// others before cutting pages, so pages stay full and the cursor stable).
// The cursor is the app's: bound to the query, the inbox and the time
// range, and to a snapshot of the store taken at the first page.
type AppSearch struct{ App *app.App }

// Search implements Searcher.
func (s AppSearch) Search(ctx context.Context, q SearchQuery) (*SearchPage, error) {
	aq := app.SearchQuery{Text: q.Text, Since: q.Start, Limit: q.Limit, Cursor: q.Cursor, Account: q.Inbox}
	if !q.End.IsZero() {
		// End is inclusive to the second; the app's Until is exclusive.
		aq.Until = q.End.Truncate(time.Second).Add(time.Second)
	}
	res, err := s.App.Search(ctx, aq)
	if errors.Is(err, app.ErrCursor) {
		return nil, invalid("/_meta/cursor", err.Error())
	}
	if err != nil {
		return nil, err
	}
	page := &SearchPage{Mode: string(res.Mode), Reason: res.Reason, NextCursor: res.Next}
	for _, h := range res.Hits {
		page.Hits = append(page.Hits, SearchHit{MessageID: h.MessageID, ThreadID: h.ThreadID, Score: h.Score, Snippet: h.Snippet})
	}
	return page, nil
}
