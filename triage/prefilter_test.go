package triage

import (
	"strings"
	"testing"

	"mailsift/model"
	"mailsift/triage/internal/ascii"
)

// TestDeadlineLive checks the deadline prefilter against deadlineRe: at
// every place deadlineRe matches in a text, the trigger word the match
// starts with must be live (else the window would be skipped and the
// deadline lost). The texts combine every trigger word with separators
// and date words, including case variants that (?i) folds (ſ, the Kelvin
// sign), and near misses that must not be live.
func TestDeadlineLive(t *testing.T) {
	var texts []string
	kws := []string{"by", "BY", "before", "until", "till", "due", "due on", "due by", "no later than", "deadline", "deadline is", "deadline:", "avant", "standby"}
	seps := []string{" ", "  ", "\t", "\n", "\f", ": ", "", "\u00a0", " \r\n "}
	dates := []string{"friday", "Friday morning", "FRIDAY, 5pm", "ſunday", "\u212aday", "the end of the week", "end of day", "next tuesday",
		"this week", "tomorrow", "todayish", "noon", "eod", "EOW", "cob", "march 3rd", "Mar. 3", "3rd march", "3 mar", "2026-11-20", "11/20", "11/20/2026",
		"5:30 pm", "5pm", "5 pm", "12:00", "monday", "mardi", "ſept 4", "email", "then", "us", "5", "x5", "é", "the", "décembre", "dec 4"}
	for _, k := range kws {
		for _, sp := range seps {
			for _, d := range dates {
				texts = append(texts, "Please send it "+k+sp+d+". Thanks", k+sp+d, "x"+k+sp+d, "sent by "+k+sp+d+" please")
			}
		}
	}
	for _, th := range demoThreads(t) {
		for _, m := range th {
			texts = append(texts, m.Body())
		}
	}
	if !testing.Short() {
		for _, m := range loadCorpusIfPresent(t) {
			texts = append(texts, ownText(m.Body()))
		}
	}
	matches, live := 0, 0
	for _, s := range texts {
		hits := map[int]bool{}
		scanTriggers(s, func(off int, mask uint8) {
			if mask&trigDeadline != 0 {
				hits[off] = true
				if deadlineLive(s, off) {
					live++
				}
			}
		})
		for start := 0; start < len(s); start++ {
			loc := deadlineRe.FindStringIndex(s[start:])
			if loc == nil {
				break
			}
			k := start + loc[0]
			if strings.HasPrefix(strings.ToLower(s[k:]), "no") && !hits[k] {
				k += 3 // "no later than": the trigger word is "later"
			}
			matches++
			if !hits[k] {
				// A match inside a longer word only happens where the
				// text is cut (a window's start): not a trigger there.
				if k > 0 && ascii.IsLetter(s[k-1]) {
					start = k
					continue
				}
				t.Errorf("%q: deadlineRe matches at %d (%q), which is no trigger word", s, k, s[k:min(k+20, len(s))])
			} else if !deadlineLive(s, k) {
				t.Errorf("%q: deadlineRe matches at %d (%q) but deadlineLive is false", s, k, s[k:min(k+20, len(s))])
			}
			start = k
		}
	}
	if matches < 1000 || live == 0 {
		t.Fatalf("only %d matches, %d live hits: the test texts do not exercise the filter", matches, live)
	}
	// Near misses are not live: the filter skips something.
	for _, s := range []string{"by email", "until x", "due to", "before us", "by5", "till x"} {
		if deadlineLive(s, 0) {
			t.Errorf("deadlineLive(%q) = true, want false", s)
		}
	}
}

// loadCorpusIfPresent is loadCorpus that returns nothing when the corpus
// has not been fetched.
func loadCorpusIfPresent(t *testing.T) (out []*model.Message) {
	t.Helper()
	t.Run("corpus", func(t *testing.T) { out = loadCorpus(t, 1<<30, allGroups...) })
	return out
}
