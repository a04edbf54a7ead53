package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// SpamMark is the user's own verdict on a thread: spam (true) or not
// spam (false), with the sender and mailing list it came from, for
// triage to learn from.
type SpamMark struct {
	ID       int64
	ThreadID int64
	// Sender is the address of the newest message not from the principal.
	Sender string
	// ListID is that message's List-Id header ("" when none).
	ListID string
	Spam   bool
	At     time.Time
}

// recordSpamMark records the user's verdict on thread id.
func (w *writer) recordSpamMark(id int64, spam bool) (int64, error) {
	var sender, headers string
	err := w.queryRow(`SELECT from_email, headers_json FROM messages WHERE thread_id = ?
		ORDER BY (lower(from_email) = ?) ASC, date DESC, id DESC LIMIT 1`, id, w.s.principal).Scan(&sender, &headers)
	if err != nil {
		return 0, fmt.Errorf("spam mark of thread %d: %w", id, err)
	}
	listID := ""
	if strings.Contains(headers, "List-Id") {
		var h map[string][]string
		if decodeInto(headers, &h); len(h["List-Id"]) > 0 {
			listID = strings.TrimSpace(h["List-Id"][0])
		}
	}
	var mid int64
	err = w.queryRow(`INSERT INTO spam_marks(thread_id, sender, list_id, spam, at) VALUES(?, ?, ?, ?, ?) RETURNING id`,
		id, strings.ToLower(sender), listID, boolInt(spam), w.s.now().Unix()).Scan(&mid)
	return mid, err
}

// SpamMarks returns the user's spam verdicts with an ID above after,
// oldest first (after 0: all), so a learner can read only new ones.
// An undone verdict is gone from the list.
func (s *Store) SpamMarks(ctx context.Context, after int64) ([]SpamMark, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, thread_id, sender, list_id, spam, at FROM spam_marks
		WHERE id > ? ORDER BY id`, after)
	if err != nil {
		return nil, fmt.Errorf("store: spam marks: %w", err)
	}
	defer rows.Close()
	var out []SpamMark
	for rows.Next() {
		var m SpamMark
		var at int64
		if err := rows.Scan(&m.ID, &m.ThreadID, &m.Sender, &m.ListID, &m.Spam, &at); err != nil {
			return nil, fmt.Errorf("store: spam marks: %w", err)
		}
		m.At = time.Unix(at, 0)
		out = append(out, m)
	}
	return out, rows.Err()
}
