package drafts

import (
	"bytes"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"mailsift/mailsrc/rfc822"
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
		if r >= utf8.RuneSelf || r < 0x21 || r == 0x7f {
			return "", fmt.Errorf("address %q has a local part that is not printable ASCII, which mailsift cannot send (no SMTPUTF8)", cleanLine(e))
		}
	}
	ad, err := idna.Lookup.ToASCII(dom)
	if err != nil {
		return "", fmt.Errorf("address %q has an invalid domain: %w", cleanLine(e), err)
	}
	if !validDomain(ad) {
		return "", fmt.Errorf("address %q has an invalid domain: each dot-separated label must be 1 to 63 letters, digits, hyphens or underscores", cleanLine(truncateRunes(e, 60)))
	}
	if n := len(local) + 1 + len(ad); n > maxAddrLen {
		return "", fmt.Errorf("address %q is %d octets long; mail addresses are at most %d (RFC 5321)", cleanLine(truncateRunes(e, 60)), n, maxAddrLen)
	}
	return local + "@" + ad, nil
}

// validDomain reports whether d (after IDNA) is a host name whose labels
// are 1 to 63 letters, digits, hyphens or underscores, or an address
// literal in brackets.
func validDomain(d string) bool {
	if strings.HasPrefix(d, "[") && strings.HasSuffix(d, "]") && len(d) > 2 {
		return !strings.ContainsAny(d[1:len(d)-1], "[]\\")
	}
	for _, l := range strings.Split(d, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// Wire limits of the header (RFC 5322 section 2.1.1, RFC 5321 4.5.3.1.3).
const (
	maxLineLen = 998 // octets in a line, CRLF excluded
	maxAddrLen = 254 // octets in a mail address
	// foldLen is where lines are folded when they can be: RFC 5322 asks
	// for 78, RFC 2047 for 76 on lines that hold encoded-words.
	foldLen = 76
	// encWordLen bounds the encoded-words mailsift writes (RFC 2047 allows
	// 75) so that "Subject: " and one word stay within foldLen.
	encWordLen = foldLen - len("Subject: ")
)

// truncateRunes cuts s after n runes, for quoting in error messages.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// headerAddr formats an address for a header as words that may be folded
// apart: the display name (quoted, or RFC 2047 encoded when it is not
// ASCII or has a word too long to fold) and the <address>. Controls and
// format characters (bidi overrides) are dropped from the name.
func headerAddr(a model.Address) ([]string, error) {
	e, err := asciiAddress(a)
	if err != nil {
		return nil, err
	}
	name := oneLine(a.Name)
	words := strings.Split((&mail.Address{Address: e}).String(), " ")
	if name == "" {
		return words, nil
	}
	if !printableASCII(name) {
		return append(qWords(name), words...), nil
	}
	quoted := strings.Split((&mail.Address{Name: name, Address: e}).String(), " ")
	for _, w := range quoted {
		if len(w) > encWordLen {
			// A quoted word too long to fold: encoded-words split anywhere.
			return append(qWords(name), words...), nil
		}
	}
	return quoted, nil
}

// oneLine makes a display name or subject one line: line breaks and tabs
// become spaces, other controls and format characters (bidi overrides)
// are dropped, runs of spaces become one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(cleanLine(strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(s))), " ")
}

// printableASCII reports whether s is all printable ASCII (0x20–0x7E).
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// qWords encodes s as RFC 2047 "Q" encoded-words of at most encWordLen
// octets, split between characters, using only characters that are safe in a
// phrase as well as in unstructured text.
func qWords(s string) []string {
	const pre, post = "=?utf-8?q?", "?="
	var words []string
	var w strings.Builder
	for _, r := range s {
		var enc string
		switch {
		case r == ' ':
			enc = "_"
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!*+-/", r)):
			enc = string(r)
		default:
			var buf [utf8.UTFMax]byte
			for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
				enc += fmt.Sprintf("=%02X", c)
			}
		}
		if w.Len() > 0 && len(pre)+w.Len()+len(enc)+len(post) > encWordLen {
			words = append(words, pre+w.String()+post)
			w.Reset()
		}
		w.WriteString(enc)
	}
	if w.Len() > 0 {
		words = append(words, pre+w.String()+post)
	}
	return words
}

// subjectWords returns the subject as words to fold. Printable ASCII
// words short enough to fold stay as typed; each run of other words
// (non-ASCII, too long, or looking like an encoded-word) becomes RFC 2047
// encoded-words, the spaces inside the run encoded with it. Line breaks
// become spaces; controls and format characters (bidi overrides) are
// dropped.
func subjectWords(s string) []string {
	s = oneLine(s)
	if s == "" {
		return nil
	}
	var out, run []string
	flush := func() {
		if len(run) > 0 {
			out = append(out, qWords(strings.Join(run, " "))...)
			run = run[:0]
		}
	}
	for _, w := range strings.Split(s, " ") {
		if printableASCII(w) && len(w) <= encWordLen && !strings.Contains(w, "=?") {
			flush()
			out = append(out, w)
			continue
		}
		run = append(run, w)
	}
	flush()
	return out
}

// writeField writes the header field "name: item1<sep> item2<sep> item3"
// folded within foldLen octets where it can be: between items, else
// between the words of an item. A line that stays over 998 octets is an error.
func writeField(b *bytes.Buffer, name string, items [][]string, sep string) error {
	line := name + ":"
	bare := true // line holds no word yet: folding it would leave it empty
	var lines []string
	add := func(word string) {
		if !bare && len(line)+1+len(word) > foldLen {
			lines = append(lines, line)
			line = ""
		}
		line += " " + word
		bare = false
	}
	if len(items) == 0 {
		line += " "
	}
	for i, words := range items {
		words = append([]string(nil), words...)
		if i < len(items)-1 {
			words[len(words)-1] += sep
		}
		item := strings.Join(words, " ")
		switch {
		case len(line)+1+len(item) <= foldLen:
			add(item)
		case !bare && 1+len(item) <= foldLen:
			add(item) // on a line of its own
		default:
			for _, w := range words {
				add(w)
			}
		}
	}
	lines = append(lines, line)
	for _, l := range lines {
		if len(l) > maxLineLen {
			return fmt.Errorf("the %s header has a line of %d octets that cannot be folded under %d (RFC 5322); shorten it", name, len(l), maxLineLen)
		}
		b.WriteString(l + "\r\n")
	}
	return nil
}

// BuildMessage serialises a draft into the exact message that will be
// sent: Date, From, To, Cc, Subject (RFC 2047 when non-ASCII), Message-ID,
// In-Reply-To, References, MIME-Version and a text/plain UTF-8 body (7bit
// when plain ASCII with short lines, else quoted-printable). Bcc recipients
// are in the envelope only.
//
// The result is 7-bit clean (mailsift does not use SMTPUTF8 or 8BITMIME):
// header fields are printable ASCII folded under 78 octets where they can
// be, and never over 998; display names and the subject lose controls and
// bidi format characters. Message ids follow rfc822.ValidMsgID: invalid
// ones are dropped from In-Reply-To and References, and References keeps
// the first and the most recent rfc822.MaxReferences ids.
func BuildMessage(d *Draft, date time.Time, messageID string) (*Outgoing, error) {
	if !rfc822.ValidMsgID(messageID) {
		return nil, fmt.Errorf("drafts: Message-ID %q is not 1 to %d octets of printable ASCII without brackets", truncateRunes(messageID, 60), rfc822.MaxMsgIDLen)
	}
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
	list := func(field string, as []model.Address) ([][]string, error) {
		var out [][]string
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
	var subject [][]string
	for _, w := range subjectWords(d.Subject) {
		subject = append(subject, []string{w})
	}
	var refs [][]string
	for _, r := range rfc822.CleanMsgIDs(d.References, rfc822.MaxReferences) {
		refs = append(refs, []string{"<" + r + ">"})
	}
	fields := []struct {
		name  string
		items [][]string
		sep   string
		skip  bool
	}{
		{name: "Date", items: [][]string{{date.Format(time.RFC1123Z)}}},
		{name: "From", items: [][]string{from}},
		{name: "To", items: to, sep: ",", skip: len(to) == 0},
		{name: "Cc", items: cc, sep: ",", skip: len(cc) == 0},
		{name: "Subject", items: subject},
		{name: "Message-ID", items: [][]string{{"<" + messageID + ">"}}},
		{name: "In-Reply-To", items: [][]string{{"<" + cleanID(d.InReplyTo) + ">"}}, skip: cleanID(d.InReplyTo) == ""},
		{name: "References", items: refs, skip: len(refs) == 0},
	}
	var b bytes.Buffer
	for _, f := range fields {
		if f.skip {
			continue
		}
		if err := writeField(&b, f.name, f.items, f.sep); err != nil {
			return nil, fmt.Errorf("drafts: %w", err)
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

// cleanID returns id without surrounding spaces and angle brackets when
// it is a valid message id (rfc822.ValidMsgID), else "": an id with
// controls, bidi characters or 8-bit bytes is dropped, not repaired.
func cleanID(id string) string {
	id = strings.Trim(strings.TrimSpace(id), "<>")
	if !rfc822.ValidMsgID(id) {
		return ""
	}
	return id
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
