package drafts

import (
	"bytes"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"mailsift/model"
)

// Outgoing is one exact message and its SMTP envelope.
type Outgoing struct {
	// Raw is the RFC 5322 message with CRLF line ends and no Bcc header.
	Raw       []byte
	MessageID string // without angle brackets
	// EnvelopeFrom is the MAIL FROM address.
	EnvelopeFrom string
	// Recipients are the RCPT TO addresses: To, Cc and Bcc, deduplicated.
	Recipients []string
}

// NewMessageID returns a random Message-ID (without brackets) in the
// domain of the sender's address.
func NewMessageID(from string) string {
	var b [15]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("drafts: crypto/rand failed: " + err.Error())
	}
	id := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
	dom := "mailsift.invalid"
	if _, d, ok := strings.Cut(from, "@"); ok && d != "" {
		if a, err := idna.Lookup.ToASCII(d); err == nil && a != "" {
			dom = a
		}
	}
	return id + ".mailsift@" + dom
}

// asciiAddress validates an address for the envelope and headers: no
// control characters or brackets, ASCII local part, IDNA domain.
func asciiAddress(a model.Address) (string, error) {
	e := strings.TrimSpace(a.Email)
	local, dom, ok := strings.Cut(e, "@")
	if !ok || local == "" || dom == "" || strings.ContainsAny(e, "<>\r\n\t ,;\"()") || strings.Contains(dom, "@") {
		return "", fmt.Errorf("address %q is not a valid mail address", cleanLine(e))
	}
	for _, r := range local {
		if r >= utf8.RuneSelf || r < 0x21 {
			return "", fmt.Errorf("address %q has a non-ASCII local part, which mailsift cannot send (no SMTPUTF8)", cleanLine(e))
		}
	}
	ad, err := idna.Lookup.ToASCII(dom)
	if err != nil {
		return "", fmt.Errorf("address %q has an invalid domain: %w", cleanLine(e), err)
	}
	return local + "@" + ad, nil
}

func headerAddr(a model.Address) (string, error) {
	e, err := asciiAddress(a)
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(cleanLine(a.Name))
	return (&mail.Address{Name: name, Address: e}).String(), nil
}

// foldList writes "Name: a, b, c" folding between items so lines stay
// under 78 characters where possible.
func foldList(b *bytes.Buffer, name string, items []string, sep string) {
	line := name + ":"
	for i, it := range items {
		piece := " " + it
		if i < len(items)-1 {
			piece += sep
		}
		if len(line)+len(piece) > 78 && line != name+":" {
			b.WriteString(line + "\r\n")
			line = ""
		}
		line += piece
	}
	b.WriteString(line + "\r\n")
}

func encodeSubject(s string) string {
	s = strings.Join(strings.Fields(cleanLine(strings.NewReplacer("\r", " ", "\n", " ").Replace(s))), " ")
	for _, r := range s {
		if r >= utf8.RuneSelf {
			return mime.QEncoding.Encode("utf-8", s)
		}
	}
	return s
}

// BuildMessage serialises a draft into the exact message that will be
// sent: Date, From, To, Cc, Subject (RFC 2047 when non-ASCII), Message-ID,
// In-Reply-To, References, MIME-Version and a text/plain UTF-8 body (7bit
// when plain ASCII with short lines, else quoted-printable). Bcc recipients
// are in the envelope only.
func BuildMessage(d *Draft, date time.Time, messageID string) (*Outgoing, error) {
	from, err := headerAddr(d.From)
	if err != nil {
		return nil, fmt.Errorf("drafts: From: %w", err)
	}
	envFrom, _ := asciiAddress(d.From)
	if len(d.To)+len(d.Cc)+len(d.Bcc) == 0 {
		return nil, fmt.Errorf("drafts: the draft has no recipients; add one to To")
	}
	seen := map[string]bool{}
	var rcpts []string
	list := func(field string, as []model.Address) ([]string, error) {
		var out []string
		for _, a := range as {
			h, err := headerAddr(a)
			if err != nil {
				return nil, fmt.Errorf("drafts: %s: %w", field, err)
			}
			e, _ := asciiAddress(a)
			if !seen[strings.ToLower(e)] {
				seen[strings.ToLower(e)] = true
				rcpts = append(rcpts, e)
			}
			out = append(out, h)
		}
		return out, nil
	}
	to, err := list("To", d.To)
	if err != nil {
		return nil, err
	}
	cc, err := list("Cc", d.Cc)
	if err != nil {
		return nil, err
	}
	if _, err := list("Bcc", d.Bcc); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("Date: " + date.Format(time.RFC1123Z) + "\r\n")
	b.WriteString("From: " + from + "\r\n")
	if len(to) > 0 {
		foldList(&b, "To", to, ",")
	}
	if len(cc) > 0 {
		foldList(&b, "Cc", cc, ",")
	}
	b.WriteString("Subject: " + encodeSubject(d.Subject) + "\r\n")
	b.WriteString("Message-ID: <" + messageID + ">\r\n")
	if d.InReplyTo != "" {
		b.WriteString("In-Reply-To: <" + cleanID(d.InReplyTo) + ">\r\n")
	}
	if len(d.References) > 0 {
		var refs []string
		for _, r := range d.References {
			if r = cleanID(r); r != "" {
				refs = append(refs, "<"+r+">")
			}
		}
		if len(refs) > 0 {
			foldList(&b, "References", refs, "")
		}
	}
	b.WriteString("MIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: text/plain; charset=utf-8\r\n")
	body := strings.ReplaceAll(strings.ReplaceAll(d.Body, "\r\n", "\n"), "\r", "\n")
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	if needsQP(body) {
		b.WriteString("Content-Transfer-Encoding: quoted-printable\r\n\r\n")
		var qb bytes.Buffer
		w := quotedprintable.NewWriter(&qb)
		w.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n")))
		w.Close()
		out := qb.String()
		if !strings.HasSuffix(out, "\r\n") {
			out += "\r\n"
		}
		b.WriteString(out)
	} else {
		b.WriteString("Content-Transfer-Encoding: 7bit\r\n\r\n")
		b.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
	}
	return &Outgoing{Raw: b.Bytes(), MessageID: messageID, EnvelopeFrom: envFrom, Recipients: rcpts}, nil
}

func cleanID(id string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f || r == '<' || r == '>' {
			return -1
		}
		return r
	}, id), "<>")
}

func needsQP(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		if len(line) > 76 || strings.HasPrefix(line, "From ") || strings.HasSuffix(line, " ") {
			return true
		}
		for i := 0; i < len(line); i++ {
			if c := line[i]; c >= 0x80 || (c < 0x20 && c != '\t') {
				return true
			}
		}
	}
	return false
}
