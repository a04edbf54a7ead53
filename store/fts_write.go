package store

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ftsEntry is one message's search entry as indexed: FTS5 needs the
// indexed values to delete an entry of an external-content table.
type ftsEntry struct {
	rowid                   int64
	from, to, subject, body string
}

// ftsShift places the date in the high bits of a search rowid.
const ftsShift = 1 << 20

// ftsDelete queues the removal of message id's search entry (finish
// writes it); call it before the message's row changes.
func (w *writer) ftsDelete(id int64) error {
	if _, ok := w.ftsPending[id]; ok {
		return nil // not indexed yet: finish indexes its current text
	}
	var e ftsEntry
	err := w.queryRow(`SELECT fts_rowid, from_text, to_text, subject, body FROM messages_fts_src
		WHERE id = ? AND fts_rowid IS NOT NULL`, id).Scan(&e.rowid, &e.from, &e.to, &e.subject, &e.body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	w.ftsDel = append(w.ftsDel, e)
	return nil
}

// ftsDeleteQueued removes the queued search entries in one statement:
// FTS5 writes pending changes at every statement boundary, so deleting
// entry by entry wrote (and later merged) one tiny segment per message.
func (w *writer) ftsDeleteQueued() error {
	if len(w.ftsDel) == 0 {
		return nil
	}
	rows := make([][5]any, len(w.ftsDel))
	for i, e := range w.ftsDel {
		rows[i] = [5]any{e.rowid, e.from, e.to, e.subject, e.body}
	}
	_, err := w.exec(`INSERT INTO messages_fts(messages_fts, rowid, from_text, to_text, subject, body)
		SELECT 'delete', value->>0, value->>1, value->>2, value->>3, value->>4 FROM json_each(?)`, mustJSON(rows))
	if err != nil {
		return fmt.Errorf("remove from search index: %w", err)
	}
	w.ftsDel = nil
	return nil
}

// ftsRowid returns the date-ordered search rowid for message id dated
// date: date << 20 | low bits of id, bumped past rowids already taken.
func (w *writer) ftsRowid(id, date int64) (int64, error) {
	want := date*ftsShift + id%ftsShift
	for {
		var taken bool
		if err := w.queryRow(`SELECT EXISTS(SELECT 1 FROM messages WHERE fts_rowid = ? AND id <> ?)`, want, id).Scan(&taken); err != nil {
			return 0, err
		}
		if !taken {
			return want, nil
		}
		want++
	}
}

// execRowid runs an insert or update of message id whose args[i] is its
// natural search rowid (or nil): when the unique index reports that rowid
// taken, a free one is searched for and the statement run again.
func (w *writer) execRowid(q string, args []any, i int, id, date int64) error {
	_, err := w.exec(q, args...)
	if err == nil || args[i] == nil || !strings.Contains(err.Error(), "messages.fts_rowid") {
		return err
	}
	if args[i], err = w.ftsRowid(id, date); err != nil {
		return err
	}
	_, err = w.exec(q, args...)
	return err
}

// ftsFlush indexes the messages queued by ftsInsert in one statement, in
// rowid order (FTS5 flushes its pending terms when a rowid goes down).
func (w *writer) ftsFlush() error {
	if len(w.ftsPending) == 0 {
		return nil
	}
	type pending struct{ rowid, id int64 }
	byRowid := make([]pending, 0, len(w.ftsPending))
	for id, rowid := range w.ftsPending {
		byRowid = append(byRowid, pending{rowid, id})
	}
	slices.SortFunc(byRowid, func(a, b pending) int { return cmp.Compare(a.rowid, b.rowid) })
	ids := make([]int64, len(byRowid))
	for i, p := range byRowid {
		ids[i] = p.id
	}
	// The ids come sorted by search rowid, and the CROSS JOIN keeps
	// json_each the outer loop, so the rows arrive in that order without
	// an ORDER BY (which sorted every body in a temporary b-tree).
	_, err := w.exec(`INSERT INTO messages_fts(rowid, from_text, to_text, subject, body)
		SELECT m.fts_rowid, m.from_text, m.to_text, m.subject, m.body
		FROM json_each(?) AS j CROSS JOIN messages_fts_src AS m ON m.id = j.value`, mustJSON(ids))
	if err != nil {
		return fmt.Errorf("index for search: %w", err)
	}
	w.ftsPending = map[int64]int64{}
	return nil
}
