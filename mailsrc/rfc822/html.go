package rfc822

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// maxHTMLStack bounds the element stacks kept while converting HTML, so
// deeply nested or unclosed markup costs constant memory per element kind.
const maxHTMLStack = 256

// HTMLToText converts an HTML body to readable plain text: scripts,
// styles, the head, comments and tracking pixels are dropped, block
// elements become line breaks, lists become "- " items, table cells are
// separated by " | ", links become `text <url>` and images with alt text
// become `[image: alt]`. It only tokenizes; nothing is executed or fetched.
// Malformed and hostile markup degrades to text, never to an error.
func HTMLToText(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	z.SetMaxBuf(0)
	c := htmlConv{}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return c.finish()
		case html.TextToken:
			if c.skip > 0 {
				continue
			}
			c.text(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			var attrs map[string]string
			// Only a, img and ol read attributes (href; alt and size;
			// start): skip decoding them for every other tag.
			if hasAttr && c.skip == 0 && (string(name) == "a" || string(name) == "img" || string(name) == "ol") {
				attrs = map[string]string{}
				for {
					k, v, more := z.TagAttr()
					if _, dup := attrs[string(k)]; !dup && len(attrs) < 32 {
						attrs[string(k)] = string(v)
					}
					if !more {
						break
					}
				}
			}
			c.start(string(name), attrs, tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			name, _ := z.TagName()
			c.end(string(name))
		}
	}
}

type htmlLink struct {
	href  string
	start int
}

// obuf is a byte buffer that can be trimmed in place.
type obuf struct{ b []byte }

func (o *obuf) WriteString(s string) { o.b = append(o.b, s...) }
func (o *obuf) addByte(c byte)       { o.b = append(o.b, c) }
func (o *obuf) Len() int             { return len(o.b) }
func (o *obuf) String() string       { return string(o.b) }

type htmlConv struct {
	out   obuf
	skip  int // inside script/style/head/title/template
	pre   int
	links []htmlLink
	lists []int // -1 for unordered, else next number
	cells int   // cells written in the current table row
}

// last returns the last byte written, or '\n' at the start.
func (c *htmlConv) last() byte {
	if len(c.out.b) == 0 {
		return '\n'
	}
	return c.out.b[len(c.out.b)-1]
}

// text writes a text node: runs of white space (unicode.IsSpace, as
// strings.Fields splits) collapse to one space; a node starting or ending
// with ASCII white space keeps one space there. It appends the fields
// straight from the tokenizer's buffer (no string copies).
func (c *htmlConv) text(s []byte) {
	if c.pre > 0 {
		c.out.b = append(c.out.b, s...)
		return
	}
	first := true
	for i := 0; i < len(s); {
		if n := spaceLen(s[i:]); n > 0 {
			i += n
			continue
		}
		j := i
		for j < len(s) && spaceLen(s[j:]) == 0 {
			if s[j] < utf8.RuneSelf {
				j++
			} else {
				_, n := utf8.DecodeRune(s[j:])
				j += n
			}
		}
		if !first {
			c.out.addByte(' ')
		} else if isSpaceByte(s[0]) && c.last() != ' ' && c.last() != '\n' {
			c.out.addByte(' ')
		}
		first = false
		c.out.b = append(c.out.b, s[i:j]...)
		i = j
	}
	if first {
		if len(s) > 0 && c.last() != ' ' && c.last() != '\n' {
			c.out.addByte(' ')
		}
		return
	}
	if isSpaceByte(s[len(s)-1]) {
		c.out.addByte(' ')
	}
}

// spaceLen returns the length of the white-space rune (unicode.IsSpace)
// at the start of b, or 0.
func spaceLen(b []byte) int {
	if c := b[0]; c < utf8.RuneSelf {
		if asciiSpace[c] {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRune(b)
	if unicode.IsSpace(r) {
		return n
	}
	return 0
}

// asciiSpace holds the ASCII runes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f'
}

// newline ends the current line (once).
func (c *htmlConv) newline() {
	c.trimTrailingSpace()
	if c.last() != '\n' {
		c.out.addByte('\n')
	}
}

// paragraph ends the current line and leaves one blank line.
func (c *htmlConv) paragraph() {
	c.newline()
	if b := c.out.b; len(b) > 0 && !bytes.HasSuffix(b, []byte("\n\n")) {
		c.out.addByte('\n')
	}
}

func (c *htmlConv) trimTrailingSpace() {
	c.out.b = bytes.TrimRight(c.out.b, " \t")
}

func (c *htmlConv) start(name string, attrs map[string]string, selfClosing bool) {
	switch name {
	case "script", "style", "head", "title", "template", "noscript", "object", "iframe", "svg":
		if !selfClosing {
			c.skip++
		}
		return
	}
	if c.skip > 0 {
		return
	}
	switch name {
	case "br":
		c.trimTrailingSpace()
		c.out.addByte('\n')
	case "p", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "table", "hr":
		c.paragraph()
		if name == "hr" {
			c.out.WriteString("----\n")
		}
	case "div", "section", "article", "header", "footer", "center", "address", "dl", "dt", "dd", "form", "fieldset", "main", "nav", "aside", "figure", "caption":
		c.newline()
	case "pre":
		c.paragraph()
		c.pre++
	case "ul", "ol":
		c.newline()
		if len(c.lists) < maxHTMLStack {
			n := -1
			if name == "ol" {
				n = 1
				if v, err := strconv.Atoi(attrs["start"]); err == nil && v > 0 && v < 1e6 {
					n = v
				}
			}
			c.lists = append(c.lists, n)
		}
	case "li":
		c.newline()
		depth := len(c.lists)
		if depth > 1 {
			c.out.WriteString(strings.Repeat("  ", min(depth-1, 8)))
		}
		if depth > 0 && c.lists[depth-1] > 0 {
			c.out.WriteString(strconv.Itoa(c.lists[depth-1]) + ". ")
			c.lists[depth-1]++
		} else {
			c.out.WriteString("- ")
		}
	case "tr":
		c.newline()
		c.cells = 0
	case "td", "th":
		if c.cells > 0 {
			c.trimTrailingSpace()
			c.out.WriteString(" | ")
		}
		c.cells++
	case "a":
		href := strings.TrimSpace(attrs["href"])
		if len(c.links) < maxHTMLStack {
			c.links = append(c.links, htmlLink{href: href, start: c.out.Len()})
		}
	case "img":
		if hiddenImage(attrs) {
			return
		}
		if alt := strings.TrimSpace(attrs["alt"]); alt != "" {
			if c.last() != ' ' && c.last() != '\n' {
				c.out.addByte(' ')
			}
			c.out.WriteString("[image: " + strings.Join(strings.Fields(truncate(alt, 200)), " ") + "]")
		}
	}
}

func (c *htmlConv) end(name string) {
	switch name {
	case "script", "style", "head", "title", "template", "noscript", "object", "iframe", "svg":
		if c.skip > 0 {
			c.skip--
		}
		return
	}
	if c.skip > 0 {
		return
	}
	switch name {
	case "p", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "table":
		c.paragraph()
	case "div", "section", "article", "header", "footer", "center", "address", "dl", "dt", "dd", "form", "fieldset", "main", "nav", "aside", "figure", "caption", "li", "tr":
		c.newline()
	case "pre":
		if c.pre > 0 {
			c.pre--
		}
		c.paragraph()
	case "ul", "ol":
		if len(c.lists) > 0 {
			c.lists = c.lists[:len(c.lists)-1]
		}
		c.newline()
	case "a":
		if len(c.links) == 0 {
			return
		}
		l := c.links[len(c.links)-1]
		c.links = c.links[:len(c.links)-1]
		c.link(l)
	}
}

// link appends the URL of a finished link after its text.
func (c *htmlConv) link(l htmlLink) {
	if l.href == "" || strings.HasPrefix(l.href, "#") {
		return
	}
	start := min(l.start, len(c.out.b))
	label := linkLabel(c.out.b[start:], len(l.href))
	lower := strings.ToLower(l.href)
	switch {
	case strings.HasPrefix(lower, "javascript:") || strings.HasPrefix(lower, "vbscript:") || strings.HasPrefix(lower, "data:"):
		c.out.WriteString(" <script link removed>")
		return
	}
	url := strings.Join(strings.Fields(l.href), "")
	display := strings.TrimPrefix(url, "mailto:")
	if label == url || label == display || strings.TrimSuffix(label, "/") == strings.TrimSuffix(url, "/") {
		// The text already is the URL: show it once, bracketed.
		c.out.b = bytes.TrimRight(c.out.b[:start], " ")
		if c.last() != ' ' && c.last() != '\n' {
			c.out.addByte(' ')
		}
		c.out.WriteString("<" + url + ">")
		return
	}
	c.trimTrailingSpace()
	if label == "" {
		if c.last() != ' ' && c.last() != '\n' {
			c.out.addByte(' ')
		}
		c.out.WriteString("<" + url + ">")
		return
	}
	c.out.WriteString(" <" + url + ">")
}

// maxLabelScan bounds how far linkLabel looks into a long link text.
const maxLabelScan = 4096

// linkLabel returns the text of a link for comparing it with its URL
// (of at most urlLen bytes). Only a text about as short as the URL can
// equal it, so a longer one is not copied: it stands in as "…" when it
// has a non-space byte near either end, and is "" otherwise. Nested links
// close over the same text, so copying or scanning all of it for each
// would cost (nesting × text) instead of linear time.
func linkLabel(seg []byte, urlLen int) string {
	if len(seg) <= urlLen+64 {
		return strings.TrimSpace(string(seg))
	}
	head, tail := seg[:min(len(seg), maxLabelScan)], seg[max(0, len(seg)-maxLabelScan):]
	if len(bytes.TrimSpace(head)) > 0 || len(bytes.TrimSpace(tail)) > 0 || len(seg) > 2*maxLabelScan {
		return "…"
	}
	return ""
}

// hiddenImage reports tracking pixels and invisible images.
func hiddenImage(attrs map[string]string) bool {
	w, h := strings.TrimSpace(attrs["width"]), strings.TrimSpace(attrs["height"])
	tiny := func(v string) bool {
		v = strings.TrimSuffix(v, "px")
		return v == "0" || v == "1"
	}
	if tiny(w) || tiny(h) {
		return true
	}
	style := strings.ReplaceAll(strings.ToLower(attrs["style"]), " ", "")
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden") ||
		strings.Contains(style, "width:1px") || strings.Contains(style, "width:0")
}

// finish tidies the output: no trailing spaces, at most two blank lines.
func (c *htmlConv) finish() string {
	lines := strings.Split(c.out.String(), "\n")
	var sb strings.Builder
	blank := 0
	for _, ln := range lines {
		ln = strings.TrimRight(ln, " \t\u00a0")
		if strings.TrimSpace(strings.ReplaceAll(ln, "\u00a0", " ")) == "" {
			blank++
			if blank > 2 || sb.Len() == 0 {
				continue
			}
			sb.WriteByte('\n')
			continue
		}
		blank = 0
		sb.WriteString(ln)
		sb.WriteByte('\n')
	}
	return sanitizeText(strings.TrimRight(sb.String(), "\n"))
}
