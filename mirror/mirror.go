// Package mirror is the sync engine: it keeps the local store in step with an account's source: it
// opens the source named by the account URL, pushes flag changes queued in the
// store, syncs, and keeps watching for new mail with backoff on failures.
package mirror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"mailsift/config"
	"mailsift/internal/loopback"
	"mailsift/mailsrc"
	"mailsift/mailsrc/demo"
	"mailsift/mailsrc/imap"
	"mailsift/mailsrc/maildir"
	"mailsift/mailsrc/mbox"
	"mailsift/model"
	"mailsift/store"
)

// Options tune Open and Run; the zero value is usable.
type Options struct {
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Now is the clock for the demo mailbox's relative dates; nil is time.Now.
	Now func() time.Time
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Open returns the source for an account, chosen by an explicit switch on the
// account URL's scheme.
func Open(acct *config.Account, opts Options) (mailsrc.Source, error) {
	log := opts.logger()
	src := acct.Src
	switch src.Scheme {
	case "demo":
		return demo.New(acct.Name, opts.Now), nil
	case "maildir":
		return maildir.New(acct.Name, src.Path, &maildir.Options{Logger: log}), nil
	case "mbox":
		return mbox.New(acct.Name, src.Path), nil
	case "imaps", "imap", "imap+insecure":
		mode := imap.TLSImplicit
		switch src.Scheme {
		case "imap":
			mode = imap.TLSStartTLS
		case "imap+insecure":
			mode = imap.TLSInsecurePlain
		}
		cfg := imap.Config{
			Host:     src.Host,
			Port:     fmt.Sprint(src.Port),
			Username: src.User,
			TLS:      mode,
			Password: acct.Password,
			Auth:     acct.Auth,
			Folders:  acct.Folders,
			Logger:   log,
		}
		// A refused OAuth2 token is refreshed on the next attempt.
		cfg.TokenRejected = acct.ForgetAccessToken
		if acct.TLSInsecureSkipVerify {
			if !loopback.Is(src.Host) {
				return nil, fmt.Errorf("account %q: tls_insecure_skip_verify is only allowed for loopback hosts, not %q", acct.Name, src.Host)
			}
			cfg.TLSConfig = insecureTLS(src.Host)
		}
		return imap.New(acct.Name, cfg), nil
	default:
		return nil, fmt.Errorf("account %q: source scheme %q not supported; use imaps://, imap://, imap+insecure:// (loopback only), maildir://, mbox:// or demo://", acct.Name, src.Scheme)
	}
}

// PushFlags hands the store's queued flag changes for account to src and
// acknowledges them once the source has them. A read-only source (mbox, demo)
// keeps flags in the store only, so its queue is acknowledged at once. On any
// other error the changes stay queued for the next attempt.
func PushFlags(ctx context.Context, st *store.Store, account string, src mailsrc.Source) error {
	for {
		pending, err := st.PendingFlagChanges(ctx, account, 500)
		if err != nil {
			return fmt.Errorf("mirror: read queued flag changes: %w", err)
		}
		if len(pending) == 0 {
			return nil
		}
		changes := make([]model.FlagChange, len(pending))
		ids := make([]int64, len(pending))
		for i, p := range pending {
			changes[i] = p.Change
			ids[i] = p.ID
		}
		if err := src.PushFlags(ctx, changes); err != nil && !errors.Is(err, mailsrc.ErrReadOnly) {
			return fmt.Errorf("mirror: push %d flag changes: %w", len(changes), err)
		}
		if err := st.AckFlagChanges(ctx, ids); err != nil {
			return fmt.Errorf("mirror: acknowledge flag changes: %w", err)
		}
		if len(pending) < 500 {
			return nil
		}
	}
}

// Sync replays queued flag changes and moves (Replay), then mirrors the source into the store.
// It leaves the process's GC settings alone: only the headless sync command,
// which owns its process, switches to batch settings (gcbatch).
func Sync(ctx context.Context, st *store.Store, account string, src mailsrc.Source, progress func(mailsrc.Progress)) error {
	if progress == nil {
		progress = func(mailsrc.Progress) {}
	}
	if err := Replay(ctx, st, account, src); err != nil {
		return err
	}
	if err := src.Sync(ctx, st, progress); err != nil {
		return fmt.Errorf("mirror: sync %q: %w", account, err)
	}
	return nil
}

// Event is what Run reports: progress, a finished sync, or an error.
type Event struct {
	Account  string
	Progress *mailsrc.Progress
	// Synced is true after a successful sync pass.
	Synced bool
	// Watching is true while the source is being watched (IMAP IDLE).
	Watching bool
	// Pushed is true after changes queued in the store reached the
	// source between sync passes (the store changed: placeholders took
	// their real keys, the queue shrank).
	Pushed bool
	// Err is a failed pass; Run retries after RetryIn.
	Err     error
	RetryIn time.Duration
}

// Run syncs the account, then watches it and syncs again whenever the
// source reports changes (or every interval), until ctx ends. Failures are
// retried with exponential backoff and jitter, capped at five minutes.
// Flag changes queued in the store are pushed on every pass, and at once
// whenever push fires while watching (the TUI pokes it after marking mail
// read); a failed push leaves them queued for the next pass. Events are sent
// on events without blocking past ctx.
func Run(ctx context.Context, st *store.Store, account string, src mailsrc.Source, interval time.Duration, push <-chan struct{}, events chan<- Event) {
	if interval <= 0 {
		interval = 5 * time.Minute
	}
	send := func(ev Event) {
		ev.Account = account
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	}
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		err := Sync(ctx, st, account, src, func(p mailsrc.Progress) {
			pp := p
			send(Event{Progress: &pp})
		})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			backoff = nextBackoff(backoff)
			send(Event{Err: err, RetryIn: backoff})
			if !sleep(ctx, backoff) {
				return
			}
			continue
		}
		backoff = 0
		send(Event{Synced: true})

		// Watch until the source reports a change or the interval passes.
		wctx, cancel := context.WithTimeout(ctx, interval)
		changed := make(chan struct{}, 1)
		go func() {
			<-changed
			cancel()
		}()
		pushDone := make(chan struct{})
		go func() {
			defer close(pushDone)
			for {
				select {
				case <-wctx.Done():
					return
				case <-push:
					if err := Replay(wctx, st, account, src); err != nil && wctx.Err() == nil {
						send(Event{Err: err})
					} else if err == nil {
						send(Event{Pushed: true})
					}
				}
			}
		}()
		send(Event{Watching: true})
		werr := src.Watch(wctx, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
		cancel()
		<-pushDone
		select {
		case changed <- struct{}{}: // release the goroutine if Watch ended on its own
		default:
		}
		if ctx.Err() != nil {
			return
		}
		if werr != nil && !errors.Is(werr, context.Canceled) && !errors.Is(werr, context.DeadlineExceeded) {
			backoff = nextBackoff(backoff)
			send(Event{Err: fmt.Errorf("mirror: watch %q: %w", account, werr), RetryIn: backoff})
			if !sleep(ctx, backoff) {
				return
			}
		}
	}
}

// nextBackoff doubles prev from one second up to five minutes and adds up to
// 50% jitter so many clients do not retry in step.
func nextBackoff(prev time.Duration) time.Duration {
	const lo, hi = time.Second, 5 * time.Minute
	d := prev * 2
	if d < lo {
		d = lo
	}
	if d > hi {
		d = hi
	}
	return d + time.Duration(rand.Int64N(int64(d/2)+1))
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
