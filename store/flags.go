package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"mailsift/model"
)

// PendingFlag is one queued flag change waiting to be written to the source.
type PendingFlag struct {
	ID     int64
	Change model.FlagChange
}

// QueueFlagChange sets or clears a flag on one location locally at once
// and queues the change for the source (offline-safe). A newer change of
// the same flag on the same location replaces a queued older one.
func (s *Store) QueueFlagChange(ctx context.Context, loc model.Location, flag model.Flag, set bool) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		if err := w.queueFlag(loc, flag, set); err != nil {
			return err
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: queue %s on %s/%s/%s: %w", flag, loc.Account, loc.Mailbox, locKey(loc), err)
	}
	return nil
}

func (w *writer) queueFlag(loc model.Location, flag model.Flag, set bool) error {
	key := locKey(loc)
	var msg, uid int64
	var f model.Flags
	var kw string
	err := w.queryRow(`SELECT message, uid, seen, answered, flagged, deleted, draft, keywords FROM locations
		WHERE account = ? AND mailbox = ? AND key = ?`, loc.Account, loc.Mailbox, key).
		Scan(&msg, &uid, &f.Seen, &f.Answered, &f.Flagged, &f.Deleted, &f.Draft, &kw)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("location not in the store: %w", ErrNotFound)
	}
	if err != nil {
		return err
	}
	f.Keywords = decodeKeywords(kw)
	f = applyFlag(f, flag, set)
	if _, err := w.exec(`DELETE FROM pending_flags WHERE account = ? AND mailbox = ? AND key = ? AND flag = ?`,
		loc.Account, loc.Mailbox, key, string(flag)); err != nil {
		return err
	}
	if _, err := w.exec(`INSERT INTO pending_flags(account, mailbox, key, uid, flag, value, created) VALUES(?, ?, ?, ?, ?, ?, ?)`,
		loc.Account, loc.Mailbox, key, uid, string(flag), boolInt(set), w.s.now().Unix()); err != nil {
		return err
	}
	kwJSON := "[]"
	if len(f.Keywords) > 0 {
		kwJSON = mustJSON(f.Keywords)
	}
	if _, err := w.exec(`UPDATE locations SET seen = ?, answered = ?, flagged = ?, deleted = ?, draft = ?, keywords = ?
		WHERE account = ? AND mailbox = ? AND key = ?`, boolInt(f.Seen), boolInt(f.Answered), boolInt(f.Flagged),
		boolInt(f.Deleted), boolInt(f.Draft), kwJSON, loc.Account, loc.Mailbox, key); err != nil {
		return err
	}
	return w.markMessageThread(msg)
}

// MarkThreadSeen sets or clears \Seen on every location of every message
// of a thread whose state differs, queueing each change for the source.
func (s *Store) MarkThreadSeen(ctx context.Context, threadID int64, seen bool) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		locs, err := queryLocations(ctx, tx, `SELECT l.account, l.mailbox, l.key, l.uid FROM locations l
			JOIN messages m ON m.id = l.message WHERE m.thread_id = ? AND l.seen <> ?`, threadID, boolInt(seen))
		if err != nil {
			return err
		}
		for _, l := range locs {
			if err := w.queueFlag(l, model.FlagSeen, seen); err != nil {
				return err
			}
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: mark thread %d seen=%v: %w", threadID, seen, err)
	}
	return nil
}

// PendingFlagChanges returns up to limit queued flag changes of an
// account, oldest first (limit <= 0: all). Changes on a copy whose move
// the source has not applied yet wait for it (AckMoves gives them the
// copy's real key).
func (s *Store) PendingFlagChanges(ctx context.Context, account string, limit int) ([]PendingFlag, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, mailbox, key, uid, flag, value FROM pending_flags
		WHERE account = ? AND key NOT LIKE '~move-%' ORDER BY id LIMIT ?`, account, limit)
	if err != nil {
		return nil, fmt.Errorf("store: pending flag changes of %q: %w", account, err)
	}
	defer rows.Close()
	var out []PendingFlag
	for rows.Next() {
		var p PendingFlag
		var uid int64
		var flag string
		p.Change.Loc.Account = account
		if err := rows.Scan(&p.ID, &p.Change.Loc.Mailbox, &p.Change.Loc.Key, &uid, &flag, &p.Change.Set); err != nil {
			return nil, fmt.Errorf("store: pending flag changes of %q: %w", account, err)
		}
		p.Change.Loc.UID = uint32(uid)
		p.Change.Flag = model.Flag(flag)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: pending flag changes of %q: %w", account, err)
	}
	return out, nil
}

// AckFlagChanges removes queued changes the source has applied.
func (s *Store) AckFlagChanges(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM pending_flags WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: ack flag changes: %w", err)
	}
	return nil
}

// queryLocations runs a query selecting (account, mailbox, key, uid) and
// collects the locations.
func queryLocations(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]model.Location, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var locs []model.Location
	for rows.Next() {
		var l model.Location
		var uid int64
		if err := rows.Scan(&l.Account, &l.Mailbox, &l.Key, &uid); err != nil {
			return nil, err
		}
		l.UID = uint32(uid)
		locs = append(locs, l)
	}
	return locs, rows.Err()
}
