package store

import (
	"strings"
	"unicode"
)

// replyPrefixes are the reply and forward markers stripped from subjects,
// lower-case, without the colon (English, German, Nordic, Dutch, French,
// Spanish, Italian, Polish and a few more).
var replyPrefixes = map[string]bool{
	"re": true, "fw": true, "fwd": true, "aw": true, "wg": true, "sv": true, "vs": true,
	"antw": true, "doorst": true, "tr": true, "rif": true, "r": true, "enc": true, "odp": true,
	"res": true, "ref": true, "rv": true,
}

// NormalizeSubject reduces a subject to its thread key: reply and forward
// prefixes (Re:, Fwd:, AW:, SV:, Re[2]:, ...) and mailing-list tags
// ("[list]") are stripped repeatedly, whitespace is collapsed and the
// result is lower-cased.
func NormalizeSubject(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "[") {
			if i := strings.IndexByte(t, ']'); i > 0 {
				t = strings.TrimSpace(t[i+1:])
				s = t
				continue
			}
		}
		if i := strings.IndexByte(t, ':'); i > 0 && i <= 10 {
			p := strings.ToLower(t[:i])
			// Re[2]: and Re^2:
			if j := strings.IndexAny(p, "[(^"); j > 0 {
				rest := strings.Trim(p[j:], "[]()^ ")
				if strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
					p = p[:j]
				}
			}
			p = strings.TrimSpace(p)
			if replyPrefixes[p] {
				s = strings.TrimSpace(t[i+1:])
				continue
			}
		}
		s = t
		break
	}
	return strings.ToLower(s)
}
