package triage

import (
	"sort"
	"strings"
)

// cueSet finds every occurrence of the words of several lists (each a
// bit of a set mask) in one pass over a lower-cased text. sentenceSignals
// asks, sentence by sentence, whether a sentence holds one of a list's
// words (containsAnyOf on the sentence): with the occurrences of the
// whole text at hand, it holds one exactly when an occurrence lies within
// the sentence, and the words are not searched for again, list by list,
// in every sentence.
type cueSet struct {
	pairs   pairFilter
	byFirst [256][]cueWord
}

// cueWord is one word of a list and the list's bit.
type cueWord struct {
	word string
	set  uint8
}

// cueHit is one occurrence: low[start:end] is a word of the lists set.
type cueHit struct {
	start, end int
	set        uint8
}

// newCueSet indexes lists; list k is bit 1<<k.
func newCueSet(lists ...[]string) *cueSet {
	cs := &cueSet{}
	for k, l := range lists {
		for _, w := range l {
			cs.byFirst[w[0]] = append(cs.byFirst[w[0]], cueWord{w, 1 << k})
			cs.pairs.add(w)
		}
	}
	return cs
}

// find appends to dst every occurrence in low of every word, overlapping
// ones included, in the order of their start.
func (cs *cueSet) find(low string, dst []cueHit) []cueHit {
	for i := 0; i+1 < len(low); i++ {
		if !cs.pairs.has(low[i], low[i+1]) {
			continue
		}
		for _, w := range cs.byFirst[low[i]] {
			if strings.HasPrefix(low[i:], w.word) {
				dst = append(dst, cueHit{i, i + len(w.word), w.set})
			}
		}
	}
	return dst
}

// first returns the first word of the lists found in low, by position:
// containsAnyOf over all the lists, in one pass.
func (cs *cueSet) first(low string) (string, bool) {
	for i := 0; i+1 < len(low); i++ {
		if !cs.pairs.has(low[i], low[i+1]) {
			continue
		}
		for _, w := range cs.byFirst[low[i]] {
			if strings.HasPrefix(low[i:], w.word) {
				return w.word, true
			}
		}
	}
	return "", false
}

// cueWithin reports whether low[a:b] holds a word of the lists set, hits
// being cueSet.find's answer for low: containsAnyOf(low[a:b], list).
func cueWithin(hits []cueHit, set uint8, a, b int) bool {
	i := sort.Search(len(hits), func(k int) bool { return hits[k].start >= a })
	for ; i < len(hits) && hits[i].start < b; i++ {
		if hits[i].set&set != 0 && hits[i].end <= b {
			return true
		}
	}
	return false
}

// The lists of sentenceSignals' cues, as bits of sentenceCues.
const (
	cueClosing uint8 = 1 << iota // closingVerbs
	cueHour                      // hourMarkers
	cueNeed                      // needWords
	cueSince                     // sinceMarkers
)

var sentenceCues = newCueSet(closingVerbs, hourMarkers, needWords, sinceMarkers)

// subjectAskCues is subjectAsks indexed (see subjectSignals).
var subjectAskCues = newCueSet(subjectAsks)

// notAskedCues is notAsked indexed (see isRequest).
var notAskedCues = newCueSet(notAsked)

// pairFilter is the set of the first two bytes of a set of words (each at
// least two bytes long), a bit per pair: a scan for the words tries them
// only where the text's next two bytes begin one, which most positions
// do not.
type pairFilter [1 << 16 / 64]uint64

// add records the first two bytes of w (len(w) >= 2).
func (f *pairFilter) add(w string) {
	if len(w) < 2 {
		panic("pairFilter: word shorter than two bytes: " + w)
	}
	k := uint(w[0]) | uint(w[1])<<8
	f[k/64] |= 1 << (k % 64)
}

// has reports whether some word begins with the bytes a, b.
func (f *pairFilter) has(a, b byte) bool {
	k := uint(a) | uint(b)<<8
	return f[k/64]&(1<<(k%64)) != 0
}
