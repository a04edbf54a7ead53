package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"mailsift/model"
)

// This file holds the paged reads of the agent surfaces (MCP, REST): pages
// are cut by key (the last row's position), not by offset, so a page
// boundary does not move when new mail arrives before it.

// ThreadPageFilter selects threads for ThreadPage.
type ThreadPageFilter struct {
	// Account restricts to threads with a message in this account ("" = all).
	Account string
	// InInbox true lists threads with a message in an inbox; false the others.
	InInbox bool
	// Section restricts to one section ("" = all).
	Section Section
	// Unread restricts to threads with unread messages.
	Unread bool
	// UpdatedAfter keeps threads whose latest message is newer (zero = all).
	UpdatedAfter time.Time
	// AfterLatest and AfterID continue after the row (latest Unix seconds,
	// id) that ended the previous page; AfterID 0 starts at the newest.
	AfterLatest, AfterID int64
	// Limit is the page size (<= 0: 50).
	Limit int
}

// ThreadPage returns threads newest first (by latest message, then id).
func (s *Store) ThreadPage(ctx context.Context, f ThreadPageFilter) ([]ThreadSummary, error) {
	return s.threadPage(ctx, f, []string{"in_inbox = ?"}, []any{boolInt(f.InInbox)})
}

// threadPage runs a ThreadPage query: where and args select the threads
// (columns of threads), f adds its filters and the page bounds.
func (s *Store) threadPage(ctx context.Context, f ThreadPageFilter, where []string, args []any) ([]ThreadSummary, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	if f.Section != "" {
		where = append(where, "section = ?")
		args = append(args, string(f.Section))
	}
	if f.Unread {
		where = append(where, "unread > 0")
	}
	if !f.UpdatedAfter.IsZero() {
		where = append(where, "latest > ?")
		args = append(args, f.UpdatedAfter.Unix())
	}
	if f.AfterID > 0 {
		where = append(where, "(latest < ? OR (latest = ? AND id < ?))")
		args = append(args, f.AfterLatest, f.AfterLatest, f.AfterID)
	}
	if f.Account != "" {
		where = append(where, `EXISTS (SELECT 1 FROM messages m JOIN locations l ON l.message = m.id
			WHERE m.thread_id = threads.id AND l.account = ?)`)
		args = append(args, f.Account)
	}
	args = append(args, f.Limit)
	q := `SELECT ` + summaryCols + ` FROM (SELECT id FROM threads WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY latest DESC, id DESC LIMIT ?) page JOIN threads t ON t.id = page.id` + summaryJoins +
		` ORDER BY t.latest DESC, t.id DESC`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: thread page: %w", err)
	}
	defer rows.Close()
	var out []ThreadSummary
	for rows.Next() {
		ts, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("store: thread page: %w", err)
		}
		out = append(out, ts)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: thread page: %w", err)
	}
	return out, nil
}

// PageHit is one search hit of SearchPage with its score and page key.
type PageHit struct {
	SearchHit
	// Score is the FTS5 relevance (higher is better; -bm25), 0 for a query
	// of operators alone.
	Score float64
	// Key continues the search after this hit (SearchPageOptions.Before).
	Key int64
}

// SearchPageOptions bound SearchPage.
type SearchPageOptions struct {
	// Start and End bound the message date (zero = open); End is inclusive
	// to the second.
	Start, End time.Time
	// Before continues after the hit with this Key (0 = from the newest).
	Before int64
	// Limit is the page size (<= 0: 10).
	Limit int
}

// SearchPage is Search (same query syntax), newest first, bounded by a
// date range and paged by key.
func (s *Store) SearchPage(ctx context.Context, query string, o SearchPageOptions) ([]PageHit, error) {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf("search: empty query: give words, \"a phrase\", or operators like from:alice")
	}
	sq, err := parseSearch(query)
	if err != nil {
		return nil, err
	}
	lo, hi := int64(-1<<62), int64(1<<62)
	if sq.hasAfter {
		lo = max(lo, sq.after*ftsShift)
	}
	if sq.hasB {
		hi = min(hi, sq.before*ftsShift)
	}
	if !o.Start.IsZero() {
		lo = max(lo, o.Start.Unix()*ftsShift)
	}
	if !o.End.IsZero() {
		hi = min(hi, (o.End.Unix()+1)*ftsShift)
	}
	if o.Before != 0 {
		hi = min(hi, o.Before)
	}
	var where []string
	var args []any
	cols := `m.id, COALESCE(m.thread_id, 0), m.message_id, m.from_name, m.from_email, m.subject, m.date, ` + unreadExpr
	var from, order string
	if sq.match != "" {
		cols += `, snippet(messages_fts, 3, '', '', '…', 16), -bm25(messages_fts), messages_fts.rowid`
		from = "messages_fts CROSS JOIN messages m ON m.fts_rowid = messages_fts.rowid"
		where = append(where, "messages_fts MATCH ?", "messages_fts.rowid >= ?", "messages_fts.rowid < ?")
		args = append(args, sq.match, lo, hi)
		order = "messages_fts.rowid DESC"
	} else {
		cols += `, substr(CASE WHEN trim(m.text) <> '' THEN m.text ELSE m.html_text END, 1, 200), 0.0, m.fts_rowid`
		from = "messages m"
		where = append(where, "m.fts_rowid >= ?", "m.fts_rowid < ?")
		args = append(args, lo, hi)
		order = "m.fts_rowid DESC"
	}
	if sq.unread {
		where = append(where, unreadExpr)
	}
	if sq.read {
		where = append(where, "NOT "+unreadExpr)
	}
	args = append(args, o.Limit)
	q := `SELECT ` + cols + ` FROM ` + from + ` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order + ` LIMIT ?`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, searchError(query, err)
	}
	defer rows.Close()
	var hits []PageHit
	for rows.Next() {
		var h PageHit
		var id, date int64
		var snip string
		if err := rows.Scan(&id, &h.ThreadID, &h.MessageID, &h.From.Name, &h.From.Email, &h.Subject, &date, &h.Unread,
			&snip, &h.Score, &h.Key); err != nil {
			return nil, searchError(query, err)
		}
		if date != 0 {
			h.Date = time.Unix(date, 0)
		}
		h.Snippet = truncRunes(strings.Join(strings.Fields(snip), " "), 200)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, searchError(query, err)
	}
	return hits, nil
}

// MessageByID returns one message with its body and one location, or
// ErrNotFound.
func (s *Store) MessageByID(ctx context.Context, messageID string) (*ThreadMessage, error) {
	tid, err := s.ThreadIDForMessage(ctx, messageID)
	if err != nil {
		return nil, err
	}
	t, err := s.Thread(ctx, tid)
	if err != nil {
		return nil, err
	}
	for _, m := range t.Messages {
		if m.MessageID == messageID {
			return &ThreadMessage{ThreadID: tid, Subject: t.Subject, Message: m}, nil
		}
	}
	return nil, fmt.Errorf("store: message %s: %w", messageID, ErrNotFound)
}

// ThreadMessage is one message with its thread.
type ThreadMessage struct {
	ThreadID int64
	// Subject is the thread's subject.
	Subject string
	Message *model.Message
}
