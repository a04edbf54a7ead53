package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
)

// writer carries one write transaction and the threads it touched.
type writer struct {
	ctx context.Context
	tx  *sql.Tx
	s   *Store
	// dirty holds the threads whose aggregates finish recomputes.
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
	// deferred to the commit meanwhile); nextThread is the id the next
	// one gets.
	newThreads map[int64]*newThread
	nextThread int64
	// grown holds the threads PutMessages added a message to, threaded a
	// message again in, or merged: subjectJoins starts from them.
	grown map[int64]bool
}

// newWriter starts a writer on transaction tx.
func (s *Store) newWriter(ctx context.Context, tx *sql.Tx) *writer {
	return &writer{ctx: ctx, tx: tx, s: s, dirty: map[int64]bool{}, stmts: map[string]*sql.Stmt{},
		fresh: map[int64]bool{}, ftsPending: map[int64]int64{}}
}

// prep returns the prepared statement for q, preparing it once per
// transaction.
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

// exec runs statement q with args.
func (w *writer) exec(q string, args ...any) (sql.Result, error) {
	st, err := w.prep(q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(w.ctx, args...)
}

// queryRow runs query q for one row.
func (w *writer) queryRow(q string, args ...any) *sql.Row {
	st, err := w.prep(q)
	if err != nil {
		return w.tx.QueryRowContext(w.ctx, q, args...) // reports the same error on Scan
	}
	return st.QueryRowContext(w.ctx, args...)
}

// query runs query q.
func (w *writer) query(q string, args ...any) (*sql.Rows, error) {
	st, err := w.prep(q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(w.ctx, args...)
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

// markMessageThread marks message msg's thread (if any) for finish to
// recompute.
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
