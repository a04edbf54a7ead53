package triage

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/triage/bayes"
)

// offer is a one-message thread of a shop's sales mail from sender, the
// kind of wording the shipped spam model (trained on 2002 mail) scores
// as spam.
func offer(id, sender string) []*model.Message {
	return []*model.Message{{MessageID: id, From: model.Address{Email: sender}, To: []model.Address{demoPrincipal},
		Subject: "Weekend sale: laptops 40% off",
		Text: "Save 40% on every laptop this weekend, with free shipping on orders over $50.\n" +
			"The offer ends Sunday at midnight. You receive this because you signed up at our store.",
		HasBody: true}}
}

// pitch is a one-message thread of a token-airdrop pitch from sender,
// which the shipped spam model (trained on 2002 mail) lets through.
func pitch(id, sender string) []*model.Message {
	return []*model.Message{{MessageID: id, From: model.Address{Email: sender}, To: []model.Address{demoPrincipal},
		Subject: "Token airdrop for early wallet holders",
		Text: "Your wallet qualifies for the governance token airdrop. Connect the wallet on the portal " +
			"to claim the tokens before the snapshot. Gas fees are covered for early holders.",
		HasBody: true}}
}

// markUntilFlipped marks threads made by like (each its own sender and
// domain) spam or not spam with l, one more at a time, until an's verdict
// on next is what the marks say or 30 marks are made; it returns the
// marks and the last outcome.
func markUntilFlipped(an *Analyzer, l *Learner, next []*model.Message, like func(id string) []*model.Message, spam bool) ([]Correction, *Outcome) {
	var marks []Correction
	var o *Outcome
	for i := range 30 {
		id := strconv.Itoa(i)
		marks = append(marks, mark(id, like(id), spam))
		l.Set(marks)
		if o = an.Deterministic(next, demoPrincipal); o.Result.IsSpam == spam {
			break
		}
	}
	return marks, o
}

// logOdds is c's spam log-odds of toks (the probability saturates at 1
// long before the evidence stops growing).
func logOdds(c *bayes.Classifier, toks []string) float64 {
	prior, tab := c.Table()
	for _, t := range toks {
		prior += tab.WeightOf(t)
	}
	return prior
}

// mark is a spam (or not-spam) mark of thread msgs with the words the
// learned score learns.
func mark(id string, msgs []*model.Message, spam bool) Correction {
	c := CorrectionFor(msgs, demoPrincipal)
	c.ID, c.At, c.Spam = id, time.Unix(1, 0), &spam
	c.Tokens = MarkTokens(msgs, demoPrincipal)
	return c
}

// TestMarksTeachTheSpamScore checks that the words of not-spam marks
// teach the learned score: after other shops' offers are marked not spam
// (each its own sender and domain: no sender, domain or list has enough
// marks to decide), a new shop's offer reading like them is no longer
// quarantined, without a learned sender reason; taking the marks back
// unlearns them, and marks kept in the corrections file teach a new
// learner the same (a restart, or a rebuilt store).
func TestMarksTeachTheSpamScore(t *testing.T) {
	an := NewAnalyzer(nil)
	l := NewLearner(nil)
	an.SetLearner(l)
	next := offer("o3", "deals@shop-three.example")
	base := an.Deterministic(next, demoPrincipal)
	if !base.Result.IsSpam {
		t.Fatalf("baseline not spam (reasons %q); the test needs an offer the shipped score quarantines", base.SpamReasons)
	}
	// One mark weighs as much as one message of the shipped model's
	// training mail, so a few are needed against a confident score: mark
	// offers of new shops (each its own sender and domain) until the
	// new shop's offer is released.
	marks, o := markUntilFlipped(an, l, next, func(id string) []*model.Message {
		return offer("o"+id, "news@shop-"+id+".example")
	}, false)
	if len(marks[0].Tokens) < 20 {
		t.Fatalf("a mark carries %d words", len(marks[0].Tokens))
	}
	t.Logf("released after %d not-spam marks of other shops' offers", len(marks))
	if o.Result.IsSpam || len(marks) > 20 {
		t.Errorf("after %d not-spam marks of offers like it, spam %v: %q", len(marks), o.Result.IsSpam, o.SpamReasons)
	}
	for _, why := range o.Learned {
		if strings.HasPrefix(why, "you marked") || strings.HasPrefix(why, "you moved") {
			t.Errorf("a sender, domain or list key decided (%q); the test is about the words", why)
		}
	}
	toks := bayes.Tokenize(next[0].Subject, next[0].Text, "shop-three.example")
	lp := logOdds(l.Classifier(), toks)
	l.Set(nil)
	bp := logOdds(l.Classifier(), toks)
	t.Logf("log-odds of the offer: %.2f shipped, %.2f after the marks", bp, lp)
	if !(lp < bp) {
		t.Errorf("learned log-odds %.4f, unlearned %.4f: the marks did not lower them", lp, bp)
	}
	if o := an.Deterministic(next, demoPrincipal); !o.Result.IsSpam {
		t.Errorf("marks taken back, the offer is still released: %q", o.SpamReasons)
	}
	// Unlearning restores the shipped weights exactly.
	fresh := NewLearner(nil)
	if p, q := logOdds(fresh.Classifier(), toks), bp; p != q {
		t.Errorf("after unlearning %.6f, shipped model %.6f", q, p)
	}

	// The marks kept in the corrections file teach a new learner.
	log := OpenCorrections(filepath.Join(t.TempDir(), CorrectionsFile))
	for _, c := range marks {
		c.ID = ""
		if _, err := log.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := log.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(marks) || len(cs[0].Tokens) != len(marks[0].Tokens) {
		t.Fatalf("loaded %d corrections, the first with %d words (want %d, %d)", len(cs), len(cs[0].Tokens), len(marks), len(marks[0].Tokens))
	}
	an2 := NewAnalyzer(nil)
	an2.SetLearner(NewLearner(cs))
	if o := an2.Deterministic(next, demoPrincipal); o.Result.IsSpam {
		t.Errorf("a learner loaded from the file still quarantines the offer: %q", o.SpamReasons)
	}
	// Undoing one mark in the file takes its words back: the score is
	// between all marks' and none's.
	if err := log.Undo(cs[0].ID); err != nil {
		t.Fatal(err)
	}
	cs, _ = log.Load()
	l.Set(cs)
	if p := logOdds(l.Classifier(), toks); !(p > lp && p < bp) {
		t.Errorf("one mark undone: log-odds %.4f, want between all marks' %.4f and none's %.4f", p, lp, bp)
	}
}

// TestSpamMarksTeachTheSpamScore checks the other direction: spam marks
// of mail the shipped score lets through raise the score of mail reading
// like it from other senders.
func TestSpamMarksTeachTheSpamScore(t *testing.T) {
	l := NewLearner(nil)
	toks := bayes.Tokenize("Token airdrop for early wallet holders", pitch("p", "x@y.example")[0].Text, "drops-three.example")
	before := logOdds(l.Classifier(), toks)
	l.Set([]Correction{
		mark("1", pitch("p1", "a@drops-one.example"), true),
		mark("2", pitch("p2", "b@drops-two.example"), true),
	})
	after := logOdds(l.Classifier(), toks)
	if !(after > before) {
		t.Errorf("spam marks: probability %.4f → %.4f, want higher", before, after)
	}
}

// TestMarksMovedIsAReason checks that when the words of the user's marks
// move the learned score across the threshold, the outcome says so
// (Learned, and a spam reason for spam), and says nothing without marks.
func TestMarksMovedIsAReason(t *testing.T) {
	an := NewAnalyzer(nil)
	l := NewLearner(nil)
	an.SetLearner(l)
	next := offer("o3", "deals@shop-three.example")
	if o := an.Deterministic(next, demoPrincipal); len(o.Learned) != 0 || !o.Result.IsSpam {
		t.Fatalf("without marks: spam %t, learned %q", o.Result.IsSpam, o.Learned)
	}
	marks, o := markUntilFlipped(an, l, next, func(id string) []*model.Message {
		return offer("o"+id, "news@shop-"+id+".example")
	}, false)
	if o.Result.IsSpam || len(o.Learned) != 1 || !strings.HasPrefix(o.Learned[0], "your not-spam marks of similar mail lowered the spam score (") {
		t.Errorf("released by the marks: spam %t, learned %q", o.Result.IsSpam, o.Learned)
	}
	// The other way: spam marks of a pitch the shipped score lets through.
	l.Set(nil)
	target := pitch("p", "drop@drops-x.example")
	if o := an.Deterministic(target, demoPrincipal); o.Result.IsSpam {
		t.Skipf("the shipped score already calls the pitch spam (%q)", o.SpamReasons)
	}
	marks, o = markUntilFlipped(an, l, target, func(id string) []*model.Message {
		return pitch("p"+id, "a@drops-"+id+".example")
	}, true)
	if !o.Result.IsSpam || len(o.Learned) != 1 || !strings.HasPrefix(o.Learned[0], "your spam marks of similar mail raised the spam score (") ||
		!slices.Contains(o.SpamReasons, o.Learned[0]) {
		t.Errorf("quarantined by the marks after %d: spam %t, learned %q, reasons %q", len(marks), o.Result.IsSpam, o.Learned, o.SpamReasons)
	}
}
