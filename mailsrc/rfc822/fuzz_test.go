package rfc822

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"mailsift/model"
)

// fuzzTimeBound is the wall-clock bound per fuzz input: generous, since
// fuzzing shares the machine; the allocation and work bounds are the
// precise checks.
const fuzzTimeBound = 5 * time.Second

// allocBound is the bytes one call may allocate for an input of n bytes:
// a constant for tables and small structures plus a multiple of n.
func allocBound(n int) uint64 { return 8<<20 + 32*uint64(n) }

// totalAlloc returns the bytes allocated so far (no GC: fuzzing calls it
// for every input).
func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

func FuzzParse(f *testing.F) {
	for _, raw := range seedMessages(f, 8) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		start, before := time.Now(), totalAlloc()
		m, err := Parse(raw)
		hm, herr := ParseHeader(raw)
		if d, n := time.Since(start), totalAlloc()-before; d > fuzzTimeBound || n > allocBound(len(raw)) {
			t.Fatalf("Parse+ParseHeader of %d bytes: %v, %d bytes allocated; want under %v and %d", len(raw), d, n, fuzzTimeBound, allocBound(len(raw)))
		}
		if (err == nil) != (herr == nil) {
			t.Fatalf("Parse error %v but ParseHeader error %v", err, herr)
		}
		if err != nil {
			return
		}
		for name, msg := range map[string]*model.Message{"Parse": m, "ParseHeader": hm} {
			if bad := uncleanFields(msg); len(bad) > 0 {
				t.Errorf("%s: unclean fields:\n%s", name, strings.Join(bad, "\n"))
			}
		}
		if m.MessageID == "" {
			t.Errorf("Parse returned empty MessageID")
		}
		for _, a := range m.Attachments {
			if _, _, err := AttachmentContent(raw, a.Part); err != nil {
				t.Errorf("AttachmentContent(%q) = %v for listed attachment", a.Part, err)
			}
		}
		if hm.Subject != m.Subject || hm.From != m.From {
			t.Errorf("ParseHeader envelope %q %v differs from Parse %q %v", hm.Subject, hm.From, m.Subject, m.From)
		}
	})
}

func FuzzSplitBody(f *testing.F) {
	for _, raw := range seedMessages(f, 8) {
		f.Add(bodyOf(raw))
	}
	for _, s := range []string{">q\n\n\n\n>x", "On Mon, A wrote:\n\n\n> x", "a\n-- \nsig", "-----Original Message-----\nx", "\r\n\r\n>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var steps int
		start := time.Now()
		parts := splitBody(text, &steps)
		stripped := StripQuotes(text)
		if d := time.Since(start); d > fuzzTimeBound {
			t.Fatalf("SplitBody+StripQuotes of %d bytes took %v", len(text), d)
		}
		lines := strings.Count(text, "\n") + 1
		if steps > 2*lines {
			t.Fatalf("SplitBody visited %d lines of a %d-line text, want at most %d", steps, lines, 2*lines)
		}
		var texts []string
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
		if got, want := strings.Join(texts, "\n"), strings.ReplaceAll(text, "\r\n", "\n"); got != want {
			t.Fatalf("SplitBody parts join to %q, want %q", got, want)
		}
		if len(stripped) > len(text) {
			t.Fatalf("StripQuotes returned %d bytes for %d", len(stripped), len(text))
		}
	})
}

func FuzzHTMLToText(f *testing.F) {
	for _, raw := range seedMessages(f, 8) {
		f.Add(bodyOf(raw))
	}
	for _, s := range []string{`<a href="x"><a href="y">t</a></a>`, "<pre>  \n</pre><ol start=9><li>x", `<img alt="a" width=1>`, "<script>x</script><!-- c -->\x1b[2J"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		start, before := time.Now(), totalAlloc()
		out := HTMLToText(src)
		if d, n := time.Since(start), totalAlloc()-before; d > fuzzTimeBound || n > allocBound(len(src)) {
			t.Fatalf("HTMLToText of %d bytes: %v, %d bytes allocated; want under %v and %d", len(src), d, n, fuzzTimeBound, allocBound(len(src)))
		}
		if why := dirty(out, true); why != "" {
			t.Fatalf("HTMLToText(%q) = %q: %s", src, out, why)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("HTMLToText output is not UTF-8")
		}
	})
}
