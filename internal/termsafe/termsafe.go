// Package termsafe makes strings taken from mail safe to draw on a terminal:
// escape sequences are removed with their payload, other controls and bidi
// overrides are made visible or dropped.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes a string taken from mail safe to draw on a terminal. It
// keeps tabs and newlines and otherwise:
//   - strips escape sequences entirely, payload included: CSI, OSC (OSC 52
//     clipboard writes, OSC 8 hyperlinks, titles), DCS, SOS, PM and APC,
//     in their 7-bit (ESC-introduced) and 8-bit (C1) forms, and any other
//     ESC-introduced sequence;
//   - shows other C0 controls and DEL as Unicode control pictures (␇) and
//     drops other C1 controls; a lone CR is dropped (CRLF becomes LF);
//   - removes bidi embeddings, overrides and isolates (U+202A–U+202E,
//     U+2066–U+2069), marks (U+200E, U+200F, U+061C), other invisible
//     format characters and the invisible fillers (see invisible), except
//     the joiners and presentation selectors emoji and some scripts need
//     after a visible character;
//   - replaces invalid UTF-8 with U+FFFD.
//
// Every string from mail (names, subjects, bodies, filenames, snippets)
// passes through Sanitize or SanitizeLine before the UI draws it.
func Sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		// Printable ASCII is copied a run at a time.
		if j := plainRun(s, i); j > i {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == 0x1b:
				i = skipEscape(s, i+1)
				continue
			case c == '\n' || c == '\t':
				b.WriteByte(c)
			case c == '\r':
				// CRLF becomes LF; a lone CR (overwrite the line) is dropped.
			case c < 0x20:
				b.WriteRune(rune(0x2400 + int(c)))
			case c == 0x7f:
				b.WriteRune('\u2421')
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		i += size
		switch {
		case r >= 0x80 && r <= 0x9f:
			// 8-bit C1 controls; the string-introducing ones swallow their payload.
			switch r {
			case 0x9b: // CSI
				i = skipCSI(s, i)
			case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // OSC, DCS, SOS, PM, APC
				i = skipString(s, i)
			}
		case r == 0x2028 || r == 0x2029:
			b.WriteByte('\n')
		case r == 0x200c || r == 0x200d || r == 0xfe0e || r == 0xfe0f:
			// Joiners (emoji sequences, Indic and Arabic scripts) and the
			// text/emoji presentation selectors only modify the character
			// before them; alone they would draw nothing, so they are kept
			// only after a visible character.
			if modifiable(b.String()) {
				b.WriteRune(r)
			}
		case invisible(r):
			// bidi controls, other format characters and fillers
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// invisible reports characters that draw nothing, or only blank space,
// without being spaces: format characters (bidi controls, zero-width
// space, word joiner, tags), the other Unicode default-ignorable code
// points (Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the combining
// grapheme joiner U+034F, Khmer inherent vowels, variation selectors), and
// the braille blank U+2800 and Khitan filler U+16FE4. A sender name made of
// them would look empty or hide a different name.
func invisible(r rune) bool {
	switch {
	case r < 0x34f:
		return r == 0xad // soft hyphen (Cf); the common case ends here
	case r == 0x2800 || r == 0x16fe4:
		return true
	}
	return unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// modifiable reports whether the text written so far ends in a visible
// character that a joiner or presentation selector may follow.
func modifiable(out string) bool {
	r, size := utf8.DecodeLastRuneInString(out)
	if size == 0 || unicode.IsSpace(r) || r == 0x200c || r == 0x200d || r == 0xfe0e || r == 0xfe0f {
		return false
	}
	return unicode.IsGraphic(r)
}

// SanitizeLine is Sanitize for single-line fields (names, subjects,
// filenames, snippets): newlines and tabs become spaces and runs of
// whitespace collapse to one space.
func SanitizeLine(s string) string {
	s = Sanitize(s)
	if !strings.ContainsAny(s, "\n\t") && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

// plainRun returns the end of the run of printable ASCII, tabs and
// newlines that starts at i (i itself if s[i] is anything else).
func plainRun(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c >= 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			break
		}
		i++
	}
	return i
}

// isPlain reports whether s is printable ASCII plus tab and newline, the
// common case that needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			return false
		}
	}
	return true
}

// skipEscape skips an ESC-introduced sequence whose ESC is just before i and
// returns the index after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20–0x2F then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips CSI parameters and intermediates up to and including the
// final byte (0x40–0x7E). Anything else ends the sequence where it is.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips the payload of an OSC, DCS, SOS, PM or APC string up to
// and including its terminator: BEL, ESC \ or the 8-bit ST (U+009C). An
// unterminated string swallows the rest of the input, as a terminal would.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // ESC aborts the string and starts a new sequence
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
		i++
	}
	return i
}
