package store

import (
	"database/sql"
	"fmt"
	"slices"

	"mailsift/model"
)

// batchIndex is what PutMessages knows about the rows its batch touches:
// loaded by preload in a few queries before the first write (the batch's
// locations, the messages with its Message-IDs, the messages referring
// to them) and kept current by the writer, so that storing and threading
// a message needs no lookup of its own. A nil index is empty.
type batchIndex struct {
	locs  map[locID]int64      // location -> message
	msgs  map[int64]*msgRow    // message id -> what the batch knows of it
	byMID map[string][]int64   // Message-ID -> messages with it
	byRef map[string][]int64   // Message-ID -> messages referring to it
	roles map[[2]string]string // (account, mailbox) -> role
	// locState holds the stored rows of the batch's locations.
	locState map[locID]locState
}

type locID struct{ account, mailbox, key string }

// locState is a stored location row: its message, UID, flags and
// keywords (JSON).
type locState struct {
	msg, uid int64
	flags    int
	kw       string
}

// msgRow is one message row as the batch index holds it. A row loaded
// only as a referrer knows its thread alone.
type msgRow struct {
	mid     string
	hash    sql.NullString
	hasBody bool
	size    int64
	thread  int64
	gone    bool // deleted in this batch
	// tr and locs are kept for messages inserted by the batch: what their
	// thread's aggregates need, and their locations (mailbox, key, seen).
	tr   *threadRow
	locs []batchLoc
}

type batchLoc struct {
	account, mailbox, key string
	seen                  bool
}

// setLoc records a location of a message inserted by the batch.
func (r *msgRow) setLoc(account, mailbox, key string, seen bool) {
	for i := range r.locs {
		if l := &r.locs[i]; l.account == account && l.mailbox == mailbox && l.key == key {
			l.seen = seen
			return
		}
	}
	r.locs = append(r.locs, batchLoc{account, mailbox, key, seen})
}

// isInbox reports whether a mailbox of the batch's account is an inbox
// (inboxCond: role inbox, or no role and named INBOX in any case).
func (b *batchIndex) isInbox(account, mailbox string) bool {
	if role := b.roles[[2]string{account, mailbox}]; role != "" {
		return role == string(model.RoleInbox)
	}
	return asciiUpper(mailbox) == "INBOX"
}

// asciiUpper upper-cases ASCII letters only, as SQLite's upper() does.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// merge records that thread from was merged into thread into. (Rows are
// rewritten rather than aliased: SQLite may give a deleted thread's id to
// the next thread created.)
func (b *batchIndex) merge(into, from int64) {
	if b == nil {
		return
	}
	for _, r := range b.msgs {
		if r.thread == from {
			r.thread = into
		}
	}
}

// thread returns message id's current thread (0: unknown).
func (b *batchIndex) thread(id int64) int64 {
	if b == nil {
		return 0
	}
	if r := b.msgs[id]; r != nil && !r.gone {
		return r.thread
	}
	return 0
}

// row returns the index's row for message id, a throwaway one when the
// index is nil or does not hold it.
func (b *batchIndex) row(id int64) *msgRow {
	if b != nil {
		if r := b.msgs[id]; r != nil {
			return r
		}
	}
	return &msgRow{}
}

// add records a message inserted by the batch.
func (b *batchIndex) add(id int64, r *msgRow, refs []string) {
	if b == nil {
		return
	}
	b.msgs[id] = r
	b.byMID[r.mid] = append(b.byMID[r.mid], id)
	b.addRefs(id, refs)
}

// addRefs records that message id refers to refs.
func (b *batchIndex) addRefs(id int64, refs []string) {
	if b == nil {
		return
	}
	for _, ref := range refs {
		if !slices.Contains(b.byRef[ref], id) {
			b.byRef[ref] = append(b.byRef[ref], id)
		}
	}
}

// preload fills the writer's batch index for msgs: the stored rows of
// the batch's locations, the messages with its Message-IDs and
// references, the messages referring to those, and the mailbox roles.
func (w *writer) preload(msgs []*model.Message, preps []putPrep) error {
	b := &batchIndex{locs: map[locID]int64{}, msgs: map[int64]*msgRow{}, byMID: map[string][]int64{},
		byRef: map[string][]int64{}, roles: map[[2]string]string{},
		locState: map[locID]locState{}}
	w.b = b
	keys := map[mailboxID][]string{}
	ids := map[string]bool{}
	for i, m := range msgs {
		if m == nil {
			continue
		}
		bx := mailboxID{m.Loc.Account, m.Loc.Mailbox}
		keys[bx] = append(keys[bx], locKey(m.Loc))
		ids[preps[i].mid] = true
		for _, r := range preps[i].refs {
			ids[r] = true
		}
	}
	for bx, ks := range keys {
		if err := w.preloadLocations(bx, ks); err != nil {
			return fmt.Errorf("batch locations: %w", err)
		}
	}
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	idsJSON := mustJSON(list)
	if err := w.preloadMessages(idsJSON); err != nil {
		return fmt.Errorf("batch messages: %w", err)
	}
	if err := w.preloadReferrers(idsJSON); err != nil {
		return fmt.Errorf("batch references: %w", err)
	}
	if err := w.preloadRoles(); err != nil {
		return fmt.Errorf("batch mailboxes: %w", err)
	}
	return nil
}

// mailboxID names one mailbox of one account.
type mailboxID struct{ account, mailbox string }

// preloadLocations loads the stored rows of the locations keys of
// mailbox bx, with their messages.
func (w *writer) preloadLocations(bx mailboxID, keys []string) error {
	rows, err := w.query(`SELECT m.id, m.message_id, m.content_hash, m.has_body, m.size, COALESCE(m.thread_id, 0), l.key,
			l.uid, l.seen | l.answered << 1 | l.flagged << 2 | l.deleted << 3 | l.draft << 4, l.keywords
			FROM locations l JOIN messages m ON m.id = l.message
			WHERE l.account = ? AND l.mailbox = ? AND l.key IN (SELECT value FROM json_each(?))`,
		bx.account, bx.mailbox, mustJSON(keys))
	if err != nil {
		return err
	}
	return w.b.scanMessages(rows, &bx)
}

// preloadMessages loads the messages whose Message-ID is in idsJSON.
func (w *writer) preloadMessages(idsJSON string) error {
	rows, err := w.query(`SELECT id, message_id, content_hash, has_body, size, COALESCE(thread_id, 0) FROM messages
		WHERE message_id IN (SELECT value FROM json_each(?))`, idsJSON)
	if err != nil {
		return err
	}
	return w.b.scanMessages(rows, nil)
}

// scanMessages adds the message rows to the index (a message already
// held keeps its row) and closes rows. With a mailbox, each row also
// carries a location of it (key, UID, flag bits, keywords).
func (b *batchIndex) scanMessages(rows *sql.Rows, withKey *mailboxID) error {
	defer rows.Close()
	for rows.Next() {
		var id int64
		var key string
		var st locState
		r := &msgRow{}
		dest := []any{&id, &r.mid, &r.hash, &r.hasBody, &r.size, &r.thread}
		if withKey != nil {
			dest = append(dest, &key, &st.uid, &st.flags, &st.kw)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if withKey != nil {
			lid := locID{withKey.account, withKey.mailbox, key}
			b.locs[lid] = id
			st.msg = id
			b.locState[lid] = st
		}
		if b.msgs[id] == nil {
			b.msgs[id] = r
			b.byMID[r.mid] = append(b.byMID[r.mid], id)
		}
	}
	return rows.Err()
}

// preloadReferrers loads the messages referring to a Message-ID in
// idsJSON (their thread only, unless already held).
func (w *writer) preloadReferrers(idsJSON string) error {
	b := w.b
	rows, err := w.query(`SELECT r.ref, r.message, COALESCE(m.thread_id, 0) FROM message_refs r
		JOIN messages m ON m.id = r.message WHERE r.ref IN (SELECT value FROM json_each(?))`, idsJSON)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ref string
		var id, thread int64
		if err := rows.Scan(&ref, &id, &thread); err != nil {
			return err
		}
		if b.msgs[id] == nil {
			b.msgs[id] = &msgRow{thread: thread}
		}
		b.byRef[ref] = append(b.byRef[ref], id)
	}
	return rows.Err()
}

// preloadRoles loads the role of every mailbox (for isInbox).
func (w *writer) preloadRoles() error {
	rows, err := w.query(`SELECT account, name, role FROM mailboxes`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var account, name, role string
		if err := rows.Scan(&account, &name, &role); err != nil {
			return err
		}
		w.b.roles[[2]string{account, name}] = role
	}
	return rows.Err()
}
