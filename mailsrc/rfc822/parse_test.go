package rfc822

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mailsift/model"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		subject  string
		from     model.Address
		text     string // substring of Text
		html     string // substring of HTMLText
		notText  string // must not appear in Text+HTMLText
		date     time.Time
		atts     []model.Attachment
		problems []string // substrings, each must appear in some problem
		clean    bool     // no problems at all
	}{
		{name: "quoted-printable", file: "qp.eml", subject: "Quoted-printable test",
			from: model.Address{Name: "Alice Example", Email: "alice@example.com"},
			text: "Café crème brûlée, this line is soft-wrapped into one.\nPrice: 10 = ten.", clean: true,
			date: time.Date(2025, 11, 3, 9, 15, 0, 0, time.UTC)},
		{name: "base64", file: "base64.eml", subject: "Base64 body",
			from: model.Address{Name: "Müller, Jörg", Email: "joerg@example.de"},
			text: "Grüße aus Köln.\nZweite Zeile.", clean: true},
		{name: "iso-8859-1", file: "iso-8859-1.eml", subject: "Réunion de l'équipe",
			from: model.Address{Name: "François Pérez", Email: "francois@example.fr"},
			text: "La réunion est déplacée à jeudi. À bientôt.", clean: true},
		{name: "windows-1252", file: "windows-1252.eml", subject: "Smart quotes",
			text: "“Quoted” – costs 5 €.", clean: true},
		{name: "iso-2022-jp", file: "iso-2022-jp.eml", subject: "会議", text: "会議は明日です。", clean: true},
		{name: "koi8-r", file: "koi8-r.eml", subject: "Привет", text: "Добрый день, коллеги.", clean: true},
		{name: "unknown charset", file: "unknown-charset.eml", text: "Café in x-bar.", notText: "Hello in x-foo",
			problems: []string{`part 1.1: unknown charset "x-foo", shown as UTF-8`, `part 1.2: unknown charset "x-bar", shown as Windows-1252`}},
		{name: "broken base64", file: "broken-base64.eml", text: "Hello world, this is",
			problems: []string{"part 1: broken base64"}},
		{name: "missing message-id", file: "no-message-id.eml", subject: "No id here",
			from: model.Address{Email: "frank@example.com"}, text: "Body without a Message-ID.", clean: true},
		{name: "bad date", file: "bad-date.eml", problems: []string{`unreadable Date "sometime next week, probably"`}},
		{name: "lenient date", file: "lenient-date.eml", clean: true,
			date: time.Date(2025, 11, 12, 13, 14, 15, 0, time.UTC)},
		{name: "nested rfc822", file: "nested-rfc822.eml", subject: "Fwd: Quarterly numbers",
			text: "FYI, see below.\n\n---------- Forwarded message ----------\nFrom: Original Sender <orig@example.org>",
			atts: []model.Attachment{{Filename: "q3.pdf", ContentType: "application/pdf", Size: 9, Part: "2.2"}}, clean: true},
		{name: "alternative with related", file: "alternative.eml", text: "Your order has shipped.",
			html: "Your order has shipped.\n\n[image: Shop logo]",
			atts: []model.Attachment{{ContentType: "image/png", Size: 8, ContentID: "logo@x", Inline: true, Part: "2.2"}}, clean: true},
		{name: "rfc2231 filename and calendar", file: "rfc2231-attachment.eml", text: "Invoice attached.",
			atts: []model.Attachment{
				{Filename: "Rechnung März 2025.pdf", ContentType: "application/pdf", Size: 11, Part: "2"},
				{Filename: "invite.ics", ContentType: "text/calendar", Size: 29, Part: "3"},
			}, clean: true},
		{name: "html only", file: "html-only.eml", subject: "Big sale",
			html:    "Big sale & more\n\nVisit our shop <https://shop.example/sale> or <https://shop.example/>.",
			notText: "alert", clean: true},
		{name: "encoded words", file: "encoded-words.eml", subject: "Café ce soir?",
			from: model.Address{Name: "Élodie Dupont", Email: "elodie@example.fr"}, clean: true},
		{name: "malformed encoded word", file: "malformed-encoded-word.eml", subject: "=?UTF-8?Q?broken word without end",
			from:     model.Address{Name: "=?x-unknown?Q?Bad_Name?=", Email: "bad@example.com"},
			problems: []string{"Subject has a malformed encoded word", "From has a malformed encoded word"}},
		{name: "no content-type", file: "no-content-type.eml", text: "Just text, no MIME headers at all.", clean: true},
		{name: "raw utf-8 headers", file: "utf8-headers.eml", subject: "Raw UTF-8 subject — ünïcödé ✓",
			from: model.Address{Name: "Søren Ærø", Email: "soren@example.dk"}, clean: true},
		{name: "odd addresses", file: "odd-addresses.eml",
			from: model.Address{Name: "John Q. Public", Email: "john.q@example.com"}, clean: true},
		{name: "terminal escapes", file: "terminal-escapes.eml", subject: "Hi there", text: "Text with  escape."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := readFixture(t, tt.file)
			m, err := Parse(raw)
			if err != nil {
				t.Fatalf("Parse(%s) error = %v", tt.file, err)
			}
			if tt.subject != "" && m.Subject != tt.subject {
				t.Errorf("Parse(%s).Subject = %q, want %q", tt.file, m.Subject, tt.subject)
			}
			if tt.from != (model.Address{}) && m.From != tt.from {
				t.Errorf("Parse(%s).From = %+v, want %+v", tt.file, m.From, tt.from)
			}
			if m.From.Email == "" {
				t.Errorf("Parse(%s).From lost: %+v", tt.file, m.From)
			}
			if !strings.Contains(m.Text, tt.text) {
				t.Errorf("Parse(%s).Text = %q, want it to contain %q", tt.file, m.Text, tt.text)
			}
			// HTML behind a plain alternative is converted only on request
			// (Parse skips it); the conversion is checked either way.
			if full, err := parse(raw, true); err != nil || !strings.Contains(full.HTMLText, tt.html) {
				t.Errorf("parse(%s, keepHTML).HTMLText = %q, %v; want it to contain %q", tt.file, full.HTMLText, err, tt.html)
			}
			if tt.notText != "" && strings.Contains(m.Text+m.HTMLText, tt.notText) {
				t.Errorf("Parse(%s) body contains %q: %q / %q", tt.file, tt.notText, m.Text, m.HTMLText)
			}
			if !tt.date.IsZero() && !m.Date.Equal(tt.date) {
				t.Errorf("Parse(%s).Date = %v, want %v", tt.file, m.Date, tt.date)
			}
			if tt.atts != nil && !slices.Equal(m.Attachments, tt.atts) {
				t.Errorf("Parse(%s).Attachments = %+v, want %+v", tt.file, m.Attachments, tt.atts)
			}
			if tt.clean && len(m.Problems) > 0 {
				t.Errorf("Parse(%s).Problems = %q, want none", tt.file, m.Problems)
			}
			for _, want := range tt.problems {
				if !slices.ContainsFunc(m.Problems, func(p string) bool { return strings.Contains(p, want) }) {
					t.Errorf("Parse(%s).Problems = %q, want one containing %q", tt.file, m.Problems, want)
				}
			}
			if !m.HasBody || m.Size != int64(len(raw)) || len(m.ContentHash) != 64 || string(m.Raw) != string(raw) {
				t.Errorf("Parse(%s): HasBody=%v Size=%d hash=%q raw kept=%v", tt.file, m.HasBody, m.Size, m.ContentHash, string(m.Raw) == string(raw))
			}
			if m.MessageID == "" || strings.ContainsAny(m.MessageID, "<>") {
				t.Errorf("Parse(%s).MessageID = %q", tt.file, m.MessageID)
			}
			for _, s := range []string{m.Subject, m.From.Name, m.Text, m.HTMLText} {
				if strings.ContainsAny(s, "\x1b\x07\r") {
					t.Errorf("Parse(%s) left control characters in %q", tt.file, s)
				}
			}
		})
	}
}

func TestParseEnvelopeDetails(t *testing.T) {
	m, err := Parse(readFixture(t, "odd-addresses.eml"))
	if err != nil {
		t.Fatal(err)
	}
	if m.MessageID != "odd@example.com" {
		t.Errorf("MessageID = %q", m.MessageID)
	}
	if !slices.Equal(m.InReplyTo, []string{"parent@example.com"}) {
		t.Errorf("InReplyTo = %q", m.InReplyTo)
	}
	if !slices.Equal(m.References, []string{"root@example.com", "parent@example.com"}) {
		t.Errorf("References = %q", m.References)
	}
	wantTo := []model.Address{{Email: "bob@example.com"}, {Name: "Weird <Name>", Email: "w@example.com"}}
	if !slices.Equal(m.To, wantTo) {
		t.Errorf("To = %+v, want %+v", m.To, wantTo)
	}
	if !slices.Equal(m.Cc, []model.Address{{Name: "Carol C", Email: "carol@example.com"}}) {
		t.Errorf("Cc = %+v", m.Cc)
	}
	if m.Header("X-Mailer") != "TestMailer 1.0" || m.Header("List-Id") != "Test list <test.example.com>" {
		t.Errorf("Headers = %v", m.Headers)
	}
	if _, ok := m.Headers["Received"]; ok {
		t.Errorf("Headers kept Received: %v", m.Headers)
	}
	// Why a code host notified the reader is kept for triage.
	gh, err := Parse([]byte("From: notifications@github.com\r\nX-GitHub-Reason: review_requested\r\nX-GitLab-NotificationReason: mentioned\r\nSubject: PR\r\n\r\nbody\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if gh.Header("X-Github-Reason") != "review_requested" || gh.Header("X-Gitlab-Notificationreason") != "mentioned" {
		t.Errorf("code host reasons not kept: %v", gh.Headers)
	}
	if _, ok := m.Headers["X-Private"]; ok {
		t.Errorf("Headers kept X-Private: %v", m.Headers)
	}

	enc, _ := Parse(readFixture(t, "encoded-words.eml"))
	wantTo = []model.Address{{Name: "Zoë", Email: "zoe@example.com"}, {Name: "Smith, John", Email: "john@example.com"}}
	if !slices.Equal(enc.To, wantTo) {
		t.Errorf("encoded To = %+v, want %+v", enc.To, wantTo)
	}

	noid, _ := Parse(readFixture(t, "no-message-id.eml"))
	if !strings.HasSuffix(noid.MessageID, "@mailsift.invalid") || !strings.HasPrefix(noid.ContentHash, strings.TrimSuffix(noid.MessageID, "@mailsift.invalid")) {
		t.Errorf("synthesised MessageID = %q (hash %s)", noid.MessageID, noid.ContentHash)
	}
	bad, _ := Parse(readFixture(t, "bad-date.eml"))
	if !bad.Date.IsZero() {
		t.Errorf("bad Date = %v, want zero", bad.Date)
	}
}

func TestParseLenientAddresses(t *testing.T) {
	raw := "From: Broken <<alice@example.com>\nTo: a@b.example; c@d.example\nSubject: x\n\nbody\n"
	m, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.From.Email != "alice@example.com" {
		t.Errorf("From = %+v, want alice@example.com", m.From)
	}
	if len(m.To) != 2 || m.To[1].Email != "c@d.example" {
		t.Errorf("To = %+v", m.To)
	}
}

func TestParseNotAMessage(t *testing.T) {
	for _, in := range []string{"", "   \n\n", "just some text\nwithout headers\n", "\n\nbody only"} {
		_, err := Parse([]byte(in))
		if err == nil || !errors.Is(err, ErrNotMessage) {
			t.Errorf("Parse(%q) error = %v, want ErrNotMessage", in, err)
		}
	}
	// A header-only message is a message.
	m, err := Parse([]byte("Subject: only headers\nFrom: a@example.com"))
	if err != nil || m.Subject != "only headers" {
		t.Errorf("Parse(header only) = %+v, %v", m, err)
	}
}

func TestParseHeader(t *testing.T) {
	raw := readFixture(t, "encoded-words.eml")
	i := strings.Index(string(raw), "\n\n")
	m, err := ParseHeader(raw[:i+2])
	if err != nil {
		t.Fatal(err)
	}
	if m.HasBody || m.Raw != nil || m.Text != "" {
		t.Errorf("ParseHeader: HasBody=%v Raw=%v Text=%q", m.HasBody, m.Raw != nil, m.Text)
	}
	if m.Subject != "Café ce soir?" || m.MessageID != "ew-1@example.fr" || m.From.Email != "elodie@example.fr" {
		t.Errorf("ParseHeader = %+v", m)
	}
}

func TestAttachmentContent(t *testing.T) {
	raw := readFixture(t, "rfc2231-attachment.eml")
	name, data, err := AttachmentContent(raw, "2")
	if err != nil {
		t.Fatal(err)
	}
	if name != "Rechnung März 2025.pdf" || string(data) != "Hello, PDF!" {
		t.Errorf("AttachmentContent(2) = %q, %q", name, data)
	}
	name, data, err = AttachmentContent(readFixture(t, "nested-rfc822.eml"), "2.2")
	if err != nil || name != "q3.pdf" || string(data) != "%PDF-1.4\n" {
		t.Errorf("AttachmentContent(nested 2.2) = %q, %q, %v", name, data, err)
	}
	if _, _, err := AttachmentContent(raw, "9"); err == nil || !strings.Contains(err.Error(), `no MIME part "9"`) {
		t.Errorf("AttachmentContent(9) error = %v", err)
	}
}

// TestTranslation checks the go-message → model translation of a
// multipart message with every envelope field.
func TestTranslation(t *testing.T) {
	raw := "From: Alice <alice@example.com>\r\n" +
		"Sender: Sec <sec@example.com>\r\n" +
		"Reply-To: Replies <r@example.com>\r\n" +
		"To: bob@example.com\r\nCc: c@example.com\r\nBcc: d@example.com\r\n" +
		"Subject: Hello\r\nDate: Mon, 3 Nov 2025 10:15:00 +0000\r\n" +
		"Message-ID: <m1@example.com>\r\nIn-Reply-To: <p@example.com>\r\n" +
		"Authentication-Results: mx.example.com; spf=pass\r\nReceived-SPF: pass\r\n" +
		"Content-Type: multipart/mixed; boundary=X\r\n\r\n" +
		"--X\r\nContent-Type: text/plain\r\n\r\nhi\r\n--X\r\n" +
		"Content-Type: image/png\r\nContent-Disposition: inline; filename=a.png\r\nContent-ID: <c1>\r\n\r\nPNG\r\n--X--\r\n"
	m, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := &model.Message{
		MessageID: "m1@example.com", InReplyTo: []string{"p@example.com"},
		From:    model.Address{Name: "Alice", Email: "alice@example.com"},
		Sender:  model.Address{Name: "Sec", Email: "sec@example.com"},
		ReplyTo: []model.Address{{Name: "Replies", Email: "r@example.com"}},
		To:      []model.Address{{Email: "bob@example.com"}}, Cc: []model.Address{{Email: "c@example.com"}},
		Bcc:  []model.Address{{Email: "d@example.com"}},
		Date: time.Date(2025, 11, 3, 10, 15, 0, 0, time.UTC), Subject: "Hello", Text: "hi",
		Attachments: []model.Attachment{{Filename: "a.png", ContentType: "image/png", Size: 3, ContentID: "c1", Inline: true, Part: "2"}},
	}
	if m.MessageID != want.MessageID || !slices.Equal(m.InReplyTo, want.InReplyTo) || m.From != want.From ||
		m.Sender != want.Sender || !slices.Equal(m.ReplyTo, want.ReplyTo) || !slices.Equal(m.To, want.To) ||
		!slices.Equal(m.Cc, want.Cc) || !slices.Equal(m.Bcc, want.Bcc) || !m.Date.Equal(want.Date) ||
		m.Subject != want.Subject || m.Text != want.Text || !slices.Equal(m.Attachments, want.Attachments) {
		t.Errorf("Parse = %+v\nwant %+v", m, want)
	}
	if m.Header("Authentication-Results") != "mx.example.com; spf=pass" || m.Header("Received-SPF") != "pass" ||
		!strings.HasPrefix(m.Header("Content-Type"), "multipart/mixed") {
		t.Errorf("Headers = %v", m.Headers)
	}
}

func TestParseHostileStructure(t *testing.T) {
	// 200 nested multiparts: must stop at the depth limit with a problem.
	var sb strings.Builder
	sb.WriteString("From: a@example.com\nContent-Type: multipart/mixed; boundary=b0\n\n")
	for i := 0; i < 200; i++ {
		sb.WriteString("--b" + itoa(i) + "\nContent-Type: multipart/mixed; boundary=b" + itoa(i+1) + "\n\n")
	}
	m, err := Parse([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(m.Problems, func(p string) bool { return strings.Contains(p, "too deep") }) {
		t.Errorf("Problems = %q, want a nesting problem", m.Problems)
	}
	// Missing final boundary: the text before it is kept.
	m, err = Parse([]byte("From: a@example.com\nContent-Type: multipart/mixed; boundary=z\n\n--z\nContent-Type: text/plain\n\nkept text\n"))
	if err != nil || !strings.Contains(m.Text, "kept text") {
		t.Errorf("truncated multipart: Text = %q, err %v", m.Text, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func BenchmarkParse(b *testing.B) {
	files, _ := filepath.Glob("testdata/*.eml")
	var raws [][]byte
	total := 0
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		raws = append(raws, raw)
		total += len(raw)
	}
	b.SetBytes(int64(total / len(raws)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := Parse(raws[i%len(raws)]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseReportsTerminalControls checks that stripping escape sequences is
// not silent: triage turns the Problem into a phishing/obfuscation signal.
func TestParseReportsTerminalControls(t *testing.T) {
	m, err := Parse(readFixture(t, "terminal-escapes.eml"))
	if err != nil {
		t.Fatal(err)
	}
	var subj, body bool
	for _, p := range m.Problems {
		subj = subj || strings.Contains(p, "removed from Subject")
		body = body || strings.Contains(p, "sequences removed") && !strings.Contains(p, "header:")
	}
	if !subj || !body {
		t.Fatalf("Problems = %q, want entries for the Subject and the body", m.Problems)
	}
	clean, err := Parse([]byte("From: a@example.com\nDate: Mon, 16 Nov 2026 09:00:00 +0000\nMessage-ID: <c@example.com>\nSubject: hi\n\nplain text\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(clean.Problems) != 0 {
		t.Fatalf("clean message Problems = %q, want none", clean.Problems)
	}
}

// TestHasTerminalControls checks the byte scan against the rune set it
// stands for, on every rune of the set and its neighbours, in context.
func TestHasTerminalControls(t *testing.T) {
	const set = "\x1b\u009b\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
	var cases []string
	for _, r := range []rune{0x1a, 0x1b, 0x1c, 0x9a, 0x9b, 0x9c, 0xa0, 0x2029, 0x202a, 0x202e, 0x202f, 0x2065, 0x2066, 0x2069, 0x206a, 0x2019, 0x20ac, 0xe9} {
		for _, ctx := range []string{"%c", "abc%c", "%cdef", "é–%c’", "\xc2%c", "\xe2%c", "\xe2\x80%c"} {
			cases = append(cases, fmt.Sprintf(ctx, r))
		}
	}
	cases = append(cases, "", "plain ascii", "\xc2", "\xe2\x80", "\xe2\x80\xaa", "\xe2\x81\xa9x", "\xc2\x9b", "\xe2\x80\xa9")
	for _, c := range cases {
		if got, want := hasTerminalControls(c), strings.ContainsAny(c, set); got != want {
			t.Errorf("hasTerminalControls(%q) = %v, want %v", c, got, want)
		}
	}
}

// TestEncodedWordWithParentheses checks a display name whose encoded word
// holds parentheses (Go's mime.QEncoding writes them so; the address
// parser reads them as a comment): it is decoded, not shown raw, and the
// message reports no problem.
func TestEncodedWordWithParentheses(t *testing.T) {
	for _, from := range []string{
		"=?UTF-8?q?Chlo=C3=A9_Martin_(Google_Docs)?= <comments-noreply@docs.google.com>",
		"Ops <ops@example.org>, =?UTF-8?q?Chlo=C3=A9_Martin_(Google_Docs)?= <comments-noreply@docs.google.com>",
	} {
		raw := "From: " + from + "\r\nTo: a@example.org\r\nSubject: x\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\nMessage-ID: <p@x>\r\n\r\nbody\r\n"
		m, err := Parse([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		got := m.From
		if strings.Contains(from, ",") {
			got = m.To[0] // the list form is checked through To below
			raw = "From: a@example.org\r\nTo: " + from + "\r\nSubject: x\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\nMessage-ID: <p@x>\r\n\r\nbody\r\n"
			m, err = Parse([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			got = m.To[1]
		}
		if got.Name != "Chloé Martin (Google Docs)" || got.Email != "comments-noreply@docs.google.com" {
			t.Errorf("%s: %+v, want Chloé Martin (Google Docs)", from, got)
		}
		if len(m.Problems) != 0 {
			t.Errorf("%s: problems %v, want none", from, m.Problems)
		}
	}
}
