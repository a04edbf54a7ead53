package store

import (
	"context"
	"fmt"
	"strings"
)

// This file holds the per-account reads of the inbox: which accounts a
// thread's messages are in (the inbox's account marker) and the sections
// limited to one account (the inbox's account view). They need no schema
// change: locations carry the account.

// threadInAccount is true for a thread with a message stored in account.
const threadInAccount = `EXISTS (SELECT 1 FROM messages m JOIN locations l ON l.message = m.id
	WHERE m.thread_id = t.id AND l.account = ?)`

// ThreadAccounts returns, for each of ids, the accounts its messages are
// stored in, sorted by name. Threads without a location are left out.
func (s *Store) ThreadAccounts(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT m.thread_id, l.account FROM messages m
		JOIN locations l ON l.message = m.id
		WHERE m.thread_id IN (?`+strings.Repeat(",?", len(ids)-1)+`) ORDER BY m.thread_id, l.account`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: accounts of threads: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var acct string
		if err := rows.Scan(&id, &acct); err != nil {
			return nil, fmt.Errorf("store: accounts of threads: %w", err)
		}
		out[id] = append(out[id], acct)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: accounts of threads: %w", err)
	}
	return out, nil
}

// SectionCountsIn is SectionCounts limited to threads with a message in
// account.
func (s *Store) SectionCountsIn(ctx context.Context, account string) (map[Section]int, error) {
	out := map[Section]int{}
	for _, sec := range Sections() {
		out[sec] = 0
	}
	rows, err := s.r.QueryContext(ctx, `SELECT t.section, COUNT(*) FROM threads t
		WHERE t.in_inbox = 1 AND `+threadInAccount+` GROUP BY t.section`, account)
	if err != nil {
		return nil, fmt.Errorf("store: section counts of %q: %w", account, err)
	}
	defer rows.Close()
	for rows.Next() {
		var sec string
		var n int
		if err := rows.Scan(&sec, &n); err != nil {
			return nil, fmt.Errorf("store: section counts of %q: %w", account, err)
		}
		out[Section(sec)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: section counts of %q: %w", account, err)
	}
	return out, nil
}

// ListThreadsIn is ListThreads limited to threads with a message in
// account.
func (s *Store) ListThreadsIn(ctx context.Context, sec Section, account string, offset, limit int) ([]ThreadSummary, error) {
	if limit <= 0 {
		limit = 100
	}
	if offset < 0 {
		offset = 0
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+summaryCols+` FROM (SELECT t.id FROM threads t
		WHERE t.in_inbox = 1 AND t.section = ? AND `+threadInAccount+`
		ORDER BY t.latest DESC, t.id DESC LIMIT ? OFFSET ?) page
		JOIN threads t ON t.id = page.id`+summaryJoins+` ORDER BY t.latest DESC, t.id DESC`, string(sec), account, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("store: list threads of %q in %q: %w", account, sec, err)
	}
	defer rows.Close()
	var out []ThreadSummary
	for rows.Next() {
		ts, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list threads of %q in %q: %w", account, sec, err)
		}
		out = append(out, ts)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list threads of %q in %q: %w", account, sec, err)
	}
	return out, nil
}

// MessagesInThreadsOf returns which of the message row ids (RankedHit.ID)
// belong to a thread with a message stored in account: the account
// filter of a search, the same test as ThreadPageFilter.Account.
func (s *Store) MessagesInThreadsOf(ctx context.Context, ids []int64, account string) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, account)
	rows, err := s.r.QueryContext(ctx, `SELECT m.id FROM messages m
		WHERE m.id IN (?`+strings.Repeat(",?", len(ids)-1)+`) AND EXISTS (SELECT 1 FROM messages m2
			JOIN locations l ON l.message = m2.id WHERE m2.thread_id = m.thread_id AND l.account = ?)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: messages in account %s: %w", account, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: messages in account %s: %w", account, err)
		}
		out[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: messages in account %s: %w", account, err)
	}
	return out, nil
}
