package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"mailsift/mailsrc/rfc822"
	"mailsift/model/contract"
)

// TestEvalSet checks the labeled set under testdata/eval, the one the
// rules were developed on.
func TestEvalSet(t *testing.T) {
	checkEvalSet(t, filepath.Join("..", "..", "testdata", "eval"), 150)
}

// TestEvalSetsIndependent checks the sets written independently of the
// rules and of each other (README, "Measuring triage"): the fresh set,
// the development sets and the held-out sets, each with its thread count.
func TestEvalSetsIndependent(t *testing.T) {
	for _, set := range []struct {
		dir     string
		threads int
	}{
		{"fresh", 60}, {"dev", 150}, {"heldout", 80}, {"dev2", 150}, {"heldout2", 100}, {"heldout3", 100},
		{"heldout4", 120}, {"heldout5", 150}, {"heldout6", 150}, {"heldout7", 150}, {"heldout8", 150}, {"heldout9", 150},
		{"heldout10", 150}, {"heldout11", 150}, {"heldout12", 150}, {"heldout13", 150}, {"heldout14", 150}, {"heldout15", 150},
		{"heldout16", 150}, {"heldout17", 150}, {"heldout18", 150}, {"heldout19", 150}, {"phish1", 120}, {"phish2", 120},
		{"phish3", 120}, {"phish4", 120}, {"heldout20", 150}, {"heldout21", 150}, {"phish5", 120}, {"phish6", 120},
		{"heldout22", 150}, {"heldout23", 150}, {"phish7", 120}, {"phish8", 120},
		{"heldout24", 150}, {"heldout25", 150}, {"phish9", 120}, {"phish10", 120},
		{"heldout26", 150}, {"heldout27", 150}, {"phish11", 120}, {"phish12", 120},
		{"phish15", 120}, {"phish16", 120}, {"heldout28", 150}, {"heldout29", 150}, {"phish13", 120}, {"phish14", 120},
		{"heldout30", 150}, {"heldout31", 150},
		{"heldout32", 150}, {"heldout33", 150}, {"phish17", 120}, {"phish18", 120},
		{"phish19", 120}, {"phish20", 120}, {"heldout34", 150}, {"heldout35", 150},
	} {
		t.Run(set.dir, func(t *testing.T) {
			checkEvalSet(t, filepath.Join("..", "..", "testdata", "eval", set.dir), set.threads)
		})
	}
}

// checkEvalSet checks a labeled set written by testdata/eval/gen: every
// message parses cleanly, replies point at messages of the set, every
// thread root carries a full label with a valid bucket, and the set
// holds at least minThreads threads in all five languages.
func checkEvalSet(t *testing.T, dir string, minThreads int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := ParseLabels(data)
	if err != nil {
		t.Fatalf("ParseLabels: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "maildir", "cur", "*"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	roots := map[string]string{} // root Message-ID -> subject and text
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := rfc822.Parse(raw)
		if err != nil {
			t.Fatalf("Parse(%s): %v", filepath.Base(f), err)
		}
		if len(m.Problems) > 0 {
			t.Errorf("Parse(%s).Problems = %q, want none", filepath.Base(f), m.Problems)
		}
		if ids[m.MessageID] {
			t.Errorf("%s: Message-ID %s repeated", filepath.Base(f), m.MessageID)
		}
		ids[m.MessageID] = true
		if len(m.InReplyTo) == 0 && len(m.References) == 0 {
			roots[m.MessageID] = m.Subject + "\n" + m.Body()
		}
	}
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		m, _ := rfc822.Parse(raw)
		for _, ref := range append(m.InReplyTo, m.References...) {
			if !ids[ref] {
				t.Errorf("%s refers to %s, not in the set", filepath.Base(f), ref)
			}
		}
	}
	if len(roots) < minThreads {
		t.Errorf("threads = %d, want at least %d", len(roots), minThreads)
	}
	labeled := map[string]bool{}
	for i, l := range labels.Threads {
		id := normalizeMessageID(l.RootMessageID)
		labeled[id] = true
		if _, ok := roots[id]; !ok {
			t.Errorf("threads[%d]: %s is not a thread root of the set", i, id)
		}
		if !slices.Contains(contract.Categories, l.Label.Bucket) || l.Label.IsSpam == nil || l.Label.IsPhishing == nil {
			t.Errorf("threads[%d]: label %+v, want a bucket, is_spam and is_phishing", i, l.Label)
		}
	}
	langs := map[string]int{}
	for id, text := range roots {
		if !labeled[id] {
			t.Errorf("thread %s has no label", id)
		}
		langs[language(text)]++
	}
	t.Logf("%s: %d threads, languages %v", dir, len(roots), langs)
	for _, lang := range []string{"en", "de", "fr", "es", "ja"} {
		if langs[lang] < 5 {
			t.Errorf("threads in %s = %d, want at least 5 (all: %v)", lang, langs[lang], langs)
		}
	}
}

// language guesses a text's language from its script and function words,
// enough to tell the set's five languages apart.
func language(text string) string {
	for _, r := range text {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return "ja"
		}
	}
	words := map[string][]string{
		"de": {"und", "der", "die", "nicht", "wir", "ist", "sie", "ihre", "mit"},
		"fr": {"vous", "nous", "est", "les", "pour", "des", "une", "votre", "avec"},
		"es": {"para", "los", "las", "del", "una", "su", "por", "con", "está"},
		"en": {"the", "and", "you", "your", "for", "is", "to", "with", "we"},
	}
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		seen[w] = true
	}
	best, bestN := "", 0
	for _, lang := range []string{"en", "de", "fr", "es"} {
		n := 0
		for _, w := range words[lang] {
			if seen[w] {
				n++
			}
		}
		if n > bestN {
			best, bestN = lang, n
		}
	}
	return best
}
