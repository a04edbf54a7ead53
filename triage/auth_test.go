package triage

import (
	"testing"

	"mailsift/model"
)

// TestAlignedAuthenticationTempersLearnedScore checks that a receipt whose
// sender's own domain passed DMARC/DKIM is not called spam on the learned
// score alone, while the same mail without that evidence, or with a pass for
// a different domain, still is.
func TestAlignedAuthenticationTempersLearnedScore(t *testing.T) {
	threads := demoThreads(t)
	var receipt *model.Message
	for key, msgs := range threads {
		if len(key) > 2 && key[:3] == "14-" {
			receipt = msgs[0]
		}
	}
	if receipt == nil {
		t.Fatal("demo receipt thread not found")
	}
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	with := *receipt
	if o := Deterministic([]*model.Message{&with}, p); o.Result.IsSpam {
		t.Fatalf("receipt with aligned DMARC pass: is_spam = true (%v)", o.SpamReasons)
	}
	without := *receipt
	without.Headers = map[string][]string{}
	if o := Deterministic([]*model.Message{&without}, p); !o.Result.IsSpam {
		t.Fatalf("same receipt without authentication results: is_spam = false; the test no longer shows the learned score deciding (signals %v)", o.Signals)
	}
	other := *receipt
	other.Headers = map[string][]string{"Authentication-Results": {"mx.example; dkim=pass header.d=bulk-sender.example; dmarc=pass header.from=bulk-sender.example"}}
	if o := Deterministic([]*model.Message{&other}, p); !o.Result.IsSpam {
		t.Fatal("a pass for another domain than From's must not vouch for the sender")
	}
}
