package rfc822

import (
	"mailsift/internal/testproc"
	"strings"
	"testing"
)

// TestHTMLToTextNestedLinksLinear: every open link used to copy all text
// written since it opened when it closed, so 256 nested links around
// 1 MB of text copied 256 MB.
func TestHTMLToTextNestedLinksLinear(t *testing.T) {
	inputs := map[string]string{
		"nested links":            strings.Repeat(`<a href="http://x.example/">`, 300) + strings.Repeat("word ", 200_000) + strings.Repeat("</a>", 300),
		"nested links, pre space": "<pre>" + strings.Repeat(`<a href="http://x.example/">`, 300) + strings.Repeat(" ", 1<<20) + "x" + strings.Repeat("\n", 1<<20) + strings.Repeat("</a>", 300),
	}
	for name, in := range inputs {
		var out string
		n := testproc.AllocatedBytes(func() { out = HTMLToText(in) })
		if limit := uint64(16 * len(in)); n > limit {
			t.Errorf("%s: HTMLToText allocated %d bytes for %d bytes of input, want at most %d", name, n, len(in), limit)
		}
		if !strings.Contains(out, "<http://x.example/>") {
			t.Errorf("%s: HTMLToText lost the link URL", name)
		}
	}
}
