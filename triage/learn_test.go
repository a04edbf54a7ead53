package triage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// listMail is one thread of list mail from sender: a plain informational
// announcement as the signals see it.
func listMail(id, sender, list string) []*model.Message {
	return []*model.Message{{MessageID: id, From: model.Address{Email: sender}, To: []model.Address{demoPrincipal},
		Subject: "Release notes " + id, Text: "Version 2 is out with faster builds.", HasBody: true,
		Headers: map[string][]string{"List-Id": {"Builds <" + list + ">"}}}}
}

// TestLearnerMovesAfterTwoCorrections checks that one correction for a
// list changes nothing, two move the list's future mail with the reason
// shown.
func TestLearnerMovesAfterTwoCorrections(t *testing.T) {
	an := NewAnalyzer(nil)
	l := NewLearner(nil)
	an.SetLearner(l)
	next := listMail("n3", "builds@ci.example", "builds.ci.example")
	base := an.Deterministic(next, demoPrincipal)
	if base.Result.Category != contract.CategoryLowPriority || len(base.Learned) != 0 {
		t.Fatalf("baseline is %s (learned %v); the test needs list mail the signals put in low priority", base.Result.Category, base.Learned)
	}
	c1 := CorrectionFor(listMail("n1", "builds@ci.example", "builds.ci.example"), demoPrincipal)
	c1.Category, c1.ID, c1.At = contract.CategoryInformational, "1", time.Unix(1, 0)
	l.Set([]Correction{c1})
	if o := an.Deterministic(next, demoPrincipal); o.Result.Category != base.Result.Category {
		t.Errorf("one correction moved the list's mail to %s", o.Result.Category)
	}
	// Another sender on the same list.
	c2 := CorrectionFor(listMail("n2", "bot@ci.example", "builds.ci.example"), demoPrincipal)
	c2.Category, c2.ID, c2.At = contract.CategoryInformational, "2", time.Unix(2, 0)
	l.Set([]Correction{c1, c2})
	o := an.Deterministic(next, demoPrincipal)
	if o.Result.Category != contract.CategoryInformational || len(o.Learned) != 1 || o.Learned[0] != "you moved 2 threads from this list to informational" {
		t.Errorf("after two corrections: %s, learned %q", o.Result.Category, o.Learned)
	}
	if rec := Record(1, "k", "h", o); !contains(rec.Signals, "learned: you moved 2 threads from this list to informational") {
		t.Errorf("record signals %q lack the learned reason", rec.Signals)
	}
	// A corrected thread counts once however often it was moved: one
	// thread moved twice is one correction (CorrectionLog.Load), and one
	// correction moves nothing.
	l.Set([]Correction{c1})
	if o := an.Deterministic(listMail("n1", "builds@ci.example", "builds.ci.example"), demoPrincipal); len(o.Learned) != 0 {
		t.Errorf("one corrected thread taught %q", o.Learned)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestLearnerSenderDomainAndSpamMarks checks the sender and domain keys
// and spam / not-spam marks: marks set and clear is_spam, never
// is_phishing.
func TestLearnerSenderDomainAndSpamMarks(t *testing.T) {
	an := NewAnalyzer(nil)
	l := NewLearner(nil)
	an.SetLearner(l)
	mail := func(id, sender string) []*model.Message {
		return []*model.Message{{MessageID: id, From: model.Address{Email: sender}, To: []model.Address{demoPrincipal},
			Subject: "Status " + id, Text: "All systems normal this week.", HasBody: true}}
	}
	corr := func(id, sender string, cat string, spam *bool) Correction {
		c := CorrectionFor(mail(id, sender), demoPrincipal)
		c.ID, c.Category, c.Spam = id, cat, spam
		return c
	}
	yes, no := true, false
	// Sender: two corrections.
	l.Set([]Correction{corr("a1", "ops@vendor.example", "urgent", nil), corr("a2", "ops@vendor.example", "urgent", nil)})
	if o := an.Deterministic(mail("a3", "ops@vendor.example"), demoPrincipal); o.Result.Category != "urgent" ||
		!strings.Contains(strings.Join(o.Learned, "|"), "from this sender to urgent") {
		t.Errorf("sender: %s %q", o.Result.Category, o.Learned)
	}
	// Domain: two senders of a domain are not enough, three are.
	l.Set([]Correction{corr("b1", "a@shop.example", "low priority", nil), corr("b2", "b@shop.example", "low priority", nil)})
	if o := an.Deterministic(mail("b9", "z@shop.example"), demoPrincipal); len(o.Learned) != 0 {
		t.Errorf("domain after two corrections: %q", o.Learned)
	}
	l.Set(append(l.Corrections(), corr("b3", "c@shop.example", "low priority", nil)))
	if o := an.Deterministic(mail("b9", "z@shop.example"), demoPrincipal); o.Result.Category != "low priority" ||
		!strings.Contains(strings.Join(o.Learned, "|"), "3 threads from this domain") {
		t.Errorf("domain after three corrections: %s %q", o.Result.Category, o.Learned)
	}
	// Spam marks.
	l.Set([]Correction{corr("c1", "deals@promo.example", "", &yes), corr("c2", "deals@promo.example", "", &yes)})
	if o := an.Deterministic(mail("c3", "deals@promo.example"), demoPrincipal); !o.Result.IsSpam ||
		!contains(o.SpamReasons, "you marked 2 threads from this sender as spam") {
		t.Errorf("spam marks: spam %t reasons %q", o.Result.IsSpam, o.SpamReasons)
	}
	phish := []*model.Message{{MessageID: "p3", From: model.Address{Name: "PayPal", Email: "service@paypa1-secure.example"},
		To: []model.Address{demoPrincipal}, Subject: "Verify your account",
		Text: "Your account will be suspended. Verify your account at http://192.0.2.7/login now.", HasBody: true}}
	if o := Deterministic(phish, demoPrincipal); !o.Result.IsPhishing {
		t.Fatalf("the phishing sample is not phishing without marks: %v", o.Signals)
	}
	pc := func(id string) Correction {
		c := CorrectionFor([]*model.Message{{MessageID: id, From: phish[0].From}}, demoPrincipal)
		c.ID, c.Spam = id, &no
		return c
	}
	l.Set([]Correction{pc("p1"), pc("p2")})
	if o := an.Deterministic(phish, demoPrincipal); !o.Result.IsPhishing {
		t.Error("not-spam marks cleared is_phishing")
	}
}

// TestCorrectionLog checks the file: corrections and undos append, a
// thread's latest correction wins, an undo drops one, a damaged line is
// skipped, and a new log on the same file (a restart, or a rebuilt store)
// reads the same.
func TestCorrectionLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", CorrectionsFile)
	log := OpenCorrections(path)
	if cs, err := log.Load(); err != nil || len(cs) != 0 {
		t.Fatalf("empty log: %v, %v", cs, err)
	}
	add := func(thread, cat string) Correction {
		c, err := log.Add(Correction{Thread: thread, Sender: "x@y.example", Category: cat})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	add("t1", "urgent")
	add("t1", "low priority") // moved again: replaces
	c2 := add("t2", "actionable")
	add("t3", "informational")
	if err := log.Undo(c2.ID); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n")
	f.Close()
	cs, err := OpenCorrections(path).Load()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Thread+"="+c.Category)
	}
	if strings.Join(got, ",") != "t1=low priority,t3=informational" {
		t.Errorf("loaded %v, want t1=low priority, t3=informational", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v; want 0600", fi.Mode(), err)
	}
}

// TestLearnerNoBucketForOwnDomain checks that bucket moves of colleagues'
// threads (the principal's own domain) are not learned for the whole
// domain, while two moves of one colleague's threads still move theirs,
// and spam marks still count per domain.
func TestLearnerNoBucketForOwnDomain(t *testing.T) {
	an := NewAnalyzer(nil)
	l := NewLearner(nil)
	an.SetLearner(l)
	own := domainOf(demoPrincipal.Email)
	mail := func(id, sender string) []*model.Message {
		return []*model.Message{{MessageID: id, From: model.Address{Email: sender}, To: []model.Address{demoPrincipal},
			Subject: "Notes " + id, Text: "Notes from the meeting are in the wiki.", HasBody: true}}
	}
	corr := func(id, sender, cat string) Correction {
		c := CorrectionFor(mail(id, sender), demoPrincipal)
		c.ID, c.Category = id, cat
		return c
	}
	l.Set([]Correction{corr("d1", "ann@"+own, "low priority"), corr("d2", "ben@"+own, "low priority"), corr("d3", "cy@"+own, "low priority")})
	if o := an.Deterministic(mail("d9", "dee@"+own), demoPrincipal); len(o.Learned) != 0 || o.Result.Category == "low priority" {
		t.Errorf("three colleagues' moves taught the whole own domain: %s %q", o.Result.Category, o.Learned)
	}
	l.Set(append(l.Corrections(), corr("d4", "dee@"+own, "low priority"), corr("d5", "dee@"+own, "low priority")))
	if o := an.Deterministic(mail("d9", "dee@"+own), demoPrincipal); o.Result.Category != "low priority" ||
		!strings.Contains(strings.Join(o.Learned, "|"), "from this sender to low priority") {
		t.Errorf("two moves of one colleague's threads: %s %q", o.Result.Category, o.Learned)
	}
}
