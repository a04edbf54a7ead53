package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"mailsift/model"
)

// This file holds the paged reads of the agent surfaces (MCP, REST): pages
// are cut by key (the last row's position), not by offset, so a page
// boundary does not move when new mail arrives before it.

// ThreadPageFilter narrows and pages ThreadStatusPage.
type ThreadPageFilter struct {
	// Account restricts to threads with a message in this account ("" = all).
	Account string
	// Section restricts to one section ("" = all).
	Section Section
	// Unread restricts to threads with unread messages.
	Unread bool
	// UpdatedAfter keeps threads whose latest message is newer (zero = all).
	UpdatedAfter time.Time
	// AfterLatest and AfterID continue after the row (latest Unix seconds,
	// id) that ended the previous page; AfterID 0 starts at the newest.
	AfterLatest, AfterID int64
	// Limit is the page size (<= 0: 50).
	Limit int
}

// threadPage returns threads newest first (by latest message, then id):
// where and args select the threads (columns of threads), f adds its
// filters and the page bounds.
func (s *Store) threadPage(ctx context.Context, f ThreadPageFilter, where []string, args []any) ([]ThreadSummary, error) {
	if f.Limit <= 0 {
		f.Limit = 50
	}
	if f.Section != "" {
		where = append(where, "section = ?")
		args = append(args, string(f.Section))
	}
	if f.Unread {
		where = append(where, "unread > 0")
	}
	if !f.UpdatedAfter.IsZero() {
		where = append(where, "latest > ?")
		args = append(args, f.UpdatedAfter.Unix())
	}
	if f.AfterID > 0 {
		where = append(where, "(latest < ? OR (latest = ? AND id < ?))")
		args = append(args, f.AfterLatest, f.AfterLatest, f.AfterID)
	}
	if f.Account != "" {
		where = append(where, `EXISTS (SELECT 1 FROM messages m JOIN locations l ON l.message = m.id
			WHERE m.thread_id = threads.id AND l.account = ?)`)
		args = append(args, f.Account)
	}
	args = append(args, f.Limit)
	q := `SELECT ` + summaryCols + ` FROM (SELECT id FROM threads WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY latest DESC, id DESC LIMIT ?) page JOIN threads t ON t.id = page.id` + summaryJoins +
		` ORDER BY t.latest DESC, t.id DESC`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: thread page: %w", err)
	}
	defer rows.Close()
	var out []ThreadSummary
	for rows.Next() {
		ts, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("store: thread page: %w", err)
		}
		out = append(out, ts)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: thread page: %w", err)
	}
	return out, nil
}

// MessageByID returns one message with its body and one location, or
// ErrNotFound.
func (s *Store) MessageByID(ctx context.Context, messageID string) (*ThreadMessage, error) {
	tid, err := s.ThreadIDForMessage(ctx, messageID)
	if err != nil {
		return nil, err
	}
	t, err := s.Thread(ctx, tid)
	if err != nil {
		return nil, err
	}
	for _, m := range t.Messages {
		if m.MessageID == messageID {
			return &ThreadMessage{ThreadID: tid, Subject: t.Subject, Message: m}, nil
		}
	}
	return nil, fmt.Errorf("store: message %s: %w", messageID, ErrNotFound)
}

// ThreadMessage is one message with its thread.
type ThreadMessage struct {
	ThreadID int64
	// Subject is the thread's subject.
	Subject string
	Message *model.Message
}
