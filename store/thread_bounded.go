package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"mailsift/model"
)

// headerCols are the envelope columns ThreadHeaders reads for every
// message: addresses, ids, date and subject, never a body.
const headerCols = `m.id, m.message_id, COALESCE(m.content_hash, ''), m.from_name, m.from_email, m.sender_json,
	m.to_json, m.cc_json, m.bcc_json, m.reply_to_json, m.in_reply_to_json, m.references_json, m.date, m.subject,
	m.size, m.has_body`

// ThreadHeaders returns thread id, oldest message first like Thread, but
// reads the bodies of only the newest `bodies` messages: the others carry
// their envelope (Message-ID, From, Sender, To, Cc, Bcc, Reply-To,
// In-Reply-To, References, Date, Subject, Size, HasBody) with empty Text,
// HTMLText, Headers, Attachments and Problems. No message carries its
// location or flags. It bounds what drafting and risk flags read of a
// giant thread: the participants and the latest messages, not megabytes
// of old bodies.
func (s *Store) ThreadHeaders(ctx context.Context, id int64, bodies int) (*model.Thread, error) {
	t, ids, err := s.threadMessages(ctx, id, headerCols, scanHeaders)
	if err != nil {
		return nil, err
	}
	for i := max(0, len(t.Messages)-bodies); i < len(t.Messages); i++ {
		if err := s.fillBody(ctx, ids[i], t.Messages[i]); err != nil {
			return nil, fmt.Errorf("store: thread %d: %w", id, err)
		}
	}
	return t, nil
}

func scanHeaders(sc rowScanner) (*model.Message, int64, error) {
	m := &model.Message{}
	var id, date int64
	var sender, to, cc, bcc, rt, irt, refs string
	err := sc.Scan(&id, &m.MessageID, &m.ContentHash, &m.From.Name, &m.From.Email, &sender, &to, &cc, &bcc, &rt,
		&irt, &refs, &date, &m.Subject, &m.Size, &m.HasBody)
	if err != nil {
		return nil, 0, err
	}
	for _, f := range []struct {
		s string
		v any
	}{{sender, &m.Sender}, {to, &m.To}, {cc, &m.Cc}, {bcc, &m.Bcc}, {rt, &m.ReplyTo}, {irt, &m.InReplyTo}, {refs, &m.References}} {
		_ = json.Unmarshal([]byte(f.s), f.v)
	}
	if date != 0 {
		m.Date = time.Unix(date, 0)
	}
	return m, id, nil
}

// fillBody reads the body columns of message row id into m.
func (s *Store) fillBody(ctx context.Context, id int64, m *model.Message) error {
	var hdr, att, prob string
	err := s.r.QueryRowContext(ctx, `SELECT text, html_text, headers_json, attachments_json, problems_json FROM messages WHERE id = ?`, id).
		Scan(&m.Text, &m.HTMLText, &hdr, &att, &prob)
	if err != nil {
		return fmt.Errorf("message body %d: %w", id, err)
	}
	_ = json.Unmarshal([]byte(hdr), &m.Headers)
	_ = json.Unmarshal([]byte(att), &m.Attachments)
	_ = json.Unmarshal([]byte(prob), &m.Problems)
	if len(m.Attachments) == 0 {
		m.Attachments = nil
	}
	if len(m.Problems) == 0 {
		m.Problems = nil
	}
	return nil
}
