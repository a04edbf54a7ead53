package rfc822

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHTMLToText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"paragraphs and br", "<p>one<br>two</p><p>three</p>", "one\ntwo\n\nthree"},
		{"script style head dropped", "<head><title>T</title><style>x{}</style></head><body><script>evil()</script>visible</body>", "visible"},
		{"comment dropped", "a<!-- secret -->b", "ab"},
		{"link with text", `<a href="https://x.example/a">Read</a>`, "Read <https://x.example/a>"},
		{"link equal to url", `<a href="https://x.example/">https://x.example/</a>`, "<https://x.example/>"},
		{"javascript link", `<a href="JavaScript:alert(1)">Click</a>`, "Click <script link removed>"},
		{"mailto kept", `<a href="mailto:bob@example.com">Bob</a>`, "Bob <mailto:bob@example.com>"},
		{"image alt", `see <img src="x.png" alt="Chart  of sales">`, "see [image: Chart of sales]"},
		{"tracking pixel dropped", `hi<img src="t.gif" width="1" height="1" alt="t"><img src="u.gif" style="display: none" alt="u">`, "hi"},
		{"unordered list", "<ul><li>a</li><li>b</li></ul>", "- a\n- b"},
		{"ordered list", "<ol><li>a</li><li>b</li></ol>", "1. a\n2. b"},
		{"table", "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>", "A | B\n1 | 2"},
		{"heading", "<h1>Title</h1>text", "Title\n\ntext"},
		{"entities", "Tom &amp; Jerry &lt;3 &eacute;t&eacute; &#8364;", "Tom & Jerry <3 été €"},
		{"whitespace collapsed", "a   \n\t b", "a b"},
		{"blank lines capped", "a<br><br><br><br><br><br>b", "a\n\n\nb"},
		{"pre kept", "<pre>x  y\n  z</pre>", "x  y\n  z"},
		{"escape stripped", "a\x1b[31mb", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HTMLToText(tt.in); got != tt.want {
				t.Errorf("HTMLToText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestHTMLToTextHostile(t *testing.T) {
	deep := strings.Repeat("<div><span><b>", 10000) + "core" + strings.Repeat("</b></span></div>", 10000)
	if got := HTMLToText(deep); got != "core" {
		t.Errorf("deep nesting: got %q", truncate(got, 80))
	}
	unclosed := strings.Repeat("<ul><li><a href='https://x.example/'>x", 5000)
	if got := HTMLToText(unclosed); !strings.Contains(got, "- x") {
		t.Errorf("unclosed tags: got %q", truncate(got, 80))
	}
	huge := `<img alt="` + strings.Repeat("A", 1<<20) + `"><p title="` + strings.Repeat("x", 1<<20) + `">after</p>`
	got := HTMLToText(huge)
	if !strings.Contains(got, "after") || len(got) > 1000 {
		t.Errorf("huge attributes: len %d, tail %q", len(got), got[max(0, len(got)-20):])
	}
	if got := HTMLToText("<script>never ends"); got != "" {
		t.Errorf("unclosed script leaked: %q", got)
	}
}

func BenchmarkHTMLToText(b *testing.B) {
	page := strings.Repeat(`<div><p>Some <b>bold</b> text with <a href="https://example.com/x">a link</a>.</p><table><tr><td>a</td><td>b</td></tr></table></div>`, 500)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		HTMLToText(page)
	}
}

// oldText is the reference for htmlConv.text: strings.Fields and Join.
func oldText(c *htmlConv, s string) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if len(s) > 0 && c.last() != ' ' && c.last() != '\n' {
			c.out.addByte(' ')
		}
		return
	}
	if isSpaceByte(s[0]) && c.last() != ' ' && c.last() != '\n' {
		c.out.addByte(' ')
	}
	c.out.WriteString(strings.Join(fields, " "))
	if isSpaceByte(s[len(s)-1]) {
		c.out.addByte(' ')
	}
}

// TestHTMLTextNodeWhitespace checks the byte-level white-space collapsing
// of text nodes against strings.Fields semantics on generated nodes:
// ASCII and Unicode spaces (NBSP, NEL, ideographic, line separator),
// invalid UTF-8, words, in sequences of nodes.
func TestHTMLTextNodeWhitespace(t *testing.T) {
	parts := []string{" ", "\t", "\n", "\r\n", "\v", "\f", "\u00a0", "\u0085", "\u3000", "\u2028", "\u200b",
		"word", "é", "日本", "\xff", "\xe2\x80", "a", "b.c", "<", "&"}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 5000; n++ {
		var got, want htmlConv
		if n%3 == 0 { // start mid-line
			got.out.WriteString("x")
			want.out.WriteString("x")
		}
		for range 1 + rng.IntN(4) {
			var node strings.Builder
			for range rng.IntN(6) {
				node.WriteString(parts[rng.IntN(len(parts))])
			}
			got.text([]byte(node.String()))
			oldText(&want, node.String())
		}
		if got.out.String() != want.out.String() {
			t.Fatalf("case %d: got %q, want %q", n, got.out.String(), want.out.String())
		}
	}
}
