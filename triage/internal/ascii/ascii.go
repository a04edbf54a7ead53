// Package ascii holds the byte-level ASCII helpers that triage's scanners
// and the bayes tokenizer share: lower-casing that keeps byte offsets, and
// letter tests, without decoding runes.
package ascii

// Lower returns c lower-cased if it is an ASCII capital, else c.
func Lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// IsLetter reports whether c is an ASCII letter.
func IsLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// AppendLower appends s to b with ASCII capitals lower-cased.
func AppendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, Lower(s[i]))
	}
	return b
}

// LowerString returns s with ASCII capitals lower-cased and every other
// byte kept, so byte offsets into s hold in the result.
func LowerString(s string) string {
	return string(AppendLower(make([]byte, 0, len(s)), s))
}
