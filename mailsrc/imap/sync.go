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
}

// Sync mirrors the account into sink: for every mailbox new envelopes,
// flag changes and expunges first, then the missing bodies, newest
// first. A sync interrupted at any point can simply be run again.
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
	// writer, after its envelopes.
	ew := s.startWriter(ctx, sink, "envelopes", progress)
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
	if err := s.fetchEnvelopes(c, ew, name, fresh); err != nil {
		return err
	}
	// Saved by the writer once the envelopes are stored (never if storing
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
		if err := w.put(name, len(uids), msgs); err != nil {
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
		msg, perr := mailsrc.ParseHeader(raw)
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
				if b, err = io.ReadAll(it.Literal); err != nil {
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
// cores and the writer w stores parsed messages in batches of up to
// storeBatch (fewer, larger transactions: each costs a commit and a search
// index segment). Bodies still queued in w when this returns are stored
// by w (the caller syncs it).
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
	var parsing chan []*model.Message // the previous batch, being parsed
	flush := func() error {
		if parsing == nil {
			return w.err()
		}
		msgs := <-parsing
		parsing = nil
		return w.put(name, 0, msgs)
	}
	defer func() {
		if parsing != nil {
			<-parsing
		}
	}()
	// Bodies handed to the writer and not stored yet are still listed as
	// missing (newest first, and they are the newest); asking for more
	// than can be queued keeps the ones never fetched in view.
	window := 12*s.cfg.BodyBatchSize + 2*storeBatch
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
			return flush()
		}
		if c.selected != name {
			if _, err := s.selectMailbox(c, name, false); err != nil {
				return err
			}
		}
		for len(todo) > 0 {
			batch := todo[:min(len(todo), s.cfg.BodyBatchSize)]
			todo = todo[len(batch):]
			raws, gone, err := s.fetchRaw(c, name, batch)
			if err != nil {
				return err
			}
			if err := flush(); err != nil {
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
			parsing = make(chan []*model.Message, 1)
			go func(ch chan<- []*model.Message) { ch <- s.parseAll(name, raws) }(parsing)
		}
		if err := flush(); err != nil {
			return err
		}
	}
}

// storeBatch is how many fetched messages a writer stores per
// transaction at most (a batch of envelopes larger than this is stored
// whole).
const storeBatch = 500

// storeDelay is how long fetched messages wait for a fuller batch.
const storeDelay = 300 * time.Millisecond

// batchWriter stores fetched messages from its own goroutine, so that
// the connection keeps fetching while SQLite writes. Requests run in the
// order they are made.
type batchWriter struct {
	in   chan writeReq
	done chan struct{}
	mu   sync.Mutex
	fail error
}

// writeReq is messages of one mailbox to store (with the phase's total
// for that mailbox, 0 if unknown), or fn to run once everything before it
// is stored, or (both nil) a request to store everything queued and
// answer on ack.
type writeReq struct {
	mailbox string
	total   int
	msgs    []*model.Message
	fn      func() error
	ack     chan error
}

// startWriter starts the writer for one phase ("envelopes" or "bodies",
// reported as progress per mailbox).
func (s *Source) startWriter(ctx context.Context, sink mailsrc.Sink, phase string, progress func(mailsrc.Progress)) *batchWriter {
	w := &batchWriter{in: make(chan writeReq, 2), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var buf []*model.Message
		var boxes []string // mailboxes in buf, in order
		stored := map[string]int{}
		totals := map[string]int{}
		store := func() {
			if len(buf) == 0 {
				return
			}
			if w.err() == nil {
				if err := sink.PutMessages(ctx, buf); err != nil {
					w.setErr(fmt.Errorf("imap: store %s of %q: %w", phase, boxes[0], err))
				} else {
					for _, m := range buf {
						stored[m.Loc.Mailbox]++
					}
					for _, mb := range boxes {
						progress(mailsrc.Progress{Account: s.account, Mailbox: mb, Phase: phase, Done: stored[mb], Total: totals[mb]})
					}
				}
			}
			buf, boxes = nil, nil
		}
		// Store when storeBatch messages are waiting, or when the oldest
		// has waited storeDelay (a slow link still shows bodies soon).
		timer := time.NewTimer(time.Hour)
		timer.Stop()
		defer timer.Stop()
		for {
			select {
			case req, ok := <-w.in:
				switch {
				case !ok:
					store()
					return
				case req.msgs != nil:
					if len(buf) == 0 {
						timer.Reset(storeDelay)
					}
					if len(boxes) == 0 || boxes[len(boxes)-1] != req.mailbox {
						boxes = append(boxes, req.mailbox)
					}
					if req.total > 0 {
						totals[req.mailbox] = req.total
					}
					buf = append(buf, req.msgs...)
					if len(buf) >= storeBatch {
						timer.Stop()
						store()
					}
				case req.fn != nil:
					store()
					if w.err() == nil {
						if err := req.fn(); err != nil {
							w.setErr(err)
						}
					}
				default:
					store()
					req.ack <- w.err()
				}
			case <-timer.C:
				store()
			}
		}
	}()
	return w
}

// put hands messages of mailbox to the writer; it returns the writer's
// first error, if any.
func (w *batchWriter) put(mailbox string, total int, msgs []*model.Message) error {
	if err := w.err(); err != nil {
		return err
	}
	if len(msgs) > 0 {
		w.in <- writeReq{mailbox: mailbox, total: total, msgs: msgs}
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
				msg, err := mailsrc.Parse(r.raw)
				if err != nil {
					msg = unparsable(r.raw, err)
					msg.Raw = r.raw
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
