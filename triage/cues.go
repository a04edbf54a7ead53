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
		}
	}
	return cs
}

// find appends to dst every occurrence in low of every word, overlapping
// ones included, in the order of their start.
func (cs *cueSet) find(low string, dst []cueHit) []cueHit {
	for i := 0; i < len(low); i++ {
		for _, w := range cs.byFirst[low[i]] {
			if strings.HasPrefix(low[i:], w.word) {
				dst = append(dst, cueHit{i, i + len(w.word), w.set})
			}
		}
	}
	return dst
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
