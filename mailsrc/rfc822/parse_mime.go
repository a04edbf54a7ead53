package rfc822

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"

	"mailsift/model"
)

// walker walks the MIME tree of one message, collecting text, HTML text,
// attachments and problems, or (when want is set) one part's content.
type walker struct {
	text  []string
	html  []string
	fwd   []string
	atts  []model.Attachment
	probs []string
	parts int
	// plainAlt: the part being walked is an alternative to a non-blank
	// plain text already kept, so its HTML is not converted (the plain
	// text is what model.Message.Body shows). keepHTML turns this off
	// (tests compare both ways).
	plainAlt, keepHTML bool

	// decoded counts the bytes decoded so far (transfer encodings and
	// text conversion) against limit (maxDecodedBytes when 0); capped
	// notes that the limit was reached and said so.
	decoded, limit int
	capped         bool

	want      string
	found     bool
	foundName string
	foundData []byte
}

func (w *walker) problem(path, format string, args ...any) {
	if w.want != "" {
		return
	}
	w.probs = append(w.probs, "part "+displayPath(path)+": "+fmt.Sprintf(format, args...))
}

// MaxDecodedBytes bounds the bytes Parse decodes for one message (text
// bodies, forwarded messages and quoted-printable attachments; base64
// attachments are only measured). Past it, parts are listed but not
// decoded and a problem says so: the message is kept, with Raw intact.
const MaxDecodedBytes = 64 << 20

// spend charges n decoded bytes for the part at path and reports whether
// they fit the per-message limit. Extracting one attachment (want) is
// never limited: the user asked for exactly that part.
func (w *walker) spend(path string, n int) bool {
	if w.want != "" {
		return true
	}
	limit := w.limit
	if limit <= 0 {
		limit = MaxDecodedBytes
	}
	if w.decoded+n > limit {
		if !w.capped {
			w.capped = true
			w.problem(path, "message decodes to more than %d MiB, this part and any later large part left undecoded", limit>>20)
		}
		return false
	}
	w.decoded += n
	return true
}

func displayPath(p string) string {
	if p == "" {
		return "1"
	}
	return p
}

func childPath(parent string, i int) string {
	if parent == "" {
		return strconv.Itoa(i)
	}
	return parent + "." + strconv.Itoa(i)
}

// walk handles one entity. path is the IMAP part path of the entity ("" for
// the top-level message, whose body is part "1" when not multipart).
func (w *walker) walk(h message.Header, body []byte, path string, depth int) {
	w.parts++
	if depth > maxDepth || w.parts > maxParts {
		w.problem(path, "MIME nesting too deep or too many parts, rest skipped")
		return
	}
	mt, params, err := h.ContentType()
	if err != nil || mt == "" {
		if v := h.Get("Content-Type"); strings.TrimSpace(v) != "" {
			// Salvage the media type before any broken parameter.
			mt = strings.ToLower(strings.TrimSpace(strings.SplitN(v, ";", 2)[0]))
			params = lenientParams(v)
			if !isMediaType(mt) {
				w.problem(path, "malformed Content-Type %q, read as text/plain", truncate(v, 60))
				mt = "text/plain"
			}
		} else {
			mt = "text/plain"
		}
	}
	mt = strings.ToLower(mt)

	if strings.HasPrefix(mt, "multipart/") {
		w.multipart(body, params["boundary"], path, depth, mt == "multipart/alternative")
		return
	}
	// A leaf's own part number: the top-level single part is "1".
	leaf := path
	if leaf == "" {
		leaf = "1"
	}

	disp, dparams, err := h.ContentDisposition()
	if err != nil {
		if v := h.Get("Content-Disposition"); v != "" {
			disp = strings.ToLower(strings.TrimSpace(strings.SplitN(v, ";", 2)[0]))
			dparams = lenientParams(v)
		}
	}
	disp = strings.ToLower(disp)
	filename := decodeFilename(dparams["filename"])
	if filename == "" {
		filename = decodeFilename(params["name"])
	}

	if w.want != "" {
		if leaf == w.want {
			data, _ := w.decodeTransfer(h, body, leaf)
			w.found, w.foundName, w.foundData = true, filename, data
			return
		}
		if mt != "message/rfc822" && mt != "message/global" {
			return
		}
	}

	switch {
	case mt == "message/rfc822" || mt == "message/global":
		if data, _ := w.decodeTransfer(h, body, leaf); data != nil {
			w.forwarded(data, leaf, depth)
		}
		return
	case (mt == "text/plain" || mt == "text/html") && disp != "attachment":
		data, _ := w.decodeTransfer(h, body, leaf)
		if data == nil || !w.spend(leaf, len(data)) {
			return
		}
		s := w.decodeCharset(data, params["charset"], leaf)
		if hasTerminalControls(s) {
			w.problem(leaf, "terminal escape or bidi control sequences removed")
		}
		if mt == "text/html" {
			if !w.plainAlt || w.keepHTML {
				w.html = append(w.html, HTMLToText(s))
			}
		} else {
			w.text = append(w.text, sanitizeText(s))
		}
		return
	}

	// Everything else is an attachment (or an inline non-text part):
	// listing it needs only its decoded size.
	size := w.decodedSize(h, body, leaf)
	cid := strings.Trim(strings.TrimSpace(h.Get("Content-Id")), "<>")
	if filename == "" && mt == "text/calendar" {
		filename = "invite.ics"
	}
	w.atts = append(w.atts, model.Attachment{
		Filename:    sanitizeLine(filename),
		ContentType: mt,
		Size:        size,
		ContentID:   sanitizeLine(cid),
		Inline:      disp == "inline" || (disp == "" && cid != ""),
		Part:        leaf,
	})
}

func (w *walker) multipart(body []byte, boundary, path string, depth int, alternative bool) {
	textStart, htmlStart := len(w.text), len(w.html)
	if boundary == "" {
		w.problem(path, "multipart without boundary, body skipped")
		return
	}
	parts, closed := splitMultipart(body, boundary)
	if len(parts) == 0 {
		// No boundary found at all: show the body rather than nothing.
		w.problem(path, "multipart boundary %q not found, body shown as plain text", truncate(boundary, 40))
		if w.want == "" && w.spend(path, len(body)) {
			w.text = append(w.text, sanitizeText(w.decodeCharset(body, "", path)))
		}
		return
	}
	for i, pb := range parts {
		cpath := childPath(path, i+1)
		if !closed && i == len(parts)-1 {
			w.problem(cpath, "multipart not closed (final boundary missing), part may be truncated")
		}
		ph, pbody, dropped := partHeader(pb)
		if dropped > 0 {
			w.problem(cpath, "%d malformed header line(s) dropped", dropped)
		}
		beforeText, beforeHTML := len(w.text), len(w.html)
		outer := w.plainAlt
		if alternative && !w.plainAlt {
			w.plainAlt = hasNonBlank(w.text[textStart:])
		}
		w.walk(message.Header{Header: ph}, pbody, cpath, depth+1)
		w.plainAlt = outer
		if alternative {
			// Alternatives say the same thing: keep the last (richest)
			// plain text and the last HTML only.
			if len(w.text) > beforeText && beforeText > textStart {
				w.text = append(w.text[:textStart], w.text[beforeText:]...)
			}
			if len(w.html) > beforeHTML && beforeHTML > htmlStart {
				w.html = append(w.html[:htmlStart], w.html[beforeHTML:]...)
			}
		}
	}
}

// splitMultipart cuts a multipart body at its boundary delimiter lines
// (RFC 2046 5.1.1: "--boundary" at the start of a line, optionally
// followed by white space; a line starting "--boundary--" closes). The parts are slices
// of body, not copies, so nested multiparts cost no memory per level; the
// line break before a delimiter belongs to the delimiter. closed reports
// whether the closing delimiter was found; without it the last part runs
// to the end of body.
func splitMultipart(body []byte, boundary string) (parts [][]byte, closed bool) {
	delim := []byte("--" + boundary)
	start := -1 // start of the current part, -1 in the preamble
	for pos := 0; pos < len(body); {
		i := bytes.Index(body[pos:], delim)
		if i < 0 {
			break
		}
		i += pos
		lineEnd := len(body)
		if j := bytes.IndexByte(body[i:], '\n'); j >= 0 {
			lineEnd = i + j
		}
		if i > 0 && body[i-1] != '\n' {
			pos = i + len(delim)
			continue
		}
		after := bytes.TrimRight(body[i+len(delim):lineEnd], " \t\r")
		// A closing delimiter counts even with junk after it (seen in
		// real mail: "--b--</BODY></HTML>").
		final := bytes.HasPrefix(after, []byte("--"))
		if !final && len(after) != 0 {
			// "--boundaryX": a longer boundary or text, not a delimiter.
			pos = i + len(delim)
			continue
		}
		if start >= 0 {
			end := i
			if end > start && body[end-1] == '\n' {
				end--
			}
			if end > start && body[end-1] == '\r' {
				end--
			}
			parts = append(parts, body[start:end])
		}
		if final {
			return parts, true
		}
		start = min(lineEnd+1, len(body))
		pos = start
	}
	if start >= 0 {
		parts = append(parts, body[start:])
	}
	return parts, false
}

// partHeader splits one body part into its header and body. A part whose
// first line is neither a header field nor blank has no header: all of it
// is body (mail that omits the blank line is common enough).
func partHeader(part []byte) (h textproto.Header, body []byte, dropped int) {
	first, _, _ := bytes.Cut(part, []byte("\n"))
	first = bytes.TrimRight(first, "\r")
	if len(first) > 0 && !isHeaderLine(first) && first[0] != ' ' && first[0] != '\t' {
		return textproto.Header{}, part, 0
	}
	return readHeader(part)
}

// forwarded handles an encapsulated message: its text goes into the body
// under a forwarded marker, its attachments are listed under its part path.
func (w *walker) forwarded(data []byte, path string, depth int) {
	th, envFrom, body, probs, err := splitMessage(data)
	if err != nil {
		w.problem(path, "forwarded message unreadable: %v", err)
		return
	}
	for _, p := range probs {
		w.problem(path, "%s", p)
	}
	inner := walker{want: w.want, parts: w.parts, keepHTML: w.keepHTML, decoded: w.decoded, limit: w.limit, capped: w.capped}
	// Inside message/rfc822 the body's parts are numbered below path; a
	// non-multipart body is path.1.
	h := message.Header{Header: th}
	mt, _, _ := h.ContentType()
	if strings.HasPrefix(strings.ToLower(mt), "multipart/") {
		inner.walk(h, body, path, depth+1)
	} else {
		inner.walk(h, body, path+".1", depth+1)
	}
	w.parts, w.decoded, w.capped = inner.parts, inner.decoded, inner.capped
	if w.want != "" {
		if inner.found {
			w.found, w.foundName, w.foundData = true, inner.foundName, inner.foundData
		}
		return
	}
	w.probs = append(w.probs, inner.probs...)
	w.atts = append(w.atts, inner.atts...)

	var sb strings.Builder
	sb.WriteString("---------- Forwarded message ----------\n")
	var dummy []string
	env := envelope(th, envFrom, data, &dummy)
	if env.From.Email != "" || env.From.Name != "" {
		sb.WriteString("From: " + env.From.String() + "\n")
	}
	if !env.Date.IsZero() {
		sb.WriteString("Date: " + env.Date.Format(time.RFC1123Z) + "\n")
	}
	if env.Subject != "" {
		sb.WriteString("Subject: " + env.Subject + "\n")
	}
	if len(env.To) > 0 {
		names := make([]string, len(env.To))
		for i, a := range env.To {
			names[i] = a.String()
		}
		sb.WriteString("To: " + strings.Join(names, ", ") + "\n")
	}
	sb.WriteString("\n")
	text := joinBlocks(inner.text)
	if strings.TrimSpace(text) == "" {
		text = joinBlocks(inner.html)
	}
	sb.WriteString(text)
	w.fwd = append(w.fwd, sb.String())
	w.fwd = append(w.fwd, inner.fwd...)
}

// decodedSize returns the size of a part's content once its transfer
// encoding is undone. Base64 is counted without decoding; other
// encodings are decoded (and charged to the decoding limit).
func (w *walker) decodedSize(h message.Header, body []byte, path string) int64 {
	if strings.EqualFold(strings.TrimSpace(h.Get("Content-Transfer-Encoding")), "base64") {
		n, bad := base64Size(body)
		if bad {
			w.problem(path, "broken base64, decoded what was readable")
		}
		return int64(n)
	}
	data, _ := w.decodeTransfer(h, body, path)
	if data == nil {
		return int64(len(body))
	}
	return int64(len(data))
}

// decodeTransfer undoes the Content-Transfer-Encoding leniently. It
// returns nil (and records a problem) when decoding would pass the
// per-message limit.
func (w *walker) decodeTransfer(h message.Header, body []byte, path string) ([]byte, bool) {
	enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding")))
	switch enc {
	case "", "7bit", "8bit", "binary":
		return body, true
	}
	if !w.spend(path, len(body)) {
		return nil, false
	}
	switch enc {
	case "base64":
		out, bad := decodeBase64(body)
		if bad {
			w.problem(path, "broken base64, decoded what was readable")
		}
		return out, !bad
	case "quoted-printable":
		out, bad := decodeQP(body)
		if bad {
			w.problem(path, "broken quoted-printable, invalid escapes kept as is")
		}
		return out, !bad
	default:
		w.problem(path, "unknown transfer encoding %q, shown undecoded", truncate(enc, 40))
		return body, false
	}
}

// base64Size returns the length decodeBase64 would return for body, and
// whether it would report it bad, without allocating.
func base64Size(body []byte) (n int, bad bool) {
	chars := 0     // alphabet characters before the first '='
	pad := false   // a '=' was seen
	after := false // an alphabet character follows the padding
	for _, c := range body {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			if pad {
				after = true
			} else {
				chars++
			}
		case c == '=':
			if after {
				// "=" after data after padding: decodeBase64 cuts at the
				// first "=" anyway.
				continue
			}
			pad = true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			bad = true
		}
	}
	if after {
		bad = true
	}
	if chars%4 == 1 {
		chars--
		bad = true
	}
	return base64.RawStdEncoding.DecodedLen(chars), bad
}

// decodeBase64 decodes base64 ignoring whitespace; on garbage it decodes
// up to the first bad quantum and reports bad.
func decodeBase64(body []byte) ([]byte, bool) {
	clean := make([]byte, 0, len(body))
	bad := false
	for _, c := range body {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			clean = append(clean, c)
		case c == '=':
			clean = append(clean, c)
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			bad = true
		}
	}
	// Padding only at the end; drop anything after the first "=" run.
	if i := bytes.IndexByte(clean, '='); i >= 0 {
		j := i
		for j < len(clean) && clean[j] == '=' {
			j++
		}
		if j < len(clean) {
			bad = true
		}
		clean = clean[:i]
	}
	if rem := len(clean) % 4; rem == 1 {
		clean = clean[:len(clean)-1]
		bad = true
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
	n, err := base64.RawStdEncoding.Decode(out, clean)
	if err != nil {
		bad = true
	}
	return out[:n], bad
}

// decodeQP decodes quoted-printable; invalid escapes are kept literally.
func decodeQP(body []byte) ([]byte, bool) {
	out := make([]byte, 0, len(body))
	bad := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '=' {
			out = append(out, c)
			continue
		}
		rest := body[i+1:]
		// Soft line break, with optional trailing whitespace.
		k := 0
		for k < len(rest) && (rest[k] == ' ' || rest[k] == '\t') {
			k++
		}
		if k < len(rest) && rest[k] == '\n' {
			i += k + 1
			continue
		}
		if k+1 < len(rest) && rest[k] == '\r' && rest[k+1] == '\n' {
			i += k + 2
			continue
		}
		if k == len(rest) {
			i = len(body)
			continue
		}
		if len(rest) >= 2 && isHex(rest[0]) && isHex(rest[1]) {
			out = append(out, unhex(rest[0])<<4|unhex(rest[1]))
			i += 2
			continue
		}
		bad = true
		out = append(out, '=')
	}
	return out, bad
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// decodeCharset converts text in the named charset to UTF-8. Unknown
// charsets and invalid UTF-8 degrade visibly with a problem recorded.
func (w *walker) decodeCharset(data []byte, cs, path string) string {
	cs = strings.ToLower(strings.Trim(strings.TrimSpace(cs), "\"'"))
	switch cs {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		if utf8.Valid(data) {
			return string(data)
		}
		if cs == "" || cs == "us-ascii" || cs == "ascii" {
			// 8-bit text labelled ASCII is nearly always Latin-1/CP1252.
			w.problem(path, "8-bit text labelled %q, shown as Windows-1252", orDefault(cs, "us-ascii"))
			return latin1(data)
		}
		w.problem(path, "invalid UTF-8 in %q text, bad bytes replaced", cs)
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	if asciiCompatible(cs) && isASCII(data) {
		// Nothing to convert: most "iso-8859-1" mail is plain ASCII.
		return string(data)
	}
	if message.CharsetReader != nil {
		if r, err := message.CharsetReader(cs, bytes.NewReader(data)); err == nil && r != nil {
			var out bytes.Buffer
			out.Grow(len(data) + len(data)/4)
			_, err := out.ReadFrom(r)
			if err == nil {
				return strings.ToValidUTF8(out.String(), "\uFFFD")
			}
			w.problem(path, "charset %q decoding failed (%v), shown as UTF-8", cs, err)
			return strings.ToValidUTF8(string(data), "\uFFFD")
		}
	}
	if utf8.Valid(data) {
		w.problem(path, "unknown charset %q, shown as UTF-8", cs)
		return string(data)
	}
	w.problem(path, "unknown charset %q, shown as Windows-1252", cs)
	return latin1(data)
}

// asciiCharsets are the charset names (lower case) of the ISO 8859,
// Windows and KOI8 single-byte sets, which decode bytes below 0x80 as
// ASCII. (Seven-bit encodings such as ISO-2022-JP, UTF-7 or HZ do not; an
// unknown name is not listed, so it is still reported.)
var asciiCharsets = map[string]bool{
	"latin1": true, "l1": true, "iso_8859-1": true, "koi8-r": true, "koi8-u": true,
}

func init() {
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16} {
		asciiCharsets[fmt.Sprintf("iso-8859-%d", n)] = true
		if n != 16 { // "iso8859-16" is not a name the charset package knows
			asciiCharsets[fmt.Sprintf("iso8859-%d", n)] = true
		}
	}
	for n := 1250; n <= 1258; n++ {
		asciiCharsets[fmt.Sprintf("windows-%d", n)] = true
		asciiCharsets[fmt.Sprintf("cp%d", n)] = true
	}
}

// asciiCompatible reports whether charset cs (lower case) is one of
// asciiCharsets.
func asciiCompatible(cs string) bool { return asciiCharsets[cs] }

// isASCII reports whether b has no byte above 0x7f.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// decodeFilename decodes RFC 2047 words left in a filename (RFC 2231 is
// already decoded by the parameter parser).
func decodeFilename(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	s = decodeWords(s)
	// Keep only the base name: mail may carry paths.
	if i := strings.LastIndexAny(s, `/\`); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return s
}

// isMediaType reports whether mt is "type/subtype" with both halves RFC
// 2045 tokens (printable ASCII without specials), so a salvaged type
// never carries controls or spaces into model.Attachment.ContentType.
func isMediaType(mt string) bool {
	typ, sub, ok := strings.Cut(mt, "/")
	return ok && isToken(typ) && isToken(sub)
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

// lenientParams salvages parameters from a Content-Type the strict parser
// rejected.
func lenientParams(v string) map[string]string {
	params := map[string]string{}
	_, rest, ok := strings.Cut(v, ";")
	if !ok {
		return params
	}
	for _, f := range strings.Split(rest, ";") {
		k, val, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.Trim(strings.TrimSpace(val), "\"")
		if _, dup := params[k]; !dup {
			params[k] = val
		}
	}
	if _, p, err := mime.ParseMediaType("x/x;" + rest); err == nil {
		for k, val := range p {
			params[k] = val
		}
	}
	return params
}

// hasNonBlank reports whether any of texts has a non-space character.
func hasNonBlank(texts []string) bool {
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			return true
		}
	}
	return false
}
