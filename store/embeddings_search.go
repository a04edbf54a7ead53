package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// RankedHit is a search hit with the store's message row id, which
// semantic search joins on.
type RankedHit struct {
	// ID is the store's message row id.
	ID int64
	SearchHit
}

// RankedQuery is a lexical search for ranking: the query in Search's
// syntax, an exact time range and a snapshot bound.
type RankedQuery struct {
	// Query is in Search's syntax; "" matches every message with a body
	// (newest first), for a search that is only a time range.
	Query string
	// Since and Until bound the message date: Since <= date < Until; a
	// zero time is no bound.
	Since, Until time.Time
	// MaxID, when positive, ignores messages stored after the snapshot it
	// names, so the pages of one search stay the same while mail arrives.
	MaxID int64
	// Limit is the most hits returned (default 50).
	Limit int
	// IDsOnly returns hits with only ID set: a ranking deeper than the
	// page shown skips the cost of the rest (SearchHitsByID reads it for
	// the page).
	IDsOnly bool
}

// MaxMessageID returns the highest message row id: a snapshot bound for
// RankedQuery.MaxID.
func (s *Store) MaxMessageID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.r.QueryRowContext(ctx, `SELECT COALESCE(max(id), 0) FROM messages`).Scan(&id); err != nil {
		return 0, fmt.Errorf("store: max message id: %w", err)
	}
	return id, nil
}

// SearchRanked runs a lexical search ordered by relevance (FTS5's bm25,
// ties newest first) rather than by date, for fusing with other rankings.
// The time range is exact (Search's after:/before: are whole days).
func (s *Store) SearchRanked(ctx context.Context, rq RankedQuery) ([]RankedHit, error) {
	if rq.Limit <= 0 {
		rq.Limit = 50
	}
	sq, err := parseSearch(rq.Query)
	if err != nil {
		return nil, err
	}
	var where []string
	var args []any
	cols := `m.id, COALESCE(m.thread_id, 0), m.message_id, m.from_name, m.from_email, m.subject, m.date, ` + unreadExpr
	var from, order string
	switch {
	case rq.IDsOnly:
		cols = `m.id, 0, '', '', '', '', 0, 0, ''`
	case sq.match != "":
		cols += `, snippet(messages_fts, 3, '', '', '…', 16)`
	default:
		cols += `, substr(CASE WHEN trim(m.text) <> '' THEN m.text ELSE m.html_text END, 1, 200)`
	}
	if sq.match != "" {
		from = "messages_fts CROSS JOIN messages m ON m.fts_rowid = messages_fts.rowid"
		where = append(where, "messages_fts MATCH ?")
		args = append(args, sq.match)
		order = "messages_fts.rank, messages_fts.rowid DESC"
	} else {
		from = "messages m"
		where = append(where, "m.has_body = 1")
		order = "m.date DESC, m.id DESC"
	}
	lo, hi := int64(0), int64(0)
	if sq.hasAfter {
		lo = sq.after
	}
	if sq.hasB {
		hi = sq.before
	}
	if !rq.Since.IsZero() && rq.Since.Unix() > lo {
		lo = rq.Since.Unix()
	}
	if !rq.Until.IsZero() && (hi == 0 || rq.Until.Unix() < hi) {
		hi = rq.Until.Unix()
	}
	if lo != 0 {
		where = append(where, "m.date >= ?")
		args = append(args, lo)
	}
	if hi != 0 {
		where = append(where, "m.date < ?")
		args = append(args, hi)
	}
	if rq.MaxID > 0 {
		where = append(where, "m.id <= ?")
		args = append(args, rq.MaxID)
	}
	if sq.unread {
		where = append(where, unreadExpr)
	}
	if sq.read {
		where = append(where, "NOT "+unreadExpr)
	}
	args = append(args, rq.Limit)
	q := `SELECT ` + cols + ` FROM ` + from + ` WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order + ` LIMIT ?`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, searchError(rq.Query, err)
	}
	defer rows.Close()
	var hits []RankedHit
	for rows.Next() {
		var h RankedHit
		var date int64
		var snip string
		if err := rows.Scan(&h.ID, &h.ThreadID, &h.MessageID, &h.From.Name, &h.From.Email, &h.Subject, &date, &h.Unread, &snip); err != nil {
			return nil, searchError(rq.Query, err)
		}
		h.Date = embedUnix(date)
		h.Snippet = truncRunes(strings.Join(strings.Fields(snip), " "), 160)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, searchError(rq.Query, err)
	}
	return hits, nil
}

// SearchHitsByID returns the hits for message row ids, in the order given;
// ids of messages deleted meanwhile are left out. A message that matches
// query (Search's syntax; "" for none) gets a snippet around the match,
// any other the start of its body.
func (s *Store) SearchHitsByID(ctx context.Context, ids []int64, query string) ([]RankedHit, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ph := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.r.QueryContext(ctx, `SELECT m.id, COALESCE(m.thread_id, 0), m.message_id, m.from_name, m.from_email, m.subject, m.date, `+unreadExpr+`,
	substr(CASE WHEN trim(m.text) <> '' THEN m.text ELSE m.html_text END, 1, 400)
FROM messages m WHERE m.id IN (`+ph+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search hits: %w", err)
	}
	defer rows.Close()
	byID := make(map[int64]RankedHit, len(ids))
	for rows.Next() {
		var h RankedHit
		var date int64
		var snip string
		if err := rows.Scan(&h.ID, &h.ThreadID, &h.MessageID, &h.From.Name, &h.From.Email, &h.Subject, &date, &h.Unread, &snip); err != nil {
			return nil, fmt.Errorf("store: search hits: %w", err)
		}
		h.Date = embedUnix(date)
		h.Snippet = truncRunes(strings.Join(strings.Fields(snip), " "), 160)
		byID[h.ID] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search hits: %w", err)
	}
	if err := s.matchSnippets(ctx, query, ph, args, byID); err != nil {
		return nil, err
	}
	out := make([]RankedHit, 0, len(ids))
	for _, id := range ids {
		if h, ok := byID[id]; ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// matchSnippets replaces the snippets of the hits that match query with
// FTS5's snippet around the match.
func (s *Store) matchSnippets(ctx context.Context, query, ph string, ids []any, byID map[int64]RankedHit) error {
	if strings.TrimSpace(query) == "" {
		return nil
	}
	sq, err := parseSearch(query)
	if err != nil || sq.match == "" {
		return err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT m.id, snippet(messages_fts, 3, '', '', '…', 16)
FROM messages_fts CROSS JOIN messages m ON m.fts_rowid = messages_fts.rowid
WHERE messages_fts MATCH ? AND messages_fts.rowid IN (SELECT fts_rowid FROM messages WHERE id IN (`+ph+`))`,
		append([]any{sq.match}, ids...)...)
	if err != nil {
		return searchError(query, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var snip string
		if err := rows.Scan(&id, &snip); err != nil {
			return searchError(query, err)
		}
		if h, ok := byID[id]; ok && strings.TrimSpace(snip) != "" {
			h.Snippet = truncRunes(strings.Join(strings.Fields(snip), " "), 160)
			byID[id] = h
		}
	}
	return rows.Err()
}
