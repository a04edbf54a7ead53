package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"mailsift/model"
)

// SearchHit is one message matching a search.
type SearchHit struct {
	ThreadID  int64
	MessageID string
	From      model.Address
	Subject   string
	Date      time.Time
	// Snippet is a short plain-text excerpt around the match, free of
	// control characters.
	Snippet string
	Unread  bool
}

// searchQuery is a parsed search: an FTS5 expression plus filters.
type searchQuery struct {
	match          string
	after, before  int64 // unix seconds; 0 = unset
	unread, read   bool
	hasAfter, hasB bool
}

// fieldColumns maps search operators to FTS columns.
var fieldColumns = map[string]string{
	"from": "from_text", "to": "to_text", "subject": "subject", "body": "body",
}

// parseSearch splits a query into FTS5 terms and the operators from:,
// to:, subject:, body:, after:YYYY-MM-DD, before:YYYY-MM-DD, is:unread,
// is:read. Bare words with characters FTS5 does not accept are quoted;
// AND, OR, NOT, NEAR, parentheses, "phrases" and prefix* pass through.
func parseSearch(q string) (searchQuery, error) {
	var sq searchQuery
	if strings.Count(q, `"`)%2 != 0 {
		return sq, fmt.Errorf("search: unbalanced quote in query %q: close the quoted phrase", q)
	}
	toks, err := tokenize(q)
	if err != nil {
		return sq, err
	}
	var parts []string
	for _, t := range toks {
		if t == "(" || t == ")" {
			parts = append(parts, t)
			continue
		}
		if i := strings.IndexByte(t, ':'); i > 0 && !strings.HasPrefix(t, `"`) {
			op, val := strings.ToLower(t[:i]), t[i+1:]
			uq := strings.Trim(val, `"`)
			switch {
			case fieldColumns[op] != "":
				if uq == "" {
					return sq, fmt.Errorf("search: %s: needs a value, e.g. %s:alice or %s:\"alice smith\"", op, op, op)
				}
				parts = append(parts, fieldColumns[op]+" : "+quoteTerm(val))
				continue
			case op == "after" || op == "before":
				d, err := time.ParseInLocation("2006-01-02", uq, time.Local)
				if err != nil {
					return sq, fmt.Errorf("search: %s:%s: want a date as YYYY-MM-DD", op, uq)
				}
				if op == "after" {
					sq.after, sq.hasAfter = d.Unix(), true
				} else {
					sq.before, sq.hasB = d.Unix(), true
				}
				continue
			case op == "is":
				switch strings.ToLower(uq) {
				case "unread":
					sq.unread = true
				case "read":
					sq.read = true
				default:
					return sq, fmt.Errorf("search: is:%s: want is:unread or is:read", uq)
				}
				continue
			}
			// Unknown operator: search the text as written.
			parts = append(parts, quoteTerm(t))
			continue
		}
		switch t {
		case "AND", "OR", "NOT":
			parts = append(parts, t)
			continue
		}
		parts = append(parts, quoteTerm(t))
	}
	// Drop dangling boolean operators that would make FTS5 fail.
	for len(parts) > 0 && isBool(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	for len(parts) > 0 && isBool(parts[0]) && parts[0] != "NOT" {
		parts = parts[1:]
	}
	sq.match = strings.Join(parts, " ")
	return sq, nil
}

func isBool(s string) bool { return s == "AND" || s == "OR" || s == "NOT" }

// tokenize splits a query on whitespace, keeping quoted phrases (also
// after an operator: from:"bob smith") whole and parentheses apart.
func tokenize(q string) ([]string, error) {
	var toks []string
	var cur strings.Builder
	inQuote := false
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	for _, r := range q {
		switch {
		case r == '"':
			cur.WriteRune(r)
			inQuote = !inQuote
		case inQuote:
			cur.WriteRune(r)
		case unicode.IsSpace(r) || unicode.IsControl(r):
			flush()
		case r == '(' || r == ')':
			flush()
			toks = append(toks, string(r))
		default:
			cur.WriteRune(r)
		}
	}
	if inQuote {
		return nil, fmt.Errorf("search: unbalanced quote in query %q: close the quoted phrase", q)
	}
	flush()
	return toks, nil
}

// quoteTerm makes one token safe for FTS5: a bare word of letters and
// digits (optionally with a trailing * for prefix search) stays as is;
// anything else becomes a quoted phrase.
func quoteTerm(t string) string {
	if strings.HasPrefix(t, `"`) && strings.HasSuffix(t, `"`) && len(t) >= 2 {
		inner := t[1 : len(t)-1]
		return `"` + strings.ReplaceAll(inner, `"`, `""`) + `"`
	}
	word := strings.TrimSuffix(t, "*")
	bare := word != ""
	for _, r := range word {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r > 127) {
			bare = false
			break
		}
	}
	if bare {
		return t
	}
	inner := strings.ReplaceAll(strings.Trim(t, `"`), `"`, "")
	if strings.HasSuffix(inner, "*") && len(inner) > 1 {
		return `"` + strings.TrimSuffix(inner, "*") + `"*`
	}
	return `"` + inner + `"`
}

// Search finds messages by an FTS5 query with the operators from:, to:,
// subject:, body:, after:YYYY-MM-DD, before:YYYY-MM-DD, is:unread and
// is:read, newest first. A malformed query returns an error that says
// what is wrong, never a raw SQL error.
func (s *Store) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	if limit <= 0 {
		limit = 50
	}
	if strings.TrimSpace(query) == "" {
		return nil, fmt.Errorf("search: empty query: give words, \"a phrase\", or operators like from:alice")
	}
	sq, err := parseSearch(query)
	if err != nil {
		return nil, err
	}
	q, args := sq.statement(limit)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, searchError(query, err)
	}
	defer rows.Close()
	var hits []SearchHit
	for rows.Next() {
		var h SearchHit
		var id, date int64
		var snip string
		if err := rows.Scan(&id, &h.ThreadID, &h.MessageID, &h.From.Name, &h.From.Email, &h.Subject, &date, &h.Unread, &snip); err != nil {
			return nil, searchError(query, err)
		}
		if date != 0 {
			h.Date = time.Unix(date, 0)
		}
		h.Snippet = strings.Join(strings.Fields(snip), " ")
		if sq.match == "" {
			h.Snippet = truncRunes(h.Snippet, 120)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, searchError(query, err)
	}
	return hits, nil
}

// unreadExpr is true for a message (m) none of whose locations is seen.
const unreadExpr = "NOT EXISTS (SELECT 1 FROM locations l WHERE l.message = m.id AND l.seen = 1)"

// statement returns the SQL and arguments of the search: newest first,
// up to limit hits.
func (sq searchQuery) statement(limit int) (string, []any) {
	var where []string
	var args []any
	cols := `m.id, COALESCE(m.thread_id, 0), m.message_id, m.from_name, m.from_email, m.subject, m.date, ` + unreadExpr
	var from, order string
	if sq.match != "" {
		// The search rowid is date-ordered: walking it backwards is newest
		// first, and the walk stops after one page. Snippets are computed
		// for the returned rows only.
		cols += `, snippet(messages_fts, 3, '', '', '…', 16)`
		from = "messages_fts CROSS JOIN messages m ON m.fts_rowid = messages_fts.rowid"
		where = append(where, "messages_fts MATCH ?")
		args = append(args, sq.match)
		if sq.hasAfter {
			where = append(where, "messages_fts.rowid >= ?")
			args = append(args, sq.after*ftsShift)
		}
		if sq.hasB {
			where = append(where, "messages_fts.rowid < ?")
			args = append(args, sq.before*ftsShift)
		}
		order = "messages_fts.rowid DESC"
	} else {
		cols += `, substr(CASE WHEN trim(m.text) <> '' THEN m.text ELSE m.html_text END, 1, 200)`
		from = "messages m"
		if sq.hasAfter {
			where = append(where, "m.date >= ?")
			args = append(args, sq.after)
		}
		if sq.hasB {
			where = append(where, "m.date < ?")
			args = append(args, sq.before)
		}
		order = "m.date DESC, m.id DESC"
	}
	if sq.unread {
		where = append(where, unreadExpr)
	}
	if sq.read {
		where = append(where, "NOT "+unreadExpr)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, limit)
	return `SELECT ` + cols + ` FROM ` + from + cond + ` ORDER BY ` + order + ` LIMIT ?`, args
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// searchError turns an SQLite error about the query into a clear one.
func searchError(query string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "fts5") || strings.Contains(msg, "syntax error") || strings.Contains(msg, "no such column") {
		return fmt.Errorf("search: cannot parse query %q: use words, \"quoted phrases\", AND/OR/NOT, prefix* and operators from: to: subject: after:YYYY-MM-DD before:YYYY-MM-DD is:unread", query)
	}
	return fmt.Errorf("search: %q: %w", query, err)
}
