package termsafe

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "Hello, world", "Hello, world"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"crlf", "a\r\nb", "a\nb"},
		{"lone cr dropped", "pay\rPAID", "payPAID"},
		{"csi colour", "\x1b[31mred\x1b[0m", "red"},
		{"csi clear screen", "x\x1b[2J\x1b[Hy", "xy"},
		{"csi private", "\x1b[?1049hz", "z"},
		{"osc title bel", "\x1b]0;pwned\x07ok", "ok"},
		{"osc 52 clipboard", "a\x1b]52;c;cm0gLXJmIH4=\x07b", "ab"},
		{"osc 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"osc aborted by csi", "\x1b]0;t\x1b[31mx", "x"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"sos", "a\x1bXhidden\x1b\\b", "ab"},
		{"pm", "a\x1b^hidden\x1b\\b", "ab"},
		{"apc", "a\x1b_hidden\x1b\\b", "ab"},
		{"unterminated osc", "a\x1b]52;c;AAAA", "a"},
		{"esc charset", "a\x1b(Bb", "ab"},
		{"esc single", "a\x1bcb", "ab"},
		{"trailing esc", "a\x1b", "a"},
		{"c1 csi utf8", "a\u009b31mb", "ab"},
		{"c1 osc utf8", "a\u009d52;c;AAAA\u009cb", "ab"},
		{"c1 dcs utf8", "a\u0090xx\u009cb", "ab"},
		{"c1 other dropped", "a\u0085b", "ab"},
		{"raw 8-bit csi byte", "a\x9b31mb", "a\uFFFD31mb"},
		{"bel visible", "ding\x07", "ding\u2407"},
		{"nul visible", "a\x00b", "a\u2400b"},
		{"backspace visible", "a\bb", "a\u2408b"},
		{"del visible", "a\x7fb", "a\u2421b"},
		{"rlo removed", "invoice\u202Efdp.exe", "invoicefdp.exe"},
		{"bidi all", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069x", "x"},
		{"marks removed", "\u200e\u200f\u061cx", "x"},
		{"zero width space removed", "pay\u200bpal", "paypal"},
		{"bom removed", "\ufeffhi", "hi"},
		{"zwj kept", "👩\u200d💻", "👩\u200d💻"},
		{"line separator", "a\u2028b", "a\nb"},
		{"invalid utf8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"non-ascii kept", "Grüße, 東京 — ok", "Grüße, 東京 — ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Re:  lunch\n\ttomorrow ", "Re: lunch tomorrow"},
		{"\x1b[1mBold\x1b[0m name", "Bold name"},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		if got := SanitizeLine(tt.in); got != tt.want {
			t.Errorf("SanitizeLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// assertSafe fails when s contains anything a terminal could interpret.
func assertSafe(t testing.TB, in, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, s)
	}
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			t.Fatalf("Sanitize(%q) = %q: contains control %U", in, s, r)
		}
		if unicode.Is(unicode.Cf, r) && r != 0x200c && r != 0x200d {
			t.Fatalf("Sanitize(%q) = %q: contains format char %U", in, s, r)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"hello", "\x1b[31mx", "\x1b]52;c;QQ==\x07", "\x1bPq\x1b\\", "\u202egnp.exe",
		"\u009b1m", "\xff\xfe", "a\r\nb", "\x1b]8;;http://x\x1b\\y\x1b]8;;\x1b\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		assertSafe(t, in, out)
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize not idempotent on %q: %q then %q", in, out, again)
		}
		line := SanitizeLine(in)
		assertSafe(t, in, line)
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("SanitizeLine(%q) = %q contains a newline or tab", in, line)
		}
	})
}
