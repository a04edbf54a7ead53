package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// Section is one part of the inbox a thread is shown in.
type Section string

// The inbox sections.
const (
	SectionUrgent        Section = "urgent"
	SectionActionable    Section = "actionable"
	SectionInformational Section = "informational"
	SectionLowPriority   Section = "low priority"
	// SectionQuarantine holds threads triaged as spam or phishing.
	SectionQuarantine Section = "quarantine"
	SectionUntriaged  Section = "untriaged"
)

// Sections returns the inbox sections in display order.
func Sections() []Section {
	return []Section{SectionUrgent, SectionActionable, SectionInformational, SectionLowPriority, SectionQuarantine, SectionUntriaged}
}

// ThreadSummary is one inbox row.
type ThreadSummary struct {
	ID      int64
	Subject string
	// From is the sender of the latest message not from the principal
	// (else of the latest message).
	From model.Address
	// Participants are the senders' display names (or addresses), in
	// order of first appearance.
	Participants  []string
	Latest        time.Time
	Count         int
	Unread        int
	HasAttachment bool
	// HasBody is true when at least one message's body has been fetched.
	HasBody bool
	// Section is where the row is shown: override > triage > untriaged.
	Section Section
	// Triage is the latest triage record, nil if none.
	Triage *TriageRecord
	// Override is the user's bucket override ("" if none).
	Override string
	// ContentHash is the thread content hash (see ThreadContentHash).
	ContentHash string
	// Scheduling is the meeting status of a thread the scheduling
	// assistant analysed (e.g. "Complete/scheduled"); "" otherwise.
	Scheduling string
}

// SectionCounts returns the number of threads in every section (all
// sections present, zero when empty).
func (s *Store) SectionCounts(ctx context.Context) (map[Section]int, error) {
	out := map[Section]int{}
	for _, sec := range Sections() {
		out[sec] = 0
	}
	rows, err := s.r.QueryContext(ctx, `SELECT section, n FROM section_counts`)
	if err != nil {
		return nil, fmt.Errorf("store: section counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sec string
		var n int
		if err := rows.Scan(&sec, &n); err != nil {
			return nil, fmt.Errorf("store: section counts: %w", err)
		}
		out[Section(sec)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: section counts: %w", err)
	}
	n, err := s.waitingCount(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: section counts: %w", err)
	}
	if n > 0 {
		out[SectionWaiting] = n // not one of Sections(): present when not empty
	}
	return out, nil
}

const summaryCols = `t.id, t.subject, t.from_name, t.from_email, t.participants, t.latest, t.count, t.unread,
	t.has_attachment, t.has_body, t.section, t.content_hash, COALESCE(o.category, ''),
	tr.cache_key, tr.content_hash, tr.result_json, tr.source, tr.model, tr.intent, tr.urgency, tr.sentiment,
	tr.route, tr.confidence, tr.spam_reasons, tr.phishing_reasons, tr.signals, tr.created_at, ` + schedBadgeCol

const summaryJoins = `
	LEFT JOIN overrides o ON o.thread_id = t.id
	LEFT JOIN triage tr ON tr.thread_id = t.id AND tr.cache_key = t.triage_key
	LEFT JOIN scheduling sc ON sc.thread_id = t.id AND sc.is_meeting = 1`

const summaryFrom = `threads t` + summaryJoins

func scanSummary(sc rowScanner) (ThreadSummary, error) {
	var ts ThreadSummary
	var parts, sec string
	var latest int64
	var key, thash, res, src, mdl, intent, urg, sent, route, spam, phish, sig sql.NullString
	var conf sql.NullFloat64
	var created sql.NullInt64
	err := sc.Scan(&ts.ID, &ts.Subject, &ts.From.Name, &ts.From.Email, &parts, &latest, &ts.Count, &ts.Unread,
		&ts.HasAttachment, &ts.HasBody, &sec, &ts.ContentHash, &ts.Override,
		&key, &thash, &res, &src, &mdl, &intent, &urg, &sent, &route, &conf, &spam, &phish, &sig, &created, &ts.Scheduling)
	if err != nil {
		return ts, err
	}
	_ = json.Unmarshal([]byte(parts), &ts.Participants)
	if latest != 0 {
		ts.Latest = time.Unix(latest, 0)
	}
	ts.Section = Section(sec)
	if key.Valid {
		rec := &TriageRecord{
			ThreadID: ts.ID, CacheKey: key.String, ContentHash: thash.String, Source: src.String, Model: mdl.String,
			Intent: intent.String, Urgency: urg.String, Sentiment: sent.String, Route: route.String,
			Confidence: conf.Float64, CreatedAt: time.Unix(created.Int64, 0),
		}
		rec.Result = decodeResult(res.String)
		unmarshalList(spam.String, &rec.SpamReasons)
		unmarshalList(phish.String, &rec.PhishingReasons)
		unmarshalList(sig.String, &rec.Signals)
		ts.Triage = rec
	}
	return ts, nil
}

// ListThreads returns one page of a section's threads, newest first.
func (s *Store) ListThreads(ctx context.Context, sec Section, offset, limit int) ([]ThreadSummary, error) {
	if limit <= 0 {
		limit = 100
	}
	if offset < 0 {
		offset = 0
	}
	if sec == SectionWaiting {
		return s.listWaiting(ctx, offset, limit)
	}
	// The page is cut on the covering index alone; only its rows are joined.
	rows, err := s.r.QueryContext(ctx, `SELECT `+summaryCols+` FROM (SELECT id FROM threads
		WHERE in_inbox = 1 AND section = ? ORDER BY latest DESC, id DESC LIMIT ? OFFSET ?) page
		JOIN threads t ON t.id = page.id`+summaryJoins+` ORDER BY t.latest DESC, t.id DESC`, string(sec), limit, offset)
	if err != nil {
		return nil, fmt.Errorf("store: list threads in %q: %w", sec, err)
	}
	defer rows.Close()
	var out []ThreadSummary
	for rows.Next() {
		ts, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list threads in %q: %w", sec, err)
		}
		out = append(out, ts)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list threads in %q: %w", sec, err)
	}
	return out, nil
}

// ThreadSummaryByID returns the inbox row of one thread, or ErrNotFound.
func (s *Store) ThreadSummaryByID(ctx context.Context, id int64) (ThreadSummary, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+summaryCols+` FROM `+summaryFrom+` WHERE t.id = ?`, id)
	ts, err := scanSummary(row)
	if errors.Is(err, sql.ErrNoRows) {
		return ts, fmt.Errorf("store: thread %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return ts, fmt.Errorf("store: thread %d: %w", id, err)
	}
	return ts, nil
}

// Thread returns a thread with its messages oldest first, with bodies,
// and for each message one location (an inbox copy first) and its flags.
func (s *Store) Thread(ctx context.Context, id int64) (*model.Thread, error) {
	t, ids, err := s.threadMessages(ctx, id, fullMessageCols, scanMessage)
	if err != nil {
		return nil, err
	}
	for i, m := range t.Messages {
		if err := s.fillLocation(ctx, ids[i], m); err != nil {
			return nil, fmt.Errorf("store: thread %d: %w", id, err)
		}
	}
	return t, nil
}

// threadMessages reads thread id's subject and its messages oldest first,
// each row read by scan from the columns cols, and returns the messages'
// row ids in the same order.
func (s *Store) threadMessages(ctx context.Context, id int64, cols string,
	scan func(rowScanner) (*model.Message, int64, error)) (*model.Thread, []int64, error) {
	var subject string
	err := s.r.QueryRowContext(ctx, `SELECT subject FROM threads WHERE id = ?`, id).Scan(&subject)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("store: thread %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("store: thread %d: %w", id, err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+cols+` FROM messages m WHERE m.thread_id = ? ORDER BY m.date, m.message_id, m.id`, id)
	if err != nil {
		return nil, nil, fmt.Errorf("store: thread %d: %w", id, err)
	}
	defer rows.Close()
	var msgs []*model.Message
	var ids []int64
	for rows.Next() {
		m, rid, err := scan(rows)
		if err != nil {
			return nil, nil, fmt.Errorf("store: thread %d: %w", id, err)
		}
		msgs = append(msgs, m)
		ids = append(ids, rid)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: thread %d: %w", id, err)
	}
	return &model.Thread{ID: id, Subject: subject, Messages: msgs}, ids, nil
}

const fullMessageCols = `m.id, m.message_id, COALESCE(m.content_hash, ''), m.from_name, m.from_email, m.sender_json,
	m.to_json, m.cc_json, m.bcc_json, m.reply_to_json, m.in_reply_to_json, m.references_json, m.date, m.subject,
	m.text, m.html_text, m.headers_json, m.attachments_json, m.problems_json, m.size, m.has_body`

func scanMessage(sc rowScanner) (*model.Message, int64, error) {
	m := &model.Message{}
	var id, date int64
	var sender, to, cc, bcc, rt, irt, refs, hdr, att, prob string
	err := sc.Scan(&id, &m.MessageID, &m.ContentHash, &m.From.Name, &m.From.Email, &sender, &to, &cc, &bcc, &rt,
		&irt, &refs, &date, &m.Subject, &m.Text, &m.HTMLText, &hdr, &att, &prob, &m.Size, &m.HasBody)
	if err != nil {
		return nil, 0, err
	}
	_ = json.Unmarshal([]byte(sender), &m.Sender)
	_ = json.Unmarshal([]byte(to), &m.To)
	_ = json.Unmarshal([]byte(cc), &m.Cc)
	_ = json.Unmarshal([]byte(bcc), &m.Bcc)
	_ = json.Unmarshal([]byte(rt), &m.ReplyTo)
	_ = json.Unmarshal([]byte(irt), &m.InReplyTo)
	_ = json.Unmarshal([]byte(refs), &m.References)
	_ = json.Unmarshal([]byte(hdr), &m.Headers)
	_ = json.Unmarshal([]byte(att), &m.Attachments)
	_ = json.Unmarshal([]byte(prob), &m.Problems)
	if len(m.Attachments) == 0 {
		m.Attachments = nil
	}
	if len(m.Problems) == 0 {
		m.Problems = nil
	}
	if date != 0 {
		m.Date = time.Unix(date, 0)
	}
	return m, id, nil
}

func (s *Store) fillLocation(ctx context.Context, id int64, m *model.Message) error {
	var uid int64
	var kw string
	err := s.r.QueryRowContext(ctx, `SELECT l.account, l.mailbox, l.key, l.uid, l.seen, l.answered, l.flagged,
		l.deleted, l.draft, l.keywords FROM locations l
		LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
		WHERE l.message = ? ORDER BY (COALESCE(mb.role, '') = 'inbox') DESC, l.rowid LIMIT 1`, id).
		Scan(&m.Loc.Account, &m.Loc.Mailbox, &m.Loc.Key, &uid, &m.Flags.Seen, &m.Flags.Answered, &m.Flags.Flagged,
			&m.Flags.Deleted, &m.Flags.Draft, &kw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	m.Loc.UID = uint32(uid)
	m.Flags.Keywords = decodeKeywords(kw)
	return nil
}

// ThreadIDForMessage returns the thread of the message with this
// Message-ID (without angle brackets), or ErrNotFound.
func (s *Store) ThreadIDForMessage(ctx context.Context, messageID string) (int64, error) {
	var id int64
	err := s.r.QueryRowContext(ctx, `SELECT thread_id FROM messages WHERE message_id = ? AND thread_id IS NOT NULL LIMIT 1`, messageID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: message %q: %w", messageID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: message %q: %w", messageID, err)
	}
	return id, nil
}

// MessageLocations returns the locations of the stored message(s) with
// this Message-ID that have a body, for reading the raw bytes from a
// source that keeps them (RawMessage returned ErrNotFound).
func (s *Store) MessageLocations(ctx context.Context, messageID string) ([]model.Location, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT l.account, l.mailbox, l.key, l.uid FROM messages m
		JOIN locations l ON l.message = m.id WHERE m.message_id = ? AND m.has_body = 1 ORDER BY m.id, l.mailbox`, messageID)
	if err != nil {
		return nil, fmt.Errorf("store: locations of %q: %w", messageID, err)
	}
	defer rows.Close()
	var out []model.Location
	for rows.Next() {
		var l model.Location
		var uid int64
		if err := rows.Scan(&l.Account, &l.Mailbox, &l.Key, &uid); err != nil {
			return nil, fmt.Errorf("store: locations of %q: %w", messageID, err)
		}
		l.UID = uint32(uid)
		out = append(out, l)
	}
	return out, rows.Err()
}

// RawMessage returns the stored raw bytes of the message with this
// Message-ID, or ErrNotFound when none were stored.
func (s *Store) RawMessage(ctx context.Context, messageID string) ([]byte, error) {
	var raw []byte
	err := s.r.QueryRowContext(ctx, `SELECT r.raw FROM raw_messages r JOIN messages m ON m.id = r.message
		WHERE m.message_id = ? LIMIT 1`, messageID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: raw message %q: %w", messageID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: raw message %q: %w", messageID, err)
	}
	return raw, nil
}

// unmarshalList decodes a JSON string list, skipping the common empty one.
func unmarshalList(s string, dst *[]string) {
	if s == "" || s == "[]" {
		return
	}
	_ = json.Unmarshal([]byte(s), dst)
}

// storedResult is EmailTriageResult without its strict UnmarshalJSON: the
// store reads back JSON it wrote itself, and the contract validation is
// costly on every listed row.
type storedResult contract.Result

func decodeResult(s string) contract.Result {
	var r storedResult
	_ = json.Unmarshal([]byte(s), &r)
	return contract.Result(r)
}
