package rfc822

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mailsift/internal/termsafe"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // registers every charset go-message knows
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
	"golang.org/x/text/encoding/charmap"

	"mailsift/model"
)

// maxDepth bounds MIME nesting (multipart inside message/rfc822 inside
// multipart ...) so hostile mail cannot exhaust the stack.
const maxDepth = 40

// maxParts bounds the number of MIME parts walked in one message.
const maxParts = 2000

// keptHeaders lists the headers Parse keeps in model.Message.Headers,
// keyed by canonical MIME header name.
var keptHeaders = [...]string{
	"Authentication-Results",
	"Arc-Authentication-Results",
	"Received-Spf",
	"Return-Path",
	"List-Id",
	"List-Unsubscribe",
	"List-Unsubscribe-Post",
	"List-Post",
	"Precedence",
	"Auto-Submitted",
	"X-Spam-Flag",
	"X-Spam-Status",
	"X-Mailer",
	"Organization",
	"Content-Type",
	"X-Priority",
	"Importance",
	// why a code host notified the reader (a review requested of them, a
	// mention, an assignment)
	"X-Github-Reason",
	"X-Gitlab-Notificationreason",
}

// ErrNotMessage is returned (wrapped) by Parse and ParseHeader when the
// input is not a mail message at all.
var ErrNotMessage = errors.New("input is not a mail message")

// Parse parses one raw RFC 5322 message into a model.Message with its
// body decoded. Broken encodings, unknown charsets and malformed headers
// degrade the result and are listed in Message.Problems; the only error
// is input that is not a message at all (empty, or no header section).
// HTMLText is left empty when a multipart/alternative offers a non-blank
// plain text before its HTML: Body shows the plain text, and converting
// the HTML was 40 % of parsing the SpamAssassin corpus.
func Parse(raw []byte) (*model.Message, error) {
	return parse(raw, false)
}

// parse is Parse; keepHTML also converts HTML alternatives to a plain
// text (Parse leaves HTMLText empty then: Body shows the plain text).
func parse(raw []byte, keepHTML bool) (*model.Message, error) {
	h, envFrom, body, probs, err := splitMessage(raw)
	if err != nil {
		return nil, err
	}
	m := envelope(h, envFrom, raw, &probs)
	m.HasBody = true
	m.Raw = raw

	w := walker{probs: probs, keepHTML: keepHTML}
	w.walk(message.Header{Header: h}, body, "", 0)
	m.Text = joinBlocks(w.text)
	m.HTMLText = joinBlocks(w.html)
	if len(w.fwd) > 0 {
		fwd := strings.Join(w.fwd, "\n\n")
		if m.Text != "" || m.HTMLText == "" {
			m.Text = joinBlocks([]string{m.Text, fwd})
		}
		if m.HTMLText != "" {
			m.HTMLText = joinBlocks([]string{m.HTMLText, fwd})
		}
	}
	m.Attachments = w.atts
	m.Problems = w.probs
	return m, nil
}

// ParseHeader parses only the header section of raw (the body, if any, is
// ignored) into an envelope-only model.Message with HasBody false, as
// used for IMAP's first-pass fetch of header fields. Size and ContentHash
// describe the bytes given; callers that know the full size overwrite it.
func ParseHeader(raw []byte) (*model.Message, error) {
	h, envFrom, _, probs, err := splitMessage(raw)
	if err != nil {
		return nil, err
	}
	m := envelope(h, envFrom, raw, &probs)
	m.Problems = probs
	return m, nil
}

// AttachmentContent returns the filename and the decoded content of the
// MIME part at path part (e.g. "2" or "1.2", as in model.Attachment.Part)
// of the raw message.
func AttachmentContent(raw []byte, part string) (filename string, data []byte, err error) {
	h, _, body, _, err := splitMessage(raw)
	if err != nil {
		return "", nil, err
	}
	w := walker{want: part}
	w.walk(message.Header{Header: h}, body, "", 0)
	if !w.found {
		return "", nil, fmt.Errorf("mailsrc: attachment: no MIME part %q in message", part)
	}
	return w.foundName, w.foundData, nil
}

// splitMessage separates the header section from the body and parses the
// header leniently: a leading mbox "From " line is skipped, lines that are
// not header fields are dropped with a problem recorded.
func splitMessage(raw []byte) (textproto.Header, string, []byte, []string, error) {
	var probs []string
	var envFrom string
	data := raw
	if len(bytes.TrimSpace(data)) == 0 {
		return textproto.Header{}, "", nil, nil, fmt.Errorf("mailsrc: parse: %w: input is empty", ErrNotMessage)
	}
	// An mbox separator line in front of the headers.
	if bytes.HasPrefix(data, []byte("From ")) {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if f := strings.Fields(string(line)); len(f) > 1 && strings.Contains(f[1], "@") && utf8.ValidString(f[1]) {
			envFrom = sanitizeLine(f[1])
		}
		data = rest
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	first = bytes.TrimRight(first, "\r")
	if !isHeaderLine(first) {
		return textproto.Header{}, "", nil, nil, fmt.Errorf("mailsrc: parse: %w: first line %q is not a header field (a message starts with headers like \"From: ...\")", ErrNotMessage, truncate(string(first), 60))
	}

	h, body, dropped := readHeader(data)
	if dropped > 0 {
		probs = append(probs, fmt.Sprintf("header: %d malformed header line(s) dropped", dropped))
	}
	return h, envFrom, body, probs, nil
}

// readHeader parses the header section at the start of data leniently:
// continuation lines are joined, lines that are not header fields are
// dropped and counted. body is the rest of data after the blank line (a
// slice of data, not a copy), nil if there is none.
func readHeader(data []byte) (h textproto.Header, body []byte, dropped int) {
	var key string
	// val is the field's value: a slice of data until a continuation line
	// needs a copy to append to (most fields are one line).
	var val []byte
	owned := false
	flush := func() {
		if key != "" {
			h.Add(key, headerString(bytes.TrimSpace(val)))
		}
		key, val, owned = "", nil, false
	}
	rest := data
	for len(rest) > 0 {
		line, next, found := bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimRight(line, "\r")
		if !found {
			next = nil
		}
		if len(line) == 0 {
			body = next
			break
		}
		rest = next
		if line[0] == ' ' || line[0] == '\t' {
			if key != "" {
				if !owned {
					val, owned = append(make([]byte, 0, len(val)+len(line)+1), val...), true
				}
				val = append(val, ' ')
				val = append(val, bytes.TrimSpace(line)...)
			}
			continue
		}
		if isHeaderLine(line) {
			flush()
			i := bytes.IndexByte(line, ':')
			key = string(bytes.TrimSpace(line[:i]))
			val = line[i+1:]
			continue
		}
		flush()
		dropped++
	}
	flush()
	return h, body, dropped
}

// isHeaderLine reports whether line looks like "Name: value".
func isHeaderLine(line []byte) bool {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return false
	}
	for _, c := range bytes.TrimRight(line[:i], " \t") {
		if c < 33 || c > 126 {
			return false
		}
	}
	return len(bytes.TrimRight(line[:i], " \t")) > 0
}

// headerString turns raw header bytes into a string: UTF-8 as is
// (RFC 6532), anything else read as Windows-1252 (Latin-1 superset).
func headerString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return latin1(b)
}

// latin1 decodes 8-bit text of unknown charset as Windows-1252, the
// superset of Latin-1 that mislabelled mail nearly always is.
func latin1(b []byte) string {
	out, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(out)
}

// SynthesisedIDSuffix ends the Message-ID the parser makes up (from the
// content hash) for a message that has none of its own.
const SynthesisedIDSuffix = "@mailsift.invalid"

// envelope fills the header-derived fields of a message.
func envelope(th textproto.Header, envFrom string, raw []byte, probs *[]string) *model.Message {
	h := mail.Header{Header: message.Header{Header: th}}
	sum := sha256.Sum256(raw)
	m := &model.Message{
		Size:        int64(len(raw)),
		ContentHash: hex.EncodeToString(sum[:]),
	}

	// Ids are printable ASCII and bounded (ValidMsgID): a reply copies
	// them into its headers and the confirm screen shows them.
	id, err := h.MessageID()
	if err != nil || !ValidMsgID(id) {
		id = lenientMsgID(h.Get("Message-Id"))
	}
	if id == "" {
		id = m.ContentHash[:32] + SynthesisedIDSuffix
		if h.Get("Message-Id") != "" {
			*probs = append(*probs, fmt.Sprintf("header: malformed Message-ID %q (ids are at most %d octets of printable ASCII), synthesised %s", truncate(h.Get("Message-Id"), 80), MaxMsgIDLen, id))
		}
	}
	m.MessageID = id
	m.InReplyTo = CleanMsgIDs(msgIDList(h, "In-Reply-To"), MaxReferences)
	m.References = CleanMsgIDs(msgIDList(h, "References"), MaxReferences)

	if froms := addressList(h, "From", probs); len(froms) > 0 {
		m.From = froms[0]
	}
	if s := addressList(h, "Sender", probs); len(s) > 0 {
		m.Sender = s[0]
	}
	if m.From.Email == "" {
		// Never lose the sender: fall back to Sender, Return-Path, then
		// the mbox envelope line.
		fallback, from := model.Address{}, ""
		switch {
		case m.Sender.Email != "":
			fallback, from = m.Sender, "Sender"
		case strings.Contains(h.Get("Return-Path"), "@"):
			if rp := lenientAddresses(h.Get("Return-Path")); len(rp) > 0 && rp[0].Email != "" {
				fallback, from = model.Address{Email: rp[0].Email}, "Return-Path"
			}
		}
		if from == "" && envFrom != "" {
			fallback, from = model.Address{Email: envFrom}, "mbox From line"
		}
		v := h.Get("From")
		switch {
		case from != "":
			if m.From.Name != "" && fallback.Name == "" {
				fallback.Name = m.From.Name
			}
			m.From = fallback
			*probs = append(*probs, fmt.Sprintf("header: From %q has no address, using %s", truncate(v, 80), from))
		case v != "":
			if m.From.Name == "" {
				m.From = model.Address{Name: sanitizeLine(decodeWords(v))}
			}
			*probs = append(*probs, fmt.Sprintf("header: From %q has no address", truncate(v, 80)))
		default:
			*probs = append(*probs, "header: no From")
		}
	}
	m.ReplyTo = addressList(h, "Reply-To", probs)
	m.To = addressList(h, "To", probs)
	m.Cc = addressList(h, "Cc", probs)
	m.Bcc = addressList(h, "Bcc", probs)

	rawSubject := decodeWords(h.Get("Subject"))
	if hasTerminalControls(rawSubject) {
		*probs = append(*probs, "header: terminal escape or bidi control sequences removed from Subject")
	}
	if fromHdr := decodeWords(h.Get("From")); hasTerminalControls(fromHdr) {
		*probs = append(*probs, "header: terminal escape or bidi control sequences removed from From")
	}
	m.Subject = sanitizeLine(rawSubject)
	if strings.Contains(m.Subject, "=?") && strings.Contains(h.Get("Subject"), "=?") {
		*probs = append(*probs, "header: Subject has a malformed encoded word, shown raw")
	}
	if strings.Contains(m.From.Name, "=?") {
		*probs = append(*probs, "header: From has a malformed encoded word, shown raw")
	}

	if v := h.Get("Date"); v == "" {
		*probs = append(*probs, "header: no Date")
	} else if t, ok := parseDate(v); ok {
		m.Date = t
	} else {
		*probs = append(*probs, fmt.Sprintf("header: unreadable Date %q", truncate(v, 80)))
	}

	for _, k := range keptHeaders {
		vs := th.Values(k)
		if len(vs) == 0 {
			continue
		}
		if m.Headers == nil {
			m.Headers = make(map[string][]string)
		}
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = sanitizeLine(v)
		}
		m.Headers[canonicalKept(k)] = out
	}
	return m
}

// canonicalKept spells the kept header names as people write them.
func canonicalKept(k string) string {
	switch k {
	case "Arc-Authentication-Results":
		return "ARC-Authentication-Results"
	case "Received-Spf":
		return "Received-SPF"
	}
	return k
}

// decodeWords decodes RFC 2047 encoded words; malformed words or unknown
// charsets leave the raw text.
func decodeWords(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	d := mime.WordDecoder{CharsetReader: message.CharsetReader}
	out, err := d.DecodeHeader(s)
	if err != nil {
		return s
	}
	return out
}

func msgIDList(h mail.Header, key string) []string {
	v := h.Get(key)
	if v == "" {
		return nil
	}
	ids, err := h.MsgIDList(key)
	if err == nil && len(ids) > 0 {
		return ids
	}
	// Lenient: everything between angle brackets, else whitespace fields.
	var out []string
	for s := v; ; {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		if id := strings.TrimSpace(s[i+1 : i+j]); id != "" {
			out = append(out, id)
		}
		s = s[i+j+1:]
	}
	if len(out) == 0 {
		for _, f := range strings.Fields(v) {
			if strings.Contains(f, "@") {
				out = append(out, strings.Trim(f, "<>,;\""))
			}
		}
	}
	return out
}

// lenientMsgID returns the first valid id in v, else "".
func lenientMsgID(v string) string {
	ids := CleanMsgIDs(msgIDList(mail.Header{Header: message.Header{Header: textproto.HeaderFromMap(map[string][]string{"X": {v}})}}, "X"), 1)
	if len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// addressList parses an address header with go-message and falls back to
// a lenient parser for odd syntax.
func addressList(h mail.Header, key string, probs *[]string) []model.Address {
	v := h.Get(key)
	if strings.TrimSpace(v) == "" {
		return nil
	}
	list, err := mail.ParseAddressList(v)
	if err == nil {
		out := make([]model.Address, 0, len(list))
		for _, a := range list {
			name := a.Name
			if strings.Contains(name, "=?") {
				// An encoded word holding parentheses ("=?UTF-8?q?Chlo=C3=A9_
				// Martin_(Google_Docs)?=", as Go's mime.QEncoding writes
				// it) reads as a comment to the address parser, which
				// splits the word: decode the display name as written.
				if raw := rawDisplayName(v, a.Address); raw != "" && !strings.Contains(raw, "=?") {
					name = raw
				}
			}
			out = append(out, model.Address{Name: sanitizeLine(name), Email: sanitizeLine(a.Address)})
		}
		return out
	}
	out := lenientAddresses(v)
	if len(out) == 0 {
		return nil
	}
	return out
}

// rawDisplayName returns the decoded display name written before
// "<addr>" in the header value v (back to the previous comma), "" when
// addr is not written in angle brackets.
func rawDisplayName(v, addr string) string {
	i := strings.Index(strings.ToLower(v), "<"+strings.ToLower(addr)+">")
	if i < 0 {
		return ""
	}
	name := v[:i]
	if j := strings.LastIndexByte(name, ','); j >= 0 {
		name = name[j+1:]
	}
	name = strings.Trim(strings.TrimSpace(name), `"`)
	return strings.TrimSpace(decodeWords(name))
}

// lenientAddresses splits an address list on commas outside quotes and
// angle brackets and takes `<addr>` or the first word with an '@'.
func lenientAddresses(v string) []model.Address {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && quoted:
			i++
		case c == '<' && !quoted:
			depth++
		case c == '>' && !quoted && depth > 0:
			depth--
		case (c == ',' || c == ';') && !quoted && depth == 0:
			parts = append(parts, v[start:i])
			start = i + 1
		}
	}
	parts = append(parts, v[start:])
	var out []model.Address
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		var a model.Address
		if i := strings.LastIndexByte(p, '<'); i >= 0 {
			j := strings.IndexByte(p[i:], '>')
			if j < 0 {
				j = len(p) - i
			}
			a.Email = strings.TrimSpace(p[i+1 : i+j])
			a.Name = strings.TrimSpace(p[:i])
		} else {
			fields := strings.Fields(p)
			for k, f := range fields {
				if strings.Contains(f, "@") {
					a.Email = strings.Trim(f, "()\"'")
					rest := append(append([]string(nil), fields[:k]...), fields[k+1:]...)
					a.Name = strings.TrimSpace(strings.Join(rest, " "))
					break
				}
			}
			if a.Email == "" {
				a.Name = p
			}
		}
		a.Name = strings.TrimSpace(strings.Trim(a.Name, "\"' "))
		a.Name = strings.TrimSuffix(strings.TrimPrefix(a.Name, "("), ")")
		a.Name = sanitizeLine(decodeWords(a.Name))
		// Lenient parsing takes whatever stands between the brackets:
		// controls there are hostile, shown as control pictures.
		a.Email = sanitizeLine(a.Email)
		if a.Email == "" && a.Name == "" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// sanitizeLine removes control characters (terminal escapes included)
// and line breaks from a header-derived string.
func sanitizeLine(s string) string {
	return sanitize(s, false)
}

// sanitizeText removes control characters other than newline and tab,
// and normalises CRLF to LF.
func sanitizeText(s string) string {
	return sanitize(s, true)
}

func sanitize(s string, keepNL bool) string {
	// Whole escape sequences (CSI, OSC 52/8, DCS, ...) go with their payload;
	// dropping only the ESC byte would leave "[2J]52;c;..." in the text.
	s = termsafe.Sanitize(s)
	if keepNL {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// hasTerminalControls reports whether s holds what a terminal would act on
// or what reorders text: ESC, the 8-bit CSI, or bidi overrides and isolates.
// Such mail is hostile or broken; the parser strips these and says so.
func hasTerminalControls(s string) bool {
	// Byte searches (vectorised) instead of strings.ContainsAny, which
	// decodes every rune once a set holds non-ASCII: 12 % of parsing.
	// In UTF-8: ESC is 1B, U+009B is C2 9B, U+202A-U+202E are E2 80 AA-AE
	// and U+2066-U+2069 are E2 81 A6-A9.
	if strings.IndexByte(s, 0x1b) >= 0 {
		return true
	}
	for i := 0; ; {
		j := strings.IndexByte(s[i:], 0xc2)
		if j < 0 {
			break
		}
		i += j + 1
		if i < len(s) && s[i] == 0x9b {
			return true
		}
	}
	for i := 0; ; {
		j := strings.IndexByte(s[i:], 0xe2)
		if j < 0 {
			return false
		}
		i += j + 1
		if i+1 < len(s) {
			switch b1, b2 := s[i], s[i+1]; {
			case b1 == 0x80 && b2 >= 0xaa && b2 <= 0xae, b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9:
				return true
			}
		}
	}
}

// joinBlocks joins non-empty text blocks with a blank line.
func joinBlocks(blocks []string) string {
	var nonEmpty []string
	for _, b := range blocks {
		if b = strings.TrimRight(b, " \t\n"); strings.TrimSpace(b) != "" {
			nonEmpty = append(nonEmpty, b)
		}
	}
	return strings.Join(nonEmpty, "\n\n")
}

// MaxMsgIDLen is the longest message id (without brackets) the parser
// keeps, in octets: real ids are far shorter, and a reply copies them into
// header lines that must stay under 998 octets.
const MaxMsgIDLen = 250

// MaxReferences is the number of References ids the parser keeps: the
// first (the thread's root) and the most recent ones, trimming the middle
// as RFC 5322 section 3.6.4 allows.
const MaxReferences = 20

// ValidMsgID reports whether id (without angle brackets) may be kept and
// copied into a reply: 1 to MaxMsgIDLen octets of printable ASCII
// (0x21–0x7E) other than the brackets. Anything else (C0 and C1 controls,
// bidi characters, raw 8-bit bytes) could hide text on a terminal or put
// 8-bit bytes into an outgoing header.
func ValidMsgID(id string) bool {
	if id == "" || len(id) > MaxMsgIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x21 || c > 0x7e || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// CleanMsgIDs returns the valid ids of ids (see ValidMsgID; surrounding
// spaces and angle brackets are trimmed first), without duplicates, in
// order. When more than max remain (max > 0), it keeps the first and the
// max-1 most recent (last) ones.
func CleanMsgIDs(ids []string, max int) []string {
	var out []string
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		id = strings.Trim(strings.TrimSpace(id), "<>")
		if !ValidMsgID(id) || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	if max > 0 && len(out) > max {
		out = append(out[:1], out[len(out)-(max-1):]...)
	}
	return out
}
