package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"mailsift/model"
)

// SetFlags records flags reported by the source for existing locations.
// A flag with a local change still queued keeps the local value until
// the change is acknowledged (AckFlagChanges). Unknown locations are
// ignored.
func (s *Store) SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error {
	if len(flags) == 0 {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		for loc, f := range flags {
			key := locKey(loc)
			var msg int64
			err := w.queryRow(`SELECT message FROM locations WHERE account = ? AND mailbox = ? AND key = ?`,
				loc.Account, loc.Mailbox, key).Scan(&msg)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			if err := w.setLocation(loc, key, msg, f); err != nil {
				return err
			}
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: set flags: %w", err)
	}
	return nil
}

// RemoveLocations deletes locations that left the source (expunge). A
// message with no location left waits in orphans until CollectOrphans
// (the end of the sync) and is then deleted with its search entry, unless
// it was found at another location meanwhile (moved between folders).
func (s *Store) RemoveLocations(ctx context.Context, locs []model.Location) error {
	if len(locs) == 0 {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		w.deferGC = true
		for _, loc := range locs {
			key := locKey(loc)
			var msg int64
			err := w.queryRow(`DELETE FROM locations WHERE account = ? AND mailbox = ? AND key = ? RETURNING message`,
				loc.Account, loc.Mailbox, key).Scan(&msg)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			if _, err := w.exec(`DELETE FROM pending_flags WHERE account = ? AND mailbox = ? AND key = ?`,
				loc.Account, loc.Mailbox, key); err != nil {
				return err
			}
			if err := w.markMessageThread(msg); err != nil {
				return err
			}
			if err := w.gcMessage(msg); err != nil {
				return err
			}
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: remove locations: %w", err)
	}
	return nil
}

// ResetMailbox forgets every location in a mailbox (its UIDVALIDITY
// changed), drops flag changes queued for it, deletes messages left
// without a location and zeroes the mailbox state so the next sync
// starts over.
func (s *Store) ResetMailbox(ctx context.Context, account, mailbox string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		msgs, err := dropLocations(ctx, tx, w, account, mailbox)
		if err != nil {
			return err
		}
		if _, err := w.exec(`UPDATE mailboxes SET uidvalidity = 0, uidnext = 0, highestmodseq = 0
			WHERE account = ? AND name = ?`, account, mailbox); err != nil {
			return err
		}
		return gcDropped(w, msgs)
	})
	if err != nil {
		return fmt.Errorf("store: reset mailbox %s/%s: %w", account, mailbox, err)
	}
	return nil
}

// ForgetMailbox forgets a mailbox that no longer exists in its source
// (deleted or renamed on the server, a folder or file removed from disk):
// its locations, the flag changes queued for them and the mailbox itself.
// A message still stored at another location (the same Message-ID and
// content in another mailbox) stays, with its thread, triage results and
// override; a message left without a location is deleted with its search
// entry, and a thread left without a message is deleted with its triage
// results and override. A draft whose server copy was in the mailbox
// forgets that copy, so that no later save deletes a message by a UID of
// a mailbox since re-created. Forgetting an unknown mailbox does nothing.
func (s *Store) ForgetMailbox(ctx context.Context, account, mailbox string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		msgs, err := dropLocations(ctx, tx, w, account, mailbox)
		if err != nil {
			return err
		}
		if _, err := w.exec(`DELETE FROM mailboxes WHERE account = ? AND name = ?`, account, mailbox); err != nil {
			return err
		}
		// Drafts of the default account ("") may live in this account's
		// mailbox too; forgetting a copy that exists only leaves it behind
		// on the server, while keeping a stale UID could delete another
		// message.
		if _, err := w.exec(`UPDATE drafts SET server_mailbox = '', server_uid = 0
			WHERE server_mailbox = ? AND account IN (?, '')`, mailbox, account); err != nil {
			return err
		}
		return gcDropped(w, msgs)
	})
	if err != nil {
		return fmt.Errorf("store: forget mailbox %s/%s: %w", account, mailbox, err)
	}
	s.log.Debug("store: forgot mailbox", "account", account, "mailbox", mailbox)
	return nil
}

// dropLocations deletes every location of a mailbox and the flag changes
// queued for them, returning the messages they held.
func dropLocations(ctx context.Context, tx *sql.Tx, w *writer, account, mailbox string) ([]int64, error) {
	w.deferGC = true // messages left without a location wait for CollectOrphans
	rows, err := tx.QueryContext(ctx, `DELETE FROM locations WHERE account = ? AND mailbox = ? RETURNING message`, account, mailbox)
	if err != nil {
		return nil, err
	}
	var msgs []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		msgs = append(msgs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if _, err := w.exec(`DELETE FROM pending_flags WHERE account = ? AND mailbox = ?`, account, mailbox); err != nil {
		return nil, err
	}
	return msgs, nil
}

// gcDropped deletes the messages msgs left without a location and
// recomputes the threads of all of them (counts, unread, inbox
// membership, section), deleting threads left empty.
func gcDropped(w *writer, msgs []int64) error {
	for _, id := range msgs {
		if err := w.markMessageThread(id); err != nil {
			return err
		}
		if err := w.gcMessage(id); err != nil {
			return err
		}
	}
	return w.finish()
}

// LinkStoredBodies points each envelope location of a mailbox whose
// message (same Message-ID and size) is stored with its body through
// another location at that message, and deletes the envelope rows left
// without a location. It returns how many locations it linked, and how
// many envelopes of the mailbox have a copy elsewhere that is an envelope
// too (its body possibly being stored right now: a caller may wait for
// its writes and call again). Sources call it before fetching a mailbox's
// bodies: a message in two folders (Gmail's labels and All Mail) is then
// fetched once.
func (s *Store) LinkStoredBodies(ctx context.Context, account, mailbox string) (linked, waiting int, err error) {
	type link struct {
		key         string
		env, stored int64
		uid         int64
		f           model.Flags
	}
	var links []link
	rows, err := s.r.QueryContext(ctx, `SELECT l.key, l.uid, l.seen, l.answered, l.flagged, l.deleted, l.draft, l.keywords,
		m.id, (SELECT f.id FROM messages f WHERE f.message_id = m.message_id AND f.has_body = 1 AND f.size = m.size
			ORDER BY f.id LIMIT 1),
		EXISTS(SELECT 1 FROM messages g WHERE g.message_id = m.message_id AND g.has_body = 0 AND g.size = m.size AND g.id <> m.id)
		FROM messages m INDEXED BY messages_missing_body JOIN locations l ON l.message = m.id
		WHERE m.has_body = 0 AND m.size > 0 AND l.account = ? AND l.mailbox = ?`, account, mailbox)
	if err != nil {
		return 0, 0, fmt.Errorf("store: link stored bodies in %s/%s: %w", account, mailbox, err)
	}
	for rows.Next() {
		var l link
		var stored sql.NullInt64
		var kw string
		var copyWaiting bool
		if err := rows.Scan(&l.key, &l.uid, &l.f.Seen, &l.f.Answered, &l.f.Flagged, &l.f.Deleted, &l.f.Draft, &kw,
			&l.env, &stored, &copyWaiting); err != nil {
			rows.Close()
			return 0, 0, fmt.Errorf("store: link stored bodies in %s/%s: %w", account, mailbox, err)
		}
		if !stored.Valid && copyWaiting {
			waiting++
		}
		if stored.Valid {
			l.stored = stored.Int64
			l.f.Keywords = decodeKeywords(kw)
			links = append(links, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("store: link stored bodies in %s/%s: %w", account, mailbox, err)
	}
	if len(links) == 0 {
		return 0, waiting, nil
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		w.noPending = true // the flags are the stored ones, overlay included
		for _, l := range links {
			loc := model.Location{Account: account, Mailbox: mailbox, Key: l.key, UID: uint32(l.uid)}
			if err := w.setLocation(loc, l.key, l.stored, l.f); err != nil {
				return err
			}
			if err := w.markMessageThread(l.env); err != nil {
				return err
			}
			if err := w.gcMessage(l.env); err != nil {
				return err
			}
		}
		return w.finish()
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: link stored bodies in %s/%s: %w", account, mailbox, err)
	}
	return len(links), waiting, nil
}

// CollectOrphans deletes the messages left without a location by
// RemoveLocations, ResetMailbox and ForgetMailbox (with their search
// entries, and threads left empty with their triage and override),
// except those a location points at again. Sources call it at the end of
// a successful sync, so that a message moved between folders on the
// server keeps its row, thread, triage result and override.
func (s *Store) CollectOrphans(ctx context.Context) error {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM orphans`).Scan(&n); err != nil {
		return fmt.Errorf("store: collect orphans: %w", err)
	}
	if n == 0 {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		rows, err := tx.QueryContext(ctx, `DELETE FROM orphans RETURNING message`)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			if err := w.gcMessage(id); err != nil { // no-op if gone or located again
				return err
			}
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: collect orphans: %w", err)
	}
	return nil
}

// Locations lists the stored locations of a mailbox with their flags.
// The five system flags come packed in one column and keywords only when
// set: a no-op resync reads every location of every mailbox.
func (s *Store) Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM locations WHERE account = ? AND mailbox = ?`,
		account, mailbox).Scan(&n); err != nil {
		return nil, fmt.Errorf("store: locations of %s/%s: %w", account, mailbox, err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT key, uid,
		(seen != 0) | ((answered != 0) << 1) | ((flagged != 0) << 2) | ((deleted != 0) << 3) | ((draft != 0) << 4),
		NULLIF(keywords, '[]')
		FROM locations WHERE account = ? AND mailbox = ?`, account, mailbox)
	if err != nil {
		return nil, fmt.Errorf("store: locations of %s/%s: %w", account, mailbox, err)
	}
	defer rows.Close()
	out := make(map[model.Location]model.Flags, n)
	for rows.Next() {
		loc := model.Location{Account: account, Mailbox: mailbox}
		var uid, bits int64
		var kw sql.NullString
		if err := rows.Scan(&loc.Key, &uid, &bits, &kw); err != nil {
			return nil, fmt.Errorf("store: locations of %s/%s: %w", account, mailbox, err)
		}
		loc.UID = uint32(uid)
		f := model.Flags{Seen: bits&1 != 0, Answered: bits&2 != 0, Flagged: bits&4 != 0, Deleted: bits&8 != 0, Draft: bits&16 != 0}
		if kw.Valid {
			f.Keywords = decodeKeywords(kw.String)
		}
		out[loc] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: locations of %s/%s: %w", account, mailbox, err)
	}
	return out, nil
}

func decodeKeywords(s string) []string {
	var kw []string
	_ = json.Unmarshal([]byte(s), &kw)
	if len(kw) == 0 {
		return nil
	}
	return kw
}

// MissingBodies lists up to limit locations of a mailbox whose body has
// not been fetched yet, newest first.
func (s *Store) MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error) {
	if limit <= 0 {
		limit = -1
	}
	// Walks the envelopes (partial index messages_missing_body, migration
	// 10) newest first and stops after limit: reading a whole folder's
	// locations per call made a first sync of a large folder quadratic.
	rows, err := s.r.QueryContext(ctx, `SELECT l.key, l.uid FROM messages m INDEXED BY messages_missing_body
		JOIN locations l ON l.message = m.id
		WHERE m.has_body = 0 AND l.account = ? AND l.mailbox = ? ORDER BY m.date DESC, m.id DESC LIMIT ?`,
		account, mailbox, limit)
	if err != nil {
		return nil, fmt.Errorf("store: missing bodies of %s/%s: %w", account, mailbox, err)
	}
	defer rows.Close()
	var out []model.Location
	for rows.Next() {
		loc := model.Location{Account: account, Mailbox: mailbox}
		var uid int64
		if err := rows.Scan(&loc.Key, &uid); err != nil {
			return nil, fmt.Errorf("store: missing bodies of %s/%s: %w", account, mailbox, err)
		}
		loc.UID = uint32(uid)
		out = append(out, loc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: missing bodies of %s/%s: %w", account, mailbox, err)
	}
	return out, nil
}
