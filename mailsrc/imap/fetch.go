package imap

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/mailsrc/internal/pipeline"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// rawMsg is one fetched message before parsing.
type rawMsg struct {
	uid   imap.UID
	flags []imap.Flag
	size  int64
	raw   []byte
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

// parseAll parses raws on all cores, keeping their order.
func (s *Source) parseAll(name string, raws []rawMsg) []*model.Message {
	return pipeline.Map(runtime.GOMAXPROCS(0), raws, func(r rawMsg) *model.Message { return s.parseRaw(name, r) })
}

// parseRaw parses one fetched message of mailbox name.
func (s *Source) parseRaw(name string, r rawMsg) *model.Message {
	msg, err := rfc822.Parse(r.raw)
	if err != nil {
		msg = unparsable(r.raw, err)
		msg.Raw = r.raw
	} else if len(msg.Attachments) == 0 {
		// The store keeps the raw bytes only of messages with
		// attachments (saved offline from them) and of those that did
		// not parse. The rest are fetched on demand (ReadRaw): two
		// thirds of a first sync's writes, ≈ 10 % of its time on the
		// corpus.
		msg.Raw = nil
	}
	msg.Loc = loc(s.account, name, r.uid)
	msg.Flags = flagsFromIMAP(r.flags)
	if r.size > 0 {
		msg.Size = r.size
	}
	msg.HasBody = true
	return msg
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
