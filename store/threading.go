package store

import (
	"database/sql"
	"strconv"
	"strings"
	"time"

	"mailsift/model"
)

// subjectWindow is how long after a message with the same normalised
// subject a message without references may be sent and still join its
// thread by subject (thread_subject.go).
const subjectWindow = 60 * 24 * time.Hour

// newThread is a thread created by the current batch, not yet written.
type newThread struct {
	subject, norm string
	latest        int64
	// slow is set when something other than plain inserts touched the
	// thread's messages: finish then reads its aggregates back from the
	// database instead of computing them from the batch.
	slow bool
}

// messageRefs returns the Message-IDs a message refers to (References,
// then In-Reply-To), trimmed, without duplicates or its own.
func messageRefs(mid string, m *model.Message) []string {
	refs := make([]string, 0, len(m.References)+len(m.InReplyTo))
	seen := map[string]bool{mid: true}
	for _, list := range [][]string{m.References, m.InReplyTo} {
		for _, r := range list {
			r = strings.Trim(strings.TrimSpace(r), "<>")
			if r == "" || seen[r] {
				continue
			}
			seen[r] = true
			refs = append(refs, r)
		}
	}
	return refs
}

// assignThread threads message id (currently in thread cur, 0 if none) by
// JWZ grouping: messages linked by Message-ID through References and
// In-Reply-To share a thread, in both directions, and a message linking
// two threads merges them. Joins by subject are made for the whole batch
// by subjectJoins (thread_subject.go), once every message of the batch
// is in its thread.
func (w *writer) assignThread(id, cur int64, mid string, m *model.Message) error {
	refs := messageRefs(mid, m)
	if err := w.insertRefs(id, refs); err != nil {
		return err
	}
	keep, _, err := w.pickThread(id, cur, mid, refs, m)
	if err != nil {
		return err
	}
	if _, err := w.exec(`UPDATE messages SET thread_id = ? WHERE id = ?`, keep, id); err != nil {
		return err
	}
	if err := w.bumpLatest(keep, unixOrZero(m.Date)); err != nil {
		return err
	}
	w.b.row(id).thread = keep
	w.b.addRefs(id, refs)
	w.dirty[keep] = true
	w.grow(keep)
	return nil
}

// insertRefs records the Message-IDs message id refers to.
func (w *writer) insertRefs(id int64, refs []string) error {
	// In groups of 1, 2, 4 or 8 rows (padded with a repeat, ignored):
	// four statements with fixed parameter counts stay prepared.
	for len(refs) > 0 {
		size := 1
		for size < len(refs) && size < 8 {
			size *= 2
		}
		n := min(len(refs), size)
		args := make([]any, 0, size+1)
		args = append(args, id)
		rows := make([]string, size)
		for i := range size {
			args = append(args, refs[min(i, n-1)])
			rows[i] = "(?1, ?" + strconv.Itoa(i+2) + ")"
		}
		if _, err := w.exec(`INSERT OR IGNORE INTO message_refs(message, ref) VALUES `+strings.Join(rows, ", "), args...); err != nil {
			return err
		}
		refs = refs[n:]
	}
	return nil
}

// candQuery returns the query that finds the threads of messages whose
// Message-ID is one of the first n parameters or that refer to one of
// them, other than message ?(n+1).
func candQuery(n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = "?" + strconv.Itoa(i+1)
	}
	in, self := strings.Join(ps, ", "), "?"+strconv.Itoa(n+1)
	return `SELECT thread_id FROM messages WHERE message_id IN (` + in + `) AND id <> ` + self + `
	UNION ALL SELECT m.thread_id FROM message_refs r JOIN messages m ON m.id = r.message
	WHERE r.ref IN (` + in + `) AND r.message <> ` + self
}

// pickThread finds the thread for message id (which may not be inserted
// yet) with Message-ID mid referring to refs, currently in thread cur (0
// if none): it merges the threads the message links and creates a thread
// when there is none (created true, latest set to the message's date).
func (w *writer) pickThread(id, cur int64, mid string, refs []string, m *model.Message) (keep int64, created bool, err error) {
	cands := map[int64]bool{}
	if cur != 0 {
		cands[cur] = true
	}
	// Parents present in the store and siblings sharing a reference;
	// other copies of this message and children that arrived first: the
	// messages with the message's own Message-ID or one of its references
	// as their Message-ID or among their references.
	all := append([]string{mid}, refs...)
	if w.b != nil {
		// PutMessages preloaded them for its whole batch.
		w.b.linkedThreads(cands, id, all)
	} else if err := w.queryLinkedThreads(cands, id, mid, all); err != nil {
		return 0, false, err
	}
	norm := NormalizeSubject(m.Subject)
	date := unixOrZero(m.Date)
	for t := range cands {
		if keep == 0 || t < keep {
			keep = t
		}
	}
	if keep == 0 {
		if keep, err = w.createThread(m.Subject, norm, date); err != nil {
			return 0, false, err
		}
		created = true
	}
	for t := range cands {
		if t != keep {
			if err := w.mergeThread(keep, t); err != nil {
				return 0, false, err
			}
		}
	}
	return keep, created, nil
}

// linkedThreads adds to cands the threads of the batch's messages other
// than id whose Message-ID is in ids or that refer to one of ids.
func (b *batchIndex) linkedThreads(cands map[int64]bool, id int64, ids []string) {
	for _, k := range ids {
		for _, list := range [2][]int64{b.byMID[k], b.byRef[k]} {
			for _, x := range list {
				if x == id {
					continue
				}
				if r := b.msgs[x]; r != nil && !r.gone && r.thread != 0 {
					cands[r.thread] = true
				}
			}
		}
	}
}

// queryLinkedThreads is linkedThreads for a writer without a batch index:
// it asks the database, in groups of 1, 2, 4 or 8 IDs (padded with mid)
// so that four statements with fixed parameter counts stay prepared.
func (w *writer) queryLinkedThreads(cands map[int64]bool, id int64, mid string, ids []string) error {
	for len(ids) > 0 {
		size := 1
		for size < len(ids) && size < 8 {
			size *= 2
		}
		n := min(len(ids), size)
		args := make([]any, 0, size+1)
		for i := range size {
			if i < n {
				args = append(args, ids[i])
			} else {
				args = append(args, mid)
			}
		}
		args = append(args, id)
		if err := w.addThreads(cands, candQuery(size), args...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// addThreads adds to cands the non-null thread ids query q returns.
func (w *writer) addThreads(cands map[int64]bool, q string, args ...any) error {
	rows, err := w.query(q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var t sql.NullInt64
		if err := rows.Scan(&t); err != nil {
			return err
		}
		if t.Valid && t.Int64 != 0 {
			cands[t.Int64] = true
		}
	}
	return rows.Err()
}

// addrKey is an email address as threading compares them: trimmed and
// lower-cased.
func addrKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// mergeThread moves every message of thread from into thread into and
// deletes from. The user's override moves along when into has none;
// triage results of from are dropped (the merged thread is new content).
func (w *writer) mergeThread(into, from int64) error {
	if _, err := w.exec(`UPDATE messages SET thread_id = ? WHERE thread_id = ?`, into, from); err != nil {
		return err
	}
	if nf := w.newThreads[from]; nf != nil {
		// Not written yet: no override, no triage, no row to delete.
		if err := w.bumpLatest(into, nf.latest); err != nil {
			return err
		}
		if nf.slow {
			w.slowThread(into)
		}
		delete(w.newThreads, from)
	} else {
		if _, err := w.exec(`UPDATE OR IGNORE overrides SET thread_id = ? WHERE thread_id = ?`, into, from); err != nil {
			return err
		}
		var latest int64
		if err := w.queryRow(`SELECT latest FROM threads WHERE id = ?`, from).Scan(&latest); err != nil {
			return err
		}
		if err := w.bumpLatest(into, latest); err != nil {
			return err
		}
		if _, err := w.exec(`DELETE FROM threads WHERE id = ?`, from); err != nil {
			return err
		}
	}
	w.b.merge(into, from)
	delete(w.dirty, from)
	w.dirty[into] = true
	if w.grown != nil {
		delete(w.grown, from)
		w.grown[into] = true
	}
	return nil
}

// createThread starts a thread. In a PutMessages batch it is only
// recorded (finish writes it); otherwise it is inserted at once.
func (w *writer) createThread(subject, norm string, latest int64) (int64, error) {
	if w.b == nil {
		res, err := w.exec(`INSERT INTO threads(subject, norm_subject, latest) VALUES(?, ?, ?)`, subject, norm, latest)
		if err != nil {
			return 0, err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return 0, err
		}
		w.fresh[id] = true
		return id, nil
	}
	if w.nextThread == 0 {
		var maxID int64
		if err := w.queryRow(`SELECT COALESCE(max(id), 0) FROM threads`).Scan(&maxID); err != nil {
			return 0, err
		}
		w.nextThread = maxID + 1
	}
	id := w.nextThread
	w.nextThread++
	if w.newThreads == nil {
		w.newThreads = map[int64]*newThread{}
	}
	w.newThreads[id] = &newThread{subject: subject, norm: norm, latest: latest}
	w.fresh[id] = true
	return id, nil
}

// bumpLatest raises a thread's latest activity to at least date.
func (w *writer) bumpLatest(thread, date int64) error {
	if nt := w.newThreads[thread]; nt != nil {
		nt.latest = max(nt.latest, date)
		return nil
	}
	_, err := w.exec(`UPDATE threads SET latest = max(latest, ?) WHERE id = ?`, date, thread)
	return err
}

// slowThread marks a thread created by this batch for a full recompute.
func (w *writer) slowThread(thread int64) {
	if nt := w.newThreads[thread]; nt != nil {
		nt.slow = true
	}
}
