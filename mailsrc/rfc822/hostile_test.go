package rfc822

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mailsift/internal/testproc"
	"mailsift/model"
)

// hostileCase is one hostile message and what must hold for it beyond
// "parsed in bounded time and memory, every field clean".
type hostileCase struct {
	name  string
	raw   []byte
	check func(t *testing.T, m *model.Message)
}

func hasProblem(m *model.Message, substr string) bool {
	return slices.ContainsFunc(m.Problems, func(p string) bool { return strings.Contains(p, substr) })
}

// hostileGenerated builds the large hostile messages at test time (they
// are not committed).
func hostileGenerated() []hostileCase {
	const hdr = "From: a@example.com\r\nTo: b@example.com\r\nDate: Mon, 3 Nov 2025 10:00:00 +0000\r\n"
	var rcpts, lenient strings.Builder
	for i := range 10_000 {
		if i > 0 {
			rcpts.WriteString(",\r\n ")
			lenient.WriteString(", ")
		}
		fmt.Fprintf(&rcpts, "\"User %d\" <user%d@example.com>", i, i)
		fmt.Fprintf(&lenient, "User %d <user%d@example.com> (x", i, i) // unbalanced comment: lenient path
	}
	var manyParts strings.Builder
	manyParts.WriteString(hdr + "Subject: many parts\r\nContent-Type: multipart/mixed; boundary=p\r\n\r\n")
	for range 5000 {
		manyParts.WriteString("--p\r\nContent-Type: application/octet-stream\r\n\r\nx\r\n")
	}
	manyParts.WriteString("--p--\r\n")
	mb := 1 << 20
	return []hostileCase{
		{"multipart nested 1000 deep", nestedMultipart(1000, "Content-Type: text/plain", "deep text"),
			func(t *testing.T, m *model.Message) {
				if !hasProblem(m, "too deep") {
					t.Errorf("Problems = %q, want a nesting problem", m.Problems)
				}
			}},
		{"message/rfc822 nested 1000 deep", nestedRFC822(1000, "deep text"),
			func(t *testing.T, m *model.Message) {
				if !hasProblem(m, "too deep") {
					t.Errorf("Problems = %q, want a nesting problem", m.Problems)
				}
			}},
		{"1 MB Subject line", []byte(hdr + "Subject: " + strings.Repeat("long subject \x1b[2J", mb/17) + "\r\n\r\nbody\r\n"),
			func(t *testing.T, m *model.Message) {
				if len(m.Subject) < mb/2 || m.Text != "body" {
					t.Errorf("Subject %d bytes, Text %q; want the long subject kept and the body", len(m.Subject), truncate(m.Text, 20))
				}
			}},
		{"1 MB From name", []byte("From: \"" + strings.Repeat("n\u202e", mb/4) + "\" <a@example.com>\r\nSubject: x\r\n\r\nbody\r\n"),
			func(t *testing.T, m *model.Message) {
				if m.From.Email != "a@example.com" {
					t.Errorf("From.Email = %q, want a@example.com", m.From.Email)
				}
			}},
		{"1 MB folded header", []byte(hdr + "Subject: x\r\nX-Mailer: " + strings.Repeat("fold\r\n ", mb/7) + "\r\n\r\nbody\r\n"), nil},
		{"100,000 header lines", []byte(hdr + strings.Repeat("X-Junk: j\r\n", 100_000) + "Subject: s\r\n\r\nbody\r\n"),
			func(t *testing.T, m *model.Message) {
				if m.Subject != "s" {
					t.Errorf("Subject = %q, want s", m.Subject)
				}
			}},
		{"10,000 recipients", []byte("From: a@example.com\r\nTo: " + rcpts.String() + "\r\nCc: " + lenient.String() + "\r\nSubject: all\r\n\r\nhi\r\n"),
			func(t *testing.T, m *model.Message) {
				if len(m.To) != 10_000 || m.To[9999].Email != "user9999@example.com" {
					t.Errorf("len(To) = %d, want 10000 ending with user9999", len(m.To))
				}
				if len(m.Cc) != 10_000 {
					t.Errorf("len(Cc) = %d, want 10000", len(m.Cc))
				}
			}},
		{"5,000 parts", []byte(manyParts.String()),
			func(t *testing.T, m *model.Message) {
				if !hasProblem(m, "too many parts") || len(m.Attachments) == 0 {
					t.Errorf("%d attachments, problems %q; want some listed and a too-many-parts problem", len(m.Attachments), m.Problems)
				}
			}},
		{"1 MB of blank lines in a quote", []byte(hdr + "Subject: q\r\n\r\n>q\r\n" + strings.Repeat("\r\n", mb/2) + ">x\r\n"), nil},
		{"1 MB of nested HTML", []byte(hdr + "Subject: h\r\nContent-Type: text/html\r\n\r\n" + strings.Repeat("<div><a href=\"http://x.example/\"><table><tr><td>", mb/48) + "deep\r\n"),
			func(t *testing.T, m *model.Message) {
				if !strings.Contains(m.HTMLText, "deep") {
					t.Errorf("HTMLText lost the innermost text")
				}
			}},
	}
}

// hostileFixtures are the committed hostile messages and their checks.
var hostileFixtures = map[string]func(t *testing.T, m *model.Message){
	"escapes-every-header.eml": func(t *testing.T, m *model.Message) {
		if !hasProblem(m, "terminal escape") {
			t.Errorf("Problems = %q, want the removed escapes reported", m.Problems)
		}
		if len(m.Attachments) != 1 || !strings.Contains(m.Attachments[0].Filename, "invoice") {
			t.Errorf("Attachments = %+v, want the invoice listed", m.Attachments)
		}
		if !strings.Contains(m.Text, "Body red") || !strings.Contains(m.From.Name, "Boss") {
			t.Errorf("Text %q, From %q: want the readable text kept", m.Text, m.From.Name)
		}
	},
	"prompt-injection.eml": func(t *testing.T, m *model.Message) {
		// The parser keeps what the mail says (triage fences it), but
		// comments, scripts, the title and hidden markup never reach text.
		if !strings.Contains(m.Subject, "IGNORE ALL") || !strings.Contains(m.Text, "SYSTEM:") {
			t.Errorf("Subject %q, Text %q: want the mail's text kept as is", m.Subject, m.Text)
		}
		pm, err := parse(m.Raw, true)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(pm.HTMLText, "IGNORE") && !strings.Contains(pm.HTMLText, "[image:") {
			t.Errorf("HTMLText = %q: comment, script or title text leaked", pm.HTMLText)
		}
		if len(m.Attachments) != 1 || !strings.HasSuffix(m.Attachments[0].Filename, ".pdf") {
			t.Errorf("Attachments = %+v, want the pdf", m.Attachments)
		}
	},
	"invalid-base64.eml": func(t *testing.T, m *model.Message) {
		if !hasProblem(m, "broken base64") || !hasProblem(m, "quoted-printable") || !hasProblem(m, "unknown transfer encoding") {
			t.Errorf("Problems = %q, want base64, quoted-printable and unknown encoding problems", m.Problems)
		}
		if !strings.Contains(m.Text, "Hello") {
			t.Errorf("Text = %q, want the readable base64 prefix", m.Text)
		}
	},
	"charset-lies.eml": func(t *testing.T, m *model.Message) {
		if !strings.Contains(m.Text, "café") || !hasProblem(m, "unknown charset") {
			t.Errorf("Text %q, Problems %q: want mislabelled Latin-1 read and the unknown charset reported", m.Text, m.Problems)
		}
	},
	"raw-8bit-headers.eml": func(t *testing.T, m *model.Message) {
		if m.From.Email != "x@example.com" || !strings.Contains(m.Text, "body") {
			t.Errorf("From %q, Text %q: want the address and body", m.From.Email, m.Text)
		}
	},
}

// TestHostileMail parses every hostile message within a generous time
// bound and an allocation bound relative to its size, and checks that
// every text field comes out clean: valid UTF-8, no control characters
// but tab and newline (in bodies), no bidi overrides.
func TestHostileMail(t *testing.T) {
	cases := hostileGenerated()
	files, err := filepath.Glob("testdata/hostile/*.eml")
	if err != nil || len(files) < len(hostileFixtures) {
		t.Fatalf("hostile fixtures: %d files, %v; want %d", len(files), err, len(hostileFixtures))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, hostileCase{filepath.Base(f), raw, hostileFixtures[filepath.Base(f)]})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m, hm *model.Message
			var err, herr error
			start := time.Now()
			n := testproc.AllocatedBytes(func() { m, err = Parse(c.raw) })
			d := time.Since(start)
			hn := testproc.AllocatedBytes(func() { hm, herr = ParseHeader(c.raw) })
			t.Logf("%d bytes: Parse %v, %d bytes allocated; ParseHeader %d bytes", len(c.raw), d, n, hn)
			if err != nil || herr != nil {
				t.Fatalf("Parse = %v, ParseHeader = %v; want the message kept", err, herr)
			}
			if d > 10*time.Second {
				t.Errorf("Parse took %v, want well under 10s", d)
			}
			if n > allocBound(len(c.raw)) || hn > allocBound(len(c.raw)) {
				t.Errorf("Parse allocated %d bytes, ParseHeader %d, for %d bytes of input; want at most %d", n, hn, len(c.raw), allocBound(len(c.raw)))
			}
			for name, msg := range map[string]*model.Message{"Parse": m, "ParseHeader": hm} {
				if bad := uncleanFields(msg); len(bad) > 0 {
					t.Errorf("%s: unclean fields:\n%s", name, strings.Join(bad, "\n"))
				}
			}
			for _, p := range SplitBody(m.Text) {
				if why := dirty(p.Text, true); why != "" {
					t.Errorf("SplitBody part %q: %s", truncate(p.Text, 40), why)
				}
			}
			if c.check != nil {
				c.check(t, m)
			}
		})
	}
}
