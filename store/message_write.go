package store

import (
	"database/sql"
	"strings"

	"mailsift/model"
)

// addrText is the searchable text of addresses: each as Address.String, comma
// separated, empty ones skipped.
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

// messageArgs are the column values shared by insert and update, in the
// order of messageCols.
const messageCols = `from_name, from_email, sender_json, to_json, cc_json, bcc_json, reply_to_json,
	in_reply_to_json, references_json, date, subject, norm_subject, text, html_text, headers_json,
	attachments_json, problems_json, size, has_body, has_attachment, from_text, to_text`

// messageArgs returns the values of messageCols for m.
func messageArgs(m *model.Message) []any {
	recips := append(append(append([]model.Address{}, m.To...), m.Cc...), m.Bcc...)
	text, html := m.Text, m.HTMLText
	headers := m.Headers
	if headers == nil {
		headers = map[string][]string{}
	}
	return []any{
		m.From.Name, strings.ToLower(m.From.Email), mustJSON(m.Sender), jsonList(m.To), jsonList(m.Cc),
		jsonList(m.Bcc), jsonList(m.ReplyTo), jsonList(m.InReplyTo),
		jsonList(m.References), unixOrZero(m.Date), m.Subject, NormalizeSubject(m.Subject),
		text, html, mustJSON(headers), jsonList(m.Attachments), jsonList(m.Problems),
		m.Size, boolInt(m.HasBody), boolInt(len(m.Attachments) > 0), addrText(m.From), addrText(recips...),
	}
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

// insertMessage inserts m as a new message row stored as mid and threads
// it, returning its id and thread.
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
	w.grow(thread)
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
