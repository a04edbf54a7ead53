package triage

import (
	"testing"

	"mailsift/model"
	"mailsift/triage/bayes"
)

// The one-pass spam score must equal the classifier's score of the
// tokens it was trained on.
func TestStreamingSpamScoreMatchesTokens(t *testing.T) {
	a := NewAnalyzer(nil)
	for key, th := range demoThreads(t) {
		an := a.analyze(th, model.Address{Email: "nobody@nowhere.example"}, nil)
		if an.latest < 0 || an.injection {
			continue
		}
		m := th[an.latest]
		want := a.spam.SpamProbability(bayes.Tokenize(m.Subject, m.Body(), domainOf(m.From.Email)))
		if d := an.spamProb - want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: streaming spam probability %.6f, tokens give %.6f", key, an.spamProb, want)
		}
	}
}
