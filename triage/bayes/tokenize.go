// Package bayes is mailsift's learned spam score: a multinomial naive
// Bayes classifier over words of the subject, body and sender domain,
// trained on the SpamAssassin public corpus (groups spam-1 and easy-ham-1
// only), shipped small as an embedded model, and adjusted by the user's
// own spam / not-spam marks.
package bayes

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBodyBytes is how much of a body is tokenized; spam decides early.
const MaxBodyBytes = 8 << 10

// Tokenize returns the classifier's tokens for one message: body words,
// subject words prefixed "s:", and the sender's domain prefixed "d:".
// Words are lower-cased letter/digit runs of 2 to 24 bytes; pure numbers
// longer than 4 digits collapse to "#num".
func Tokenize(subject, body, fromDomain string) []string {
	if len(body) > MaxBodyBytes {
		body = body[:MaxBodyBytes]
	}
	toks := make([]string, 0, len(body)/5+16)
	toks = AppendWords(toks, subject, "s:")
	toks = AppendWords(toks, body, "")
	if fromDomain != "" {
		toks = append(toks, "d:"+strings.ToLower(fromDomain))
	}
	return toks
}

// AppendWords appends the words of s, each with prefix, to toks: the
// same words Tokenize uses.
func AppendWords(toks []string, s, prefix string) []string {
	EachWord(s, func(w string) {
		if prefix != "" {
			w = prefix + w
		}
		toks = append(toks, w)
	})
	return toks
}

// EachWord calls fn with each word of s, as Tokenize sees them (without
// prefixes), in order. ASCII text is scanned once: words are slices of s,
// or lower-cased copies for words holding capitals. From the first
// non-ASCII byte on, the rest of s is lower-cased with strings.ToLower and
// scanned rune by rune (the words are the same as lower-casing all of s
// first: the ASCII prefix lower-cases byte for byte).
func EachWord(s string, fn func(w string)) {
	for i := 0; i < len(s); {
		c := byteClass[s[i]]
		if c == clNone {
			i++
			continue
		}
		if c == clHigh {
			eachLowerWord(strings.ToLower(s[i:]), fn)
			return
		}
		start := i
		digits, upper := c == clDigit, c == clUpper
		for i++; i < len(s); i++ {
			c = byteClass[s[i]]
			if c == clNone {
				break
			}
			if c == clHigh {
				eachLowerWord(strings.ToLower(s[start:]), fn)
				return
			}
			if c != clDigit {
				digits = false
			}
			if c == clUpper {
				upper = true
			}
		}
		emitASCII(s[start:i], digits, upper, fn)
	}
}

// Byte classes for EachWord's ASCII scan.
const (
	clNone  = iota // not part of a word
	clLower        // a-z and '$'
	clUpper        // A-Z
	clDigit        // 0-9
	clHigh         // non-ASCII: the rune-by-rune scan takes over
)

// byteClass maps each byte to its class (read-only after init).
var byteClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clLower
	}
	t['$'] = clLower
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = clDigit
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = clHigh
	}
	return t
}()

// emitASCII passes an ASCII word run to fn if it has 2 to 24 bytes,
// collapsing long numbers and lower-casing capitals.
func emitASCII(w string, digits, upper bool, fn func(w string)) {
	l := len(w)
	if l < 2 || l > 24 {
		return
	}
	switch {
	case digits && l > 4:
		w = "#num"
	case upper:
		var b [24]byte
		for j := 0; j < l; j++ {
			c := w[j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[j] = c
		}
		w = string(b[:l])
	}
	fn(w)
}

// eachLowerWord is EachWord over an already lower-cased s that may hold
// any UTF-8.
func eachLowerWord(s string, fn func(w string)) {
	start := -1
	digits := true
	for i := 0; i <= len(s); {
		word := false
		n := 1
		if i < len(s) {
			c := s[i]
			if c < utf8.RuneSelf {
				if ('a' <= c && c <= 'z') || c == '$' {
					word = true
					if start < 0 {
						start = i
					}
					digits = false
				} else if '0' <= c && c <= '9' {
					word = true
					if start < 0 {
						start, digits = i, true
					}
				}
			} else {
				r, size := utf8.DecodeRuneInString(s[i:])
				n = size
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					word = true
					if start < 0 {
						start, digits = i, true
					}
					if !unicode.IsDigit(r) {
						digits = false
					}
				}
			}
		}
		if !word && start >= 0 {
			if l := i - start; l >= 2 && l <= 24 {
				w := s[start:i]
				if digits && l > 4 {
					w = "#num"
				}
				fn(w)
			}
			start = -1
		}
		i += n
	}
}
