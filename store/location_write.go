package store

import (
	"slices"
	"strconv"

	"mailsift/model"
)

// locKey returns the stored key of a location: Key, or the decimal UID
// when a source left Key empty.
func locKey(l model.Location) string {
	if l.Key == "" && l.UID != 0 {
		return strconv.FormatUint(uint64(l.UID), 10)
	}
	return l.Key
}

// setLocation upserts a location pointing at message msg. The flags from
// the source are overlaid with local changes still waiting in the queue:
// a pending local change wins until the sync code acknowledges it.
func (w *writer) setLocation(loc model.Location, key string, msg int64, f model.Flags) error {
	return w.setLocationIn(loc, key, msg, 0, f)
}

// setLocationIn is setLocation for a message known to be in thread (0:
// look it up).
func (w *writer) setLocationIn(loc model.Location, key string, msg, thread int64, f model.Flags) error {
	var err error
	if !w.noPending {
		if f, err = w.overlayPending(loc.Account, loc.Mailbox, key, f); err != nil {
			return err
		}
	}
	kw := f.Keywords
	if kw == nil {
		kw = []string{}
	}
	kwJSON := mustJSON(kw)
	st := locState{msg: msg, uid: int64(loc.UID), flags: flagBits(f), kw: kwJSON}
	lid := locID{loc.Account, loc.Mailbox, key}
	if w.b != nil && w.b.locState[lid] == st {
		// Stored exactly so already (a body arriving for its envelope).
		if thread != 0 {
			w.dirty[thread] = true
			return nil
		}
		return w.markMessageThread(msg)
	}
	_, err = w.exec(`INSERT INTO locations(account, mailbox, key, uid, seen, answered, flagged, deleted, draft, keywords, message)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(account, mailbox, key) DO UPDATE SET uid = excluded.uid, seen = excluded.seen,
			answered = excluded.answered, flagged = excluded.flagged, deleted = excluded.deleted,
			draft = excluded.draft, keywords = excluded.keywords, message = excluded.message`,
		loc.Account, loc.Mailbox, key, int64(loc.UID), boolInt(f.Seen), boolInt(f.Answered), boolInt(f.Flagged),
		boolInt(f.Deleted), boolInt(f.Draft), kwJSON, msg)
	if err != nil {
		return err
	}
	if w.b != nil {
		w.b.locState[lid] = st
	}
	if r := w.b.row(msg); r.tr != nil {
		r.setLoc(loc.Account, loc.Mailbox, key, f.Seen)
	}
	if thread != 0 {
		w.dirty[thread] = true
		return nil
	}
	return w.markMessageThread(msg)
}

// overlayPending returns f with the flag changes still queued for the
// location applied, oldest first.
func (w *writer) overlayPending(account, mailbox, key string, f model.Flags) (model.Flags, error) {
	rows, err := w.query(`SELECT flag, value FROM pending_flags
		WHERE account = ? AND mailbox = ? AND key = ? ORDER BY id`, account, mailbox, key)
	if err != nil {
		return f, err
	}
	defer rows.Close()
	for rows.Next() {
		var flag string
		var v bool
		if err := rows.Scan(&flag, &v); err != nil {
			return f, err
		}
		f = applyFlag(f, model.Flag(flag), v)
	}
	return f, rows.Err()
}

// applyFlag returns f with one flag set or cleared.
func applyFlag(f model.Flags, flag model.Flag, set bool) model.Flags {
	switch flag {
	case model.FlagSeen:
		f.Seen = set
	case model.FlagAnswered:
		f.Answered = set
	case model.FlagFlagged:
		f.Flagged = set
	case model.FlagDeleted:
		f.Deleted = set
	case model.FlagDraft:
		f.Draft = set
	default:
		var kw []string
		found := false
		for _, k := range f.Keywords {
			if k == string(flag) {
				found = true
				if !set {
					continue
				}
			}
			kw = append(kw, k)
		}
		if set && !found {
			kw = append(kw, string(flag))
			slices.Sort(kw)
		}
		f.Keywords = kw
	}
	return f
}

// flagBits packs the system flags as locations store them.
func flagBits(f model.Flags) int {
	return boolInt(f.Seen) | boolInt(f.Answered)<<1 | boolInt(f.Flagged)<<2 | boolInt(f.Deleted)<<3 | boolInt(f.Draft)<<4
}
