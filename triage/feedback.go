package triage

import (
	"fmt"

	"mailsift/model"
	"mailsift/triage/bayes"
)

// NewAnalyzerWithFeedback returns an analyzer whose spam model is the
// shipped one plus the user's marks loaded from fb (e.g.
// bayes.FileFeedback(filepath.Join(dataDir, "spam-feedback.json"))).
func NewAnalyzerWithFeedback(fb bayes.FeedbackStore) (*Analyzer, error) {
	m, err := bayes.Default()
	if err != nil {
		return nil, err
	}
	u, err := fb.LoadFeedback()
	if err != nil {
		return nil, err
	}
	return NewAnalyzer(bayes.NewClassifier(m, u)), nil
}

// MarkSpam learns the user's verdict on a thread (spam or not spam) from
// its latest message not written by principal, and saves the user's
// marks to fb (nil: keep them in memory only). Re-triage afterwards to
// apply it.
func (a *Analyzer) MarkSpam(msgs []*model.Message, principal model.Address, spam bool, fb bayes.FeedbackStore) error {
	if a.spam == nil {
		return bayes.ErrNoModel
	}
	var m *model.Message
	for _, x := range msgs {
		if !sameAddr(x.From.Email, principal.Email) {
			m = x
		}
	}
	if m == nil {
		return fmt.Errorf("triage: mark spam: no message from anyone but you in this thread")
	}
	a.spam.Learn(bayes.Tokenize(m.Subject, m.Body(), domainOf(m.From.Email)), spam)
	if fb == nil {
		return nil
	}
	if err := fb.SaveFeedback(a.spam.Feedback()); err != nil {
		return fmt.Errorf("triage: mark spam: %w", err)
	}
	return nil
}
