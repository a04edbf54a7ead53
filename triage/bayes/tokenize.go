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

	"mailsift/triage/internal/ascii"
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
// prefixes), in order: the words of strings.ToLower(s), scanned rune by
// rune (see EachToken, which finds them without lower-casing s first).
func EachWord(s string, fn func(w string)) {
	EachToken(s, func(w Word) { fn(w.String()) })
}

// Word is one word of a text as EachToken finds it: a token of the
// classifier (Tokenize's words without prefixes) and where it was written.
type Word struct {
	// Raw is the word as written: a slice of the scanned text.
	Raw string
	// Hash is Hash of the token (w.String()).
	Hash uint64
	// head is the token's first 8 bytes, packed little-endian (Table
	// compares it before any key bytes).
	head uint64
	n    uint32 // the token's length in bytes
	kind uint8
}

// Word kinds: how the token derives from Raw.
const (
	wordRaw     = iota // the token is Raw
	wordASCII          // Raw is ASCII with capitals: the token lower-cases them
	wordUnicode        // the token is strings.ToLower(Raw)
	wordNum            // a number of more than 4 digits: the token is "#num"
)

// String returns the token (allocating only for words that lower-case
// to something else than Raw).
func (w Word) String() string {
	switch w.kind {
	case wordASCII:
		var b [24]byte
		for j := 0; j < len(w.Raw); j++ {
			b[j] = ascii.Lower(w.Raw[j])
		}
		return string(b[:len(w.Raw)])
	case wordUnicode:
		return strings.ToLower(w.Raw)
	case wordNum:
		return "#num"
	}
	return w.Raw
}

// Len returns the token's length in bytes.
func (w Word) Len() int { return int(w.n) }

// Is reports whether the token is tok (w.String() == tok) without
// allocating.
func (w Word) Is(tok string) bool {
	if len(tok) != int(w.n) {
		return false
	}
	switch w.kind {
	case wordRaw:
		return w.Raw == tok
	case wordASCII:
		for j := 0; j < len(tok); j++ {
			if ascii.Lower(w.Raw[j]) != tok[j] {
				return false
			}
		}
		return true
	case wordNum:
		return tok == "#num"
	}
	j := 0
	for _, r := range w.Raw {
		var b [utf8.UTFMax]byte
		n := utf8.EncodeRune(b[:], unicode.ToLower(r))
		if j+n > len(tok) || string(b[:n]) != tok[j:j+n] {
			return false
		}
		j += n
	}
	return j == len(tok)
}

// EachToken calls fn with each word of s, as EachWord sees them, in one
// scan of s: no lower-cased copy of s and no allocation per word. The
// words are those of strings.ToLower(s) scanned rune by rune: runs of
// letters, digits and '$' whose lower-cased form has 2 to 24 bytes.
func EachToken(s string, fn func(w Word)) {
	for i := 0; i < len(s); {
		c := lowerTab[s[i]]
		if c == 0 {
			i++
			continue
		}
		if c == high {
			if r, size := utf8.DecodeRuneInString(s[i:]); !isWordRune(unicode.ToLower(r)) {
				i += size
				continue
			}
		}
		// A word starts at i. The hash state of Hash is inlined: the
		// token's bytes are packed eight to x, and n counts them.
		start := i
		h, x, head, n := uint64(hashSeed), uint64(0), uint64(0), uint32(0)
		var diff byte // non-zero once an ASCII capital was lower-cased
		uni := false  // a rune lower-cases to other bytes: the token is strings.ToLower(Raw)
		for i < len(s) {
			b := s[i]
			lb := lowerTab[b]
			if lb == 0 {
				break
			}
			if lb != high {
				diff |= b ^ lb
				if n&7 == 0 && n != 0 {
					if n == 8 {
						head = x
					}
					h, x = (h^x)*hashPrime, 0
				}
				x |= uint64(lb) << (8 * (n & 7))
				n++
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			lr := unicode.ToLower(r)
			if !isWordRune(lr) {
				break
			}
			var enc [utf8.UTFMax]byte
			m := utf8.EncodeRune(enc[:], lr)
			if lr != r || m != size {
				uni = true
			}
			for _, b := range enc[:m] {
				if n&7 == 0 && n != 0 {
					if n == 8 {
						head = x
					}
					h, x = (h^x)*hashPrime, 0
				}
				x |= uint64(b) << (8 * (n & 7))
				n++
			}
			i += size
		}
		if n < 2 || n > 24 {
			continue
		}
		if n <= 8 {
			head = x
		}
		w := Word{Raw: s[start:i], Hash: hashSum(h, x, n), head: head, n: n}
		switch {
		case uni:
			w.kind = wordUnicode
		case diff != 0:
			w.kind = wordASCII
		}
		// (A word opening with an ASCII letter is no number: allDigits is
		// not called for most words.)
		if n > 4 && (w.Raw[0] <= '9' || w.Raw[0] >= utf8.RuneSelf) && allDigits(w.Raw) {
			w.Hash, w.head, w.n, w.kind = hashNum, headNum, 4, wordNum
		}
		fn(w)
	}
}

// allDigits reports whether every rune of a word lower-cases to a digit.
func allDigits(raw string) bool {
	for _, r := range raw {
		if r < utf8.RuneSelf {
			if r < '0' || r > '9' {
				return false
			}
		} else if !unicode.IsDigit(unicode.ToLower(r)) {
			return false
		}
	}
	return true
}

// isWordRune reports whether a lower-cased non-ASCII rune belongs to words.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// high marks non-ASCII bytes in lowerTab: they are decoded as runes.
const high = 0xFF

// lowerTab maps each byte to itself lower-cased if it belongs to words
// (a-z, A-Z, 0-9 and '$'), to high if it is not ASCII, else to 0
// (read-only after init).
var lowerTab = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	t['$'] = '$'
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = high
	}
	return t
}()

// eachLowerWord is EachWord over an already lower-cased s that may hold
// any UTF-8.
//
// It is the reference the one-pass scan of EachToken is tested against.
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
