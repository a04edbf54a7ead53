package drafts

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"mailsift/internal/termsafe"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/store"
)

var reFwd = regexp.MustCompile(`(?i)^\s*(fwd?|wg|tr)\s*:`)

// ForwardSubject adds "Fwd: " once.
func ForwardSubject(subject string) string {
	s := oneLine(subject)
	if reFwd.MatchString(s) {
		return s
	}
	if s == "" {
		return "Fwd: (no subject)"
	}
	return "Fwd: " + s
}

// Forward drafts a forward of one message given as its raw bytes, with no
// recipients yet (the user types them). Inline (asAttachment false), the
// body quotes the original's header block and text, and the original's
// attachments are attached again; as an attachment the whole original
// message is attached unchanged (message/rfc822) under an empty body.
// A message whose MIME is broken is still forwarded: inline with whatever
// text the parser recovered (and ForwardResult.Problems saying what was
// lost), or whole as an attachment, which keeps every byte. problems name
// what could not be carried over (original attachments that could not be
// copied; the forward holds the rest).
func (e *Engine) Forward(ctx context.Context, raw []byte, asAttachment bool, accountName string) (d *Draft, problems []string, err error) {
	if len(raw) > MaxAttachmentBytes {
		return nil, nil, fmt.Errorf("forward: the message is %s; mailsift forwards at most %s (servers refuse larger mail)", humanBytes(int64(len(raw))), humanBytes(MaxAttachmentBytes))
	}
	orig, err := rfc822.Parse(raw)
	if err != nil {
		if !asAttachment {
			return nil, nil, fmt.Errorf("forward: the message cannot be read (%v); forward it as an attachment (F), which sends its bytes unchanged", err)
		}
		orig = &model.Message{}
	}
	d = &Draft{Account: accountName, From: e.from(accountName), Source: SourceForward, NeedsApproval: true,
		Subject: ForwardSubject(orig.Subject)}
	var atts []*Attachment
	if asAttachment {
		name := cleanFilename(oneLine(orig.Subject))
		if name == "" {
			name = "message"
		}
		if len(name) > 60 {
			name = truncateRunes(name, 60)
		}
		atts = append(atts, &Attachment{Filename: name + ".eml", ContentType: "message/rfc822", Forwarded: true, Data: raw})
	} else {
		d.Body = "\n\n" + forwardBlock(orig)
		for _, a := range orig.Attachments {
			fn, data, err := rfc822.AttachmentContent(raw, a.Part)
			if err != nil {
				problems = append(problems, fmt.Sprintf("attachment %q not kept: %v (forward as an attachment with F to keep it)", cleanLine(a.Filename), err))
				continue
			}
			if fn == "" {
				fn = a.Filename
			}
			if fn == "" {
				fn = "part-" + a.Part
			}
			ct := a.ContentType
			if ct == "" {
				ct = contentTypeOf(fn, data)
			}
			atts = append(atts, &Attachment{Filename: cleanFilename(fn), ContentType: ct, Data: data})
		}
		for _, p := range orig.Problems {
			problems = append(problems, "original: "+cleanLine(p))
		}
	}
	d.RiskFlags = RiskFlags(d, nil, nil)
	if err := e.st.SaveDraft(ctx, d); err != nil {
		return nil, nil, fmt.Errorf("drafts: forward: %w", err)
	}
	for _, a := range atts {
		a.DraftID = d.ID
		if err := e.st.AddDraftAttachment(ctx, a); err != nil {
			return nil, nil, fmt.Errorf("drafts: forward: %w", err)
		}
	}
	if len(atts) > 0 {
		if err := e.SaveNewMessage(ctx, d); err != nil {
			return nil, nil, err
		}
	}
	return d, problems, nil
}

// forwardBlock is the quoted original of an inline forward.
func forwardBlock(m *model.Message) string {
	var b strings.Builder
	b.WriteString("---------- Forwarded message ----------\n")
	line := func(name, v string) {
		if v != "" {
			b.WriteString(name + ": " + v + "\n")
		}
	}
	line("From", addrText([]model.Address{m.From}))
	if !m.Date.IsZero() {
		line("Date", m.Date.Format(time.RFC1123Z))
	}
	line("Subject", oneLine(m.Subject))
	line("To", addrText(m.To))
	line("Cc", addrText(m.Cc))
	b.WriteString("\n")
	// The quoted mail is shown in the editor and sent: terminal escapes
	// and bidi controls go, as everywhere mail text is drawn.
	b.WriteString(strings.TrimRight(termsafe.Sanitize(m.Body()), "\n"))
	b.WriteString("\n")
	return b.String()
}

func addrText(as []model.Address) string {
	var out []string
	for _, a := range as {
		if a.Email == "" {
			continue
		}
		if n := oneLine(a.Name); n != "" {
			out = append(out, n+" <"+cleanLine(a.Email)+">")
		} else {
			out = append(out, cleanLine(a.Email))
		}
	}
	return strings.Join(out, ", ")
}

// cleanFilename keeps a file name safe to name in a header and to save on
// the other side: one line, no path, no controls.
func cleanFilename(s string) string {
	s = oneLine(strings.ToValidUTF8(s, "_"))
	s = strings.NewReplacer("/", "_", "\\", "_").Replace(s)
	return strings.TrimLeft(s, ".")
}

// contentTypeOf guesses a file's media type from its extension, else from
// its first bytes.
func contentTypeOf(name string, data []byte) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); t != "" {
		if mt, _, err := mime.ParseMediaType(t); err == nil {
			return mt
		}
	}
	if mt, _, err := mime.ParseMediaType(http.DetectContentType(data)); err == nil {
		return mt
	}
	return "application/octet-stream"
}

// buildMessage is BuildMessage plus the draft's attachments: with any, the
// message becomes multipart/mixed, the text first. Approve and the
// server's Drafts copy both build through here, so what is confirmed is
// what is sent.
func (e *Engine) buildMessage(ctx context.Context, d *Draft, date time.Time, messageID string) (*Outgoing, error) {
	out, err := BuildMessage(d, date, messageID)
	if err != nil || d.ID == "" {
		return out, err
	}
	atts, err := e.st.DraftAttachments(ctx, d.ID)
	if err != nil {
		return nil, fmt.Errorf("drafts: %w", err)
	}
	if len(atts) == 0 {
		return out, nil
	}
	raw, err := withAttachments(out.Raw, atts)
	if err != nil {
		return nil, err
	}
	out.Raw = raw
	return out, nil
}

// withAttachments turns a single-part message built by BuildMessage into
// multipart/mixed: the top header fields stay, the text part keeps its
// own Content-Type and encoding, each attachment follows in base64 (a
// forwarded 7-bit message as message/rfc822 unchanged).
func withAttachments(single []byte, atts []store.DraftAttachment) ([]byte, error) {
	const mimeLine = "\r\nMIME-Version: 1.0\r\n"
	i := bytes.Index(single, []byte(mimeLine))
	if i < 0 {
		return nil, fmt.Errorf("drafts: internal: built message has no MIME-Version line")
	}
	head, text := single[:i+2], single[i+len(mimeLine):]
	boundary := newBoundary()
	for bytes.Contains(single, []byte(boundary)) || containsInAny(atts, boundary) {
		boundary = newBoundary()
	}
	var b bytes.Buffer
	b.Write(head)
	b.WriteString("MIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: multipart/mixed; boundary=\"" + boundary + "\"\r\n\r\n")
	b.WriteString("This is a message in MIME format with attachments.\r\n")
	b.WriteString("\r\n--" + boundary + "\r\n")
	b.Write(text)
	for _, a := range atts {
		b.WriteString("\r\n--" + boundary + "\r\n")
		if err := writeAttachment(&b, a); err != nil {
			return nil, err
		}
	}
	b.WriteString("\r\n--" + boundary + "--\r\n")
	return b.Bytes(), nil
}

func containsInAny(atts []store.DraftAttachment, s string) bool {
	for _, a := range atts {
		if bytes.Contains(a.Data, []byte(s)) {
			return true
		}
	}
	return false
}

// newBoundary returns a random MIME boundary; "=_" cannot occur in
// quoted-printable or base64 text.
func newBoundary() string {
	var r [18]byte
	if _, err := rand.Read(r[:]); err != nil {
		panic("drafts: crypto/rand failed: " + err.Error())
	}
	return "=_mailsift_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(r[:]))
}

// writeAttachment writes one attachment part (headers, blank line, body
// ending in CRLF).
func writeAttachment(b *bytes.Buffer, a store.DraftAttachment) error {
	name := cleanFilename(a.Filename)
	ct := a.ContentType
	if _, _, err := mime.ParseMediaType(ct); err != nil || ct == "" {
		ct = "application/octet-stream"
	}
	ctv := mime.FormatMediaType(ct, map[string]string{"name": name})
	cdv := mime.FormatMediaType("attachment", map[string]string{"filename": name})
	if ctv == "" || cdv == "" {
		return fmt.Errorf("drafts: attachment %q: the file name cannot be written in a MIME header; rename the file and attach it again", cleanLine(name))
	}
	if len("Content-Disposition: "+cdv) > maxLineLen || len("Content-Type: "+ctv) > maxLineLen {
		return fmt.Errorf("drafts: attachment %q: the file name is too long for a header line (%d octets at most); rename the file and attach it again", truncateRunes(name, 40), maxLineLen)
	}
	b.WriteString("Content-Type: " + ctv + "\r\n")
	b.WriteString("Content-Disposition: " + cdv + "\r\n")
	if a.Forwarded && ct == "message/rfc822" && sevenBit(a.Data) {
		// A 7-bit message travels as itself (RFC 2046 5.2.1 allows only
		// 7bit, 8bit or binary for message/rfc822).
		b.WriteString("Content-Transfer-Encoding: 7bit\r\n\r\n")
		data := bytes.ReplaceAll(bytes.ReplaceAll(a.Data, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
		b.Write(data)
		if !bytes.HasSuffix(data, []byte("\r\n")) {
			b.WriteString("\r\n")
		}
		return nil
	}
	// Anything else in base64, also an 8-bit forwarded message: mailsift
	// sends 7-bit mail only, and mail readers decode a base64
	// message/rfc822 part.
	b.WriteString("Content-Transfer-Encoding: base64\r\n\r\n")
	enc := base64.StdEncoding.EncodeToString(a.Data)
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	if enc != "" {
		b.WriteString(enc + "\r\n")
	}
	return nil
}

// sevenBit reports whether data is 7-bit text with lines of at most 998
// octets and no NUL or lone CR.
func sevenBit(data []byte) bool {
	n := 0
	for i, c := range data {
		switch {
		case c == '\n':
			n = 0
			continue
		case c == '\r':
			if i+1 >= len(data) || data[i+1] != '\n' {
				return false
			}
			continue
		case c == 0 || c >= 0x80:
			return false
		}
		n++
		if n > maxLineLen {
			return false
		}
	}
	return true
}
