package imap

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/mailsrc"
	"mailsift/model"
)

// PushFlags writes flag changes back with UID STORE +FLAGS.SILENT /
// -FLAGS.SILENT, one command per mailbox, flag and direction. On error
// nothing is known to be acknowledged: the caller keeps the changes
// queued and retries (re-applying a flag is harmless).
func (s *Source) PushFlags(ctx context.Context, changes []model.FlagChange) error {
	type key struct {
		flag model.Flag
		set  bool
	}
	byBox := make(map[string]map[key]*imap.UIDSet)
	for _, ch := range changes {
		if ch.Loc.Account != s.account {
			return fmt.Errorf("imap: flag change for account %q sent to account %q", ch.Loc.Account, s.account)
		}
		if ch.Loc.UID == 0 {
			return fmt.Errorf("imap: flag change for %q has no UID", ch.Loc.Mailbox)
		}
		m := byBox[ch.Loc.Mailbox]
		if m == nil {
			m = make(map[key]*imap.UIDSet)
			byBox[ch.Loc.Mailbox] = m
		}
		k := key{ch.Flag, ch.Set}
		if m[k] == nil {
			m[k] = &imap.UIDSet{}
		}
		m[k].AddNum(imap.UID(ch.Loc.UID))
	}
	if len(byBox) == 0 {
		return nil
	}
	boxes := make([]string, 0, len(byBox))
	for b := range byBox {
		boxes = append(boxes, b)
	}
	sort.Strings(boxes)
	return s.withConn(ctx, func(c *conn) error {
		for _, box := range boxes {
			if c.selected != box || c.closed() {
				if _, err := s.selectMailbox(c, box, false); err != nil {
					return err
				}
			}
			for k, set := range byBox[box] {
				op := imap.StoreFlagsDel
				if k.set {
					op = imap.StoreFlagsAdd
				}
				store := &imap.StoreFlags{Op: op, Silent: true, Flags: []imap.Flag{imap.Flag(k.flag)}}
				if err := c.c.Store(*set, store, nil).Close(); err != nil {
					return fmt.Errorf("imap: store flags in %q: %w", box, err)
				}
			}
		}
		return nil
	})
}

// Append uploads raw into mailbox with flags and internal date, and
// returns its UID if the server reports it (UIDPLUS), else 0. The
// drafts engine uses it to file sent mail and drafts.
func (s *Source) Append(ctx context.Context, mailbox string, flags []model.Flag, date time.Time, raw []byte) (uint32, error) {
	var uid uint32
	err := s.withConn(ctx, func(c *conn) error {
		cmd := c.c.Append(mailbox, int64(len(raw)), &imap.AppendOptions{Flags: flagsToIMAP(flags), Time: date})
		if _, err := cmd.Write(raw); err != nil {
			cmd.Close()
			return fmt.Errorf("imap: append to %q: %w", mailbox, err)
		}
		if err := cmd.Close(); err != nil {
			return fmt.Errorf("imap: append to %q: %w", mailbox, err)
		}
		data, err := cmd.Wait()
		if err != nil {
			return fmt.Errorf("imap: append to %q: %w", mailbox, err)
		}
		uid = uint32(data.UID)
		return nil
	})
	return uid, err
}

// FindByMessageID reports whether mailbox holds a message with the given
// Message-ID (with or without angle brackets), via UID SEARCH HEADER.
// The drafts engine uses it to settle unknown send outcomes.
func (s *Source) FindByMessageID(ctx context.Context, mailbox, messageID string) (bool, error) {
	id := strings.TrimSpace(messageID)
	if id == "" {
		return false, errors.New("imap: find by Message-ID: empty Message-ID")
	}
	if !strings.HasPrefix(id, "<") {
		id = "<" + id + ">"
	}
	var found bool
	err := s.withConn(ctx, func(c *conn) error {
		if _, err := s.selectMailbox(c, mailbox, false); err != nil {
			return err
		}
		crit := &imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: id}}}
		data, err := c.c.UIDSearch(crit, nil).Wait()
		if err != nil {
			return fmt.Errorf("imap: search %q for Message-ID: %w", mailbox, err)
		}
		found = len(data.AllUIDs()) > 0
		return nil
	})
	return found, err
}

// Compile-time check: the server keeps the raw messages the store does
// not (those without attachments).
var _ mailsrc.RawReader = (*Source)(nil)

// ReadRaw fetches the whole message at loc from the server (UID FETCH
// BODY.PEEK[], which leaves its \Seen flag alone).
func (s *Source) ReadRaw(ctx context.Context, loc model.Location) ([]byte, error) {
	if loc.Account != s.account {
		return nil, fmt.Errorf("imap: read %s/%s: not this account's (%s)", loc.Account, loc.Mailbox, s.account)
	}
	if loc.UID == 0 {
		return nil, fmt.Errorf("imap: read a message in %q: no UID", loc.Mailbox)
	}
	var raw []byte
	err := s.withConn(ctx, func(c *conn) error {
		if _, err := s.selectMailbox(c, loc.Mailbox, false); err != nil {
			return err
		}
		raws, _, err := s.fetchRaw(c, loc.Mailbox, []model.Location{loc})
		if err != nil {
			return err
		}
		if len(raws) == 1 {
			raw = raws[0].raw
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("imap: read UID %d in %q: %w", loc.UID, loc.Mailbox, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("imap: message UID %d is no longer in %q on the server (moved or deleted since the last sync; sync and try again)", loc.UID, loc.Mailbox)
	}
	return raw, nil
}

// DeleteMessage removes one message by UID: it sets \Deleted and expunges
// that UID alone (UID EXPUNGE) where the server has UIDPLUS. Without
// UIDPLUS the message is only flagged \Deleted, since a plain EXPUNGE would
// also remove other messages the user flagged for deletion elsewhere. The
// drafts engine uses it to replace its previous copy in Drafts.
func (s *Source) DeleteMessage(ctx context.Context, mailbox string, uid uint32) error {
	if uid == 0 {
		return fmt.Errorf("imap: delete from %q: no UID", mailbox)
	}
	return s.withConn(ctx, func(c *conn) error {
		if _, err := s.selectMailbox(c, mailbox, false); err != nil {
			return err
		}
		set := imap.UIDSetNum(imap.UID(uid))
		store := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
		if err := c.c.Store(set, store, nil).Close(); err != nil {
			return fmt.Errorf("imap: flag UID %d in %q deleted: %w", uid, mailbox, err)
		}
		if !c.has(imap.CapUIDPlus) {
			return nil
		}
		if err := c.c.UIDExpunge(set).Close(); err != nil {
			return fmt.Errorf("imap: expunge UID %d from %q: %w", uid, mailbox, err)
		}
		return nil
	})
}

// Watch timings.
const (
	idleRestart  = 29 * time.Minute
	pollInterval = 2 * time.Minute
	backoffStart = time.Second
	backoffCap   = 5 * time.Minute
)

// Watch keeps a connection with INBOX selected in IDLE (or polls with
// NOOP when the server has no IDLE) and calls changed after the server
// reports new mail, expunges or flag changes, and after reconnecting.
// Lost connections are re-established with exponential backoff and
// jitter; a rejected login ends Watch at once with that error. Watch
// returns ctx.Err() when ctx ends.
func (s *Source) Watch(ctx context.Context, changed func()) error {
	backoff := backoffStart
	first := true
	for {
		start := time.Now()
		err := s.watchOnce(ctx, changed, !first)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, ErrAuthFailed) || isConfigError(err) {
			return err
		}
		first = false
		if time.Since(start) > 2*backoffCap {
			backoff = backoffStart
		}
		wait := backoff/2 + rand.N(backoff/2+1)
		s.log.Warn("imap watch connection lost, reconnecting", "err", err, "in", wait.Round(time.Millisecond))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff = min(backoff*2, backoffCap)
	}
}

func (s *Source) watchOnce(ctx context.Context, changed func(), reconnected bool) error {
	notify := make(chan struct{}, 1)
	poke := func() {
		select {
		case notify <- struct{}{}:
		default:
		}
	}
	handler := &imapclient.UnilateralDataHandler{
		Expunge: func(uint32) { poke() },
		Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				poke()
			}
		},
		Fetch: func(msg *imapclient.FetchMessageData) {
			for msg.Next() != nil {
			}
			poke()
		},
	}
	c, err := s.connect(ctx, handler)
	if err != nil {
		return err
	}
	defer c.c.Close()
	stop := context.AfterFunc(ctx, func() { c.c.Close() })
	defer stop()

	sel, err := c.c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return fmt.Errorf("imap: select %q: %w", "INBOX", err)
	}
	if reconnected || s.inboxMovedOn(sel) {
		changed()
	}
	for {
		if !c.hasIdle() {
			t := time.NewTimer(pollInterval)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-c.c.Closed():
				t.Stop()
				return errors.New("imap: connection closed")
			case <-t.C:
			}
			if err := c.c.Noop().Wait(); err != nil {
				return fmt.Errorf("imap: noop: %w", err)
			}
			select {
			case <-notify:
				changed()
			default:
			}
			continue
		}
		idle, err := c.c.Idle()
		if err != nil {
			return fmt.Errorf("imap: idle: %w", err)
		}
		t := time.NewTimer(idleRestart)
		got := false
		select {
		case <-ctx.Done():
		case <-c.c.Closed():
		case <-notify:
			got = true
		case <-t.C:
		}
		t.Stop()
		cerr := idle.Close()
		if werr := idle.Wait(); werr != nil && cerr == nil {
			cerr = werr
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cerr != nil {
			return fmt.Errorf("imap: idle: %w", cerr)
		}
		select {
		case <-c.c.Closed():
			return errors.New("imap: connection closed by server")
		default:
		}
		if got {
			changed()
		}
	}
}
