package triage

import (
	"fmt"
	"strings"
	"testing"

	"mailsift/model"
)

// TestLinkDenseMailIsNotALure checks that one mismatched link with a
// credential phrase is phishing in a message leading to one place, and
// not in a newsletter linking to a dozen different sites, where the odd
// link still shows as a reason.
func TestLinkDenseMailIsNotALure(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	lure := "We noticed suspicious activity: <a href=\"https://secure-login.example.net/v\">www.examplebank.com</a>\n"
	mk := func(extraSites int) *model.Message {
		var b strings.Builder
		b.WriteString("<p>Weekly news</p>\n")
		for i := range extraSites {
			fmt.Fprintf(&b, "<p><a href=\"https://www.site%d.example/story\">Story %d</a></p>\n", i, i)
		}
		b.WriteString(lure)
		return &model.Message{From: model.Address{Name: "News", Email: "news@newsletter.example"}, To: []model.Address{p},
			Subject: "This week", HTMLText: htmlish(b.String()), HasBody: true}
	}
	if o := Deterministic([]*model.Message{mk(0)}, p); !o.Result.IsPhishing {
		t.Fatalf("a lone mismatched link with a credential request: not phishing (%v)", o.Signals)
	}
	if o := Deterministic([]*model.Message{mk(denseLinkSites - 2)}, p); !o.Result.IsPhishing {
		t.Errorf("%d other sites: not phishing, want the full weight below the threshold (%v)", denseLinkSites-2, o.Signals)
	}
	o := Deterministic([]*model.Message{mk(denseLinkSites + 2)}, p)
	if o.Result.IsPhishing {
		t.Errorf("newsletter linking to %d sites: phishing (%+v)", denseLinkSites+2, o.Signals)
	}
	if !hasSignal(o.Signals, SigLinkMismatch) {
		t.Errorf("newsletter: the mismatched link is no longer shown (%v)", o.Signals)
	}
}

// htmlish renders the anchors of s the way HTMLText keeps links, as
// "text <url>".
func htmlish(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "<a href=\"")
		if i < 0 {
			break
		}
		b.WriteString(strings.NewReplacer("<p>", "", "</p>", "").Replace(s[:i]))
		rest := s[i+len("<a href=\""):]
		url, rest, _ := strings.Cut(rest, "\">")
		text, rest, _ := strings.Cut(rest, "</a>")
		fmt.Fprintf(&b, "%s <%s>", text, url)
		s = rest
	}
	b.WriteString(strings.NewReplacer("<p>", "", "</p>", "").Replace(s))
	return b.String()
}
