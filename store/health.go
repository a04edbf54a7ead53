package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// SchemaVersionWanted is the schema version this build brings a store to
// (the number of migrations it knows): Open migrates an older store to it
// and refuses a newer one.
func SchemaVersionWanted() int { return len(migrations) }

// OutboxCheck is one outbox item as `mailsift doctor` sees it: what is
// needed to decide whether it waits for the user.
type OutboxCheck struct {
	ID    int64
	State OutboxState
	// Phase is the send phase of a sending item (PhaseConnecting or
	// PhaseCommitted): a crash in the committed phase leaves the outcome
	// unknown.
	Phase string
	// NextAttemptAt is when the item is next due; zero means it waits for
	// the user.
	NextAttemptAt time.Time
	LastError     string
}

// Health is what a read-only look at a store file found.
type Health struct {
	// SchemaVersion is the store's PRAGMA user_version.
	SchemaVersion int
	// HasOutbox is false for a store too old (or too empty) to have an
	// outbox table.
	HasOutbox bool
	// Outbox lists the items in the states that may need attention:
	// sending, unknown, failed, and queued (oldest first). Sent and
	// cancelled items are left out.
	Outbox []OutboxCheck
}

// Inspect reads the schema version and the outbox items that may need
// attention from the store file at path without changing it: the file is
// opened read-only, no migration runs and no lock is taken, so it is safe
// while another mailsift process uses the store.
func Inspect(ctx context.Context, path string) (*Health, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("store: inspect: %w", err)
	}
	db, err := sql.Open("sqlite", fileURI(path)+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("store: inspect %s: %w", path, err)
	}
	defer db.Close()
	h := &Health{}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&h.SchemaVersion); err != nil {
		return nil, fmt.Errorf("store: inspect %s: read schema version: %w", path, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'outbox'`).Scan(&n); err != nil {
		return nil, fmt.Errorf("store: inspect %s: %w", path, err)
	}
	if n == 0 {
		return h, nil
	}
	h.HasOutbox = true
	rows, err := db.QueryContext(ctx, `SELECT id, state, phase, next_attempt_at, last_error FROM outbox
		WHERE state IN ('sending', 'unknown', 'failed', 'queued') ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: inspect %s: list outbox: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c OutboxCheck
		var state string
		var next int64
		if err := rows.Scan(&c.ID, &state, &c.Phase, &next, &c.LastError); err != nil {
			return nil, fmt.Errorf("store: inspect %s: list outbox: %w", path, err)
		}
		c.State, c.NextAttemptAt = OutboxState(state), fromMS(next)
		h.Outbox = append(h.Outbox, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: inspect %s: list outbox: %w", path, err)
	}
	return h, nil
}

// OutboxLockState is what ProbeOutboxLock found.
type OutboxLockState struct {
	// Path is the lock file, "<database>.outbox-lock".
	Path string
	// Exists is false when no process ever ran this store's outbox.
	Exists bool
	// Held is true when another process (or another Store in this one)
	// runs the outbox now.
	Held bool
	// Holder is the process id the lock file records: the holder's when
	// Held, else the last holder's, which has ended.
	Holder string
}

// ProbeOutboxLock reports whether some process holds the outbox lock of
// the store at dbPath: it tries the lock without waiting and, if it got
// it, drops it at once. It never creates or writes the lock file.
func ProbeOutboxLock(dbPath string) (OutboxLockState, error) {
	st := OutboxLockState{Path: dbPath + ".outbox-lock"}
	f, err := os.OpenFile(st.Path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("store: probe the outbox lock %s: %w", st.Path, err)
	}
	defer f.Close()
	st.Exists = true
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	st.Holder = strings.TrimSpace(string(buf[:n]))
	held, err := probeLock(f)
	if err != nil {
		return st, fmt.Errorf("store: probe the outbox lock %s: %w", st.Path, err)
	}
	st.Held = held
	return st, nil
}
