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
		{"hangul filler", "\u3164", ""},
		{"hangul choseong and jungseong fillers", "a\u115f\u1160b", "ab"},
		{"halfwidth hangul filler", "\uffa0x", "x"},
		{"combining grapheme joiner", "pay\u034fpal", "paypal"},
		{"braille blank", "\u2800\u2800", ""},
		{"khmer inherent vowels", "\u17b4\u17b5x", "x"},
		{"mongolian selectors", "x\u180b\u180e\u180f", "x"},
		{"variation selector alone", "\ufe0f", ""},
		{"variation selector after space", "a \ufe0fb", "a b"},
		{"emoji presentation kept", "\u2764\ufe0f", "\u2764\ufe0f"},
		{"variation selector supplement", "x\U000e0100", "x"},
		{"tag characters", "x\U000e0041\U000e007f", "x"},
		{"unassigned default ignorable", "x\ufff0\U000e0fff", "x"},
		{"invisible math operators", "a\u2061\u2062\u2063\u2064b", "ab"},
		{"hangul syllables kept", "한국어", "한국어"},
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

// blankRunes draw as nothing or as blank space although they are neither
// spaces nor format characters: a name made of them looks empty.
var blankRunes = map[rune]bool{0x115f: true, 0x1160: true, 0x3164: true, 0xffa0: true, 0x034f: true, 0x2800: true, 0x17b4: true, 0x17b5: true}

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
		if blankRunes[r] || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r) && r != 0xfe0e && r != 0xfe0f {
			t.Fatalf("Sanitize(%q) = %q: contains invisible filler %U", in, s, r)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"hello", "\x1b[31mx", "\x1b]52;c;QQ==\x07", "\x1bPq\x1b\\", "\u202egnp.exe",
		"\u009b1m", "\xff\xfe", "a\r\nb", "\x1b]8;;http://x\x1b\\y\x1b]8;;\x1b\\",
		"\u3164", "\u115f\u1160", "\u2800\ufe0f", "\u200d\u200d", "x\u034f\U000e0100",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		assertSafe(t, in, out)
		// Linear: every input byte becomes at most one 3-byte character
		// (a control picture or U+FFFD).
		if len(out) > 3*len(in) {
			t.Fatalf("Sanitize(%q) = %q: %d bytes from %d", in, out, len(out), len(in))
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize not idempotent on %q: %q then %q", in, out, again)
		}
		line := SanitizeLine(in)
		assertSafe(t, in, line)
		if r, _ := utf8.DecodeRuneInString(line); r == 0x200c || r == 0x200d || r == 0xfe0e || r == 0xfe0f {
			t.Fatalf("SanitizeLine(%q) = %q starts with the invisible %U", in, line, r)
		}
		if again := SanitizeLine(line); again != line {
			t.Fatalf("SanitizeLine not idempotent on %q: %q then %q", in, line, again)
		}
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("SanitizeLine(%q) = %q contains a newline or tab", in, line)
		}
	})
}

// BenchmarkSanitize measures mixed non-ASCII text, the case that reaches
// the per-rune checks.
func BenchmarkSanitize(b *testing.B) {
	s := strings.Repeat("Grüße aus 東京 — 👩\u200d💻 Привет, мир! ", 64)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Sanitize(s)
	}
}
