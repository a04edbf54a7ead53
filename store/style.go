package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// SentReply is one message the principal wrote, as a style example for
// drafting replies in the principal's voice.
type SentReply struct {
	MessageID string
	ThreadID  int64
	Subject   string
	// Text is the message's body (quoted mail not removed).
	Text string
	Date time.Time
}

// sentCond holds for a location in the Sent mailbox: its role is sent, or
// it has no role recorded and a usual Sent name.
const sentCond = `(COALESCE(NULLIF(mb.role, ''), CASE WHEN lower(l.mailbox) IN ('sent', 'sent items', 'sent messages', 'sent mail', '[gmail]/sent mail', 'inbox.sent') THEN 'sent' ELSE '' END) = 'sent')`

// SentReplies returns up to limit messages from principal (an address)
// kept in a Sent mailbox, outside thread exclude, that best match words
// in the search index (any of them, ranked by FTS5's bm25): the user's own
// replies most like a thread, to show a model how the user writes. Words
// are reduced to letters and digits; none left returns nothing.
func (s *Store) SentReplies(ctx context.Context, principal string, words []string, exclude int64, limit int) ([]SentReply, error) {
	var terms []string
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.ToLower(strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r
			}
			return -1
		}, w))
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
	}
	if len(terms) == 0 || principal == "" || limit <= 0 {
		return nil, nil
	}
	// The best matches first; a reply in several Sent folders counts once.
	q := `SELECT m.message_id, COALESCE(m.thread_id, 0), m.subject,
	       CASE WHEN trim(m.text) <> '' THEN m.text ELSE m.html_text END, m.date
	FROM messages_fts CROSS JOIN messages m ON m.fts_rowid = messages_fts.rowid
	WHERE messages_fts MATCH ? AND m.from_email = ? COLLATE NOCASE AND COALESCE(m.thread_id, 0) <> ?
	  AND EXISTS (SELECT 1 FROM locations l LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
	              WHERE l.message = m.id AND ` + sentCond + `)
	ORDER BY bm25(messages_fts) LIMIT ?`
	rows, err := s.r.QueryContext(ctx, q, strings.Join(terms, " OR "), principal, exclude, limit)
	if err != nil {
		return nil, fmt.Errorf("store: sent replies: %w", err)
	}
	defer rows.Close()
	var out []SentReply
	for rows.Next() {
		var r SentReply
		var date int64
		if err := rows.Scan(&r.MessageID, &r.ThreadID, &r.Subject, &r.Text, &date); err != nil {
			return nil, fmt.Errorf("store: sent replies: %w", err)
		}
		if date != 0 {
			r.Date = time.Unix(date, 0)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sent replies: %w", err)
	}
	return out, nil
}
