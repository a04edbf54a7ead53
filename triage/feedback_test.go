package triage

import (
	"path/filepath"
	"testing"

	"mailsift/model"
	"mailsift/triage/bayes"
)

func TestMarkSpamLearnsAndPersists(t *testing.T) {
	fb := bayes.FileFeedback(filepath.Join(t.TempDir(), "spam-feedback.json"))
	a, err := NewAnalyzerWithFeedback(fb)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []*model.Message{{
		From: model.Address{Email: "receipts@metro.example"}, To: []model.Address{{Email: "alice@example.com"}},
		Subject: "Your receipt for order 1234", Text: "Thank you for your purchase! Order total $49.99. Click here to view your receipt and manage your subscription. Unsubscribe.",
	}}
	before := a.analyze(msgs, principal).spamProb
	for range 5 {
		if err := a.MarkSpam(msgs, principal, false, fb); err != nil {
			t.Fatal(err)
		}
	}
	after := a.analyze(msgs, principal).spamProb
	if !(after < before) {
		t.Fatalf("spam probability %.4f -> %.4f after 5 not-spam marks; want lower", before, after)
	}
	// A fresh analyzer loads the user's marks.
	b, err := NewAnalyzerWithFeedback(fb)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.analyze(msgs, principal).spamProb; got != after {
		t.Errorf("reloaded probability %.4f, want %.4f", got, after)
	}
}

// The one-pass spam score must equal the classifier's score of the
// tokens it was trained on.
func TestStreamingSpamScoreMatchesTokens(t *testing.T) {
	a := NewAnalyzer(nil)
	for key, th := range demoThreads(t) {
		an := a.analyze(th, model.Address{Email: "nobody@nowhere.example"})
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
