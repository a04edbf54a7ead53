package rfc822

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const altMessage = "From: a@example.com\r\nTo: b@example.com\r\nSubject: alt\r\n" +
	"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b\"\r\n\r\n" +
	"--b\r\nContent-Type: text/plain\r\n\r\n%s\r\n" +
	"--b\r\nContent-Type: text/html\r\n\r\n<p>The <b>HTML</b> version</p>\r\n--b--\r\n"

// TestParseSkipsHTMLBehindPlainAlternative: the HTML of an alternative
// with a plain text is not converted; with a blank plain text it is, and
// Body shows it.
func TestParseSkipsHTMLBehindPlainAlternative(t *testing.T) {
	m, err := Parse([]byte(strings.Replace(altMessage, "%s", "The plain version", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if m.HTMLText != "" || !strings.Contains(m.Body(), "The plain version") {
		t.Errorf("HTMLText = %q, Body = %q; want no HTML text, the plain body", m.HTMLText, m.Body())
	}
	full, _ := parse([]byte(strings.Replace(altMessage, "%s", "The plain version", 1)), true)
	if !strings.Contains(full.HTMLText, "The HTML version") {
		t.Errorf("keepHTML: HTMLText = %q", full.HTMLText)
	}
	blank, err := Parse([]byte(strings.Replace(altMessage, "%s", " \r\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blank.Body(), "The HTML version") {
		t.Errorf("blank plain alternative: Body = %q, want the HTML's text", blank.Body())
	}
}

// TestParseSkipHTMLCorpus: on every corpus message, skipping the HTML
// behind a plain alternative changes nothing but HTMLText of messages
// whose Text is shown instead.
func TestParseSkipHTMLCorpus(t *testing.T) {
	dir := filepath.Join("..", "testdata", "corpus", "maildir")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "cur", "*"))
	if len(files) == 0 {
		if os.Getenv("MAILSIFT_REQUIRE_CORPUS") == "1" {
			t.Fatal("corpus not fetched: run scripts/fetch-corpus.sh (MAILSIFT_REQUIRE_CORPUS=1)")
		}
		t.Skip("corpus not fetched: run scripts/fetch-corpus.sh")
	}
	skipped := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fast, err1 := Parse(raw)
		full, err2 := parse(raw, true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: errors differ: %v / %v", f, err1, err2)
		}
		if err1 != nil {
			continue
		}
		if fast.Body() != full.Body() {
			t.Errorf("%s: Body differs", f)
		}
		if fast.HTMLText != full.HTMLText {
			skipped++
			if fast.HTMLText != "" || strings.TrimSpace(fast.Text) == "" {
				t.Errorf("%s: HTMLText %q differs while the plain text is blank", f, fast.HTMLText)
			}
		}
		fast.HTMLText, full.HTMLText = "", ""
		if !reflect.DeepEqual(fast, full) {
			t.Errorf("%s: messages differ beyond HTMLText", f)
		}
	}
	if skipped == 0 {
		t.Error("no corpus message had its HTML alternative skipped")
	}
	t.Logf("%d of %d corpus messages: HTML alternative not converted", skipped, len(files))
}
