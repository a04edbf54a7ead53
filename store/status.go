package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Thread statuses, as the MCP contract names them.
const (
	StatusOpen    = "open"
	StatusClosed  = "closed"
	StatusSnoozed = "snoozed"
)

// SectionSnoozed is where a snoozed thread's row goes: no inbox section
// lists it until it wakes.
const SectionSnoozed Section = "snoozed"

// SectionWaiting lists the threads where the principal sent the last
// message and nobody answered (RefreshWaiting). A thread there keeps its
// bucket too.
const SectionWaiting Section = "waiting"

// ThreadStatus is a thread's status: snoozed (until Until), else open
// while a message of it is in an inbox, else closed (archived, deleted,
// spam). Returned is true for a thread back from a snooze that the user
// has not opened since.
type ThreadStatus struct {
	Status   string
	Until    time.Time
	Returned bool
}

// ThreadStatus returns a thread's status, or ErrNotFound.
func (s *Store) ThreadStatus(ctx context.Context, id int64) (ThreadStatus, error) {
	var st ThreadStatus
	var inInbox bool
	var status sql.NullString
	var until, returned sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT t.in_inbox, ts.status, ts.snooze_until, ts.returned FROM threads t
		LEFT JOIN thread_status ts ON ts.thread_id = t.id WHERE t.id = ?`, id).Scan(&inInbox, &status, &until, &returned)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("store: status of thread %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return st, fmt.Errorf("store: status of thread %d: %w", id, err)
	}
	st.Returned = returned.Int64 == 1
	switch {
	case status.String == StatusSnoozed:
		st.Status, st.Until = StatusSnoozed, time.Unix(until.Int64, 0)
	case inInbox:
		st.Status = StatusOpen
	default:
		st.Status = StatusClosed
	}
	return st, nil
}

// Snooze hides the threads from the inbox sections until until, and
// records the action on the undo stack.
func (s *Store) Snooze(ctx context.Context, threads []int64, until time.Time, label string) (ActionResult, error) {
	var res ActionResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var undo undoRecord
		for _, id := range threads {
			prev, err := w.statusRow(id)
			if err != nil {
				return err
			}
			undo.Status = append(undo.Status, prev)
			if _, err := w.exec(`INSERT INTO thread_status(thread_id, status, snooze_until, returned, updated) VALUES(?, ?, ?, 0, ?)
				ON CONFLICT(thread_id) DO UPDATE SET status = excluded.status, snooze_until = excluded.snooze_until,
				returned = 0, updated = excluded.updated`, id, StatusSnoozed, until.Unix(), s.now().Unix()); err != nil {
				return err
			}
			w.dirty[id] = true
			res.Threads++
		}
		if res.Threads == 0 {
			return nil
		}
		if err := w.finish(); err != nil {
			return err
		}
		id, err := w.logAction("snooze", label, res.Threads, undo)
		res.ActionID = id
		return err
	})
	if err != nil {
		return res, fmt.Errorf("store: snooze %d threads: %w", len(threads), err)
	}
	return res, nil
}

// statusRow reads a thread's thread_status row (Status "" if none).
func (w *writer) statusRow(id int64) (undoStatus, error) {
	u := undoStatus{Thread: id}
	err := w.queryRow(`SELECT status, snooze_until, returned FROM thread_status WHERE thread_id = ?`, id).
		Scan(&u.Status, &u.Until, &u.Returned)
	if errors.Is(err, sql.ErrNoRows) {
		return u, nil
	}
	return u, err
}

// restoreStatus puts a thread_status row back as statusRow read it.
func (w *writer) restoreStatus(u undoStatus) error {
	if u.Status == "" {
		if _, err := w.exec(`DELETE FROM thread_status WHERE thread_id = ?`, u.Thread); err != nil {
			return err
		}
	} else if _, err := w.exec(`INSERT INTO thread_status(thread_id, status, snooze_until, returned, updated) VALUES(?, ?, ?, ?, ?)
		ON CONFLICT(thread_id) DO UPDATE SET status = excluded.status, snooze_until = excluded.snooze_until,
		returned = excluded.returned, updated = excluded.updated`, u.Thread, u.Status, u.Until, boolInt(u.Returned), w.s.now().Unix()); err != nil {
		return err
	}
	w.dirty[u.Thread] = true
	return nil
}

// threadSnoozed reports whether a thread is snoozed (updateSection puts
// it in SectionSnoozed).
func (w *writer) threadSnoozed(id int64) (bool, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM thread_status WHERE thread_id = ? AND status = 'snoozed'`, id).Scan(&n)
	return n > 0, err
}

// WakeSnoozed returns every thread whose snooze ended (by the store's
// clock) to the inbox sections, marked as returned, and lists them.
func (s *Store) WakeSnoozed(ctx context.Context) ([]int64, error) {
	var woke []int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		rows, err := w.query(`UPDATE thread_status SET status = 'open', returned = 1, updated = ?
			WHERE status = 'snoozed' AND snooze_until <= ? RETURNING thread_id`, s.now().Unix(), s.now().Unix())
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			woke = append(woke, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range woke {
			w.dirty[id] = true
		}
		if _, err := w.exec(`DELETE FROM thread_status WHERE thread_id NOT IN (SELECT id FROM threads)`); err != nil {
			return err
		}
		return w.finish()
	})
	if err != nil {
		return nil, fmt.Errorf("store: wake snoozed threads: %w", err)
	}
	return woke, nil
}

// NextWake returns when the next snoozed thread wakes (ok false: none).
func (s *Store) NextWake(ctx context.Context) (time.Time, bool, error) {
	var until sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT min(snooze_until) FROM thread_status WHERE status = 'snoozed'`).Scan(&until)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: next snooze wake: %w", err)
	}
	if !until.Valid {
		return time.Time{}, false, nil
	}
	return time.Unix(until.Int64, 0), true, nil
}

// ReturnedThreads lists the threads back from a snooze that the user
// has not opened since (the inbox marks them).
func (s *Store) ReturnedThreads(ctx context.Context) (map[int64]bool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT thread_id FROM thread_status WHERE returned = 1 AND status = 'open'`)
	if err != nil {
		return nil, fmt.Errorf("store: returned threads: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: returned threads: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}

// SeenReturned clears a thread's "back from snooze" mark (it was opened).
func (s *Store) SeenReturned(ctx context.Context, id int64) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM thread_status WHERE thread_id = ? AND status = 'open'`, id); err != nil {
		return fmt.Errorf("store: clear snooze mark of thread %d: %w", id, err)
	}
	return nil
}

// RefreshWaiting recomputes the "Waiting for reply" section: threads whose
// newest message is from the principal (not a draft), sent before
// olderThan, not snoozed and with no copy in an account of skip.
func (s *Store) RefreshWaiting(ctx context.Context, olderThan time.Time, skip []string) error {
	if skip == nil {
		skip = []string{}
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM waiting`); err != nil {
			return err
		}
		if s.principal == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO waiting(thread_id)
			SELECT t.id FROM threads t WHERE t.latest > 0 AND t.latest <= ? AND t.section <> 'snoozed'
			AND EXISTS(SELECT 1 FROM messages m WHERE m.thread_id = t.id AND m.date = t.latest AND lower(m.from_email) = ?
				AND NOT EXISTS(SELECT 1 FROM locations l WHERE l.message = m.id AND l.draft = 1))
			AND NOT EXISTS(SELECT 1 FROM messages m WHERE m.thread_id = t.id AND m.date = t.latest AND lower(m.from_email) <> ?)
			AND NOT EXISTS(SELECT 1 FROM messages m JOIN locations l ON l.message = m.id
				LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
				WHERE m.thread_id = t.id AND (l.account IN (SELECT value FROM json_each(?)) OR mb.role IN ('trash', 'junk')))`,
			olderThan.Unix(), s.principal, s.principal, mustJSON(skip))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: refresh waiting for reply: %w", err)
	}
	return nil
}

// waitingCount is the size of SectionWaiting.
func (s *Store) waitingCount(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM waiting w JOIN threads t ON t.id = w.thread_id`).Scan(&n)
	return n, err
}

// listWaiting is ListThreads for SectionWaiting.
func (s *Store) listWaiting(ctx context.Context, offset, limit int) ([]ThreadSummary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+summaryCols+` FROM waiting w JOIN threads t ON t.id = w.thread_id`+summaryJoins+`
		ORDER BY t.latest DESC, t.id DESC LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("store: list waiting for reply: %w", err)
	}
	defer rows.Close()
	var out []ThreadSummary
	for rows.Next() {
		ts, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list waiting for reply: %w", err)
		}
		out = append(out, ts)
	}
	return out, rows.Err()
}
