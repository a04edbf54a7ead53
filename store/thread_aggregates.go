package store

import (
	"cmp"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"mailsift/model/contract"
)

// writeNewThreads inserts the threads created by the batch: a thread whose
// messages were only inserted gets its aggregates computed from the batch
// (and leaves the recompute list); the others are inserted bare for
// recomputeThreads to fill in. A thread left without messages is dropped.
func (w *writer) writeNewThreads() error {
	if len(w.newThreads) == 0 {
		return nil
	}
	members := map[int64][]threadRow{}
	order := map[int64][]int64{}
	for id, r := range w.b.msgs {
		nt := w.newThreads[r.thread]
		if nt == nil || r.gone {
			continue
		}
		if r.tr == nil {
			nt.slow = true
			continue
		}
		tr := *r.tr
		tr.unread, tr.inbox = true, false
		for _, l := range r.locs {
			tr.unread = tr.unread && !l.seen
			tr.inbox = tr.inbox || w.b.isInbox(l.account, l.mailbox)
		}
		members[r.thread] = append(members[r.thread], tr)
		order[r.thread] = append(order[r.thread], id)
	}
	ids := make([]int64, 0, len(w.newThreads))
	for id := range w.newThreads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		nt := w.newThreads[id]
		ms := members[id]
		if nt.slow || len(ms) == 0 {
			if _, err := w.exec(`INSERT INTO threads(id, subject, norm_subject, latest) VALUES(?, ?, ?, ?)`,
				id, nt.subject, nt.norm, nt.latest); err != nil {
				return fmt.Errorf("new thread %d: %w", id, err)
			}
			w.dirty[id] = true // recomputed (or deleted, when empty) with the others
			continue
		}
		// Oldest first, as recomputeThreads reads them (date, then
		// Message-ID, then id).
		mids := order[id]
		idx := make([]int, len(ms))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int {
			if c := cmp.Compare(ms[a].date, ms[b].date); c != 0 {
				return c
			}
			if c := strings.Compare(ms[a].mid, ms[b].mid); c != 0 {
				return c
			}
			return cmp.Compare(mids[a], mids[b])
		})
		sorted := make([]threadRow, len(ms))
		for i, k := range idx {
			sorted[i] = ms[k]
		}
		args := append([]any{id}, w.aggregate(sorted)...)
		if _, err := w.exec(`INSERT INTO threads(id, subject, norm_subject, latest, count, unread, has_attachment,
			has_body, from_name, from_email, participants, content_hash, in_inbox)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...); err != nil {
			return fmt.Errorf("new thread %d: %w", id, err)
		}
		delete(w.dirty, id)
	}
	w.newThreads = nil
	return nil
}

// threadRow is one message as the thread aggregates need it.
type threadRow struct {
	mid, hash, subject, norm, fromName, fromEmail string
	date                                          int64
	body, att, unread, inbox                      bool
}

// recomputeThreads refreshes the cached aggregates of the threads ids
// (see storeThread), reading their messages in one query.
func (w *writer) recomputeThreads(ids []int64) error {
	byThread := make(map[int64][]threadRow, len(ids))
	q := `SELECT m.thread_id, m.message_id, COALESCE(m.content_hash, ''), m.date, m.subject,
		m.norm_subject, m.from_name, m.from_email, m.has_body, m.has_attachment,
		NOT EXISTS(SELECT 1 FROM locations l WHERE l.message = m.id AND l.seen = 1),
		EXISTS(SELECT 1 FROM locations l LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
			WHERE l.message = m.id AND ` + inboxCond + `)
		FROM messages m WHERE m.thread_id IN (SELECT value FROM json_each(?)) ORDER BY m.thread_id, m.date, m.message_id, m.id`
	rows, err := w.query(q, mustJSON(ids))
	if err != nil {
		return fmt.Errorf("recompute threads: %w", err)
	}
	for rows.Next() {
		var t int64
		var r threadRow
		if err := rows.Scan(&t, &r.mid, &r.hash, &r.date, &r.subject, &r.norm, &r.fromName, &r.fromEmail, &r.body, &r.att, &r.unread, &r.inbox); err != nil {
			rows.Close()
			return fmt.Errorf("recompute threads: %w", err)
		}
		byThread[t] = append(byThread[t], r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("recompute threads: %w", err)
	}
	for _, id := range ids {
		if err := w.storeThread(id, byThread[id]); err != nil {
			return fmt.Errorf("recompute thread %d: %w", id, err)
		}
	}
	return nil
}

// storeThread refreshes the cached aggregates of thread id (latest,
// counts, sender, participants, content hash, section) from its messages
// ms (oldest first), deleting the thread when ms is empty.
func (w *writer) storeThread(id int64, ms []threadRow) error {
	if len(ms) == 0 {
		_, err := w.exec(`DELETE FROM threads WHERE id = ?`, id)
		return err
	}
	a := w.aggregate(ms)
	_, err := w.exec(`UPDATE threads SET subject = ?, norm_subject = ?, latest = ?, count = ?, unread = ?,
		has_attachment = ?, has_body = ?, from_name = ?, from_email = ?, participants = ?, content_hash = ?,
		in_inbox = ? WHERE id = ?`, append(a, id)...)
	if err != nil {
		return err
	}
	if w.fresh[id] {
		// Created by this writer: no override or triage can exist yet, and
		// a new thread starts untriaged.
		return nil
	}
	return w.updateSection(id)
}

// aggregate computes a thread's cached columns from its messages ms
// (oldest first): subject, norm_subject, latest, count, unread,
// has_attachment, has_body, from_name, from_email, participants,
// content_hash, in_inbox.
func (w *writer) aggregate(ms []threadRow) []any {
	var latest int64
	unread := 0
	var att, body, inbox bool
	subject, norm := "", ""
	h := sha256.New()
	var parts []string
	seenPart := map[string]bool{}
	for _, r := range ms {
		latest = max(latest, r.date)
		if r.unread {
			unread++
		}
		att = att || r.att
		body = body || r.body
		inbox = inbox || r.inbox
		if subject == "" && strings.TrimSpace(r.subject) != "" {
			subject, norm = r.subject, r.norm
		}
		fmt.Fprintf(h, "%s\x00%s\n", r.mid, r.hash)
		p := r.fromName
		if p == "" {
			p = r.fromEmail
		}
		if p != "" && !seenPart[strings.ToLower(p)] && len(parts) < 20 {
			seenPart[strings.ToLower(p)] = true
			parts = append(parts, p)
		}
	}
	from := ms[len(ms)-1]
	if w.s.principal != "" {
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].fromEmail != w.s.principal {
				from = ms[i]
				break
			}
		}
	}
	if parts == nil {
		parts = []string{}
	}
	return []any{subject, norm, latest, len(ms), unread, boolInt(att), boolInt(body), from.fromName,
		from.fromEmail, mustJSON(parts), hex.EncodeToString(h.Sum(nil)), boolInt(inbox)}
}

// updateSection recomputes where a thread is shown: the user's override,
// else the latest triage (spam or phishing go to quarantine), else
// untriaged.
func (w *writer) updateSection(id int64) error {
	var override string
	err := w.queryRow(`SELECT category FROM overrides WHERE thread_id = ?`, id).Scan(&override)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var key sql.NullString
	var resJSON string
	err = w.queryRow(`SELECT cache_key, result_json FROM triage WHERE thread_id = ?
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, id).Scan(&key, &resJSON)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	sec := SectionUntriaged
	if key.Valid {
		sec = sectionOf(decodeResult(resJSON))
	}
	// A scheduling follow-up that came due shows the thread in Actionable.
	if up, err := w.resurfaced(id); err != nil {
		return err
	} else if up && sec != SectionQuarantine {
		sec = SectionActionable
	}
	if override != "" {
		sec = Section(override)
	}
	if snoozed, err := w.threadSnoozed(id); err != nil {
		return err
	} else if snoozed {
		sec = SectionSnoozed
	}
	_, err = w.exec(`UPDATE threads SET section = ?, triage_key = ? WHERE id = ?`, string(sec), key, id)
	return err
}

// sectionOf is the section a triage result puts a thread in.
func sectionOf(res contract.Result) Section {
	if res.IsSpam || res.IsPhishing {
		return SectionQuarantine
	}
	switch res.Category {
	case contract.CategoryUrgent:
		return SectionUrgent
	case contract.CategoryActionable:
		return SectionActionable
	case contract.CategoryInformational:
		return SectionInformational
	case contract.CategoryLowPriority:
		return SectionLowPriority
	}
	return SectionUntriaged
}
