package imap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"runtime"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/mailsrc"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// headerFields are the header fields fetched in the envelope pass: what
// threading, the inbox list and the deterministic triage signals need.
var headerFields = []string{
	"Message-ID", "References", "In-Reply-To", "From", "Sender", "To", "Cc", "Bcc",
	"Reply-To", "Date", "Subject", "MIME-Version", "Content-Type",
	"List-Id", "List-Unsubscribe", "List-Unsubscribe-Post", "List-Post",
	"Authentication-Results", "ARC-Authentication-Results", "Received-SPF", "Return-Path",
	"Precedence", "Auto-Submitted", "X-Spam-Flag", "X-Spam-Status", "X-Priority",
	"Importance", "Organization", "X-Mailer",
}

func headerSection() *imap.FetchItemBodySection {
	return &imap.FetchItemBodySection{Specifier: imap.PartSpecifierHeader, HeaderFields: headerFields, Peek: true}
}

// allUIDs is the UID set 1:*.
var allUIDs = imap.UIDSet{{Start: 1, Stop: 0}}

// mailboxInfo is one mailbox to sync.
type mailboxInfo struct {
	name  string
	delim rune
	role  model.Role
	// view: the folder shows messages that live in other folders too
	// (\All, \Flagged, \Important: Gmail's All Mail, Starred and
	// Important labels, or a virtual folder). Its new messages come as
	// envelopes first, so that copies stored already are linked
	// instead of fetched again.
	view bool
}

// Sync mirrors the account into sink: for every mailbox flag changes,
// expunges and new messages first (newest first: whole while they arrive
// fast enough, see Config.WholeBudget, the rest as envelopes), then the
// missing bodies, newest first. A sync interrupted at any point can
// simply be run again.
func (s *Source) Sync(ctx context.Context, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	if progress == nil {
		progress = func(mailsrc.Progress) {}
	}
	return s.withConn(ctx, func(c *conn) error { return s.sync(ctx, c, sink, progress) })
}

func (s *Source) sync(ctx context.Context, c *conn, sink mailsrc.Sink, progress func(mailsrc.Progress)) error {
	progress(mailsrc.Progress{Account: s.account, Phase: "list"})
	boxes, listed, err := s.listMailboxes(c)
	if err != nil {
		return err
	}
	if err := s.unselect(c); err != nil {
		return err
	}
	statuses := s.statuses(c, boxes)

	var errs []error
	synced := boxes[:0:0]
	// One writer per phase for the whole account: it stores while the
	// connection fetches, across mailboxes, so the pipeline does not
	// drain at every folder. A mailbox's state is saved through the
	// writer, after its new messages.
	ew := s.startWriter(ctx, sink, "new mail", progress)
	defer ew.stop()
	for _, mb := range boxes {
		stored, err := sink.MailboxState(ctx, s.account, mb.name)
		if err != nil {
			return fmt.Errorf("imap: state of %q: %w", mb.name, err)
		}
		if err := sink.SetMailbox(ctx, model.Mailbox{Account: s.account, Name: mb.name, Role: mb.role, State: stored}); err != nil {
			return fmt.Errorf("imap: record mailbox %q: %w", mb.name, err)
		}
		if err := s.syncMailbox(ctx, c, sink, ew, mb, stored, statuses[mb.name], progress); err != nil {
			if isServerError(err) && ctx.Err() == nil {
				s.log.Warn("mailbox sync failed", "mailbox", mb.name, "err", err)
				errs = append(errs, err)
				continue
			}
			return err
		}
		synced = append(synced, mb)
	}
	if err := ew.sync(); err != nil {
		return err
	}
	bw := s.startWriter(ctx, sink, "bodies", progress)
	defer bw.stop()
	for _, mb := range synced {
		if err := s.fetchBodies(ctx, c, sink, bw, mb, progress); err != nil {
			if isServerError(err) && ctx.Err() == nil {
				s.log.Warn("body fetch failed", "mailbox", mb.name, "err", err)
				errs = append(errs, err)
				continue
			}
			return err
		}
	}
	if err := bw.sync(); err != nil {
		return err
	}
	// Mailboxes gone from the server are forgotten last: a mailbox
	// renamed on the server has then been synced under its new name, so
	// its messages (deduplicated by Message-ID and content) keep their
	// threads and triage results.
	if err := s.forgetGone(ctx, sink, listed); err != nil {
		return err
	}
	// Messages that lost their last location in this sync and were not
	// found in another folder (a move) go now; also when a folder failed
	// (a message moved into it is then fetched again as new next time),
	// or a folder that always fails would keep expunged mail forever.
	if err := mailsrc.CollectOrphans(ctx, sink); err != nil {
		return fmt.Errorf("imap: %w", err)
	}
	progress(mailsrc.Progress{Account: s.account, Phase: "done"})
	return errors.Join(errs...)
}

// forgetGone forgets the stored mailboxes of the account that the
// successful LIST did not return at all (deleted or renamed on the
// server). A name LIST returned in any form, \Noselect or \NonExistent
// included, is kept.
func (s *Source) forgetGone(ctx context.Context, sink mailsrc.Sink, listed map[string]bool) error {
	gone, err := mailsrc.ForgetGone(ctx, sink, s.account, len(listed), func(name string) bool {
		if strings.EqualFold(name, "INBOX") {
			name = "INBOX" // INBOX is case-insensitive (RFC 3501 5.1)
		}
		return listed[name]
	})
	for _, name := range gone {
		s.log.Info("mailbox no longer on server, forgotten", "mailbox", name)
	}
	if err != nil {
		return fmt.Errorf("imap: %w", err)
	}
	return nil
}

// listMailboxes lists the selectable mailboxes to sync, INBOX first, and
// every name LIST returned (selectable or not, INBOX spelled "INBOX").
func (s *Source) listMailboxes(c *conn) ([]mailboxInfo, map[string]bool, error) {
	opts := &imap.ListOptions{}
	rev2 := c.has(imap.CapIMAP4rev2)
	if c.has(imap.CapSpecialUse) || rev2 {
		opts.ReturnSpecialUse = true
	}
	if c.has(imap.CapListExtended) || rev2 {
		opts.ReturnSubscribed = true
	}
	list, err := c.c.List("", "*", opts).Collect()
	if err != nil {
		return nil, nil, fmt.Errorf("imap: list mailboxes: %w", err)
	}
	listed := make(map[string]bool, len(list))
	var all, subscribed []mailboxInfo
	for _, l := range list {
		if strings.EqualFold(l.Mailbox, "INBOX") {
			listed["INBOX"] = true
		} else {
			listed[l.Mailbox] = true
		}
		noSelect, sub := false, false
		for _, a := range l.Attrs {
			switch strings.ToLower(string(a)) {
			case `\noselect`, `\nonexistent`:
				noSelect = true
			case `\subscribed`:
				sub = true
			}
		}
		if noSelect {
			continue
		}
		mb := mailboxInfo{name: l.Mailbox, delim: l.Delim, role: roleFromList(l.Mailbox, l.Delim, l.Attrs)}
		mb.view = mb.role == model.RoleAll || hasAttr(l.Attrs, imap.MailboxAttrFlagged) || hasAttr(l.Attrs, imap.MailboxAttrImportant)
		all = append(all, mb)
		if sub || mb.role == model.RoleInbox {
			subscribed = append(subscribed, mb)
		}
	}
	chosen := all
	switch {
	case len(s.cfg.Folders) > 0:
		chosen = nil
		for _, want := range s.cfg.Folders {
			found := false
			for _, mb := range all {
				if mb.name == want || (strings.EqualFold(want, "INBOX") && mb.role == model.RoleInbox) {
					chosen = append(chosen, mb)
					found = true
					break
				}
			}
			if !found {
				s.log.Warn("configured folder not on server", "mailbox", want)
			}
		}
	case len(subscribed) > 1 || (len(subscribed) == 1 && subscribed[0].role != model.RoleInbox):
		chosen = subscribed
	}
	sort.SliceStable(chosen, func(i, j int) bool {
		ii, jj := chosen[i].role == model.RoleInbox, chosen[j].role == model.RoleInbox
		if ii != jj {
			return ii
		}
		return chosen[i].name < chosen[j].name
	})
	return chosen, listed, nil
}

// unselect leaves the selected mailbox: servers (Dovecot) answer STATUS
// for the selected mailbox from the session's possibly stale view.
func (s *Source) unselect(c *conn) error {
	if c.selected == "" {
		return nil
	}
	var err error
	if c.has(imap.CapUnselect) || c.has(imap.CapIMAP4rev2) {
		err = c.c.Unselect().Wait()
	} else {
		err = c.c.Noop().Wait()
	}
	c.selected = ""
	if err != nil && !isServerError(err) {
		return fmt.Errorf("imap: unselect: %w", err)
	}
	return nil
}

// statuses asks STATUS for every mailbox, pipelined, when the server has
// CONDSTORE (without it STATUS cannot tell that nothing changed). Errors
// just leave a mailbox out: it is then fully checked.
func (s *Source) statuses(c *conn, boxes []mailboxInfo) map[string]*imap.StatusData {
	if !c.hasCondStore() {
		return nil
	}
	opts := &imap.StatusOptions{NumMessages: true, UIDNext: true, UIDValidity: true, HighestModSeq: true}
	cmds := make([]*imapclient.StatusCommand, len(boxes))
	for i, mb := range boxes {
		cmds[i] = c.c.Status(mb.name, opts)
	}
	out := make(map[string]*imap.StatusData, len(boxes))
	for i, cmd := range cmds {
		if data, err := cmd.Wait(); err == nil {
			out[boxes[i].name] = data
		}
	}
	return out
}

// syncMailbox brings envelopes, flags and expunges of one mailbox up to
// date and stores its new state last, so an interrupted run is redone.
func (s *Source) syncMailbox(ctx context.Context, c *conn, sink mailsrc.Sink, ew *batchWriter, mb mailboxInfo, stored model.MailboxState, st *imap.StatusData, progress func(mailsrc.Progress)) error {
	name := mb.name
	if st != nil && stored.UIDValidity != 0 && st.UIDValidity == stored.UIDValidity &&
		uint32(st.UIDNext) == stored.UIDNext && st.HighestModSeq != 0 && st.HighestModSeq == stored.HighestModSeq {
		s.log.Debug("mailbox unchanged", "mailbox", name)
		return nil
	}
	sel, err := s.selectMailbox(c, name, false)
	if err != nil {
		return err
	}
	newState := model.MailboxState{UIDValidity: sel.UIDValidity, UIDNext: uint32(sel.UIDNext), HighestModSeq: sel.HighestModSeq}
	if stored.UIDValidity != 0 && stored.UIDValidity != sel.UIDValidity {
		s.log.Info("UIDVALIDITY changed, resyncing mailbox", "mailbox", name, "old", stored.UIDValidity, "new", sel.UIDValidity)
		if err := sink.ResetMailbox(ctx, s.account, name); err != nil {
			return fmt.Errorf("imap: reset %q: %w", name, err)
		}
		stored = model.MailboxState{}
	}
	if stored.UIDValidity == 0 {
		// Record UIDVALIDITY before the first location, so that an
		// interrupted first sync resumes only against the same UIDs.
		first := model.MailboxState{UIDValidity: sel.UIDValidity}
		if err := sink.SetMailbox(ctx, model.Mailbox{Account: s.account, Name: name, Role: mb.role, State: first}); err != nil {
			return fmt.Errorf("imap: record mailbox %q: %w", name, err)
		}
	}
	stored0, err := sink.Locations(ctx, s.account, name)
	if err != nil {
		return fmt.Errorf("imap: stored locations of %q: %w", name, err)
	}
	known := make(map[imap.UID]model.Flags, len(stored0))
	for l, f := range stored0 {
		known[imap.UID(l.UID)] = f
	}
	stored0 = nil

	progress(mailsrc.Progress{Account: s.account, Mailbox: name, Phase: "flags"})
	var server []imap.UID
	changes := make(map[model.Location]model.Flags)
	switch {
	case sel.NumMessages == 0:
	case c.condstore && stored.HighestModSeq != 0 && sel.HighestModSeq != 0:
		if server, err = s.searchAll(c, name); err != nil {
			return err
		}
		if sel.HighestModSeq != stored.HighestModSeq {
			err = s.scanFlags(c, name, &imap.FetchOptions{UID: true, Flags: true, ChangedSince: stored.HighestModSeq},
				func(uid imap.UID, f model.Flags) {
					if old, ok := known[uid]; ok && !flagsEqual(old, f) {
						changes[loc(s.account, name, uid)] = f
					}
				})
			if err != nil {
				return err
			}
		}
	case len(known) == 0:
		if server, err = s.searchAll(c, name); err != nil {
			return err
		}
	default:
		server = make([]imap.UID, 0, sel.NumMessages)
		err = s.scanFlags(c, name, &imap.FetchOptions{UID: true, Flags: true}, func(uid imap.UID, f model.Flags) {
			server = append(server, uid)
			if old, ok := known[uid]; ok && !flagsEqual(old, f) {
				changes[loc(s.account, name, uid)] = f
			}
		})
		if err != nil {
			return err
		}
		slices.Sort(server)
	}

	present := make(map[imap.UID]struct{}, len(server))
	var fresh []imap.UID
	for _, uid := range server {
		present[uid] = struct{}{}
		if _, ok := known[uid]; !ok {
			fresh = append(fresh, uid)
		}
	}
	var gone []model.Location
	for uid := range known {
		if _, ok := present[uid]; !ok {
			gone = append(gone, loc(s.account, name, uid))
		}
	}
	if len(gone) > 0 {
		progress(mailsrc.Progress{Account: s.account, Mailbox: name, Phase: "expunge", Total: len(gone)})
		if err := sink.RemoveLocations(ctx, gone); err != nil {
			return fmt.Errorf("imap: remove expunged from %q: %w", name, err)
		}
	}
	if len(changes) > 0 {
		if err := sink.SetFlags(ctx, changes); err != nil {
			return fmt.Errorf("imap: store flags of %q: %w", name, err)
		}
	}
	if err := s.fetchNew(c, ew, mb, fresh); err != nil {
		return err
	}
	// Saved by the writer once the new messages are stored (never if storing
	// them failed).
	if err := ew.do(func() error {
		if err := sink.SetMailbox(ctx, model.Mailbox{Account: s.account, Name: name, Role: mb.role, State: newState}); err != nil {
			return fmt.Errorf("imap: record state of %q: %w", name, err)
		}
		return nil
	}); err != nil {
		return err
	}
	s.log.Debug("mailbox synced", "mailbox", name, "new", len(fresh), "expunged", len(gone), "flags", len(changes))
	return nil
}

func (s *Source) searchAll(c *conn, name string) ([]imap.UID, error) {
	data, err := c.c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
	if err != nil {
		return nil, fmt.Errorf("imap: search %q: %w", name, err)
	}
	uids := data.AllUIDs()
	slices.Sort(uids)
	return uids, nil
}

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

// fetchNew stores the messages new in mailbox mb (uids ascending),
// newest first: whole while the rest would arrive within the one-pass
// budget (fetchWhole), the remainder as envelopes, whose bodies the body
// phase fetches. On a local or fast server a folder's first sync is then
// one pass that writes every message once; on a slow link or a large
// folder the newest batch comes whole and the rest is listed at once.
func (s *Source) fetchNew(c *conn, w *batchWriter, mb mailboxInfo, uids []imap.UID) error {
	rest := uids
	if len(uids) > 0 && s.cfg.WholeBudget > 0 && !mb.view {
		n, err := s.fetchWhole(c, w, mb.name, uids)
		if err != nil {
			return err
		}
		rest = uids[:len(uids)-n]
		if len(rest) > 0 {
			s.log.Debug("new messages as envelopes first", "mailbox", mb.name, "whole", n, "envelopes", len(rest))
		}
	}
	return s.fetchEnvelopes(c, w, mb.name, rest)
}

// fetchWhole fetches whole messages of uids (ascending) newest batch
// first, parsed on all cores while the next batch is fetched, and hands
// them to w. It stops once the rest, at the rate measured so far
// (fetching, parsing and the writer keeping up), would take longer than
// the budget, and returns how many of the newest uids it handled.
func (s *Source) fetchWhole(c *conn, w *batchWriter, name string, uids []imap.UID) (int, error) {
	p := parsePipe{s: s, w: w, mailbox: name, phase: "messages", total: len(uids)}
	defer p.wait()
	start := s.now()
	newest := slices.Clone(uids)
	slices.Reverse(newest)
	sizes, err := s.sizes(c, name, newest)
	if err != nil {
		return 0, err
	}
	done := 0
	for done < len(newest) {
		if done > 0 {
			perMsg := float64(s.now().Sub(start)) / float64(done)
			if time.Duration(perMsg*float64(len(newest)-done)) > s.cfg.WholeBudget {
				break
			}
		}
		batch := newest[done : done+s.batchLen(newest[done:], sizes)]
		locs := make([]model.Location, len(batch))
		for i, u := range batch {
			locs[i] = loc(s.account, name, u)
		}
		// A message not returned was expunged since the search: it was
		// never stored, so there is nothing to remove.
		raws, _, err := s.fetchRaw(c, name, locs)
		if err != nil {
			return done, err
		}
		if err := p.push(raws); err != nil {
			return done, err
		}
		done += len(batch)
	}
	return done, p.flush()
}

// sizes returns the RFC822.SIZE of uids in the selected mailbox name (a
// UID the server does not return is missing from the map).
func (s *Source) sizes(c *conn, name string, uids []imap.UID) (map[imap.UID]int64, error) {
	out := make(map[imap.UID]int64, len(uids))
	cmd := c.c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, RFC822Size: true})
	for {
		msg := cmd.Next()
		if msg == nil {
			break
		}
		var uid imap.UID
		var size int64
		for item := msg.Next(); item != nil; item = msg.Next() {
			switch it := item.(type) {
			case imapclient.FetchItemDataUID:
				uid = it.UID
			case imapclient.FetchItemDataRFC822Size:
				size = it.Size
			}
		}
		if uid != 0 {
			out[uid] = size
		}
	}
	if err := cmd.Close(); err != nil {
		return nil, fmt.Errorf("imap: fetch sizes in %q: %w", name, err)
	}
	return out, nil
}

// batchLen is how many of uids, from the front, the next whole-message
// fetch takes: at most BodyBatchSize messages and BodyBatchBytes of mail
// by their sizes, but at least one.
func (s *Source) batchLen(uids []imap.UID, sizes map[imap.UID]int64) int {
	var bytes int64
	n := 0
	for n < len(uids) && n < s.cfg.BodyBatchSize {
		bytes += sizes[uids[n]]
		if n > 0 && bytes > s.cfg.BodyBatchBytes {
			break
		}
		n++
	}
	return n
}

// parsePipe parses fetched messages of one mailbox on all cores while
// the connection fetches the next batch, and hands them to the writer in
// order.
type parsePipe struct {
	s              *Source
	w              *batchWriter
	mailbox, phase string
	total          int
	parsing        chan []*model.Message // the previous batch, being parsed
}

// push hands the batch being parsed to the writer and starts parsing
// raws.
func (p *parsePipe) push(raws []rawMsg) error {
	if err := p.flush(); err != nil {
		return err
	}
	p.parsing = make(chan []*model.Message, 1)
	go func(ch chan<- []*model.Message) { ch <- p.s.parseAll(p.mailbox, raws) }(p.parsing)
	return nil
}

// flush hands the batch being parsed, if any, to the writer.
func (p *parsePipe) flush() error {
	if p.parsing == nil {
		return p.w.err()
	}
	msgs := <-p.parsing
	p.parsing = nil
	return p.w.put(p.mailbox, p.phase, p.total, msgs)
}

// wait lets a parse still running end (after an error).
func (p *parsePipe) wait() {
	if p.parsing != nil {
		<-p.parsing
		p.parsing = nil
	}
}

// fetchEnvelopes fetches the header fields of uids (ascending) newest
// batch first and puts each batch into the sink.
func (s *Source) fetchEnvelopes(c *conn, w *batchWriter, name string, uids []imap.UID) error {
	if len(uids) == 0 {
		return nil
	}
	hdr := headerSection()
	opts := &imap.FetchOptions{
		UID: true, Flags: true, RFC822Size: true,
		BodyStructure: &imap.FetchItemBodyStructure{Extended: true},
		BodySection:   []*imap.FetchItemBodySection{hdr},
	}
	var batches [][]imap.UID
	for hi := len(uids); hi > 0; hi -= s.cfg.BatchSize {
		batches = append(batches, uids[max(0, hi-s.cfg.BatchSize):hi])
	}
	for _, b := range batches {
		// One command at a time: Dovecot runs pipelined FETCHes in
		// parallel, and go-imap then needs each command consumed
		// concurrently; a round trip per batch costs little. The writer
		// stores a batch while the next one is fetched and parsed.
		msgs, err := s.readEnvelopes(c, c.c.Fetch(imap.UIDSetNum(b...), opts), name, hdr)
		if err != nil {
			return err
		}
		if err := w.put(name, "envelopes", len(uids), msgs); err != nil {
			return err
		}
	}
	return nil
}

func (s *Source) readEnvelopes(c *conn, cmd *imapclient.FetchCommand, name string, hdr *imap.FetchItemBodySection) ([]*model.Message, error) {
	var msgs []*model.Message
	for {
		m := cmd.Next()
		if m == nil {
			break
		}
		buf, err := readMessage(c, m)
		if err != nil {
			return nil, fmt.Errorf("imap: fetch envelopes in %q: %w", name, err)
		}
		if buf.UID == 0 {
			continue
		}
		raw := buf.FindBodySection(hdr)
		msg, perr := rfc822.ParseHeader(raw)
		if perr != nil {
			msg = unparsable(raw, perr)
		}
		msg.Loc = loc(s.account, name, buf.UID)
		msg.Flags = flagsFromIMAP(buf.Flags)
		msg.Size = buf.RFC822Size
		msg.HasBody = false
		msg.Raw = nil
		// An envelope has no content hash: ParseHeader hashed the header
		// section only, and a hash here would make the store treat the
		// body's arrival as a different message (insert + delete).
		msg.ContentHash = ""
		if len(msg.Attachments) == 0 {
			msg.Attachments = attachmentsFromStructure(buf.BodyStructure)
		}
		msgs = append(msgs, msg)
	}
	if err := cmd.Close(); err != nil {
		return nil, fmt.Errorf("imap: fetch envelopes in %q: %w", name, err)
	}
	return msgs, nil
}

// readMessage reads one FETCH response like FetchMessageData.Collect.
// After a failed literal read (connection lost or closed on
// cancellation) it closes the client and waits for go-imap's decoder to
// stop before returning, and the caller must abandon the command: go-imap
// would otherwise read the half-read literal again while its decoder
// reads the same buffer (a data race).
func readMessage(c *conn, m *imapclient.FetchMessageData) (*imapclient.FetchMessageBuffer, error) {
	buf := &imapclient.FetchMessageBuffer{SeqNum: m.SeqNum}
	for item := m.Next(); item != nil; item = m.Next() {
		switch it := item.(type) {
		case imapclient.FetchItemDataBodySection:
			var b []byte
			if it.Literal != nil {
				var err error
				if b, err = readLiteral(it.Literal); err != nil {
					c.c.Close()
					return nil, err
				}
			}
			buf.BodySection = append(buf.BodySection, imapclient.FetchBodySectionBuffer{Section: it.Section, Bytes: b})
		case imapclient.FetchItemDataUID:
			buf.UID = it.UID
		case imapclient.FetchItemDataFlags:
			buf.Flags = it.Flags
		case imapclient.FetchItemDataRFC822Size:
			buf.RFC822Size = it.Size
		case imapclient.FetchItemDataBodyStructure:
			buf.BodyStructure = it.BodyStructure
		case imapclient.FetchItemDataModSeq:
			buf.ModSeq = it.ModSeq
		}
	}
	return buf, nil
}

// readLiteral reads a literal into a buffer of its announced size (up
// to 64 MB; a larger one grows as it is read, so a server's claim
// alone cannot make us allocate).
func readLiteral(r imap.LiteralReader) ([]byte, error) {
	n := r.Size()
	if n < 0 || n > 64<<20 {
		return io.ReadAll(r)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// unparsable stands in for a message the parser rejected, so that it is
// still listed (with its problem) instead of being fetched forever.
func unparsable(raw []byte, err error) *model.Message {
	sum := sha256.Sum256(raw)
	h := hex.EncodeToString(sum[:])
	return &model.Message{
		MessageID:   h + "@unparsable.invalid",
		ContentHash: h,
		Subject:     "(unreadable message)",
		Problems:    []string{err.Error()},
	}
}

// rawMsg is one fetched message before parsing.
type rawMsg struct {
	uid   imap.UID
	flags []imap.Flag
	size  int64
	raw   []byte
}

// fetchBodies fills in missing bodies of one mailbox, newest first as
// the sink orders them, until none is missing. Three stages overlap: the
// connection fetches a batch while the previous one is parsed on all
// cores and the writer w stores parsed messages in group commits (see
// batchWriter). Bodies still queued in w when this returns are stored by
// w (the caller syncs it).
func (s *Source) fetchBodies(ctx context.Context, c *conn, sink mailsrc.Sink, w *batchWriter, mb mailboxInfo, progress func(mailsrc.Progress)) error {
	name := mb.name
	attempted := make(map[uint32]bool)
	// Copies of messages whose body is stored already (from a folder
	// fetched before, or another label of the same Gmail message) are
	// linked instead of fetched. Only when copies may be among the bodies
	// still queued in w does this wait for w (a wait at every folder
	// would stall the pipeline).
	if linker, ok := sink.(mailsrc.BodyLinker); ok {
		n, waiting, err := linker.LinkStoredBodies(ctx, s.account, name)
		if err == nil && waiting > 0 {
			if err := w.sync(); err != nil {
				return err
			}
			var m int
			m, _, err = linker.LinkStoredBodies(ctx, s.account, name)
			n += m
		}
		if err != nil {
			return fmt.Errorf("imap: %w", err)
		}
		if n > 0 {
			s.log.Debug("bodies found stored in another folder", "mailbox", name, "count", n)
		}
	}
	p := parsePipe{s: s, w: w, mailbox: name, phase: "bodies"}
	defer p.wait()
	// Bodies handed to the writer and not stored yet are still listed as
	// missing (newest first, and they are the newest); asking for more
	// than can be queued keeps the ones never fetched in view.
	window := 12*s.cfg.BodyBatchSize + 2*maxQueued
	for {
		locs, err := sink.MissingBodies(ctx, s.account, name, window)
		if err != nil {
			return fmt.Errorf("imap: missing bodies of %q: %w", name, err)
		}
		var todo []model.Location
		for _, l := range locs {
			if l.UID != 0 && !attempted[l.UID] {
				attempted[l.UID] = true
				todo = append(todo, l)
			}
		}
		if len(todo) == 0 {
			return p.flush()
		}
		if c.selected != name {
			if _, err := s.selectMailbox(c, name, false); err != nil {
				return err
			}
		}
		uids := make([]imap.UID, len(todo))
		for i, l := range todo {
			uids[i] = imap.UID(l.UID)
		}
		sizes, err := s.sizes(c, name, uids)
		if err != nil {
			return err
		}
		for len(todo) > 0 {
			batch := todo[:s.batchLen(uids, sizes)]
			todo, uids = todo[len(batch):], uids[len(batch):]
			raws, gone, err := s.fetchRaw(c, name, batch)
			if err != nil {
				return err
			}
			if err := p.flush(); err != nil {
				return err
			}
			if len(gone) > 0 {
				// Asked for but not returned: expunged meanwhile.
				if err := w.do(func() error {
					if err := sink.RemoveLocations(ctx, gone); err != nil {
						return fmt.Errorf("imap: remove expunged from %q: %w", name, err)
					}
					return nil
				}); err != nil {
					return err
				}
			}
			if err := p.push(raws); err != nil {
				return err
			}
		}
		if err := p.flush(); err != nil {
			return err
		}
	}
}

// Writer batching: a writer stores everything that arrived while it
// stored the previous batch (group commit), so SQLite and the connection
// work at the same time and transactions grow when SQLite is the slower
// side. A batch is stored once minBatch messages wait, or the oldest has
// waited storeDelay (a slow link still shows mail soon). At most
// maxQueued messages (or maxQueuedBytes of raw mail) wait besides the
// batch being stored; then put blocks.
const (
	minBatch       = 100
	maxQueued      = 1000
	maxQueuedBytes = 64 << 20
	storeDelay     = 300 * time.Millisecond
)

// batchWriter stores fetched messages from its own goroutine, so that
// the connection keeps fetching while SQLite writes. Requests run in the
// order they are made.
type batchWriter struct {
	in   chan writeReq
	done chan struct{}
	mu   sync.Mutex
	fail error
}

// writeReq is messages of one mailbox to store (reported as progress of
// phase, with the phase's total for that mailbox, 0 if unknown), or fn to
// run once everything before it is stored, or (both nil) a request to
// store everything queued and answer on ack.
type writeReq struct {
	mailbox string
	phase   string
	total   int
	msgs    []*model.Message
	fn      func() error
	ack     chan error
}

// writeBatch is what the storing goroutine takes at once: messages, what
// they are progress of, then requests to run after them, in order.
type writeBatch struct {
	msgs  []*model.Message
	parts []writePart
	after []writeReq // fn or ack requests
}

// writePart is n consecutive messages of a batch from one put (total:
// the phase's total for the mailbox, 0 if unknown).
type writePart struct {
	mailbox, phase string
	n, total       int
}

// startWriter starts a writer; stage ("new mail" or "bodies") names it
// in errors, and progress is reported per mailbox and phase.
func (s *Source) startWriter(ctx context.Context, sink mailsrc.Sink, stage string, progress func(mailsrc.Progress)) *batchWriter {
	w := &batchWriter{in: make(chan writeReq, 2), done: make(chan struct{})}
	batches := make(chan writeBatch) // unbuffered: handed over when the store goroutine is free
	stored := make(chan struct{})
	go func() {
		defer close(stored)
		type key struct{ mailbox, phase string }
		done := map[key]int{}
		totals := map[key]int{}
		// How long SQLite kept the writer busy, against how long it ran:
		// near 100 % means the store, not the server, sets the pace.
		var busy time.Duration
		t0 := time.Now()
		var nb int
		defer func() {
			if nb > 0 {
				s.log.Debug("writer done", "stage", stage, "batches", nb, "busy", busy, "of", time.Since(t0))
			}
		}()
		for b := range batches {
			if len(b.msgs) > 0 && w.err() == nil {
				ts := time.Now()
				nb++
				err := sink.PutMessages(ctx, b.msgs)
				busy += time.Since(ts)
				if err != nil {
					w.setErr(fmt.Errorf("imap: store %s of %q: %w", stage, b.parts[0].mailbox, err))
				} else {
					for i, p := range b.parts {
						k := key{p.mailbox, p.phase}
						done[k] += p.n
						if p.total > 0 {
							totals[k] = p.total
						}
						if i+1 < len(b.parts) && b.parts[i+1].mailbox == p.mailbox && b.parts[i+1].phase == p.phase {
							continue
						}
						progress(mailsrc.Progress{Account: s.account, Mailbox: p.mailbox, Phase: p.phase, Done: done[k], Total: totals[k]})
					}
				}
			}
			for _, r := range b.after {
				switch {
				case r.fn != nil:
					if w.err() == nil {
						if err := r.fn(); err != nil {
							w.setErr(err)
						}
					}
				case r.ack != nil:
					r.ack <- w.err()
				}
			}
		}
	}()
	go func() {
		defer close(w.done)
		defer func() { close(batches); <-stored }()
		var cur writeBatch
		var bytes int
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		defer timer.Stop()
		due := false // the oldest message has waited storeDelay
		in := w.in
		for in != nil || len(cur.msgs) > 0 || len(cur.after) > 0 {
			// Hand over when the store goroutine is free and the batch is
			// worth a transaction; take no more requests while a marker
			// waits (it must run after exactly what came before it) or
			// the queue is full.
			var out chan writeBatch
			if len(cur.after) > 0 || len(cur.msgs) >= minBatch || bytes >= maxQueuedBytes || due || (in == nil && len(cur.msgs) > 0) {
				out = batches
			}
			recv := in
			if len(cur.after) > 0 || len(cur.msgs) >= maxQueued || bytes >= maxQueuedBytes {
				recv = nil
			}
			select {
			case req, ok := <-recv:
				switch {
				case !ok:
					in = nil
				case req.msgs != nil:
					if len(cur.msgs) == 0 {
						timer.Reset(storeDelay)
						due = false
					}
					cur.msgs = append(cur.msgs, req.msgs...)
					cur.parts = append(cur.parts, writePart{req.mailbox, req.phase, len(req.msgs), req.total})
					for _, m := range req.msgs {
						bytes += len(m.Raw)
					}
				default:
					cur.after = append(cur.after, req)
				}
			case out <- cur:
				cur, bytes, due = writeBatch{}, 0, false
				timer.Stop()
			case <-timer.C:
				due = true
			}
		}
	}()
	return w
}

// put hands messages of mailbox to the writer, to be reported as
// progress of phase (total: the phase's total for the mailbox, 0 if
// unknown); it returns the writer's first error, if any.
func (w *batchWriter) put(mailbox, phase string, total int, msgs []*model.Message) error {
	if err := w.err(); err != nil {
		return err
	}
	if len(msgs) > 0 {
		w.in <- writeReq{mailbox: mailbox, phase: phase, total: total, msgs: msgs}
	}
	return nil
}

// do queues fn to run after everything handed over so far is stored
// (skipped if storing failed).
func (w *batchWriter) do(fn func() error) error {
	if err := w.err(); err != nil {
		return err
	}
	w.in <- writeReq{fn: fn}
	return nil
}

// sync waits until everything handed over is stored and run.
func (w *batchWriter) sync() error {
	ack := make(chan error, 1)
	w.in <- writeReq{ack: ack}
	return <-ack
}

func (w *batchWriter) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fail
}

func (w *batchWriter) setErr(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fail == nil {
		w.fail = err
	}
}

// stop stores what is queued (unless an error stopped the writer) and
// ends its goroutine.
func (w *batchWriter) stop() {
	close(w.in)
	<-w.done
}

// fetchRaw fetches the whole messages at locs; gone lists those the
// server did not return.
func (s *Source) fetchRaw(c *conn, name string, locs []model.Location) (raws []rawMsg, gone []model.Location, err error) {
	var set imap.UIDSet
	want := make(map[imap.UID]model.Location, len(locs))
	for _, l := range locs {
		set.AddNum(imap.UID(l.UID))
		want[imap.UID(l.UID)] = l
	}
	sec := &imap.FetchItemBodySection{Peek: true}
	cmd := c.c.Fetch(set, &imap.FetchOptions{UID: true, Flags: true, RFC822Size: true, BodySection: []*imap.FetchItemBodySection{sec}})
	for {
		m := cmd.Next()
		if m == nil {
			break
		}
		buf, err := readMessage(c, m)
		if err != nil {
			return nil, nil, fmt.Errorf("imap: fetch bodies in %q: %w", name, err)
		}
		if _, ok := want[buf.UID]; !ok {
			continue
		}
		delete(want, buf.UID)
		raws = append(raws, rawMsg{uid: buf.UID, flags: buf.Flags, size: buf.RFC822Size, raw: buf.FindBodySection(sec)})
	}
	if err := cmd.Close(); err != nil {
		return nil, nil, fmt.Errorf("imap: fetch bodies in %q: %w", name, err)
	}
	for _, l := range want {
		gone = append(gone, l)
	}
	return raws, gone, nil
}

// parseAll parses raws on all cores, keeping their order.
func (s *Source) parseAll(name string, raws []rawMsg) []*model.Message {
	out := make([]*model.Message, len(raws))
	workers := min(runtime.GOMAXPROCS(0), len(raws))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := raws[i]
				msg, err := rfc822.Parse(r.raw)
				if err != nil {
					msg = unparsable(r.raw, err)
					msg.Raw = r.raw
				} else if len(msg.Attachments) == 0 {
					// The store keeps the raw bytes only of messages
					// with attachments (saved offline from them) and of
					// those that did not parse. The rest are fetched on
					// demand (ReadRaw): two thirds of a first sync's
					// writes, ≈ 10 % of its time on the corpus.
					msg.Raw = nil
				}
				msg.Loc = loc(s.account, name, r.uid)
				msg.Flags = flagsFromIMAP(r.flags)
				if r.size > 0 {
					msg.Size = r.size
				}
				msg.HasBody = true
				out[i] = msg
			}
		}()
	}
	for i := range raws {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
