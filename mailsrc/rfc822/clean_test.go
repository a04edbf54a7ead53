package rfc822

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"mailsift/model"
)

// dirty describes why s is not clean text for a terminal, or returns "":
// valid UTF-8, no NUL, no ESC or other C0/C1 control, no bidi override or
// isolate; tab and newline only where multiline is true.
func dirty(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == '\t':
		case r == '\n' && multiline:
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return fmt.Sprintf("control character %U", r)
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("bidi control %U", r)
		}
	}
	return ""
}

// uncleanFields lists the text fields of m that are not clean. Message-ID,
// In-Reply-To and References are cleaned elsewhere and not checked here.
func uncleanFields(m *model.Message) []string {
	var bad []string
	check := func(name, s string, multiline bool) {
		if why := dirty(s, multiline); why != "" {
			bad = append(bad, fmt.Sprintf("%s %q: %s", name, truncate(s, 80), why))
		}
	}
	addr := func(name string, a model.Address) {
		check(name+".Name", a.Name, false)
		check(name+".Email", a.Email, false)
	}
	addr("From", m.From)
	addr("Sender", m.Sender)
	for field, list := range map[string][]model.Address{"Reply-To": m.ReplyTo, "To": m.To, "Cc": m.Cc, "Bcc": m.Bcc} {
		for _, a := range list {
			addr(field, a)
		}
	}
	check("Subject", m.Subject, false)
	check("Text", m.Text, true)
	check("HTMLText", m.HTMLText, true)
	for k, vs := range m.Headers {
		for _, v := range vs {
			check("Headers["+k+"]", v, false)
		}
	}
	for _, a := range m.Attachments {
		check("Attachment.Filename", a.Filename, false)
		check("Attachment.ContentType", a.ContentType, false)
		check("Attachment.ContentID", a.ContentID, false)
		check("Attachment.Part", a.Part, false)
	}
	for _, p := range m.Problems {
		check("Problem", p, false)
	}
	return bad
}

// seedMessages returns the fixture messages and, when the corpus is
// fetched (scripts/fetch-corpus.sh), up to perGroup messages of each of
// its groups. Corpus messages are used at run time only, never committed.
func seedMessages(t testing.TB, perGroup int) [][]byte {
	var out [][]byte
	files, _ := filepath.Glob("testdata/*.eml")
	groups, _ := filepath.Glob("../../testdata/corpus/maildir/*/cur")
	for _, g := range groups {
		names, _ := filepath.Glob(filepath.Join(g, "*"))
		sort.Strings(names)
		// Every k-th message, for variety across the group.
		step := max(1, len(names)/max(1, perGroup))
		for i := 0; i < len(names) && i/step < perGroup; i += step {
			files = append(files, names[i])
		}
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read seed: %v", err)
		}
		out = append(out, raw)
	}
	return out
}

// bodyOf returns the part of raw after the header section, as text.
func bodyOf(raw []byte) string {
	s := string(raw)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		return s[i+2:]
	}
	if i := strings.Index(s, "\r\n\r\n"); i >= 0 {
		return s[i+4:]
	}
	return s
}
