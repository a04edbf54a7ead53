package triage

// The hand-tuned ASCII scanner of sentenceSignals: trigger words found in
// one pass so that the regular expressions run only where they may match.

import (
	"sort"
	"strings"
	"unicode/utf8"

	"mailsift/triage/internal/ascii"
)

// Trigger words: the regular expressions run only on sentences holding
// one (a cheap prefilter; false positives only cost a regexp run).
const (
	trigGreet uint8 = 1 << iota
	trigRequest
	trigDeadline
	trigSoon
	trigForeign
)

// triggerWords are the trigger words of each kind, lower-case.
var triggerWords = [...]struct {
	mask  uint8
	words []string
}{
	{trigGreet, []string{"hi", "hello", "hey", "dear", "good", "bonjour", "hallo", "guten"}},
	{trigRequest, []string{"please", "kindly", "pls", "can", "could", "would", "will", "let", "need", "like", "sure", "require", "requires", "await", "awaiting", "waiting", "wondering", "wanted", "know", "requested", "added", "hear", "up", "call", "it's", "ask", "approve", "needs", "each", "tell", "until"}},
	{trigDeadline, []string{"by", "before", "until", "till", "due", "later", "deadline", "avant"}},
	{trigSoon, []string{"eod", "asap", "end", "today", "tonight", "morning", "afternoon", "within", "away", "immediately", "tomorrow", "soon", "hour", "hours"}},
	// ASCII words of the German, French and Spanish cues (signals_lang.go):
	// text holding none of them, and no non-ASCII byte, is not searched
	// for those cues.
	{trigForeign, []string{"bitte", "bitten", "sie", "kannst", "merci", "pouvez", "pourriez", "peux", "veuillez", "prie",
		"por", "favor", "necesito", "heute", "morgen", "sofort", "umgehend", "dringend", "eilt",
		"soir", "demain", "hoy", "noche", "tarde", "cuanto", "urgente", "urgencia", "inmediatamente", "urgent",
		"bis", "frist", "avant", "ici", "tard", "antes", "plazo", "tardar", "fragen", "wissen", "savoir", "demandais",
		"demandions", "saber", "brauche", "brauchen", "besoin", "faut", "necesitamos",
		"pouviez", "pouvais", "aimerais", "toi", "vous", "liegt", "toca", "corresponde", "souhaiterais", "souhaiterions", "pudiera", "pudieras", "pudieran", "rogamos", "prions"}},
}

// triggers maps each trigger word to its mask; trigLens has, per first
// letter, a bit per length of the trigger words starting with it, so that
// most words skip the map (both read-only after init).
var triggers, trigLens = func() (map[string]uint8, [26]uint16) {
	m := map[string]uint8{}
	var lens [26]uint16
	for _, l := range triggerWords {
		for _, w := range l.words {
			m[w] |= l.mask
			lens[w[0]-'a'] |= 1 << len(w)
		}
	}
	return m, lens
}()

// trigger returns the trigger mask of a lower-cased word of ASCII letters
// (indexing the map with string(w) does not allocate).
func trigger(w []byte) uint8 {
	if len(w) >= 16 || trigLens[w[0]-'a']&(1<<len(w)) == 0 {
		return 0
	}
	return triggers[string(w)]
}

// deadlineLive reports whether deadlineRe may match at the deadline
// trigger word at off of s: a superset of where it matches, used to skip
// windows holding no such word. After "by", "before", "until", "till"
// and "due" the pattern needs white space, then a digit or a word that
// starts with one of deadlineStarts or a month's name; "later" ("no later
// than"), "deadline" and "avant" always may. A non-ASCII byte where a
// letter may follow may be a case variant ((?i) folds 'ſ' to 's' and the
// Kelvin sign to 'k'), so it may too.
func deadlineLive(s string, off int) bool {
	var buf [16]byte
	end := off
	for end < len(s) && ascii.IsLetter(s[end]) {
		end++
	}
	switch string(ascii.AppendLower(buf[:0], s[off:end])) {
	case "by", "before", "until", "till", "due":
	default:
		return true
	}
	i := end
	for i < len(s) && isRegexpSpace(s[i]) {
		i++
	}
	if i == end || i == len(s) {
		return false
	}
	if c := s[i]; c >= '0' && c <= '9' || c >= utf8.RuneSelf {
		return true
	} else if !ascii.IsLetter(c) {
		return false
	}
	j := i
	for j < len(s) && ascii.IsLetter(s[j]) {
		j++
	}
	if j < len(s) && s[j] >= utf8.RuneSelf {
		return true
	}
	w := ascii.AppendLower(buf[:0], s[i:min(j, i+len(buf))]) // the longest start has 9 bytes
	for _, p := range deadlineStarts {
		if len(w) >= len(p) && string(w[:len(p)]) == p {
			return true
		}
	}
	return false
}

// deadlineStarts are the words (and month name prefixes) deadlineRe
// accepts first after its trigger word: "on" and "by" for "due on/by".
var deadlineStarts = []string{"next", "this", "the", "end", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday", "sunday", "tomorrow", "today", "tonight", "noon", "midnight", "eod", "eow", "cob", "day", "week",
	"month", "quarter", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "jan", "feb", "mar", "apr", "may", "jun",
	"jul", "aug", "sep", "oct", "nov", "dec", "on", "by"}

// isASCII reports whether s has no byte of 0x80 or above.
func isASCII(s string) bool {
	// Eight bytes at a time: one test of their OR instead of eight.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		if (b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7])&0x80 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isRegexpSpace is RE2's \s: [\t\n\f\r ].
func isRegexpSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// scanTriggers calls hit with the byte offset of every trigger word of s
// (ASCII letters, case-insensitive).
func scanTriggers(s string, hit func(off int, mask uint8)) {
	for i := 0; i < len(s); {
		if !ascii.IsLetter(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && ascii.IsLetter(s[j]) {
			j++
		}
		// Most words are no trigger by first letter and length alone.
		if n := j - i; n >= 2 && n <= 11 && trigLens[(s[i]|0x20)-'a']&(1<<n) != 0 {
			var buf [11]byte
			if m := trigger(ascii.AppendLower(buf[:0], s[i:j])); m != 0 {
				hit(i, m)
			}
		}
		i = j
	}
}

// hitsIn returns the offsets of sorted h within [a, b).
func hitsIn(h []int, a, b int) []int {
	i := sort.SearchInts(h, a)
	j := i
	for j < len(h) && h[j] < b {
		j++
	}
	return h[i:j]
}

var requestPrefixes = []string{"please", "kindly", "pls", "can you", "could you", "would you", "will you", "would you mind",
	"can we", "could we", "let me know", "i need you to", "we need you to", "i'd like you to", "make sure",
	// the decision is the reader's: "Your call, I'm waiting on you."
	"your call", "it's your call", "it is your call",
	// an approval tool's ask: "Approve or deny this request"
	"approve or deny", "approve or decline", "approve or reject",
	// the reader's answer or call asked for plainly: "Just tell me which
	// by 16:45", "Call me on ext. 4410"
	"tell me", "just tell me", "call me", "just call me"}

var requestInside = []string{"please", "need your", "needs your", "require your", "requires your", "awaiting your",
	"waiting for your", "await your",
	// a need or a request stated of the reader: "we ask you to rotate
	// every token", "you'll need to re-enroll"
	"ask you to", "ask that you", "need you to", "need you on", "still need you", "you need to", "you'll need to",
	"need a yes", "need a decision", "need an answer", "need a go", "could you let me know", "can you let me know",
	"let me know whether", "let me know which",
	"you will need to",
	// an ask of everyone the reader is among: "before then we need from
	// each of you, in Lattice: …"
	"from each of you", "each of you must", "each of you needs to", "each of you should", "each manager must",
	"each manager needs to",
	// a wish only the reader can meet: "comments by Friday would be
	// ideal", "I'd like sign-off from you"
	"would be ideal", "would be perfect", "would be appreciated", "it would help me", "would help me a lot",
	"it would help us", "would really help me", "would really help us", "i'd like it to come", "i'd like your", "i would like your", "we'd like your",
	"sign-off from you", "if you can ", "only yours is missing", "still missing your", "we're still missing", "we are still missing",
	"still waiting on your",
	// indirect questions
	"i was wondering", "we were wondering", "would like to know", "i'd like to know", "we'd like to know", "wanted to know",
	// polite and conditional asks: "if you could approve it…", "I would
	// like someone from your team to call me"
	"if you could", "would like you to", "would like someone", "would like somebody", "would like one of you",
	"i'd like someone", "we'd like someone", "i'd like one of you", "we'd like one of you",
	// the decision is the reader's
	"up to you to", "it's your call", "it is your call", "waiting on you", "waiting on your",
	// an answer awaited: "if we do not hear from you by then" (not "great
	// to hear from you")
	"not hear from you", "n't hear from you", "unless we hear from you", "unless i hear from you", "hear from you by",
	"hear from you before",
	// review and issue trackers
	"requested your review", "requested a review from you", "requested review from you", "added you as a reviewer",
	// an answer or a call asked inside a sentence, or awaited before
	// work goes on ("we'll keep testing paused until you confirm a fix")
	"tell me which", "tell me whether", "call me on", "call me at", "call me as soon", "call me when",
	"what i need from you", "need from you", "needs from you", "things from you", "until you confirm", "until we hear from you", "until i hear from you"}

// isRequest says whether a lower-cased sentence asks something of the
// reader ("please do not reply" does not: see notAsked).
func isRequest(low string) bool {
	if !asks(low) {
		return false
	}
	_, not := notAskedCues.first(low)
	return !not
}

// asks is isRequest without the notAsked exception.
func asks(low string) bool {
	return asksUpFront(low) || requestInsideMarks.at(low)
}

// asksUpFront reports whether low opens with one of requestPrefixes
// (after "so", "and", "also" or "but").
func asksUpFront(low string) bool {
	t := low
	for _, c := range []string{"so", "and", "also", "but"} {
		// t opens with c+" " or c+", " (without building those strings)
		if strings.HasPrefix(t, c) && (len(t) > len(c) && t[len(c)] == ' ' || strings.HasPrefix(t[len(c):], ", ")) {
			t = strings.TrimLeft(t[len(c):], ", ")
			break
		}
	}
	for _, p := range requestPrefixes {
		if strings.HasPrefix(t, p) && (len(t) == len(p) || !isWordByte(t[len(p)])) {
			return true
		}
	}
	return false
}

// requestInsideMarks indexes requestInside by first byte.
var requestInsideMarks = newWordMarks(requestInside)

// wordMarks finds any of a set of lower-case phrases at the start of a
// word (after a byte isWordByte rejects) in one pass over a text, instead
// of one search per phrase.
type wordMarks struct {
	pairs   pairFilter
	byFirst [256][]string
}

func newWordMarks(marks []string) *wordMarks {
	w := &wordMarks{}
	for _, m := range marks {
		w.byFirst[m[0]] = append(w.byFirst[m[0]], m)
		w.pairs.add(m)
	}
	return w
}

// at reports whether one of the phrases starts a word of low.
func (w *wordMarks) at(low string) bool {
	for i := 0; i+1 < len(low); i++ { // phrases are at least two bytes long
		if w.startsAt(low, i) {
			return true
		}
	}
	return false
}

// startsAt reports whether one of the phrases starts a word of low at i.
func (w *wordMarks) startsAt(low string, i int) bool {
	if i+1 >= len(low) || !w.pairs.has(low[i], low[i+1]) || i > 0 && isWordByte(low[i-1]) {
		return false
	}
	for _, m := range w.byFirst[low[i]] {
		if strings.HasPrefix(low[i:], m) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
