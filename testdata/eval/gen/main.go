// Command gen writes the labeled evaluation mailbox under testdata/eval
// from threads.txt: one .eml file per message in maildir/cur and the
// expected triage of every thread in labels.json, keyed by the thread's
// root Message-ID. Run it from the repository root:
//
//	go run ./testdata/eval/gen [DIR]
//
// DIR is the set's directory, holding threads.txt; it defaults to
// testdata/eval. The Message-IDs of a set other than testdata/eval are
// derived from its directory name as well as the thread keys, so that
// two sets never share a Message-ID even when they share a key.
//
// threads.txt holds threads separated by "=== key lang bucket [spam]
// [phish]" lines; within a thread, "---" starts the next message (a reply
// to the one before it). Each message is header lines, a blank line and
// the body. Besides ordinary headers a message may carry:
//
//	When: DD HH:MM [zone]   the date (November 2026); replies default to
//	                        47 minutes after the message before
//	Opts: ...               html (the body is HTML), alt (plain text plus
//	                        a generated HTML alternative), cs:CHARSET,
//	                        cte:qp|b64|8bit, cal:REQUEST|CANCEL|REPLY
//	Event: START MINUTES    the calendar event (START as 20261124T150000Z)
//
// Header values and display names that are not ASCII are written as
// RFC 2047 encoded words in the message's charset.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"mime"
	"mime/quotedprintable"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

const principal = "Alex Morgan <alex.morgan@northwind.example>"

type message struct {
	headers [][2]string // in order, excluding the generator's own
	when    string
	opts    map[string]string
	event   string
	body    string
}

type thread struct {
	key, lang, bucket string
	spam, phish       bool
	msgs              []message
}

type label struct {
	RootMessageID string `json:"root_message_id"`
	Bucket        string `json:"bucket"`
	IsSpam        bool   `json:"is_spam"`
	IsPhishing    bool   `json:"is_phishing"`
}

func main() {
	dir := "testdata/eval"
	if len(os.Args) > 2 {
		fail(fmt.Errorf("usage: gen [DIR]"))
	}
	if len(os.Args) == 2 {
		dir = os.Args[1]
	}
	// ns keeps the Message-IDs of another set apart from those of
	// testdata/eval, whose ids stay as they always were.
	ns := ""
	if filepath.Clean(dir) != filepath.Clean("testdata/eval") {
		ns = filepath.Base(filepath.Clean(dir)) + "/"
	}
	src, err := os.ReadFile(filepath.Join(dir, "threads.txt"))
	if err != nil {
		fail(err)
	}
	threads, err := parseSpec(string(src))
	if err != nil {
		fail(err)
	}
	cur := filepath.Join(dir, "maildir", "cur")
	if err := os.MkdirAll(cur, 0o755); err != nil {
		fail(err)
	}
	for _, sub := range []string{"new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, "maildir", sub), 0o755); err != nil {
			fail(err)
		}
	}
	old, _ := filepath.Glob(filepath.Join(cur, "*"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			fail(err)
		}
	}
	var labels struct {
		Threads []label `json:"threads"`
	}
	keys := map[string]bool{}
	for i, t := range threads {
		if keys[t.key] {
			fail(fmt.Errorf("thread %q repeated", t.key))
		}
		keys[t.key] = true
		var ids []string
		var prev time.Time
		for j, m := range t.msgs {
			id := messageID(ns+t.key, j, header(m, "From"))
			date, err := dateOf(i, m.when, prev)
			if err != nil {
				fail(fmt.Errorf("%s message %d: %w", t.key, j+1, err))
			}
			prev = date
			raw, err := render(t, j, m, id, ids, date)
			if err != nil {
				fail(fmt.Errorf("%s message %d: %w", t.key, j+1, err))
			}
			name := fmt.Sprintf("t%03d-%d.eml:2,", i+1, j+1)
			if err := os.WriteFile(filepath.Join(cur, name), raw, 0o644); err != nil {
				fail(err)
			}
			ids = append(ids, id)
		}
		labels.Threads = append(labels.Threads, label{RootMessageID: ids[0], Bucket: t.bucket, IsSpam: t.spam, IsPhishing: t.phish})
	}
	out, err := json.MarshalIndent(labels, "", "  ")
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "labels.json"), append(out, '\n'), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("%d threads\n", len(threads))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

func parseSpec(src string) ([]thread, error) {
	var out []thread
	for n, block := range strings.Split("\n"+src, "\n=== ")[1:] {
		head, rest, _ := strings.Cut(block, "\n")
		f := strings.Fields(head)
		if len(f) < 3 {
			return nil, fmt.Errorf("thread %d: bad line %q", n+1, head)
		}
		t := thread{key: f[0], lang: f[1], bucket: strings.ReplaceAll(f[2], "_", " ")}
		for _, flag := range f[3:] {
			switch flag {
			case "spam":
				t.spam = true
			case "phish":
				t.phish = true
			default:
				return nil, fmt.Errorf("%s: unknown flag %q", t.key, flag)
			}
		}
		for _, part := range strings.Split(rest, "\n---\n") {
			m := message{opts: map[string]string{}}
			hdr, body, ok := strings.Cut(strings.TrimLeft(part, "\n"), "\n\n")
			if !ok {
				return nil, fmt.Errorf("%s: message without a body", t.key)
			}
			for _, line := range strings.Split(hdr, "\n") {
				name, val, ok := strings.Cut(line, ":")
				if !ok {
					return nil, fmt.Errorf("%s: bad header line %q", t.key, line)
				}
				val = strings.TrimSpace(val)
				switch name {
				case "When":
					m.when = val
				case "Event":
					m.event = val
				case "Opts":
					for _, o := range strings.Fields(val) {
						k, v, _ := strings.Cut(o, ":")
						m.opts[k] = v
					}
				default:
					m.headers = append(m.headers, [2]string{name, val})
				}
			}
			m.body = strings.TrimRight(body, "\n") + "\n"
			t.msgs = append(t.msgs, m)
		}
		out = append(out, t)
	}
	return out, nil
}

func header(m message, name string) string {
	for _, h := range m.headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

// messageID derives a stable Message-ID from the thread key that does not
// reveal it, at the sender's domain.
func messageID(key string, j int, from string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", key, j)))
	domain := "mail.example"
	if at := strings.LastIndex(from, "@"); at >= 0 {
		domain = strings.TrimRight(from[at+1:], "> ")
	}
	h := hex.EncodeToString(sum[:])
	return fmt.Sprintf("%s.%s@%s", h[:16], h[16:24], domain)
}

func dateOf(i int, when string, prev time.Time) (time.Time, error) {
	if when == "" {
		if !prev.IsZero() {
			return prev.Add(47 * time.Minute), nil
		}
		day := 9 + i%12
		min := 8*60 + (i*37)%600
		when = fmt.Sprintf("%d %02d:%02d", day, min/60, min%60)
	}
	f := strings.Fields(when)
	zone := "+0000"
	if len(f) > 2 {
		zone = f[2]
	}
	return time.Parse("2 15:04 -0700 2006-01", f[0]+" "+f[1]+" "+zone+" 2026-11")
}

func charsetOf(m message, body string) string {
	if cs := m.opts["cs"]; cs != "" {
		return cs
	}
	all := body
	for _, h := range m.headers {
		all += h[1]
	}
	if isASCII(all) {
		return "us-ascii"
	}
	return "utf-8"
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func encoderFor(cs string) encoding.Encoding {
	switch strings.ToLower(cs) {
	case "iso-8859-1":
		return charmap.ISO8859_1
	case "iso-8859-15":
		return charmap.ISO8859_15
	case "windows-1252":
		return charmap.Windows1252
	case "iso-2022-jp":
		return japanese.ISO2022JP
	case "shift_jis":
		return japanese.ShiftJIS
	}
	return nil
}

func convert(cs, s string) (string, error) {
	enc := encoderFor(cs)
	if enc == nil {
		return s, nil
	}
	return enc.NewEncoder().String(s)
}

// word encodes a header text as encoded words in charset cs, or returns
// it as it is when it is ASCII.
func word(cs, s string) (string, error) {
	if isASCII(s) {
		return s, nil
	}
	if cs == "us-ascii" || cs == "" {
		cs = "utf-8"
	}
	lower := strings.ToLower(cs)
	if lower == "utf-8" {
		if utf8.RuneCountInString(s) > 30 || strings.ContainsAny(s, "ぁ-んァ-ン") {
			return mime.BEncoding.Encode("UTF-8", s), nil
		}
		return mime.QEncoding.Encode("UTF-8", s), nil
	}
	if lower == "iso-2022-jp" || lower == "shift_jis" {
		// Each word is converted on its own so that every word
		// carries its own escape sequences.
		var words []string
		rs := []rune(s)
		for len(rs) > 0 {
			n := min(12, len(rs))
			chunk, err := convert(cs, string(rs[:n]))
			if err != nil {
				return "", err
			}
			words = append(words, "=?"+strings.ToUpper(cs)+"?B?"+base64.StdEncoding.EncodeToString([]byte(chunk))+"?=")
			rs = rs[n:]
		}
		return strings.Join(words, "\n "), nil
	}
	b, err := convert(cs, s)
	if err != nil {
		return "", err
	}
	return mime.QEncoding.Encode(strings.ToUpper(cs), b), nil
}

// addresses encodes the display names of a comma-separated address list.
func addresses(cs, list string) (string, error) {
	var out []string
	for _, a := range strings.Split(list, ", ") {
		lt := strings.LastIndex(a, "<")
		if lt <= 0 {
			out = append(out, a)
			continue
		}
		name := strings.TrimSpace(a[:lt])
		if isASCII(name) {
			out = append(out, a)
			continue
		}
		w, err := word(cs, strings.Trim(name, `"`))
		if err != nil {
			return "", err
		}
		out = append(out, w+" "+a[lt:])
	}
	return strings.Join(out, ", "), nil
}

func render(t thread, j int, m message, id string, refs []string, date time.Time) ([]byte, error) {
	body := m.body
	cs := charsetOf(m, body)
	var b bytes.Buffer
	fmt.Fprintf(&b, "Message-ID: <%s>\n", id)
	fmt.Fprintf(&b, "Date: %s\n", date.Format(time.RFC1123Z))
	subject := header(m, "Subject")
	if subject == "" && j > 0 {
		subject = replySubject(t)
	}
	hasTo := header(m, "To") != ""
	for _, h := range m.headers {
		name, val := h[0], h[1]
		var err error
		switch name {
		case "Subject":
			continue
		case "From", "To", "Cc", "Reply-To", "Sender":
			val, err = addresses(cs, val)
		}
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s: %s\n", name, val)
		if name == "From" && !hasTo {
			fmt.Fprintf(&b, "To: %s\n", principal)
		}
	}
	s, err := word(cs, subject)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "Subject: %s\n", s)
	if len(refs) > 0 {
		fmt.Fprintf(&b, "In-Reply-To: <%s>\n", refs[len(refs)-1])
		fmt.Fprintf(&b, "References: <%s>\n", strings.Join(refs, ">\n <"))
	}
	b.WriteString("MIME-Version: 1.0\n")

	switch {
	case m.opts["cal"] != "":
		boundary := "cal-" + id[:12]
		fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=\"%s\"\n\n", boundary)
		fmt.Fprintf(&b, "--%s\n", boundary)
		if err := part(&b, "text/plain", cs, m.opts["cte"], body); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "--%s\n", boundary)
		ics, err := calendar(m, id, subject, date)
		if err != nil {
			return nil, err
		}
		if err := part(&b, "text/calendar; method="+m.opts["cal"], "utf-8", "8bit", ics); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "--%s--\n", boundary)
	case m.opts["alt"] != "" || hasOpt(m, "alt"):
		boundary := "alt-" + id[:12]
		fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=\"%s\"\n\n", boundary)
		fmt.Fprintf(&b, "--%s\n", boundary)
		if err := part(&b, "text/plain", cs, m.opts["cte"], body); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "--%s\n", boundary)
		if err := part(&b, "text/html", cs, m.opts["cte"], toHTML(body)); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "--%s--\n", boundary)
	case hasOpt(m, "html"):
		if err := part(&b, "text/html", cs, m.opts["cte"], body); err != nil {
			return nil, err
		}
	default:
		if err := part(&b, "text/plain", cs, m.opts["cte"], body); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

func hasOpt(m message, k string) bool {
	_, ok := m.opts[k]
	return ok
}

func replySubject(t thread) string {
	s := header(t.msgs[0], "Subject")
	if t.lang == "de" {
		return "AW: " + s
	}
	return "Re: " + s
}

// part writes a Content-Type header, a transfer encoding and the body
// converted to charset cs.
func part(b *bytes.Buffer, ctype, cs, cte, body string) error {
	data, err := convert(cs, body)
	if err != nil {
		return err
	}
	if cte == "" {
		switch {
		case isASCII(data) && !strings.EqualFold(cs, "iso-2022-jp"):
			cte = "7bit"
		case strings.EqualFold(cs, "iso-2022-jp"):
			cte = "7bit"
		case strings.EqualFold(cs, "shift_jis"):
			cte = "b64"
		default:
			cte = "qp"
		}
	}
	fmt.Fprintf(b, "Content-Type: %s; charset=%s\n", ctype, cs)
	switch cte {
	case "qp":
		b.WriteString("Content-Transfer-Encoding: quoted-printable\n\n")
		var q bytes.Buffer
		w := quotedprintable.NewWriter(&q)
		if _, err := w.Write([]byte(data)); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		b.Write(bytes.ReplaceAll(q.Bytes(), []byte("\r\n"), []byte("\n")))
		if !bytes.HasSuffix(q.Bytes(), []byte("\n")) {
			b.WriteString("\n")
		}
	case "b64":
		b.WriteString("Content-Transfer-Encoding: base64\n\n")
		enc := base64.StdEncoding.EncodeToString([]byte(data))
		for len(enc) > 76 {
			b.WriteString(enc[:76] + "\n")
			enc = enc[76:]
		}
		b.WriteString(enc + "\n")
	default:
		if cte == "7bit" {
			b.WriteString("Content-Transfer-Encoding: 7bit\n\n")
		} else {
			b.WriteString("Content-Transfer-Encoding: 8bit\n\n")
		}
		b.WriteString(data)
	}
	return nil
}

// toHTML renders a plain-text body as the simple HTML a mail client
// sends as the alternative: paragraphs, line breaks and links.
func toHTML(body string) string {
	var b strings.Builder
	b.WriteString("<html><body style=\"font-family:Arial,sans-serif;font-size:14px\">\n")
	for _, p := range strings.Split(strings.TrimSpace(body), "\n\n") {
		lines := strings.Split(p, "\n")
		for i, l := range lines {
			esc := html.EscapeString(l)
			for _, w := range strings.Fields(l) {
				if strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "http://") {
					esc = strings.Replace(esc, html.EscapeString(w), `<a href="`+html.EscapeString(w)+`">`+html.EscapeString(w)+`</a>`, 1)
				}
			}
			lines[i] = esc
		}
		b.WriteString("<p>" + strings.Join(lines, "<br>\n") + "</p>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// calendar returns the iCalendar object of an invitation, a cancellation
// or a reply.
func calendar(m message, id, subject string, stamp time.Time) (string, error) {
	f := strings.Fields(m.event)
	if len(f) < 2 {
		return "", fmt.Errorf("calendar message needs Event: START MINUTES")
	}
	start, err := time.Parse("20060102T150405Z", f[0])
	if err != nil {
		return "", err
	}
	var mins int
	fmt.Sscan(f[1], &mins)
	summary := subject
	for _, p := range []string{"Invitation: ", "Canceled: ", "Cancelled: ", "Accepted: ", "Einladung: ", "Abgesagt: ", "Invitation : ", "Annulé : ", "Invitación: ", "Cancelado: "} {
		summary = strings.TrimPrefix(summary, p)
	}
	method := m.opts["cal"]
	status, seq := "CONFIRMED", 0
	if method == "CANCEL" {
		status, seq = "CANCELLED", 1
	}
	from := header(m, "From")
	org := from[strings.LastIndex(from, "<")+1 : len(from)-1]
	uid := sha256.Sum256([]byte(summary + f[0]))
	lines := []string{
		"BEGIN:VCALENDAR",
		"PRODID:-//Northwind//Calendar 4.2//EN",
		"VERSION:2.0",
		"METHOD:" + method,
		"BEGIN:VEVENT",
		"UID:" + hex.EncodeToString(uid[:8]) + "@calendar.example",
		"DTSTAMP:" + stamp.UTC().Format("20060102T150405Z"),
		"DTSTART:" + start.Format("20060102T150405Z"),
		"DTEND:" + start.Add(time.Duration(mins)*time.Minute).Format("20060102T150405Z"),
		"SEQUENCE:" + fmt.Sprint(seq),
		"STATUS:" + status,
		"SUMMARY:" + summary,
		"ORGANIZER:mailto:" + org,
		"ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:alex.morgan@northwind.example",
		"END:VEVENT",
		"END:VCALENDAR",
	}
	if method == "REPLY" {
		lines[13] = "ATTENDEE;PARTSTAT=ACCEPTED:mailto:" + org
		lines[12] = "ORGANIZER:mailto:alex.morgan@northwind.example"
	}
	return strings.Join(lines, "\n") + "\n", nil
}
