package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"mailsift/model"
)

// ErrNotFound is returned when a thread, message or record does not exist.
var ErrNotFound = errors.New("store: not found")

// Options tune Open; nil means defaults.
type Options struct {
	// Logger receives debug and warning logs; nil discards them.
	Logger *slog.Logger
	// Principal is the user's own address: the thread list shows the
	// latest sender who is not the principal.
	Principal model.Address
	// Now is the clock for the times the store records and compares
	// (outbox leases and retries, approval expiry, audit, draft, triage
	// and override timestamps, queued flag changes); nil means time.Now.
	Now func() time.Time
}

// Store is the local SQLite mirror of mail, threads, triage results and
// queues. It is safe for concurrent use: writes go through one connection,
// reads through a pool.
type Store struct {
	w         *sql.DB // single writer connection
	r         *sql.DB // read pool
	log       *slog.Logger
	principal string // lower-cased email of the principal
	path      string
	clock     func() time.Time
	outbox    outboxOwner // the outbox lock (outbox_lock.go)
}

// Open opens (creating if needed) the SQLite store at path and applies
// pending migrations. The store's files are made 0600, whatever they were;
// a missing parent directory is created 0700.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := privateFiles(path, log); err != nil {
		return nil, err
	}
	q := url.Values{}
	// synchronous=NORMAL: in WAL mode a commit is not synced at once, so
	// power loss may undo the last commits (never corrupt the file). The
	// mirror can fetch mail again; the outbox cannot: its transactions
	// switch the writer to FULL while they run (durableTx, outbox.go).
	for _, p := range []string{"journal_mode(WAL)", "foreign_keys(ON)", "busy_timeout(10000)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	// Pages stay SQLite's 4 KB: 16 KB pages (which need _journal_mode,
	// not a _pragma, since the driver runs the _pragma list sorted by name
	// and journal_mode would fix the page size first) measured no faster
	// (BENCHMARKS.md, "Page size").
	wq := url.Values{}
	for k, v := range q {
		wq[k] = append(wq[k], v...)
	}
	wq.Set("_txlock", "immediate")
	// The writer keeps more pages cached (16 MB; the default is 2 MB): a
	// batch touches the message, search and thread b-trees all over.
	wq.Add("_pragma", "cache_size(-16384)")
	wq.Add("_pragma", "temp_store(MEMORY)")
	w, err := sql.Open("sqlite", fileURI(path)+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	clock := opts.Now
	if clock == nil {
		clock = time.Now
	}
	s := &Store{w: w, log: log, principal: strings.ToLower(opts.Principal.Email), path: path, clock: clock}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", fileURI(path)+"?"+q.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	s.r = r
	return s, nil
}

// privateFiles makes the store's files 0600 before SQLite opens them: mail
// is for the user's eyes only. A missing directory is created 0700; an
// existing one is left alone, since a store may be opened anywhere (the
// data dir proper is tightened by whoever chose it). The database file is
// created empty with mode 0600 when missing, since SQLite creates it 0644
// less the umask and gives its -wal and -shm files the database file's mode;
// existing files are tightened (and the log says so), as an older mailsift
// left them readable by others.
func privateFiles(path string, log *slog.Logger) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: create directory %q: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o600)
	if err != nil {
		return fmt.Errorf("store: create %s: %w; check the permissions of %s", path, err, dir)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(p, 0o600); err != nil {
				return fmt.Errorf("store: %s is readable by others (mode %04o) and cannot be tightened: %w; run `chmod 600 %s`", p, perm, err, p)
			}
			log.Warn("store: tightened a store file to 0600: others could read it", "file", p, "was", fmt.Sprintf("%04o", perm))
		}
	}
	return nil
}

// fileURI turns a file path into an SQLite "file:" URI, escaping the
// characters URIs give a meaning (%, ?, #) so any directory name works.
func fileURI(path string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(filepath.ToSlash(path))
}

// now returns the current time by the store's clock (Options.Now).
func (s *Store) now() time.Time { return s.clock() }

// Close closes both connection pools and releases the outbox lock.
func (s *Store) Close() error {
	err1 := s.r.Close()
	err2 := s.w.Close()
	if err := s.outbox.close(); err != nil && err2 == nil {
		err2 = err
	}
	if err1 != nil {
		return fmt.Errorf("store: close: %w", err1)
	}
	if err2 != nil {
		return fmt.Errorf("store: close: %w", err2)
	}
	return nil
}

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// SchemaVersion returns the applied migration count (PRAGMA user_version).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.r.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("store: read schema version: %w", err)
	}
	return v, nil
}

func (s *Store) migrate(ctx context.Context) error {
	var v int
	if err := s.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	if v > len(migrations) {
		return fmt.Errorf("store: database schema version %d is newer than this mailsift (%d): upgrade mailsift", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		err := s.tx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", i+1))
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migration %d: %w", i+1, err)
		}
		s.log.Debug("store: applied migration", "version", i+1)
	}
	return nil
}

// tx runs fn in one write transaction on the writer connection.
// A write refused for want of room says so (diskFull).
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.diskFull(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.diskFull(err)
	}
	return s.diskFull(tx.Commit())
}

// EnsureAccount records an account and its source URL (redacted by the
// caller: no secrets).
func (s *Store) EnsureAccount(ctx context.Context, name, sourceURL string) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO accounts(name, source_url) VALUES(?, ?)
		ON CONFLICT(name) DO UPDATE SET source_url = excluded.source_url`, name, sourceURL)
	if err != nil {
		return fmt.Errorf("store: ensure account %q: %w", name, err)
	}
	return nil
}

// Mailboxes lists the mailboxes of an account by name.
func (s *Store) Mailboxes(ctx context.Context, account string) ([]model.Mailbox, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, role, uidvalidity, uidnext, highestmodseq
		FROM mailboxes WHERE account = ? ORDER BY name`, account)
	if err != nil {
		return nil, fmt.Errorf("store: list mailboxes of %q: %w", account, err)
	}
	defer rows.Close()
	var out []model.Mailbox
	for rows.Next() {
		mb := model.Mailbox{Account: account}
		var role string
		var uv, un, hm int64
		if err := rows.Scan(&mb.Name, &role, &uv, &un, &hm); err != nil {
			return nil, fmt.Errorf("store: list mailboxes of %q: %w", account, err)
		}
		mb.Role = model.Role(role)
		mb.State = model.MailboxState{UIDValidity: uint32(uv), UIDNext: uint32(un), HighestModSeq: uint64(hm)}
		out = append(out, mb)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list mailboxes of %q: %w", account, err)
	}
	return out, nil
}

// MailboxState returns the stored state of a mailbox (zero if unknown).
func (s *Store) MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error) {
	var uv, un, hm int64
	err := s.r.QueryRowContext(ctx, `SELECT uidvalidity, uidnext, highestmodseq FROM mailboxes
		WHERE account = ? AND name = ?`, account, mailbox).Scan(&uv, &un, &hm)
	if errors.Is(err, sql.ErrNoRows) {
		return model.MailboxState{}, nil
	}
	if err != nil {
		return model.MailboxState{}, fmt.Errorf("store: mailbox state %s/%s: %w", account, mailbox, err)
	}
	return model.MailboxState{UIDValidity: uint32(uv), UIDNext: uint32(un), HighestModSeq: uint64(hm)}, nil
}

// SetMailbox records a mailbox, its role and its state.
func (s *Store) SetMailbox(ctx context.Context, mb model.Mailbox) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO accounts(name) VALUES(?)`, mb.Account); err != nil {
			return err
		}
		wasInbox, err := mailboxIsInbox(ctx, tx, mb.Account, mb.Name)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO mailboxes(account, name, role, uidvalidity, uidnext, highestmodseq)
			VALUES(?, ?, ?, ?, ?, ?)
			ON CONFLICT(account, name) DO UPDATE SET role = excluded.role, uidvalidity = excluded.uidvalidity,
				uidnext = excluded.uidnext, highestmodseq = excluded.highestmodseq`,
			mb.Account, mb.Name, string(mb.Role), int64(mb.State.UIDValidity), int64(mb.State.UIDNext), int64(mb.State.HighestModSeq))
		if err != nil {
			return err
		}
		isInbox, err := mailboxIsInbox(ctx, tx, mb.Account, mb.Name)
		if err != nil || isInbox == wasInbox {
			return err
		}
		// The mailbox became (or stopped being) an inbox: the threads with
		// a message in it enter or leave the sections.
		w := s.newWriter(ctx, tx)
		if err := w.markThreads(`SELECT DISTINCT m.thread_id FROM locations l JOIN messages m ON m.id = l.message
			WHERE l.account = ? AND l.mailbox = ? AND m.thread_id IS NOT NULL`, mb.Account, mb.Name); err != nil {
			return err
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: set mailbox %s/%s: %w", mb.Account, mb.Name, err)
	}
	return nil
}

// mailboxIsInbox reports whether locations in the mailbox count as inbox
// locations (see inboxCond).
func mailboxIsInbox(ctx context.Context, tx *sql.Tx, account, mailbox string) (bool, error) {
	var in bool
	err := tx.QueryRowContext(ctx, `SELECT `+inboxCond+` FROM (SELECT ? AS account, ? AS mailbox) l
		LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox`, account, mailbox).Scan(&in)
	return in, err
}
