package triage

import (
	"testing"

	"mailsift/model"
	"mailsift/model/contract"
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

// TestAuthenticatedListMailIsLowPriority checks the rule for legitimate
// bulk mail: a newsletter with List-Unsubscribe whose sender's domain
// passed DKIM, written in marketing words, lands in Low priority and not
// in quarantine; without the aligned pass (and through a list in another
// domain, see TestOwnListMailIsLowPriority) the same wording is spam.
func TestAuthenticatedListMailIsLowPriority(t *testing.T) {
	p := model.Address{Email: "me@example.org"}
	msg := func(auth string) *model.Message {
		h := map[string][]string{"List-Unsubscribe": {"<https://mailer.bulk-sender.example/unsubscribe?u=1>"}}
		if auth != "" {
			h["Authentication-Results"] = []string{auth}
		}
		return &model.Message{
			From: model.Address{Email: "news@shop.example"}, To: []model.Address{p},
			Subject: "Autumn sale", Headers: h, HasBody: true,
			Text: "Limited time offer on our autumn range. Click here to see what is new. Risk free returns within 30 days.",
		}
	}
	o := Deterministic([]*model.Message{msg("mx.example.org; dkim=pass header.d=shop.example")}, p)
	if o.Result.IsSpam || o.Result.IsPhishing || o.Result.Category != contract.CategoryLowPriority {
		t.Errorf("authenticated list mail: spam %t, phishing %t, category %q; want not quarantined, low priority (reasons %v)",
			o.Result.IsSpam, o.Result.IsPhishing, o.Result.Category, o.SpamReasons)
	}
	if o := Deterministic([]*model.Message{msg("")}, p); !o.Result.IsSpam {
		t.Errorf("the same mail without authentication: is_spam = false; the test no longer shows the wording deciding (signals %v)", o.Signals)
	}
	if o := Deterministic([]*model.Message{msg("mx.example.org; dkim=pass header.d=other.example")}, p); !o.Result.IsSpam {
		t.Error("a pass for another domain than From's must not vouch for the sender")
	}
}

// TestOwnListMailIsLowPriority checks the other evidence of legitimate
// bulk mail: a newsletter whose List-Unsubscribe or List-Id lies in its
// sender's own domain is not quarantined for its marketing wording, with
// no authentication results at all, while the same mail posted through
// someone else's list (as spam reaches discussion lists) still is.
func TestOwnListMailIsLowPriority(t *testing.T) {
	p := model.Address{Email: "me@example.org"}
	msg := func(h map[string][]string) *model.Message {
		return &model.Message{
			From: model.Address{Email: "news@shop.example"}, To: []model.Address{p},
			Subject: "Autumn sale", Headers: h, HasBody: true,
			Text: "Limited time offer on our autumn range. Click here to see what is new. Risk free returns within 30 days.",
		}
	}
	for _, h := range []map[string][]string{
		{"List-Unsubscribe": {"<https://news.shop.example/unsubscribe?u=1>"}},
		{"List-Unsubscribe": {"<mailto:leave@lists.shop.example?subject=unsubscribe>, <https://tracker.example/u/1>"}},
		{"List-Id": {"Shop news <news.shop.example>"}},
	} {
		o := Deterministic([]*model.Message{msg(h)}, p)
		if o.Result.IsSpam || o.Result.Category != contract.CategoryLowPriority {
			t.Errorf("%v: spam %t, category %q; want low priority, not quarantined (reasons %v)", h, o.Result.IsSpam, o.Result.Category, o.SpamReasons)
		}
	}
	for _, h := range []map[string][]string{
		{"List-Id": {"Irish Linux Users' Group <ilug.linux.example>"}, "Precedence": {"bulk"}},
		{"List-Unsubscribe": {"<mailto:unsub@massmailer.example>"}},
	} {
		if o := Deterministic([]*model.Message{msg(h)}, p); !o.Result.IsSpam {
			t.Errorf("%v: another domain's list must not vouch for the sender (signals %v)", h, o.Signals)
		}
	}
}
