package drafts

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime/quotedprintable"
	"strings"
	"time"

	"mailsift/model"
	"mailsift/store"
)

// The iMIP (RFC 6047) answers to invitations: a draft that carries an
// iTIP object (store.ITIPDraft) goes out as multipart/alternative with
// the draft's text and the calendar object as text/calendar with its
// METHOD, through the same approval, confirm screen and outbox as any
// reply.

// buildOutgoing builds the exact message of a draft: BuildMessage, or
// BuildITIPMessage when the draft carries an iTIP object.
func (e *Engine) buildOutgoing(ctx context.Context, d *Draft, date time.Time, messageID string) (*Outgoing, error) {
	x, ok, err := e.st.ITIPForDraft(ctx, d.ID)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	if !ok {
		return e.buildMessage(ctx, d, date, messageID)
	}
	return BuildITIPMessage(d, date, messageID, x.Method, x.ICS)
}

// BuildITIPMessage builds the message of an invitation answer: the
// headers and text of BuildMessage, then a multipart/alternative body of
// that text and the iCalendar object (text/calendar; method=METHOD, as
// RFC 6047 section 2.4 asks). The calendar part is 7bit when it is
// printable ASCII in lines under 998 octets, else quoted-printable.
func BuildITIPMessage(d *Draft, date time.Time, messageID, method, ics string) (*Outgoing, error) {
	switch method {
	case "REPLY", "COUNTER":
	default:
		return nil, fmt.Errorf("drafts: iTIP method %q is not REPLY or COUNTER", method)
	}
	if !strings.HasPrefix(ics, "BEGIN:VCALENDAR") {
		return nil, fmt.Errorf("drafts: the iTIP object is not an iCalendar object")
	}
	out, err := BuildMessage(d, date, messageID)
	if err != nil {
		return nil, err
	}
	const mark = "MIME-Version: 1.0\r\n"
	i := bytes.Index(out.Raw, []byte("\r\n"+mark))
	if i < 0 {
		return nil, fmt.Errorf("drafts: message has no MIME-Version header")
	}
	head := out.Raw[:i+2]
	textPart := out.Raw[i+2+len(mark):] // Content-Type, CTE, blank line, body
	var nb [12]byte
	_, _ = rand.Read(nb[:])
	boundary := "mailsift-" + hex.EncodeToString(nb[:])
	var b bytes.Buffer
	b.Write(head)
	b.WriteString(mark)
	b.WriteString("Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n\r\n")
	b.WriteString("--" + boundary + "\r\n")
	b.Write(textPart)
	if !bytes.HasSuffix(textPart, []byte("\r\n")) {
		b.WriteString("\r\n")
	}
	// The CRLF before a delimiter belongs to it (RFC 2046 5.1.1): this
	// one keeps the text's last line break.
	b.WriteString("\r\n--" + boundary + "\r\n")
	b.WriteString("Content-Type: text/calendar; charset=utf-8; method=" + method + "\r\n")
	cal := strings.ReplaceAll(strings.ReplaceAll(ics, "\r\n", "\n"), "\n", "\r\n")
	if !strings.HasSuffix(cal, "\r\n") {
		cal += "\r\n"
	}
	if sevenBit([]byte(cal)) {
		b.WriteString("Content-Transfer-Encoding: 7bit\r\n\r\n")
		b.WriteString(cal)
	} else {
		b.WriteString("Content-Transfer-Encoding: quoted-printable\r\n\r\n")
		w := quotedprintable.NewWriter(&b)
		w.Write([]byte(cal))
		w.Close()
		if !bytes.HasSuffix(b.Bytes(), []byte("\r\n")) {
			b.WriteString("\r\n")
		}
	}
	b.WriteString("\r\n--" + boundary + "--\r\n")
	out.Raw = b.Bytes()
	return out, nil
}

// ITIPAnswer is an answer to an invitation, to be drafted: the caller
// (the app layer) has built the iCalendar object and checked that To is
// the invitation's organizer and one of the thread's senders.
type ITIPAnswer struct {
	ThreadID int64
	// Invitation is the message that carried the REQUEST (for
	// In-Reply-To and References).
	Invitation *model.Message
	// To is the organizer.
	To model.Address
	// Account sends the answer ("" = the thread's account or the default).
	Account string
	Subject string
	Body    string
	// Method is REPLY or COUNTER; UID and PartStat name the answer; ICS
	// is the iCalendar object.
	Method, UID, PartStat, ICS string
}

// NewITIPDraft saves an open draft of an invitation answer and its iTIP
// object. It goes through the same review, confirm screen (which shows
// the exact bytes, calendar part included) and outbox as any reply.
func (e *Engine) NewITIPDraft(ctx context.Context, a ITIPAnswer) (*Draft, error) {
	if a.To.Email == "" {
		return nil, fmt.Errorf("drafts: an invitation answer needs the organizer's address")
	}
	if a.Account == "" {
		a.Account = e.threadAccount(ctx, a.ThreadID)
	}
	from := e.opt.Principal
	if acct, err := e.account(a.Account); err == nil && acct.From.Email != "" {
		from = acct.From
	}
	d := &Draft{ThreadID: a.ThreadID, Account: a.Account, From: from, To: []model.Address{a.To},
		Subject: a.Subject, Body: a.Body, NeedsApproval: true, Source: "itip"}
	if a.Invitation != nil {
		d.InReplyTo, d.References = Threading(a.Invitation)
	}
	if err := e.SaveDraft(ctx, d); err != nil {
		return nil, err
	}
	if err := e.st.SaveITIPDraft(ctx, store.ITIPDraft{DraftID: d.ID, Method: a.Method, UID: a.UID, PartStat: a.PartStat, ICS: a.ICS}); err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	return d, nil
}
