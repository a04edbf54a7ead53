package imap

import (
	"context"
	"fmt"
	"slices"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/mailsrc"
	"mailsift/model"
)

// scanFlags streams UID FETCH 1:* with opts, calling f for each message.
func (s *Source) scanFlags(c *conn, name string, opts *imap.FetchOptions, f func(imap.UID, model.Flags)) error {
	cmd := c.c.Fetch(allUIDs, opts)
	for {
		msg := cmd.Next()
		if msg == nil {
			break
		}
		var (
			uid   imap.UID
			flags []imap.Flag
			have  bool
		)
		for item := msg.Next(); item != nil; item = msg.Next() {
			switch it := item.(type) {
			case imapclient.FetchItemDataUID:
				uid = it.UID
			case imapclient.FetchItemDataFlags:
				flags, have = it.Flags, true
			}
		}
		if uid != 0 && have {
			f(uid, flagsFromIMAP(flags))
		}
	}
	if err := cmd.Close(); err != nil {
		return fmt.Errorf("imap: fetch flags in %q: %w", name, err)
	}
	return nil
}

// scanServer lists the mailbox's UIDs and the flags that changed since
// the stored state: with CONDSTORE a SEARCH and the flags changed since
// the stored HIGHESTMODSEQ; on a first sync a SEARCH; otherwise every
// message's flags.
func (j *mailboxSync) scanServer() error {
	s, c, name, sel, stored := j.s, j.c, j.mb.name, j.sel, j.stored
	j.changes = make(map[model.Location]model.Flags)
	changed := func(uid imap.UID, f model.Flags) {
		if old, ok := j.known[uid]; ok && !flagsEqual(old, f) {
			j.changes[loc(s.account, name, uid)] = f
		}
	}
	var err error
	switch {
	case sel.NumMessages == 0:
	case c.condstore && stored.HighestModSeq != 0 && sel.HighestModSeq != 0:
		if j.server, err = s.searchAll(c, name); err != nil {
			return err
		}
		if sel.HighestModSeq != stored.HighestModSeq {
			return s.scanFlags(c, name, &imap.FetchOptions{UID: true, Flags: true, ChangedSince: stored.HighestModSeq}, changed)
		}
	case len(j.known) == 0:
		if j.server, err = s.searchAll(c, name); err != nil {
			return err
		}
	default:
		j.server = make([]imap.UID, 0, sel.NumMessages)
		err = s.scanFlags(c, name, &imap.FetchOptions{UID: true, Flags: true}, func(uid imap.UID, f model.Flags) {
			j.server = append(j.server, uid)
			changed(uid, f)
		})
		if err != nil {
			return err
		}
		slices.Sort(j.server)
	}
	return nil
}

// compare returns the UIDs on the server that are not stored (fresh,
// ascending) and the stored locations no longer on the server (gone).
func (j *mailboxSync) compare() (fresh []imap.UID, gone []model.Location) {
	present := make(map[imap.UID]struct{}, len(j.server))
	for _, uid := range j.server {
		present[uid] = struct{}{}
		if _, ok := j.known[uid]; !ok {
			fresh = append(fresh, uid)
		}
	}
	for uid := range j.known {
		if _, ok := present[uid]; !ok {
			gone = append(gone, loc(j.s.account, j.mb.name, uid))
		}
	}
	return fresh, gone
}

// storeChanges removes the expunged locations and stores the changed
// flags.
func (j *mailboxSync) storeChanges(ctx context.Context, gone []model.Location) error {
	name := j.mb.name
	if len(gone) > 0 {
		j.progress(mailsrc.Progress{Account: j.s.account, Mailbox: name, Phase: "expunge", Total: len(gone)})
		if err := j.sink.RemoveLocations(ctx, gone); err != nil {
			return fmt.Errorf("imap: remove expunged from %q: %w", name, err)
		}
	}
	if len(j.changes) > 0 {
		if err := j.sink.SetFlags(ctx, j.changes); err != nil {
			return fmt.Errorf("imap: store flags of %q: %w", name, err)
		}
	}
	return nil
}
