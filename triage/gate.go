package triage

import (
	"regexp"
	"strings"
)

// gatedRe is a case-insensitive regular expression with the words (marks)
// one of which every match contains, lower-cased: a text holding none of
// them cannot match, and the expression is not run on it. Go's regexp
// runs an unanchored alternation through its NFA, which costs far more
// than looking for a few words; most sentences hold none of the marks.
// A mark that begins with an ASCII letter counts only at the start of a
// word (after a byte that is not a letter, digit or underscore), as the
// expressions' \b demands; other marks (Japanese) count anywhere.
type gatedRe struct {
	re      *regexp.Regexp
	byFirst [256][]string // marks by their first byte
	// at is re anchored at the start of its input, inner the marks of the
	// alternatives that hold their mark after their start and innerRe
	// those alternatives: see matchPlain.
	at      *regexp.Regexp
	inner   map[string]bool
	innerRe *regexp.Regexp
	// innerAt is innerRe anchored, innerFirst the lower-case ASCII
	// letters its matches begin with.
	innerAt    *regexp.Regexp
	innerFirst [256]bool
}

// gated returns re gated by marks (lower-case).
func gated(re *regexp.Regexp, marks ...string) *gatedRe {
	g := &gatedRe{re: re, inner: map[string]bool{}}
	g.at = regexp.MustCompile(`(?i)^(?:` + strings.TrimPrefix(re.String(), `(?i)`) + `)`)
	for _, m := range marks {
		g.byFirst[m[0]] = append(g.byFirst[m[0]], m)
	}
	return g
}

// MatchString reports whether g.re matches s; low is strings.ToLower(s).
func (g *gatedRe) MatchString(s, low string) bool {
	return g.marked(low) && g.re.MatchString(s)
}

// withInner records which of g's marks belong to alternatives that do
// not begin with them, as "(?:i|we) need" does not begin with "need", and
// the expression of those alternatives (re.String() must be "(?i)"
// followed by them, or-ed with the others), whose every match begins with
// one of the lower-case ASCII letters first.
func (g *gatedRe) withInner(re *regexp.Regexp, first string, marks ...string) *gatedRe {
	g.innerRe = re
	g.innerAt = regexp.MustCompile(`(?i)^(?:` + strings.TrimPrefix(re.String(), `(?i)`) + `)`)
	for _, c := range []byte(first) {
		g.innerFirst[c] = true
	}
	for _, m := range marks {
		g.inner[m] = true
	}
	return g
}

// matchPlain is g.MatchString(s, low) for a sentence s of printable ASCII
// (bytes 0x20 to 0x7e), low being its lower-cased form. In such a text
// every match of g.re begins at one of g's marks where it counts, except
// matches of the alternatives that hold their mark further in (inner): the
// case-insensitive expression matches ASCII letters as their lower-case
// forms, its \b at the start of a match is the mark's word-start rule,
// and its \s is a space, as in the marks ("by "). So the expression is
// tried anchored at each mark (at), which decides in a few bytes, instead
// of being run over the whole sentence from every position; the inner
// alternatives are tried only when one of their marks occurs, anchored at
// the words they begin with (innerMatchPlain).
func (g *gatedRe) matchPlain(s, low string) bool {
	innerTried := false
	for i := 0; i < len(low); i++ {
		ms := g.byFirst[low[i]]
		if len(ms) == 0 || i > 0 && isASCIIWord(low[i-1]) {
			continue
		}
		tried := false
		for _, m := range ms {
			if !strings.HasPrefix(low[i:], m) {
				continue
			}
			if g.inner[m] {
				if innerTried {
					continue
				}
				if g.innerMatchPlain(s, low) {
					return true
				}
				innerTried = true
				continue
			}
			if !tried {
				if g.at.MatchString(s[i:]) {
					return true
				}
				tried = true
			}
		}
	}
	return false
}

// innerMatchPlain is g.innerRe.MatchString(s) for a sentence of
// printable ASCII: a match begins at the start of a word with one of the
// letters innerFirst ("(?:i|we) need", "il me faut"), where innerAt is
// tried, instead of the NFA running from every position.
func (g *gatedRe) innerMatchPlain(s, low string) bool {
	for i := 0; i < len(low); i++ {
		if g.innerFirst[low[i]] && (i == 0 || !isASCIIWord(low[i-1])) && g.innerAt.MatchString(s[i:]) {
			return true
		}
	}
	return false
}

// marked reports whether low holds one of the marks where it counts.
func (g *gatedRe) marked(low string) bool {
	for i := 0; i < len(low); i++ {
		c := low[i]
		ms := g.byFirst[c]
		if len(ms) == 0 || c < 0x80 && i > 0 && isASCIIWord(low[i-1]) {
			continue
		}
		for _, m := range ms {
			if strings.HasPrefix(low[i:], m) {
				return true
			}
		}
	}
	return false
}

// Marks of the summary's expressions (see summary.go): every alternative
// of each expression contains one of them.
var (
	askGate = gated(askRe,
		// English
		"need", "require", "expect", "would you", "can you", "could you", "would like you to",
		// German
		"bitte", "kannst", "könnt", "können", "würde", "wären", "brauche", "benötige",
		// French
		"merci de", "s'il ", "svp", "veuillez", "pourr", "pouv", "peux", "besoin", "faut",
		// Spanish
		"por favor", "pued", "podr", "agradecer", "necesit",
		// Japanese
		"ください", "下さい", "お願い", "おねがい", "いただけ", "頂け", "ほしい", "欲しい", "ませんか", "でしょうか",
	).withInner(askInnerRe, "iwjntl", "need", "require", "expect", "brauche", "benötige", "besoin", "faut", "agradecer")
	dueGate = gated(dueRe,
		// English
		"close", "end", "expire", "within ", "in the next", "due ", "deadline", "this week",
		// German
		"bis ", "heute", "morgen", "spätestens", "umgehend", "sofort", "frist",
		// French
		"avant ", "d'ici ", "aujourd'hui", "demain", "au plus tard", "immédiatement",
		// Spanish
		"antes de", "para el ", "hasta el ", "hoy", "mañana", "cuanto antes", "fecha límite",
		// Japanese
		"までに", "本日中", "今日中", "明日", "本日", "今日", "至急", "期限", "締め切り", "締切",
	)
	// deadlineRe wants white space after its words; sentences are scored
	// with their white space collapsed to single spaces (normSpace).
	deadlineGate = gated(deadlineRe, "by ", "before ", "until ", "till ", "due ", "no later than ", "deadline", "avant ")
	soonGate     = gated(soonRe, "eod", "asap", "end of", "today", "tonight", "this morning", "this afternoon",
		"within", "right away", "immediately", "tomorrow", "as soon as", "in ")
)

// isASCIIWord reports whether c is a word byte of regexp's \b: an ASCII
// letter, digit or underscore.
func isASCIIWord(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// The gates of scoreSentence, as bits of markSet.scan's answer.
const (
	gateAsk uint8 = 1 << iota
	gateDeadline
	gateSoon
	gateDue
	gateInside // requestInside (isRequest), by wordMarks' rule
)

// markSet finds the marks of several gates in one pass over a text.
type markSet struct {
	pairs   pairFilter
	byFirst [256][]gateMark
	all     uint8
}

// gateMark is one mark and the gate it belongs to.
type gateMark struct {
	mark string
	gate uint8
}

// sentenceMarks are the marks of askGate, deadlineGate, soonGate and
// dueGate, and the requestInside phrases of isRequest: in ASCII text
// wordMarks' rule (not after a word byte) is the gates' rule.
var sentenceMarks = newMarkSet(map[uint8]*gatedRe{gateAsk: askGate, gateDeadline: deadlineGate, gateSoon: soonGate, gateDue: dueGate},
	gateInside, requestInside)

// newMarkSet indexes the marks of gates, and words as gate bit words.
func newMarkSet(gates map[uint8]*gatedRe, words uint8, list []string) *markSet {
	ms := &markSet{all: words}
	for _, w := range list {
		ms.byFirst[w[0]] = append(ms.byFirst[w[0]], gateMark{w, words})
		ms.pairs.add(w)
	}
	for bit, g := range gates {
		ms.all |= bit
		for c := range g.byFirst {
			for _, m := range g.byFirst[c] {
				ms.byFirst[c] = append(ms.byFirst[c], gateMark{m, bit})
				ms.pairs.add(m)
			}
		}
	}
	return ms
}

// scan returns the gates that have a mark in low where it counts, by the
// rule of gatedRe.marked: for each gate g, scan(low)&bit != 0 exactly
// when g.marked(low).
func (ms *markSet) scan(low string) uint8 {
	var found uint8
	for i := 0; i+1 < len(low); i++ { // marks are at least two bytes long
		c := low[i]
		if !ms.pairs.has(c, low[i+1]) || c < 0x80 && i > 0 && isASCIIWord(low[i-1]) {
			continue
		}
		for _, m := range ms.byFirst[c] {
			if found&m.gate == 0 && strings.HasPrefix(low[i:], m.mark) {
				found |= m.gate
				if found == ms.all {
					return found
				}
			}
		}
	}
	return found
}
