package triage

import (
	"testing"

	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// TestStructure checks each structural spam indicator on its own, and that
// a message built without a Message-ID or Date (a test's, or a source's
// that does not say) carries none.
func TestStructure(t *testing.T) {
	base := model.Message{From: model.Address{Email: "anna@shop.example"}, Subject: "Your order has shipped"}
	if s := structure(&base); s != 0 {
		t.Fatalf("plain message: structure %b (%s), want none", s, structureReason(s))
	}
	for _, tc := range []struct {
		name string
		edit func(*model.Message)
		want int
	}{
		{"synthesised id", func(m *model.Message) { m.MessageID = "0123abcd" + rfc822.SynthesisedIDSuffix }, stNoMessageID},
		{"capitals", func(m *model.Message) { m.Subject = "MAKE MONEY FAST at HOME" }, stShouted},
		{"bangs", func(m *model.Message) { m.Subject = "Act now!!" }, stShouted},
		{"dollars", func(m *model.Message) { m.Subject = "Earn $$ today" }, stShouted},
		{"x-priority", func(m *model.Message) { m.Headers = map[string][]string{"X-Priority": {"1 (Highest)"}} }, stHighPrio},
		{"importance", func(m *model.Message) { m.Headers = map[string][]string{"Importance": {"High"}} }, stHighPrio},
		{"numbered sender", func(m *model.Message) { m.From.Email = "kx7302@mailer.example" }, stDigitsLocal},
	} {
		m := base
		tc.edit(&m)
		if s := structure(&m); s != tc.want {
			t.Errorf("%s: structure %b (%s), want %b", tc.name, s, structureReason(s), tc.want)
		}
	}
	for _, subj := range []string{"NASA", "Q3 OKR review", "Re: CI failed on main", "Price: $5"} {
		if shouted(subj) {
			t.Errorf("shouted(%q) = true, want false", subj)
		}
	}
	if m := (model.Message{From: model.Address{Email: "jo12@x.example"}}); structure(&m) != 0 {
		t.Error("two digits in a local part are not a numbered sender")
	}
}

// TestAccentedLetters checks that letters outside ASCII count and
// typography does not.
func TestAccentedLetters(t *testing.T) {
	for _, tc := range []struct {
		subject, text string
		want          int
	}{
		{"Invoice", "Thanks — see the “attached” file, €40.", 0},
		{"Café", "José", 2},
		{"Rückmeldung bis 18 Uhr", "Arbeiten an der Stromversorgung für Sie, Grüße", minAccented},
		{"上場前", "", minAccented},
	} {
		if got := accentedLetters(tc.subject, tc.text); got != tc.want {
			t.Errorf("accentedLetters(%q, %q) = %d, want %d", tc.subject, tc.text, got, tc.want)
		}
	}
}

// TestListOwnedBy checks which list headers name the sender's own domain.
func TestListOwnedBy(t *testing.T) {
	a := NewAnalyzer(nil)
	for _, tc := range []struct {
		h    map[string][]string
		want bool
	}{
		{map[string][]string{"List-Id": {"<news.shop.example>"}}, true},
		{map[string][]string{"List-Id": {"Shop <list.shop.example.>"}}, true},
		{map[string][]string{"List-Unsubscribe": {"<https://user:pw@e.shop.example:8443/u?x=1>"}}, true},
		{map[string][]string{"List-Unsubscribe": {"<mailto:u@bounce.shop.example?subject=stop>"}}, true},
		{map[string][]string{"List-Unsubscribe": {"<https://esp.example/u>, <mailto:u@esp.example>"}}, false},
		{map[string][]string{"List-Id": {"Users <users.lists.example>"}}, false},
		{map[string][]string{"List-Id": {"shop.example.evil.example"}}, false},
		{map[string][]string{"Precedence": {"list"}}, false},
	} {
		m := &model.Message{From: model.Address{Email: "news@shop.example"}, Headers: tc.h}
		if got := a.listOwnedBy(m, a.regDomain("shop.example")); got != tc.want {
			t.Errorf("listOwnedBy(%v) = %t, want %t", tc.h, got, tc.want)
		}
	}
}
