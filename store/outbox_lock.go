package store

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
)

// ErrOutboxBusy is returned when another process runs the outbox of the
// same database: only one process at a time may send from it.
var ErrOutboxBusy = errors.New("store: another mailsift process runs the outbox of this data directory")

// One owner per send: the process that runs the outbox holds an exclusive
// flock on "<database>.outbox-lock" next to the database, and BeginSend
// and RecoverInterrupted refuse to work without it. A second process (a
// second TUI, or `mailsift outbox send` while a TUI runs) therefore never
// settles an item the first one is still sending, and never starts a send
// of its own; it reports ErrOutboxBusy instead.
//
// A lock on the data directory was chosen over per-item attempt tokens
// and leases: the kernel drops a flock when its process ends however it
// ends (SIGKILL included), so the next process recovers an interrupted
// item at once, with no lease to renew during a long SMTP transaction, no
// expiry to wait for, no clock to trust and no guess whether a recorded
// process id still belongs to mailsift. Its limit, one host, is the
// database's own: SQLite's WAL mode works only between processes on one
// host.

// outboxOwner is a Store's hold on the outbox lock.
type outboxOwner struct {
	mu sync.Mutex
	f  *os.File // the locked file while held
	// holds counts HoldOutbox holders; sticky is set by a send or a
	// recovery made outside any HoldOutbox, which keeps the lock until
	// Close.
	holds  int
	sticky bool
}

func (s *Store) outboxLockPath() string { return s.path + ".outbox-lock" }

// HoldOutbox makes this process the only one that sends from the store's
// outbox until release is called (release is idempotent; Close also
// releases). Holds nest. It fails with ErrOutboxBusy, naming the other
// process, when another process holds the outbox.
func (s *Store) HoldOutbox() (release func(), err error) {
	o := &s.outbox
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.lock(s.outboxLockPath()); err != nil {
		return nil, err
	}
	o.holds++
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			defer o.mu.Unlock()
			if o.holds == 0 {
				return // Close released the lock already
			}
			o.holds--
			if o.holds == 0 && !o.sticky {
				o.unlock()
			}
		})
	}, nil
}

// claimOutbox makes sure this Store holds the outbox lock; taken outside
// HoldOutbox, the lock stays until Close.
func (s *Store) claimOutbox() error {
	o := &s.outbox
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.f != nil {
		return nil
	}
	if err := o.lock(s.outboxLockPath()); err != nil {
		return err
	}
	o.sticky = true
	return nil
}

// lock takes the lock file unless held (o.mu held).
func (o *outboxOwner) lock(path string) error {
	if o.f != nil {
		return nil
	}
	f, err := lockFile(path)
	if err != nil {
		return err
	}
	o.f = f
	return nil
}

// unlock drops the lock (o.mu held).
func (o *outboxOwner) unlock() error {
	if o.f == nil {
		return nil
	}
	err := o.f.Close() // closing the descriptor drops the flock
	o.f, o.holds, o.sticky = nil, 0, false
	if err != nil {
		return fmt.Errorf("store: release the outbox lock: %w", err)
	}
	return nil
}

// close drops the lock whatever holds it (Store.Close).
func (o *outboxOwner) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.unlock()
}

// busyError says which process holds the outbox lock at path and what to
// do; holder is the lock file's content (the holder's pid, or empty).
func busyError(path, holder string) error {
	who := "another process"
	if pid := strings.TrimSpace(holder); pid != "" {
		who = "process " + pid
	}
	return fmt.Errorf("%w: %s holds %s and sends the confirmed messages (a running mailsift looks for new ones every minute); "+
		"to send from this process instead, quit that one or wait for its `mailsift outbox send` to end, then try again", ErrOutboxBusy, who, path)
}
