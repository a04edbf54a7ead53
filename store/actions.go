package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"mailsift/model"
)

// actionsSchema (a migration appended to migrations) holds what inbox
// actions need:
//   - pending_moves: moves (and permanent deletes) of message copies made
//     in mailsift, queued until the source applies them, like
//     pending_flags. The store moves the location at once: it is renamed
//     into the destination under a placeholder key (movePlaceholder) until
//     the source reports where the copy landed (AckMoves);
//   - action_log: the undo stack, one row per user action with what
//     reverses it, kept across restarts;
//   - thread_status: snoozed threads (and threads back from a snooze, not
//     yet looked at); every other thread's status follows from in_inbox;
//   - spam_marks: the user's own spam / not-spam verdicts;
//   - waiting: the threads of the "Waiting for reply" section, refreshed
//     by RefreshWaiting.
const actionsSchema = `
CREATE TABLE pending_moves (
	id           INTEGER PRIMARY KEY,
	account      TEXT NOT NULL,
	message      INTEGER NOT NULL,
	from_mailbox TEXT NOT NULL,
	from_key     TEXT NOT NULL,
	from_uid     INTEGER NOT NULL DEFAULT 0,
	to_mailbox   TEXT NOT NULL,
	to_role      TEXT NOT NULL DEFAULT '',
	expunge      INTEGER NOT NULL DEFAULT 0,
	claimed      INTEGER NOT NULL DEFAULT 0,
	created      INTEGER NOT NULL
);
CREATE INDEX pending_moves_account ON pending_moves(account, id);
CREATE TABLE action_log (
	id      INTEGER PRIMARY KEY,
	kind    TEXT NOT NULL,
	label   TEXT NOT NULL,
	threads INTEGER NOT NULL DEFAULT 0,
	undo    TEXT NOT NULL DEFAULT '{}',
	created INTEGER NOT NULL,
	undone  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE thread_status (
	thread_id    INTEGER PRIMARY KEY,
	status       TEXT NOT NULL,
	snooze_until INTEGER NOT NULL DEFAULT 0,
	returned     INTEGER NOT NULL DEFAULT 0,
	updated      INTEGER NOT NULL
);
CREATE INDEX thread_status_wake ON thread_status(snooze_until) WHERE status = 'snoozed';
CREATE TABLE spam_marks (
	id        INTEGER PRIMARY KEY,
	thread_id INTEGER NOT NULL,
	sender    TEXT NOT NULL DEFAULT '',
	list_id   TEXT NOT NULL DEFAULT '',
	spam      INTEGER NOT NULL,
	at        INTEGER NOT NULL
);
CREATE INDEX spam_marks_thread ON spam_marks(thread_id);
CREATE TABLE waiting (
	thread_id INTEGER PRIMARY KEY
);
`

// placeholderPrefix starts the key of a location moved in the store
// whose place in the destination the source has not reported yet.
const placeholderPrefix = "~move-"

func movePlaceholder(id int64) string { return placeholderPrefix + strconv.FormatInt(id, 10) }

// IsPlaceholderKey reports whether a location key is a moved copy's
// placeholder (see AckMoves): flag changes on it wait for the move.
func IsPlaceholderKey(key string) bool { return strings.HasPrefix(key, placeholderPrefix) }

// MoveRequest is one move action on whole threads.
type MoveRequest struct {
	// Kind names the action ("archive", "delete", "spam", "notspam",
	// "move"); Label is what undo says it reverts ("archive 3 threads").
	Kind, Label string
	Threads     []int64
	// Dest returns, for one copy of a message of the threads (its
	// account, mailbox and the mailbox's role), the mailbox to move it
	// to and that mailbox's role; "" leaves the copy where it is.
	Dest func(account, mailbox string, role model.Role) (to string, toRole model.Role)
	// SetKeyword is set, and ClearKeyword cleared, on every moved copy
	// before it moves ($Junk / $NotJunk); "" for none.
	SetKeyword, ClearKeyword string
	// Spam, when not nil, records the user's verdict on each thread
	// (SpamMarks).
	Spam *bool
	// InPlace moves nothing: the keywords go on every copy where it is
	// (not spam for a thread triage quarantined in the inbox).
	InPlace bool
	// Override, when not "", becomes the threads' bucket override (as
	// the 1–4 keys set it), taking them out of quarantine.
	Override string
}

// ActionResult says what an action changed.
type ActionResult struct {
	// ActionID is the undo stack entry (0 when nothing changed).
	ActionID int64
	// Threads is how many threads the action touched; Copies how many
	// message copies it moved or flagged.
	Threads, Copies int
}

// undoRecord is what reverses one action (action_log.undo).
type undoRecord struct {
	Moves     []undoMove     `json:"moves,omitempty"`
	Flags     []undoFlag     `json:"flags,omitempty"`
	Status    []undoStatus   `json:"status,omitempty"`
	Marks     []int64        `json:"marks,omitempty"`
	Overrides []undoOverride `json:"overrides,omitempty"`
}

// undoOverride restores a thread's bucket override ("" for none);
// Learned is what the caller's learning recorded of the change
// (BucketRequest.Learned), handed back by Undo.
type undoOverride struct {
	Thread  int64  `json:"thread"`
	Prev    string `json:"prev,omitempty"`
	Learned string `json:"learned,omitempty"`
}

// undoMove moves a message's copy from To back to From.
type undoMove struct {
	Account  string     `json:"account"`
	Message  int64      `json:"message"`
	From     string     `json:"from"`
	FromRole model.Role `json:"from_role,omitempty"`
	To       string     `json:"to"`
}

// undoFlag restores a flag on the copy of Message in Mailbox.
type undoFlag struct {
	Account string     `json:"account"`
	Message int64      `json:"message"`
	Mailbox string     `json:"mailbox"`
	Flag    model.Flag `json:"flag"`
	Prev    bool       `json:"prev"`
}

// undoStatus restores a thread's row in thread_status (Status "" means
// no row).
type undoStatus struct {
	Thread   int64  `json:"thread"`
	Status   string `json:"status,omitempty"`
	Until    int64  `json:"until,omitempty"`
	Returned bool   `json:"returned,omitempty"`
}

// threadLoc is one copy of a message of a thread, with its mailbox's role.
type threadLoc struct {
	loc     model.Location
	message int64
	role    model.Role
	flags   model.Flags
}

// threadLocations lists the copies of every message of thread id.
func (w *writer) threadLocations(id int64) ([]threadLoc, error) {
	rows, err := w.query(`SELECT l.account, l.mailbox, l.key, l.uid, l.message,
		COALESCE(NULLIF(mb.role, ''), CASE WHEN upper(l.mailbox) = 'INBOX' THEN 'inbox' ELSE '' END),
		l.seen, l.flagged, l.keywords
		FROM messages m JOIN locations l ON l.message = m.id
		LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
		WHERE m.thread_id = ? ORDER BY m.date, m.message_id, m.id, l.account, l.mailbox`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []threadLoc
	for rows.Next() {
		var tl threadLoc
		var uid int64
		var role, kw string
		if err := rows.Scan(&tl.loc.Account, &tl.loc.Mailbox, &tl.loc.Key, &uid, &tl.message, &role,
			&tl.flags.Seen, &tl.flags.Flagged, &kw); err != nil {
			return nil, err
		}
		tl.loc.UID = uint32(uid)
		tl.role = model.Role(role)
		tl.flags.Keywords = decodeKeywords(kw)
		out = append(out, tl)
	}
	return out, rows.Err()
}

// MoveThreads moves the copies of the threads' messages that req.Dest
// names to their destinations: at once in the store (the threads leave
// or enter the inbox sections), and queued for the source
// (PendingMoves). It records the action on the undo stack.
func (s *Store) MoveThreads(ctx context.Context, req MoveRequest) (ActionResult, error) {
	var res ActionResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var undo undoRecord
		for _, id := range req.Threads {
			locs, err := w.threadLocations(id)
			if err != nil {
				return err
			}
			touched := false
			for _, tl := range locs {
				var to string
				var toRole model.Role
				if !req.InPlace {
					to, toRole = req.Dest(tl.loc.Account, tl.loc.Mailbox, tl.role)
					if to == "" || to == tl.loc.Mailbox {
						continue
					}
				}
				for _, kw := range []struct {
					name string
					set  bool
				}{{req.ClearKeyword, false}, {req.SetKeyword, true}} {
					if kw.name == "" || hasKeyword(tl.flags.Keywords, kw.name) == kw.set {
						continue
					}
					if err := w.queueFlag(tl.loc, model.Flag(kw.name), kw.set); err != nil {
						return err
					}
					undo.Flags = append(undo.Flags, undoFlag{Account: tl.loc.Account, Message: tl.message,
						Mailbox: tl.loc.Mailbox, Flag: model.Flag(kw.name), Prev: !kw.set})
				}
				if req.InPlace {
					res.Copies++
					touched = true
					continue
				}
				if err := w.moveLocation(tl.loc, tl.message, to, toRole); err != nil {
					return err
				}
				undo.Moves = append(undo.Moves, undoMove{Account: tl.loc.Account, Message: tl.message,
					From: tl.loc.Mailbox, FromRole: tl.role, To: to})
				res.Copies++
				touched = true
			}
			if req.Override != "" {
				var prev string
				if err := w.queryRow(`SELECT COALESCE((SELECT category FROM overrides WHERE thread_id = ?), '')`, id).Scan(&prev); err != nil {
					return err
				}
				if err := w.setOverride(id, req.Override); err != nil {
					return err
				}
				undo.Overrides = append(undo.Overrides, undoOverride{Thread: id, Prev: prev})
				touched = true
			}
			if req.Spam != nil {
				mid, err := w.recordSpamMark(id, *req.Spam)
				if err != nil {
					return err
				}
				undo.Marks = append(undo.Marks, mid)
				touched = true
			}
			if touched {
				res.Threads++
			}
		}
		return w.finishAction(req.Kind, req.Label, &res, undo)
	})
	if err != nil {
		return res, fmt.Errorf("store: %s %d threads: %w", req.Kind, len(req.Threads), err)
	}
	return res, nil
}

func hasKeyword(kws []string, k string) bool {
	for _, x := range kws {
		if strings.EqualFold(x, k) {
			return true
		}
	}
	return false
}

// moveLocation moves one copy to mailbox to in the store and queues the
// move for the source. A copy that is itself a queued move (moved again
// before the source applied the first move) changes that entry instead:
// the source still has the copy at the first move's origin, and a move
// back there cancels the entry and restores the copy's key. An entry a
// replay has taken (TakeMoves) may be on the server already: the new
// move is chained after it instead (its origin is the first move's
// placeholder until AckMoves names the copy's key).
func (w *writer) moveLocation(loc model.Location, msg int64, to string, toRole model.Role) error {
	key := locKey(loc)
	if IsPlaceholderKey(key) {
		pid, err := strconv.ParseInt(strings.TrimPrefix(key, placeholderPrefix), 10, 64)
		if err != nil {
			return fmt.Errorf("bad placeholder key %q", key)
		}
		var fromBox, fromKey string
		var fromUID int64
		var claimed bool
		err = w.queryRow(`SELECT from_mailbox, from_key, from_uid, claimed FROM pending_moves WHERE id = ?`, pid).Scan(&fromBox, &fromKey, &fromUID, &claimed)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			// Applied, but the source could not say where the copy
			// landed: the next sync finds it. Nothing to move yet.
			return fmt.Errorf("%s/%s: the server has not reported where an earlier move put this message; sync and try again", loc.Account, loc.Mailbox)
		case err != nil:
			return err
		}
		if claimed {
			var nid int64
			err := w.queryRow(`INSERT INTO pending_moves(account, message, from_mailbox, from_key, from_uid, to_mailbox, to_role, created)
				VALUES(?, ?, ?, ?, 0, ?, ?, ?) RETURNING id`, loc.Account, msg, loc.Mailbox, key, to, string(toRole), w.s.now().Unix()).Scan(&nid)
			if err != nil {
				return err
			}
			return w.renameLocation(loc.Account, loc.Mailbox, key, to, movePlaceholder(nid), 0, msg)
		}
		if fromBox == to {
			if _, err := w.exec(`DELETE FROM pending_moves WHERE id = ?`, pid); err != nil {
				return err
			}
			return w.renameLocation(loc.Account, loc.Mailbox, key, to, fromKey, fromUID, msg)
		}
		if _, err := w.exec(`UPDATE pending_moves SET to_mailbox = ?, to_role = ? WHERE id = ?`, to, string(toRole), pid); err != nil {
			return err
		}
		return w.renameLocation(loc.Account, loc.Mailbox, key, to, key, 0, msg)
	}
	var pid int64
	err := w.queryRow(`INSERT INTO pending_moves(account, message, from_mailbox, from_key, from_uid, to_mailbox, to_role, created)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, loc.Account, msg, loc.Mailbox, key, int64(loc.UID), to, string(toRole),
		w.s.now().Unix()).Scan(&pid)
	if err != nil {
		return err
	}
	return w.renameLocation(loc.Account, loc.Mailbox, key, to, movePlaceholder(pid), 0, msg)
}

// renameLocation moves a location row to (toBox, toKey, uid), taking
// the flag changes queued on it along when it is a placeholder (changes
// queued on a real key stay: they reach the source before the move).
func (w *writer) renameLocation(account, box, key, toBox, toKey string, uid int64, msg int64) error {
	if err := w.ensureMailbox(account, toBox); err != nil {
		return err
	}
	if _, err := w.exec(`UPDATE locations SET mailbox = ?, key = ?, uid = ? WHERE account = ? AND mailbox = ? AND key = ?`,
		toBox, toKey, uid, account, box, key); err != nil {
		return err
	}
	if IsPlaceholderKey(key) {
		if _, err := w.exec(`UPDATE pending_flags SET mailbox = ?, key = ?, uid = ? WHERE account = ? AND mailbox = ? AND key = ?`,
			toBox, toKey, uid, account, box, key); err != nil {
			return err
		}
	}
	return w.markMessageThread(msg)
}

// ensureMailbox records a mailbox the store has not seen yet (one an
// action creates, like Archive), so its role is known.
func (w *writer) ensureMailbox(account, name string) error {
	_, err := w.exec(`INSERT OR IGNORE INTO mailboxes(account, name, role) VALUES(?, ?, ?)`, account, name, string(guessRole(name)))
	return err
}

// guessRole is the role of a mailbox the source has not reported yet,
// from the names actions give them.
func guessRole(name string) model.Role {
	switch strings.ToLower(name) {
	case "archive":
		return model.RoleArchive
	case "trash":
		return model.RoleTrash
	case "junk", "spam":
		return model.RoleJunk
	case "inbox":
		return model.RoleInbox
	}
	return model.RoleNone
}

// setOverride sets (or, with "", removes) a thread's bucket override and
// marks the thread for its section to be recomputed.
func (w *writer) setOverride(id int64, category string) error {
	var err error
	if category == "" {
		_, err = w.exec(`DELETE FROM overrides WHERE thread_id = ?`, id)
	} else {
		_, err = w.exec(`INSERT INTO overrides(thread_id, category, at) VALUES(?, ?, ?)
			ON CONFLICT(thread_id) DO UPDATE SET category = excluded.category, at = excluded.at`, id, category, w.s.now().UnixNano())
	}
	w.dirty[id] = true
	return err
}

// logAction pushes an action onto the undo stack.
// finishAction ends an action's transaction: when it touched a thread,
// the writer's pending thread updates and the action on the undo stack
// (res.ActionID).
func (w *writer) finishAction(kind, label string, res *ActionResult, undo undoRecord) error {
	if res.Threads == 0 {
		return nil
	}
	if err := w.finish(); err != nil {
		return err
	}
	id, err := w.logAction(kind, label, res.Threads, undo)
	res.ActionID = id
	return err
}

func (w *writer) logAction(kind, label string, threads int, undo undoRecord) (int64, error) {
	b, err := json.Marshal(undo)
	if err != nil {
		return 0, err
	}
	var id int64
	err = w.queryRow(`INSERT INTO action_log(kind, label, threads, undo, created) VALUES(?, ?, ?, ?, ?) RETURNING id`,
		kind, label, threads, string(b), w.s.now().Unix()).Scan(&id)
	if err != nil {
		return 0, err
	}
	// The stack keeps the newest undoStackSize actions.
	_, err = w.exec(`DELETE FROM action_log WHERE id <= ?`, id-undoStackSize)
	return id, err
}

// undoStackSize is how many actions u can walk back.
const undoStackSize = 500

// ExpungeThreads deletes for good the copies of the threads' messages
// that are in a trash mailbox: at once in the store, queued for the
// source. It cannot be undone; callers confirm first.
func (s *Store) ExpungeThreads(ctx context.Context, threads []int64) (ActionResult, error) {
	var res ActionResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		for _, id := range threads {
			locs, err := w.threadLocations(id)
			if err != nil {
				return err
			}
			n := 0
			for _, tl := range locs {
				if tl.role != model.RoleTrash {
					continue
				}
				key := locKey(tl.loc)
				if IsPlaceholderKey(key) {
					// Still on its way into the trash: expunge it at its origin.
					pid, _ := strconv.ParseInt(strings.TrimPrefix(key, placeholderPrefix), 10, 64)
					if _, err := w.exec(`UPDATE pending_moves SET to_mailbox = '', to_role = '', expunge = 1 WHERE id = ?`, pid); err != nil {
						return err
					}
				} else if _, err := w.exec(`INSERT INTO pending_moves(account, message, from_mailbox, from_key, from_uid, to_mailbox, expunge, created)
					VALUES(?, ?, ?, ?, ?, '', 1, ?)`, tl.loc.Account, tl.message, tl.loc.Mailbox, key, int64(tl.loc.UID), s.now().Unix()); err != nil {
					return err
				}
				if _, err := w.exec(`DELETE FROM locations WHERE account = ? AND mailbox = ? AND key = ?`, tl.loc.Account, tl.loc.Mailbox, key); err != nil {
					return err
				}
				if _, err := w.exec(`DELETE FROM pending_flags WHERE account = ? AND mailbox = ? AND key = ?`, tl.loc.Account, tl.loc.Mailbox, key); err != nil {
					return err
				}
				if err := w.markMessageThread(tl.message); err != nil {
					return err
				}
				if err := w.gcMessage(tl.message); err != nil {
					return err
				}
				n++
			}
			if n > 0 {
				res.Threads++
				res.Copies += n
			}
		}
		return w.finish()
	})
	if err != nil {
		return res, fmt.Errorf("store: delete %d threads for good: %w", len(threads), err)
	}
	return res, nil
}

// PendingMove is one queued move waiting for the source.
type PendingMove = model.Move

// TakeMoves returns up to limit queued moves of an account for a replay,
// oldest first, and marks them taken: from now on they may be on the
// server, so a later move of the same copy is chained after them rather
// than folded into them (moveLocation). Moves chained after one not
// acknowledged yet wait for it.
func (s *Store) TakeMoves(ctx context.Context, account string, limit int) ([]model.Move, error) {
	if limit <= 0 {
		limit = -1
	}
	var out []model.Move
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE pending_moves SET claimed = 1 WHERE id IN (SELECT id FROM pending_moves
			WHERE account = ? AND from_key NOT LIKE '~move-%' ORDER BY id LIMIT ?)
			RETURNING id, from_mailbox, from_key, from_uid, to_mailbox, to_role, expunge`, account, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m model.Move
			var uid int64
			var role string
			m.From.Account = account
			if err := rows.Scan(&m.ID, &m.From.Mailbox, &m.From.Key, &uid, &m.To, &role, &m.Expunge); err != nil {
				return err
			}
			m.From.UID = uint32(uid)
			m.ToRole = model.Role(role)
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: take queued moves of %q: %w", account, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// PendingMoves returns up to limit queued moves of an account, oldest
// first (limit <= 0: all), taken or not, chained or not.
func (s *Store) PendingMoves(ctx context.Context, account string, limit int) ([]model.Move, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, from_mailbox, from_key, from_uid, to_mailbox, to_role, expunge
		FROM pending_moves WHERE account = ? ORDER BY id LIMIT ?`, account, limit)
	if err != nil {
		return nil, fmt.Errorf("store: pending moves of %q: %w", account, err)
	}
	defer rows.Close()
	var out []model.Move
	for rows.Next() {
		var m model.Move
		var uid int64
		var role string
		m.From.Account = account
		if err := rows.Scan(&m.ID, &m.From.Mailbox, &m.From.Key, &uid, &m.To, &role, &m.Expunge); err != nil {
			return nil, fmt.Errorf("store: pending moves of %q: %w", account, err)
		}
		m.From.UID = uint32(uid)
		m.ToRole = model.Role(role)
		out = append(out, m)
	}
	return out, rows.Err()
}

// AckMoves records moves the source applied: each placeholder takes the
// key the source reported (a copy already stored there, as in Gmail's All
// Mail, absorbs it); one the source could not place keeps its placeholder
// until the next sync finds the copy; one whose copy was gone is dropped
// (its message waits for the end of the next sync, as an expunge's).
func (s *Store) AckMoves(ctx context.Context, results []model.MoveResult) error {
	if len(results) == 0 {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		w.deferGC = true
		for _, r := range results {
			var account, to string
			var msg int64
			var expunge bool
			err := w.queryRow(`DELETE FROM pending_moves WHERE id = ? RETURNING account, to_mailbox, message, expunge`, r.ID).
				Scan(&account, &to, &msg, &expunge)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			if expunge {
				continue
			}
			ph := movePlaceholder(r.ID)
			key := r.Key
			if key == "" && r.UID != 0 {
				key = strconv.FormatUint(uint64(r.UID), 10)
			}
			if key != "" && !r.Gone {
				// Moves chained after this one start from the real copy now.
				if _, err := w.exec(`UPDATE pending_moves SET from_key = ?, from_uid = ? WHERE account = ? AND from_mailbox = ? AND from_key = ?`,
					key, int64(r.UID), account, to, ph); err != nil {
					return err
				}
			} else if err := w.dropChained(account, to, ph); err != nil {
				return err
			}
			switch {
			case r.Gone:
				if _, err := w.exec(`DELETE FROM locations WHERE account = ? AND mailbox = ? AND key = ?`, account, to, ph); err != nil {
					return err
				}
				if _, err := w.exec(`DELETE FROM pending_flags WHERE account = ? AND mailbox = ? AND key = ?`, account, to, ph); err != nil {
					return err
				}
				if err := w.markMessageThread(msg); err != nil {
					return err
				}
				if err := w.gcMessage(msg); err != nil {
					return err
				}
			case key != "":
				var n int
				if err := w.queryRow(`SELECT count(*) FROM locations WHERE account = ? AND mailbox = ? AND key = ?`, account, to, key).Scan(&n); err != nil {
					return err
				}
				if n > 0 {
					if _, err := w.exec(`DELETE FROM locations WHERE account = ? AND mailbox = ? AND key = ?`, account, to, ph); err != nil {
						return err
					}
					if _, err := w.exec(`UPDATE pending_flags SET key = ?, uid = ? WHERE account = ? AND mailbox = ? AND key = ?`,
						key, int64(r.UID), account, to, ph); err != nil {
						return err
					}
					if err := w.markMessageThread(msg); err != nil {
						return err
					}
					continue
				}
				if err := w.renameLocation(account, to, ph, to, key, int64(r.UID), msg); err != nil {
					return err
				}
			}
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: acknowledge moves: %w", err)
	}
	return nil
}

// QueuedChanges counts the moves and flag changes waiting for the sources.
func (s *Store) QueuedChanges(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM pending_moves) + (SELECT count(*) FROM pending_flags)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: queued changes: %w", err)
	}
	return n, nil
}

// RevertMoves gives up queued moves the source refused for good: each
// copy goes back to where the source still has it (its original mailbox,
// key and UID) and the entry leaves the queue.
func (s *Store) RevertMoves(ctx context.Context, ids []int64) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		for _, id := range ids {
			var account, fromBox, fromKey, to string
			var fromUID, msg int64
			var expunge bool
			err := w.queryRow(`DELETE FROM pending_moves WHERE id = ? RETURNING account, from_mailbox, from_key, from_uid, to_mailbox, message, expunge`, id).
				Scan(&account, &fromBox, &fromKey, &fromUID, &to, &msg, &expunge)
			if errors.Is(err, sql.ErrNoRows) || (err == nil && expunge) {
				continue // an expunged copy is gone from the store already; the next sync brings it back
			}
			if err != nil {
				return err
			}
			if err := w.renameLocation(account, to, movePlaceholder(id), fromBox, fromKey, fromUID, msg); err != nil {
				return err
			}
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: give up %d moves: %w", len(ids), err)
	}
	return nil
}

// dropChained gives up the moves chained after a move whose copy the
// source could not place (gone, or no COPYUID): their placeholders go
// (the next sync finds the copy where the server has it).
func (w *writer) dropChained(account, box, ph string) error {
	rows, err := w.query(`DELETE FROM pending_moves WHERE account = ? AND from_mailbox = ? AND from_key = ?
		RETURNING id, to_mailbox, message`, account, box, ph)
	if err != nil {
		return err
	}
	type chained struct {
		id  int64
		to  string
		msg int64
	}
	var cs []chained
	for rows.Next() {
		var c chained
		if err := rows.Scan(&c.id, &c.to, &c.msg); err != nil {
			rows.Close()
			return err
		}
		cs = append(cs, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range cs {
		cph := movePlaceholder(c.id)
		if err := w.dropChained(account, c.to, cph); err != nil {
			return err
		}
		if _, err := w.exec(`DELETE FROM locations WHERE account = ? AND mailbox = ? AND key = ?`, account, c.to, cph); err != nil {
			return err
		}
		if _, err := w.exec(`DELETE FROM pending_flags WHERE account = ? AND mailbox = ? AND key = ?`, account, c.to, cph); err != nil {
			return err
		}
		if err := w.markMessageThread(c.msg); err != nil {
			return err
		}
		if err := w.gcMessage(c.msg); err != nil {
			return err
		}
	}
	return nil
}

// UndoResult says what Undo reverted.
type UndoResult struct {
	// Label is the undone action's label ("" when nothing was left to undo).
	Label string
	Kind  string
	// Threads is the number of threads the action touched.
	Threads int
	// Missing counts copies that were no longer where the action put
	// them (moved or deleted since), left alone.
	Missing int
	// Unmarked lists the threads whose spam or not-spam mark the undo
	// took back, so triage's learning can forget it too.
	Unmarked []int64
	// Overrides lists the bucket overrides the undo put back, with what
	// the caller's learning recorded of the undone bucket move.
	Overrides []UndoneOverride
}

// Undo reverts the newest action not yet undone, in the store and (queued)
// on the source: a move still queued is cancelled, one the source applied
// is moved back. It works across restarts: the stack lives in the store.
func (s *Store) Undo(ctx context.Context) (UndoResult, error) {
	var res UndoResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var id int64
		var raw string
		err := tx.QueryRowContext(ctx, `SELECT id, kind, label, threads, undo FROM action_log WHERE undone = 0 ORDER BY id DESC LIMIT 1`).
			Scan(&id, &res.Kind, &res.Label, &res.Threads, &raw)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		var u undoRecord
		if err := json.Unmarshal([]byte(raw), &u); err != nil {
			return fmt.Errorf("action %d: %w", id, err)
		}
		w := s.newWriter(ctx, tx)
		for i := len(u.Moves) - 1; i >= 0; i-- {
			m := u.Moves[i]
			loc, ok, err := w.copyIn(m.Account, m.To, m.Message)
			if err != nil {
				return err
			}
			if !ok {
				res.Missing++
				continue
			}
			if err := w.moveLocation(loc, m.Message, m.From, m.FromRole); err != nil {
				return err
			}
		}
		for _, f := range u.Flags {
			loc, ok, err := w.copyIn(f.Account, f.Mailbox, f.Message)
			if err != nil {
				return err
			}
			if !ok {
				res.Missing++
				continue
			}
			if err := w.queueFlag(loc, f.Flag, f.Prev); err != nil {
				return err
			}
		}
		for _, st := range u.Status {
			if err := w.restoreStatus(st); err != nil {
				return err
			}
		}
		for _, o := range u.Overrides {
			var n int
			if err := w.queryRow(`SELECT count(*) FROM threads WHERE id = ?`, o.Thread).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				continue // gone (expunged or merged into another) since
			}
			if err := w.setOverride(o.Thread, o.Prev); err != nil {
				return err
			}
			res.Overrides = append(res.Overrides, UndoneOverride{Thread: o.Thread, Category: o.Prev, Learned: o.Learned})
		}
		for _, mid := range u.Marks {
			var thread int64
			err := tx.QueryRowContext(ctx, `SELECT thread_id FROM spam_marks WHERE id = ?`, mid).Scan(&thread)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err == nil {
				res.Unmarked = append(res.Unmarked, thread)
			}
			if _, err := w.exec(`DELETE FROM spam_marks WHERE id = ?`, mid); err != nil {
				return err
			}
		}
		if err := w.finish(); err != nil {
			return err
		}
		_, err = w.exec(`UPDATE action_log SET undone = 1 WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("store: undo: %w", err)
	}
	return res, nil
}

// LastAction returns the label of the action Undo would revert ("" if none).
func (s *Store) LastAction(ctx context.Context) (string, error) {
	var label string
	err := s.r.QueryRowContext(ctx, `SELECT label FROM action_log WHERE undone = 0 ORDER BY id DESC LIMIT 1`).Scan(&label)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: last action: %w", err)
	}
	return label, nil
}

// copyIn finds message msg's copy in account/mailbox.
func (w *writer) copyIn(account, mailbox string, msg int64) (model.Location, bool, error) {
	loc := model.Location{Account: account, Mailbox: mailbox}
	var uid int64
	err := w.queryRow(`SELECT key, uid FROM locations WHERE account = ? AND mailbox = ? AND message = ? LIMIT 1`,
		account, mailbox, msg).Scan(&loc.Key, &uid)
	if errors.Is(err, sql.ErrNoRows) {
		return loc, false, nil
	}
	if err != nil {
		return loc, false, err
	}
	loc.UID = uint32(uid)
	return loc, true, nil
}

// FlagRequest sets or clears one flag on threads.
type FlagRequest struct {
	Kind, Label string
	Threads     []int64
	Flag        model.Flag
	Set         bool
	// LatestOnly sets the flag on the newest message's copies only (a
	// star marks one message); clearing always clears every copy.
	LatestOnly bool
}

// SetThreadsFlag sets or clears a flag on the threads' message copies
// whose state differs, queued for the source, and records the action on
// the undo stack.
func (s *Store) SetThreadsFlag(ctx context.Context, req FlagRequest) (ActionResult, error) {
	var res ActionResult
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var undo undoRecord
		for _, id := range req.Threads {
			locs, err := w.threadLocations(id)
			if err != nil {
				return err
			}
			var latest int64 = -1
			if req.LatestOnly && req.Set && len(locs) > 0 {
				latest = locs[len(locs)-1].message
			}
			n := 0
			for _, tl := range locs {
				if latest >= 0 && tl.message != latest {
					continue
				}
				cur := flagValue(tl.flags, req.Flag)
				if cur == req.Set {
					continue
				}
				if err := w.queueFlag(tl.loc, req.Flag, req.Set); err != nil {
					return err
				}
				undo.Flags = append(undo.Flags, undoFlag{Account: tl.loc.Account, Message: tl.message,
					Mailbox: tl.loc.Mailbox, Flag: req.Flag, Prev: cur})
				n++
			}
			if n > 0 {
				res.Threads++
				res.Copies += n
			}
		}
		return w.finishAction(req.Kind, req.Label, &res, undo)
	})
	if err != nil {
		return res, fmt.Errorf("store: %s %d threads: %w", req.Kind, len(req.Threads), err)
	}
	return res, nil
}

func flagValue(f model.Flags, flag model.Flag) bool {
	switch flag {
	case model.FlagSeen:
		return f.Seen
	case model.FlagFlagged:
		return f.Flagged
	}
	return hasKeyword(f.Keywords, string(flag))
}

// ThreadsFlagged reports which of the threads have a starred (\Flagged)
// message copy.
func (s *Store) ThreadsFlagged(ctx context.Context, threads []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT m.thread_id FROM messages m JOIN locations l ON l.message = m.id
		WHERE l.flagged = 1 AND m.thread_id IN (SELECT value FROM json_each(?))`, mustJSON(threads))
	if err != nil {
		return nil, fmt.Errorf("store: starred threads: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: starred threads: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}

// ThreadMailboxes returns, per account, the mailboxes that hold a copy of
// a message of the thread.
func (s *Store) ThreadMailboxes(ctx context.Context, id int64) ([]model.Location, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT l.account, l.mailbox FROM messages m
		JOIN locations l ON l.message = m.id WHERE m.thread_id = ? ORDER BY l.account, l.mailbox`, id)
	if err != nil {
		return nil, fmt.Errorf("store: mailboxes of thread %d: %w", id, err)
	}
	defer rows.Close()
	var out []model.Location
	for rows.Next() {
		var l model.Location
		if err := rows.Scan(&l.Account, &l.Mailbox); err != nil {
			return nil, fmt.Errorf("store: mailboxes of thread %d: %w", id, err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// OlderThreads returns the threads of a section whose newest message is
// older than before, newest first (bulk "archive everything older than").
func (s *Store) OlderThreads(ctx context.Context, sec Section, before time.Time) ([]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM threads WHERE in_inbox = 1 AND section = ? AND latest < ?
		ORDER BY latest DESC, id DESC`, string(sec), before.Unix())
	if err != nil {
		return nil, fmt.Errorf("store: threads in %q before %s: %w", sec, before.Format(time.DateOnly), err)
	}
	return scanIDs(rows)
}

// SectionThreadIDs returns every thread id of a section, in display order.
func (s *Store) SectionThreadIDs(ctx context.Context, sec Section) ([]int64, error) {
	return s.OlderThreads(ctx, sec, time.Unix(1<<40, 0))
}

// InboxThreadsFrom returns the inbox threads with a message from sender
// (compared without case), newest first: the threads a bulk "archive this
// sender" acts on.
func (s *Store) InboxThreadsFrom(ctx context.Context, sender string) ([]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT t.id FROM threads t
		WHERE t.in_inbox = 1 AND t.id IN (SELECT thread_id FROM messages WHERE from_email = ? COLLATE NOCASE)
		ORDER BY t.latest DESC, t.id DESC`, sender)
	if err != nil {
		return nil, fmt.Errorf("store: inbox threads from %q: %w", sender, err)
	}
	return scanIDs(rows)
}
