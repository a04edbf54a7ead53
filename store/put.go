package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// subjectWindow is how far apart in time a message without references may
// be from a thread's latest activity and still join it by subject.
const subjectWindow = 60 * 24 * time.Hour

// writer carries one write transaction and the threads it touched.
type writer struct {
	ctx   context.Context
	tx    *sql.Tx
	s     *Store
	dirty map[int64]bool
	// stmts caches prepared statements for the transaction (closed with it).
	stmts map[string]*sql.Stmt
	// fresh holds the threads created by this writer: they can have no
	// override or triage record yet, so their section stays untriaged.
	fresh map[int64]bool
	// ftsPending holds messages whose search entry is written by finish,
	// in one statement: FTS5 flushes its pending terms to disk at every
	// statement savepoint, so indexing message by message between other
	// writes produced one tiny segment (and merge work) per message. It
	// maps each message to its search rowid.
	ftsPending map[int64]int64
	// nextID is the id the next inserted message gets (0: not read yet).
	nextID int64
	// noPending is set when no flag change is queued, so locations need
	// no overlay (PutMessages checks once per batch).
	noPending bool
	// deferGC makes gcMessage list a message left without a location in
	// orphans for CollectOrphans instead of deleting it.
	deferGC bool
	// b is what PutMessages preloaded about its batch (nil for other
	// writers, which look rows up one by one).
	b *batchIndex
	// ftsDel holds the indexed values of search entries to delete; finish
	// deletes them in one statement before indexing (see ftsPending).
	ftsDel []ftsEntry
	// newThreads holds the threads created by PutMessages, written by
	// finish in one insert each with their aggregates (foreign keys are
	// deferred to the commit meanwhile); newBySubject indexes them by
	// normalised subject; nextThread is the id the next one gets.
	newThreads   map[int64]*newThread
	newBySubject map[string][]int64
	nextThread   int64
}

// newThread is a thread created by the current batch, not yet written.
type newThread struct {
	subject, norm string
	latest        int64
	// slow is set when something other than plain inserts touched the
	// thread's messages: finish then reads its aggregates back from the
	// database instead of computing them from the batch.
	slow bool
}

// ftsEntry is one message's search entry as indexed: FTS5 needs the
// indexed values to delete an entry of an external-content table.
type ftsEntry struct {
	rowid                   int64
	from, to, subject, body string
}

func (s *Store) newWriter(ctx context.Context, tx *sql.Tx) *writer {
	return &writer{ctx: ctx, tx: tx, s: s, dirty: map[int64]bool{}, stmts: map[string]*sql.Stmt{},
		fresh: map[int64]bool{}, ftsPending: map[int64]int64{}}
}

func (w *writer) prep(q string) (*sql.Stmt, error) {
	if st, ok := w.stmts[q]; ok {
		return st, nil
	}
	st, err := w.tx.PrepareContext(w.ctx, q)
	if err != nil {
		return nil, err
	}
	w.stmts[q] = st
	return st, nil
}

func (w *writer) exec(q string, args ...any) (sql.Result, error) {
	st, err := w.prep(q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(w.ctx, args...)
}

func (w *writer) queryRow(q string, args ...any) *sql.Row {
	st, err := w.prep(q)
	if err != nil {
		return w.tx.QueryRowContext(w.ctx, q, args...) // reports the same error on Scan
	}
	return st.QueryRowContext(w.ctx, args...)
}

func (w *writer) query(q string, args ...any) (*sql.Rows, error) {
	st, err := w.prep(q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(w.ctx, args...)
}

// locKey returns the stored key of a location: Key, or the decimal UID
// when a source left Key empty.
func locKey(l model.Location) string {
	if l.Key == "" && l.UID != 0 {
		return strconv.FormatUint(uint64(l.UID), 10)
	}
	return l.Key
}

// PutMessages inserts or updates messages at their locations and threads
// them. The same message (Message-ID and content hash) at two locations is
// one message row. An envelope-only message (HasBody false, no content
// hash) is keyed by its location until its body arrives; then it is
// deduplicated against copies already stored.
func (s *Store) PutMessages(ctx context.Context, msgs []*model.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	preps := prepareMessages(msgs)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var pending bool
		if err := w.queryRow(`SELECT EXISTS(SELECT 1 FROM pending_flags)`).Scan(&pending); err != nil {
			return err
		}
		w.noPending = !pending
		// Threads created by the batch are inserted by finish, after the
		// messages that point at them: the foreign keys are checked at
		// commit.
		if _, err := w.exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
		if err := w.preload(msgs, preps); err != nil {
			return err
		}
		accounts := map[string]bool{}
		for i, m := range msgs {
			if m == nil {
				continue
			}
			if !accounts[m.Loc.Account] {
				accounts[m.Loc.Account] = true
				if _, err := w.exec(`INSERT OR IGNORE INTO accounts(name) VALUES(?)`, m.Loc.Account); err != nil {
					return err
				}
			}
			if err := w.put(m, &preps[i]); err != nil {
				return fmt.Errorf("message %q at %s/%s/%s: %w", m.MessageID, m.Loc.Account, m.Loc.Mailbox, locKey(m.Loc), err)
			}
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: put messages: %w", err)
	}
	return nil
}

// putPrep is the part of storing a message computed outside the write
// transaction, on all cores: column values and references.
type putPrep struct {
	mid  string
	args []any // messageArgs
	refs []string
}

// prepareMessages computes the putPrep of every message in parallel (the
// write transaction itself runs on one connection, one core).
func prepareMessages(msgs []*model.Message) []putPrep {
	preps := make([]putPrep, len(msgs))
	workers := min(runtime.GOMAXPROCS(0), (len(msgs)+15)/16)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(msgs); i += workers {
				m := msgs[i]
				if m == nil {
					continue
				}
				mid := storedMessageID(m)
				preps[i] = putPrep{mid: mid, args: messageArgs(m), refs: messageRefs(mid, m)}
			}
		}()
	}
	wg.Wait()
	return preps
}

// storedMessageID is the Message-ID a message is stored under: its own,
// else one derived from its content hash or, for an envelope, its
// location.
func storedMessageID(m *model.Message) string {
	mid := strings.TrimSpace(m.MessageID)
	if mid == "" {
		if m.ContentHash != "" {
			mid = "mailsift-" + m.ContentHash
		} else {
			mid = "mailsift-loc-" + m.Loc.Account + "/" + m.Loc.Mailbox + "/" + locKey(m.Loc)
		}
	}
	return mid
}

func (w *writer) put(m *model.Message, p *putPrep) error {
	key := locKey(m.Loc)
	if key == "" {
		return errors.New("location has neither key nor uid")
	}
	mid := p.mid
	hash := m.ContentHash

	// What the location holds now (PutMessages preloaded it).
	b := w.b
	lid := locID{m.Loc.Account, m.Loc.Mailbox, key}
	locMsg := b.locs[lid]
	var locHash sql.NullString
	var locMID string
	var locHasBody bool
	if r := b.msgs[locMsg]; locMsg != 0 && r != nil {
		locHash, locMID, locHasBody = r.hash, r.mid, r.hasBody
	}

	var target, thread int64
	var targetHasBody bool
	if hash != "" {
		for _, x := range b.byMID[mid] {
			if r := b.msgs[x]; !r.gone && r.hash.Valid && r.hash.String == hash {
				target, targetHasBody = x, r.hasBody
				break
			}
		}
	}
	if hash == "" && !m.HasBody && m.Size > 0 && locMsg == 0 {
		// The envelope of a message stored with its body in another
		// folder already (a copy; Gmail shows every label as a folder and
		// everything again in All Mail): the same Message-ID and size is
		// the same message, whose body need not be fetched again.
		for _, x := range b.byMID[mid] {
			if r := b.msgs[x]; !r.gone && r.hasBody && r.size == m.Size {
				target, targetHasBody = x, true
				break
			}
		}
	}
	switch {
	case target != 0:
		// A copy of this exact message is stored already.
		if !targetHasBody && m.HasBody {
			if err := w.updateMessage(target, mid, m, p); err != nil {
				return err
			}
		}
	case locMsg != 0 && locMID == mid && (!locHash.Valid || hash == "" || locHash.String == hash):
		// Same message at the same location: an envelope being refreshed,
		// or its body arriving.
		target = locMsg
		if !locHasBody && (m.HasBody || !locHash.Valid) {
			if err := w.updateMessage(target, mid, m, p); err != nil {
				return err
			}
		}
	default:
		id, tid, err := w.insertMessage(mid, m, p)
		if err != nil {
			return err
		}
		target, thread = id, tid
	}
	if thread == 0 {
		thread = b.thread(target)
	}
	if err := w.setLocationIn(m.Loc, key, target, thread, m.Flags); err != nil {
		return err
	}
	b.locs[lid] = target
	if locMsg != 0 && locMsg != target {
		w.slowThread(b.thread(locMsg))
		if err := w.gcMessage(locMsg); err != nil {
			return err
		}
	}
	return nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

func addrText(as ...model.Address) string {
	var b strings.Builder
	for _, a := range as {
		if a.Name == "" && a.Email == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// messageArgs are the column values shared by insert and update, in the
// order of messageCols.
const messageCols = `from_name, from_email, sender_json, to_json, cc_json, bcc_json, reply_to_json,
	in_reply_to_json, references_json, date, subject, norm_subject, text, html_text, headers_json,
	attachments_json, problems_json, size, has_body, has_attachment, from_text, to_text`

func messageArgs(m *model.Message) []any {
	recips := append(append(append([]model.Address{}, m.To...), m.Cc...), m.Bcc...)
	text, html := m.Text, m.HTMLText
	headers := m.Headers
	if headers == nil {
		headers = map[string][]string{}
	}
	return []any{
		m.From.Name, strings.ToLower(m.From.Email), mustJSON(m.Sender), mustJSON(nonNilAddrs(m.To)), mustJSON(nonNilAddrs(m.Cc)),
		mustJSON(nonNilAddrs(m.Bcc)), mustJSON(nonNilAddrs(m.ReplyTo)), mustJSON(nonNilStrings(m.InReplyTo)),
		mustJSON(nonNilStrings(m.References)), unixOrZero(m.Date), m.Subject, NormalizeSubject(m.Subject),
		text, html, mustJSON(headers), mustJSON(nonNilAtt(m.Attachments)), mustJSON(nonNilStrings(m.Problems)),
		m.Size, boolInt(m.HasBody), boolInt(len(m.Attachments) > 0), addrText(m.From), addrText(recips...),
	}
}

func nonNilAddrs(a []model.Address) []model.Address {
	if a == nil {
		return []model.Address{}
	}
	return a
}

func nonNilStrings(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

func nonNilAtt(a []model.Attachment) []model.Attachment {
	if a == nil {
		return []model.Attachment{}
	}
	return a
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

// newMessageID returns the id for a new message row: the ids SQLite
// would pick (max + 1), known before the insert so the row is written
// once, with its thread and search rowid.
func (w *writer) newMessageID() (int64, error) {
	if w.nextID == 0 {
		var maxID int64
		if err := w.queryRow(`SELECT COALESCE(max(id), 0) FROM messages`).Scan(&maxID); err != nil {
			return 0, err
		}
		w.nextID = maxID + 1
	}
	id := w.nextID
	w.nextID++
	return id, nil
}

func (w *writer) insertMessage(mid string, m *model.Message, p *putPrep) (id, thread int64, err error) {
	id, err = w.newMessageID()
	if err != nil {
		return 0, 0, err
	}
	refs := p.refs
	date := unixOrZero(m.Date)
	thread, created, err := w.pickThread(id, 0, mid, refs, m)
	if err != nil {
		return 0, 0, err
	}
	// The date-ordered search rowid without a lookup: the unique index on
	// fts_rowid reports the rare collision (same second, same low bits of
	// the id), and only then is a free rowid searched for. An envelope
	// gets none: it is indexed for search when its body arrives, so that
	// the body's arrival is an insert into the index, not a delete and an
	// insert.
	const insertQ = `INSERT INTO messages(id, message_id, content_hash, thread_id, fts_rowid, ` + messageCols + `)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	var rowid any
	if m.HasBody {
		rowid = date*ftsShift + id%ftsShift
	}
	args := append([]any{id, mid, nullable(m.ContentHash), thread, rowid}, p.args...)
	if err := w.execRowid(insertQ, args, 4, id, date); err != nil {
		return 0, 0, err
	}
	if m.HasBody {
		w.ftsPending[id] = args[4].(int64) // as execRowid left it
	}
	a := p.args
	w.b.add(id, &msgRow{mid: mid, hash: sql.NullString{String: m.ContentHash, Valid: m.ContentHash != ""},
		hasBody: m.HasBody, size: m.Size, thread: thread, tr: &threadRow{mid: mid, hash: m.ContentHash,
			subject: a[10].(string), norm: a[11].(string), fromName: a[0].(string), fromEmail: a[1].(string),
			date: date, body: m.HasBody, att: len(m.Attachments) > 0}}, refs)
	if len(m.Raw) > 0 {
		if _, err := w.exec(`INSERT OR REPLACE INTO raw_messages(message, raw) VALUES(?, ?)`, id, m.Raw); err != nil {
			return 0, 0, err
		}
	}
	if err := w.insertRefs(id, refs); err != nil {
		return 0, 0, err
	}
	if !created {
		if err := w.bumpLatest(thread, date); err != nil {
			return 0, 0, err
		}
	}
	w.dirty[thread] = true
	return id, thread, nil
}

// updateMessage fills in a stored message's row (its body arriving, or
// a refreshed envelope). The search entry is replaced by finish; the
// message is threaded again only when its links or date changed.
func (w *writer) updateMessage(id int64, mid string, m *model.Message, p *putPrep) error {
	var cur, oldRowid sql.NullInt64
	var oldIRT, oldRefs string
	var oldDate int64
	var e ftsEntry
	err := w.queryRow(`SELECT m.thread_id, m.in_reply_to_json, m.references_json, m.date, f.fts_rowid,
		COALESCE(f.from_text, ''), COALESCE(f.to_text, ''), COALESCE(f.subject, ''), COALESCE(f.body, '')
		FROM messages m LEFT JOIN messages_fts_src f ON f.id = m.id WHERE m.id = ?`, id).Scan(&cur, &oldIRT, &oldRefs, &oldDate, &oldRowid, &e.from, &e.to, &e.subject, &e.body)
	if err != nil {
		return err
	}
	if _, pending := w.ftsPending[id]; oldRowid.Valid && !pending {
		e.rowid = oldRowid.Int64
		w.ftsDel = append(w.ftsDel, e)
	}
	date := unixOrZero(m.Date)
	var rowid any
	if m.HasBody {
		rowid = date*ftsShift + id%ftsShift
		if oldRowid.Valid && oldRowid.Int64 == rowid {
			rowid = oldRowid.Int64
		}
	}
	args := append([]any{nullable(m.ContentHash), rowid}, p.args...)
	args = append(args, id)
	if err := w.execRowid(`UPDATE messages SET content_hash = COALESCE(?, content_hash), fts_rowid = ?, (`+messageCols+`) =
		(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE id = ?`, args, 1, id, date); err != nil {
		return err
	}
	if m.HasBody {
		w.ftsPending[id] = args[1].(int64) // as execRowid left it
	}
	if len(m.Raw) > 0 {
		if _, err := w.exec(`INSERT OR REPLACE INTO raw_messages(message, raw) VALUES(?, ?)`, id, m.Raw); err != nil {
			return err
		}
	}
	r := w.b.row(id)
	if r.tr != nil {
		w.slowThread(r.thread)
	}
	if m.ContentHash != "" {
		r.hash = sql.NullString{String: m.ContentHash, Valid: true}
	}
	r.hasBody = m.HasBody
	r.size = m.Size
	// Same Message-ID (the callers guarantee it), same links and date:
	// threading would pick the thread it is in.
	if cur.Valid && cur.Int64 != 0 && oldDate == date && oldIRT == p.args[7] && oldRefs == p.args[8] {
		w.dirty[cur.Int64] = true
		return nil
	}
	return w.assignThread(id, cur.Int64, mid, m)
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

// markThreads marks the threads whose ids query q returns for finish to
// recompute.
func (w *writer) markThreads(q string, args ...any) error {
	rows, err := w.tx.QueryContext(w.ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		w.dirty[id] = true
	}
	return rows.Err()
}

func (w *writer) markMessageThread(msg int64) error {
	if t := w.b.thread(msg); t != 0 {
		w.dirty[t] = true
		return nil
	}
	var tid sql.NullInt64
	err := w.queryRow(`SELECT thread_id FROM messages WHERE id = ?`, msg).Scan(&tid)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if tid.Valid {
		w.dirty[tid.Int64] = true
	}
	return nil
}

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
			sortStrings(kw)
		}
		f.Keywords = kw
	}
	return f
}

func sortStrings(a []string) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// gcMessage deletes a message row (with its search entry, references and
// raw bytes) when no location points at it any more.
func (w *writer) gcMessage(id int64) error {
	var n int
	if err := w.queryRow(`SELECT count(*) FROM locations WHERE message = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := w.markMessageThread(id); err != nil {
		return err
	}
	if w.deferGC {
		_, err := w.exec(`INSERT OR IGNORE INTO orphans(message) VALUES(?)`, id)
		return err
	}
	if err := w.ftsDelete(id); err != nil {
		return err
	}
	delete(w.ftsPending, id)
	w.slowThread(w.b.thread(id))
	w.b.row(id).gone = true
	_, err := w.exec(`DELETE FROM messages WHERE id = ?`, id)
	return err
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
// two threads merges them. A message with no references joins the most
// recent thread with the same normalised subject active within
// subjectWindow of its date.
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
	addRows := func(q string, args ...any) error {
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
	// Parents present in the store and siblings sharing a reference;
	// other copies of this message and children that arrived first: the
	// messages with the message's own Message-ID or one of its references
	// as their Message-ID or among their references.
	all := append([]string{mid}, refs...)
	if w.b != nil {
		// PutMessages preloaded them for its whole batch.
		for _, k := range all {
			for _, list := range [2][]int64{w.b.byMID[k], w.b.byRef[k]} {
				for _, x := range list {
					if x == id {
						continue
					}
					if r := w.b.msgs[x]; r != nil && !r.gone && r.thread != 0 {
						cands[r.thread] = true
					}
				}
			}
		}
		all = nil
	}
	// Otherwise one query, in groups of 1, 2, 4 or 8 IDs (padded with
	// mid): four statements with fixed parameter counts stay prepared.
	for len(all) > 0 {
		size := 1
		for size < len(all) && size < 8 {
			size *= 2
		}
		n := min(len(all), size)
		args := make([]any, 0, size+1)
		for i := range size {
			if i < n {
				args = append(args, all[i])
			} else {
				args = append(args, mid)
			}
		}
		args = append(args, id)
		if err := addRows(candQuery(size), args...); err != nil {
			return 0, false, err
		}
		all = all[n:]
	}
	norm := NormalizeSubject(m.Subject)
	date := unixOrZero(m.Date)
	if len(cands) == 0 && len(refs) == 0 && norm != "" && date != 0 {
		win := int64(subjectWindow / time.Second)
		var t, tLatest int64
		err := w.queryRow(`SELECT id, latest FROM threads WHERE norm_subject = ? AND latest BETWEEN ? AND ?
			ORDER BY latest DESC LIMIT 1`, norm, date-win, date+win).Scan(&t, &tLatest)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, false, err
		}
		// Threads created by this batch are not in the table yet.
		for _, id := range w.newBySubject[norm] {
			if nt := w.newThreads[id]; nt != nil && nt.latest >= date-win && nt.latest <= date+win &&
				(t == 0 || nt.latest > tLatest) {
				t, tLatest = id, nt.latest
			}
		}
		if t != 0 {
			cands[t] = true
		}
	}
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
		w.newBySubject[nf.norm] = slices.DeleteFunc(w.newBySubject[nf.norm], func(id int64) bool { return id == from })
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
		w.newThreads, w.newBySubject = map[int64]*newThread{}, map[string][]int64{}
	}
	w.newThreads[id] = &newThread{subject: subject, norm: norm, latest: latest}
	w.newBySubject[norm] = append(w.newBySubject[norm], id)
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
		// Oldest first, as recomputeThreads reads them (date, then id).
		mids := order[id]
		idx := make([]int, len(ms))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int {
			if c := cmpInt64(ms[a].date, ms[b].date); c != 0 {
				return c
			}
			return cmpInt64(mids[a], mids[b])
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
	w.newThreads, w.newBySubject = nil, nil
	return nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// finish recomputes the aggregates of every touched thread, then
// indexes the new and changed messages for search (last, so no later
// statement makes FTS5 flush again).
func (w *writer) finish() error {
	if err := w.writeNewThreads(); err != nil {
		return err
	}
	ids := make([]int64, 0, len(w.dirty))
	for id := range w.dirty {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	// Read the messages of up to threadChunk threads per query.
	const threadChunk = 500
	for len(ids) > 0 {
		n := min(len(ids), threadChunk)
		if err := w.recomputeThreads(ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	w.dirty = map[int64]bool{}
	if err := w.ftsDeleteQueued(); err != nil {
		return err
	}
	return w.ftsFlush()
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
		FROM messages m WHERE m.thread_id IN (SELECT value FROM json_each(?)) ORDER BY m.thread_id, m.date, m.id`
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
	if override != "" {
		sec = Section(override)
	}
	_, err = w.exec(`UPDATE threads SET section = ?, triage_key = ? WHERE id = ?`, string(sec), key, id)
	return err
}

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

// flagBits packs the system flags as locations store them.
func flagBits(f model.Flags) int {
	return boolInt(f.Seen) | boolInt(f.Answered)<<1 | boolInt(f.Flagged)<<2 | boolInt(f.Deleted)<<3 | boolInt(f.Draft)<<4
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

// preload fills the writer's batch index for msgs.
func (w *writer) preload(msgs []*model.Message, preps []putPrep) error {
	b := &batchIndex{locs: map[locID]int64{}, msgs: map[int64]*msgRow{}, byMID: map[string][]int64{},
		byRef: map[string][]int64{}, roles: map[[2]string]string{},
		locState: map[locID]locState{}}
	w.b = b
	type box struct{ account, mailbox string }
	keys := map[box][]string{}
	ids := map[string]bool{}
	for i, m := range msgs {
		if m == nil {
			continue
		}
		bx := box{m.Loc.Account, m.Loc.Mailbox}
		keys[bx] = append(keys[bx], locKey(m.Loc))
		ids[preps[i].mid] = true
		for _, r := range preps[i].refs {
			ids[r] = true
		}
	}
	scanFull := func(rows *sql.Rows, withKey *box) error {
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
	for bx, ks := range keys {
		rows, err := w.query(`SELECT m.id, m.message_id, m.content_hash, m.has_body, m.size, COALESCE(m.thread_id, 0), l.key,
			l.uid, l.seen | l.answered << 1 | l.flagged << 2 | l.deleted << 3 | l.draft << 4, l.keywords
			FROM locations l JOIN messages m ON m.id = l.message
			WHERE l.account = ? AND l.mailbox = ? AND l.key IN (SELECT value FROM json_each(?))`,
			bx.account, bx.mailbox, mustJSON(ks))
		if err != nil {
			return fmt.Errorf("batch locations: %w", err)
		}
		if err := scanFull(rows, &bx); err != nil {
			return fmt.Errorf("batch locations: %w", err)
		}
	}
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	idsJSON := mustJSON(list)
	rows, err := w.query(`SELECT id, message_id, content_hash, has_body, size, COALESCE(thread_id, 0) FROM messages
		WHERE message_id IN (SELECT value FROM json_each(?))`, idsJSON)
	if err != nil {
		return fmt.Errorf("batch messages: %w", err)
	}
	if err := scanFull(rows, nil); err != nil {
		return fmt.Errorf("batch messages: %w", err)
	}
	rows, err = w.query(`SELECT r.ref, r.message, COALESCE(m.thread_id, 0) FROM message_refs r
		JOIN messages m ON m.id = r.message WHERE r.ref IN (SELECT value FROM json_each(?))`, idsJSON)
	if err != nil {
		return fmt.Errorf("batch references: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ref string
		var id, thread int64
		if err := rows.Scan(&ref, &id, &thread); err != nil {
			return fmt.Errorf("batch references: %w", err)
		}
		if b.msgs[id] == nil {
			b.msgs[id] = &msgRow{thread: thread}
		}
		b.byRef[ref] = append(b.byRef[ref], id)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("batch references: %w", err)
	}
	rows.Close()
	rows, err = w.query(`SELECT account, name, role FROM mailboxes`)
	if err != nil {
		return fmt.Errorf("batch mailboxes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var account, name, role string
		if err := rows.Scan(&account, &name, &role); err != nil {
			return fmt.Errorf("batch mailboxes: %w", err)
		}
		b.roles[[2]string{account, name}] = role
	}
	return rows.Err()
}
