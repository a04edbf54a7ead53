package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"mailsift/model"
)

// PutMessages inserts or updates messages at their locations and threads
// them. The same message (Message-ID and content hash) at two locations is
// one message row. An envelope-only message (HasBody false, no content
// hash) is keyed by its location until its body arrives; then it is
// deduplicated against copies already stored.
func (s *Store) PutMessages(ctx context.Context, msgs []*model.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	preps := prepareMessages(msgs)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		w := s.newWriter(ctx, tx)
		var pending bool
		if err := w.queryRow(`SELECT EXISTS(SELECT 1 FROM pending_flags)`).Scan(&pending); err != nil {
			return err
		}
		w.noPending = !pending
		// Threads created by the batch are inserted by finish, after the
		// messages that point at them: the foreign keys are checked at
		// commit.
		if _, err := w.exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
			return err
		}
		if err := w.preload(msgs, preps); err != nil {
			return err
		}
		accounts := map[string]bool{}
		for i, m := range msgs {
			if m == nil {
				continue
			}
			if !accounts[m.Loc.Account] {
				accounts[m.Loc.Account] = true
				if _, err := w.exec(`INSERT OR IGNORE INTO accounts(name) VALUES(?)`, m.Loc.Account); err != nil {
					return err
				}
			}
			if err := w.put(m, &preps[i]); err != nil {
				return fmt.Errorf("message %q at %s/%s/%s: %w", m.MessageID, m.Loc.Account, m.Loc.Mailbox, locKey(m.Loc), err)
			}
		}
		if err := w.subjectJoins(); err != nil {
			return fmt.Errorf("subject joins: %w", err)
		}
		return w.finish()
	})
	if err != nil {
		return fmt.Errorf("store: put messages: %w", err)
	}
	return nil
}

// putPrep is the part of storing a message computed outside the write
// transaction, on all cores: column values and references.
type putPrep struct {
	mid  string
	args []any // messageArgs
	refs []string
}

// prepareMessages computes the putPrep of every message in parallel (the
// write transaction itself runs on one connection, one core).
func prepareMessages(msgs []*model.Message) []putPrep {
	preps := make([]putPrep, len(msgs))
	workers := min(runtime.GOMAXPROCS(0), (len(msgs)+15)/16)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < len(msgs); i += workers {
				m := msgs[i]
				if m == nil {
					continue
				}
				mid := storedMessageID(m)
				preps[i] = putPrep{mid: mid, args: messageArgs(m), refs: messageRefs(mid, m)}
			}
		}()
	}
	wg.Wait()
	return preps
}

// storedMessageID is the Message-ID a message is stored under: its own,
// else one derived from its content hash or, for an envelope, its
// location.
func storedMessageID(m *model.Message) string {
	mid := strings.TrimSpace(m.MessageID)
	if mid == "" {
		if m.ContentHash != "" {
			mid = "mailsift-" + m.ContentHash
		} else {
			mid = "mailsift-loc-" + m.Loc.Account + "/" + m.Loc.Mailbox + "/" + locKey(m.Loc)
		}
	}
	return mid
}

// put stores one message of a PutMessages batch: it finds the row the
// message belongs to (a stored copy, the row its location holds, or a new
// one), points the location at it, and collects the row the location
// held before if nothing else points at it.
func (w *writer) put(m *model.Message, p *putPrep) error {
	key := locKey(m.Loc)
	if key == "" {
		return errors.New("location has neither key nor uid")
	}
	mid := p.mid
	hash := m.ContentHash

	// What the location holds now (PutMessages preloaded it).
	b := w.b
	lid := locID{m.Loc.Account, m.Loc.Mailbox, key}
	locMsg := b.locs[lid]
	var locHash sql.NullString
	var locMID string
	var locHasBody bool
	if r := b.msgs[locMsg]; locMsg != 0 && r != nil {
		locHash, locMID, locHasBody = r.hash, r.mid, r.hasBody
	}

	var thread int64
	target, targetHasBody := b.storedCopy(m, mid, locMsg)
	switch {
	case target != 0:
		// A copy of this exact message is stored already.
		if !targetHasBody && m.HasBody {
			if err := w.updateMessage(target, mid, m, p); err != nil {
				return err
			}
		}
	case locMsg != 0 && locMID == mid && (!locHash.Valid || hash == "" || locHash.String == hash):
		// Same message at the same location: an envelope being refreshed,
		// or its body arriving.
		target = locMsg
		if !locHasBody && (m.HasBody || !locHash.Valid) {
			if err := w.updateMessage(target, mid, m, p); err != nil {
				return err
			}
		}
	default:
		id, tid, err := w.insertMessage(mid, m, p)
		if err != nil {
			return err
		}
		target, thread = id, tid
	}
	if thread == 0 {
		thread = b.thread(target)
	}
	if err := w.setLocationIn(m.Loc, key, target, thread, m.Flags); err != nil {
		return err
	}
	b.locs[lid] = target
	if locMsg != 0 && locMsg != target {
		w.slowThread(b.thread(locMsg))
		if err := w.gcMessage(locMsg); err != nil {
			return err
		}
	}
	return nil
}

// storedCopy returns the stored message m (stored as mid, its location
// holding message locMsg) is a copy of, and whether that copy has its
// body; 0 when there is none.
func (b *batchIndex) storedCopy(m *model.Message, mid string, locMsg int64) (target int64, hasBody bool) {
	hash := m.ContentHash
	if hash != "" {
		for _, x := range b.byMID[mid] {
			if r := b.msgs[x]; !r.gone && r.hash.Valid && r.hash.String == hash {
				return x, r.hasBody
			}
		}
	}
	if hash == "" && !m.HasBody && m.Size > 0 && locMsg == 0 {
		// The envelope of a message stored with its body in another
		// folder already (a copy; Gmail shows every label as a folder and
		// everything again in All Mail): the same Message-ID and size is
		// the same message, whose body need not be fetched again.
		for _, x := range b.byMID[mid] {
			if r := b.msgs[x]; !r.gone && r.hasBody && r.size == m.Size {
				return x, true
			}
		}
	}
	return 0, false
}
