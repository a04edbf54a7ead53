package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// TriageRecord is one stored triage of a thread.
type TriageRecord struct {
	ThreadID int64
	Result   contract.Result
	// Source is "ollama" or "deterministic".
	Source string
	// Model is the model name, e.g. "llama3.2:3b"; "" for deterministic.
	Model string
	// CacheKey identifies the triager: schema version + model + prompt
	// version. One record is kept per thread and cache key.
	CacheKey string
	// ContentHash is the thread content hash the triage was computed on.
	ContentHash string
	// Beyond-contract extras.
	Intent, Urgency, Sentiment, Route string
	Confidence                        float64
	// Reasons the UI shows.
	SpamReasons, PhishingReasons, Signals []string
	CreatedAt                             time.Time
}

// ThreadContentHash returns the hash over a thread's messages (Message-ID
// and content hash, oldest first); it changes when a message arrives,
// leaves or gets its body.
func (s *Store) ThreadContentHash(ctx context.Context, threadID int64) (string, error) {
	var h string
	err := s.r.QueryRowContext(ctx, `SELECT content_hash FROM threads WHERE id = ?`, threadID).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: thread %d: %w", threadID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: thread %d content hash: %w", threadID, err)
	}
	return h, nil
}

// ThreadsNeedingTriage returns up to limit threads with at least one
// fetched body and no triage record for cacheKey on their current content
// hash: threads with unread messages first, then newest first.
func (s *Store) ThreadsNeedingTriage(ctx context.Context, cacheKey string, limit int) ([]int64, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.r.QueryContext(ctx, `SELECT t.id FROM threads t
		WHERE t.in_inbox = 1 AND t.has_body = 1 AND NOT EXISTS (SELECT 1 FROM triage tr
			WHERE tr.thread_id = t.id AND tr.cache_key = ? AND tr.content_hash = t.content_hash)
		ORDER BY (t.unread > 0) DESC, t.latest DESC, t.id DESC LIMIT ?`, cacheKey, limit)
	if err != nil {
		return nil, fmt.Errorf("store: threads needing triage: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: threads needing triage: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: threads needing triage: %w", err)
	}
	return out, nil
}

// SaveTriage stores (replacing) the triage of a thread for rec.CacheKey and
// moves the thread to its section unless the user overrode it. A zero
// CreatedAt is set to now. A thread that no longer exists gives an error
// wrapping ErrNotFound.
func (s *Store) SaveTriage(ctx context.Context, rec TriageRecord) error {
	err := s.SaveTriages(ctx, []TriageRecord{rec})
	var te *TriageErrors
	if errors.As(err, &te) {
		return te.Errs[0]
	}
	return err
}

// TriageErrors is the error of a SaveTriages batch in which some records
// were not saved (and the others were): Errs is index-aligned with the
// records, nil for each record that was saved.
type TriageErrors struct {
	Errs []error
}

// Error lists the failed records' errors.
func (e *TriageErrors) Error() string {
	var msgs []string
	for _, err := range e.Errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the failed records' errors (for errors.Is/As).
func (e *TriageErrors) Unwrap() []error {
	var out []error
	for _, err := range e.Errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// SaveTriages saves many triage records in one write transaction, with
// the result of calling SaveTriage for each in order: a record with an
// empty cache key or of a thread that no longer exists is skipped, the
// others are saved. It returns nil when all were saved; a *TriageErrors
// (one error per record, nil where saved) when only some were; any other
// error when the transaction failed and none was saved. A zero CreatedAt
// is set to now.
func (s *Store) SaveTriages(ctx context.Context, recs []TriageRecord) error {
	if len(recs) == 0 {
		return nil
	}
	errs := make([]error, len(recs))
	failed := false
	fail := func(i int, err error) {
		errs[i] = fmt.Errorf("store: save triage of thread %d: %w", recs[i].ThreadID, err)
		failed = true
	}
	results := make([]string, len(recs))
	now := s.now()
	for i, rec := range recs {
		if rec.CacheKey == "" {
			errs[i], failed = fmt.Errorf("store: save triage of thread %d: empty cache key", rec.ThreadID), true
			continue
		}
		res, err := json.Marshal(rec.Result)
		if err != nil {
			fail(i, err)
			continue
		}
		results[i] = string(res)
	}
	if !slices.ContainsFunc(errs, func(err error) bool { return err == nil }) {
		return &TriageErrors{Errs: errs}
	}
	// missing: the records of threads gone, found inside the transaction;
	// at: the record being written, to name it when the transaction fails.
	var missing []int
	at := -1
	err := s.tx(ctx, func(tx *sql.Tx) error {
		missing = missing[:0]
		w := s.newWriter(ctx, tx)
		for i, rec := range recs {
			if errs[i] != nil {
				continue
			}
			at = i
			created := rec.CreatedAt
			if created.IsZero() {
				created = now
			}
			found, err := w.saveTriage(rec, results[i], created)
			if err != nil {
				return err
			}
			if !found {
				missing = append(missing, i)
			}
		}
		at = -1
		return nil
	})
	switch {
	case err == nil:
	case len(recs) == 1:
		return fmt.Errorf("store: save triage of thread %d: %w", recs[0].ThreadID, err)
	case at >= 0:
		return fmt.Errorf("store: save %d triages: thread %d: %w", len(recs), recs[at].ThreadID, err)
	default:
		return fmt.Errorf("store: save %d triages: %w", len(recs), err)
	}
	for _, i := range missing {
		fail(i, ErrNotFound)
	}
	if failed {
		return &TriageErrors{Errs: errs}
	}
	return nil
}

// saveTriage writes one triage record (its result already encoded as
// resultJSON) and moves the thread to its section; found is false, and
// nothing written, when the thread no longer exists.
func (w *writer) saveTriage(rec TriageRecord, resultJSON string, created time.Time) (found bool, err error) {
	var n int
	if err := w.queryRow(`SELECT count(*) FROM threads WHERE id = ?`, rec.ThreadID).Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	_, err = w.exec(`INSERT INTO triage(thread_id, cache_key, content_hash, result_json, source, model, intent,
			urgency, sentiment, route, confidence, spam_reasons, phishing_reasons, signals, created_at)
			VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(thread_id, cache_key) DO UPDATE SET content_hash = excluded.content_hash,
				result_json = excluded.result_json, source = excluded.source, model = excluded.model,
				intent = excluded.intent, urgency = excluded.urgency, sentiment = excluded.sentiment,
				route = excluded.route, confidence = excluded.confidence, spam_reasons = excluded.spam_reasons,
				phishing_reasons = excluded.phishing_reasons, signals = excluded.signals, created_at = excluded.created_at`,
		rec.ThreadID, rec.CacheKey, rec.ContentHash, resultJSON, rec.Source, rec.Model, rec.Intent, rec.Urgency,
		rec.Sentiment, rec.Route, rec.Confidence, jsonList(rec.SpamReasons), jsonList(rec.PhishingReasons),
		jsonList(rec.Signals), created.Unix())
	if err != nil {
		return false, err
	}
	return true, w.updateSection(rec.ThreadID)
}

// validOverride reports whether category can be a user override.
func validOverride(category string) bool {
	for _, c := range contract.Categories {
		if c == category {
			return true
		}
	}
	return category == string(SectionQuarantine)
}

// SetOverride sets the user's bucket for a thread (one of the four triage
// categories, or "quarantine"); "" clears it. Overrides survive triage.
func (s *Store) SetOverride(ctx context.Context, threadID int64, category string) error {
	if category != "" && !validOverride(category) {
		return fmt.Errorf("store: override thread %d: unknown category %q (want one of %s, or quarantine)",
			threadID, category, strings.Join(contract.Categories, ", "))
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var n int
		if err := w.queryRow(`SELECT count(*) FROM threads WHERE id = ?`, threadID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		var err error
		if category == "" {
			_, err = w.exec(`DELETE FROM overrides WHERE thread_id = ?`, threadID)
		} else {
			_, err = w.exec(`INSERT INTO overrides(thread_id, category, at) VALUES(?, ?, ?)
				ON CONFLICT(thread_id) DO UPDATE SET category = excluded.category, at = excluded.at`,
				threadID, category, s.now().UnixNano())
		}
		if err != nil {
			return err
		}
		return w.updateSection(threadID)
	})
	if err != nil {
		return fmt.Errorf("store: override thread %d: %w", threadID, err)
	}
	return nil
}

// Override is one user override, for few-shot examples and review.
type Override struct {
	ThreadID int64
	Subject  string
	From     model.Address
	Category string
	At       time.Time
}

// RecentOverrides returns the n most recent overrides, newest first.
func (s *Store) RecentOverrides(ctx context.Context, n int) ([]Override, error) {
	if n <= 0 {
		n = -1
	}
	rows, err := s.r.QueryContext(ctx, `SELECT o.thread_id, t.subject, t.from_name, t.from_email, o.category, o.at
		FROM overrides o JOIN threads t ON t.id = o.thread_id ORDER BY o.at DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("store: recent overrides: %w", err)
	}
	defer rows.Close()
	var out []Override
	for rows.Next() {
		var o Override
		var at int64
		if err := rows.Scan(&o.ThreadID, &o.Subject, &o.From.Name, &o.From.Email, &o.Category, &at); err != nil {
			return nil, fmt.Errorf("store: recent overrides: %w", err)
		}
		o.At = time.Unix(0, at)
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: recent overrides: %w", err)
	}
	return out, nil
}
