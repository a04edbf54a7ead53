package imap

import (
	"fmt"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/mailsrc/internal/pipeline"
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

// fetchNew stores the messages new in mailbox mb (uids ascending),
// newest first: whole while the rest would arrive within the one-pass
// budget (fetchWhole), the remainder as envelopes, whose bodies the body
// phase fetches. On a local or fast server a folder's first sync is then
// one pass that writes every message once; on a slow link or a large
// folder the newest batch comes whole and the rest is listed at once.
func (s *Source) fetchNew(c *conn, w *pipeline.Writer, mb mailboxInfo, uids []imap.UID) error {
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

// fetchEnvelopes fetches the header fields of uids (ascending) newest
// batch first and puts each batch into the sink.
func (s *Source) fetchEnvelopes(c *conn, w *pipeline.Writer, name string, uids []imap.UID) error {
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
		if err := put(w, name, "envelopes", len(uids), msgs); err != nil {
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
