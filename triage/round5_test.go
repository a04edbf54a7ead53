package triage

import (
	"testing"

	"mailsift/model"
)

// A host that spells out another domain in front of its own (as
// subdomain labels, or with the suffix written in hyphens) imitates that
// domain; a region or service label of the organisation's own host, and
// words that merely end like a suffix, do not.
func TestSpelledDomain(t *testing.T) {
	for host, want := range map[string]string{
		"billing.harbor-supplies.fr.invoices-online.example": "harbor-supplies.fr",
		"secure.bankname.com.verify-access.example":          "bankname.com",
		"mail.cloudhost-ad-jp.example":                       "cloudhost.ad.jp",
		"info.e-tax-office-go-jp.refund-center.example":      "office.go.jp",
		"shopname-com-account.example":                       "shopname.com",
		"app.eu.alerting.example":                            "",
		"mail.de.webmail.example":                            "",
		"northwind.app.eu.alerting.example":                  "",
		"side-income-support-net.example":                    "",
		"tools-org.example":                                  "",
		"obsvly-io.example":                                  "",
		"news.shop.example":                                  "",
	} {
		if got := spelledDomain(host, regDomain(host)); got != want {
			t.Errorf("spelledDomain(%q) = %q, want %q", host, got, want)
		}
	}
	if imitated, ok := lookalike("cloudhost-ad-jp.example", "northwind.example"); !ok || imitated != "cloudhost.ad.jp" {
		t.Errorf("lookalike(cloudhost-ad-jp.example) = %q, %v; want the spelled domain", imitated, ok)
	}
}

// A payment notice from a host spelling out the hosting provider's
// domain, linking to itself, is phishing; the same notice from the
// provider's own domain is not.
func TestSpelledDomainNoticeIsPhishing(t *testing.T) {
	body := func(host string) string {
		return "お支払い情報の確認が取れておりません。11月30日までに下記よりご登録内容を更新してください。\nhttps://" + host + "/billing/update"
	}
	checkPhishing(t, model.Address{Name: "クラウドホスト", Email: "info@cloudhost-ad-jp.example"}, "【重要】お支払い情報の確認のお願い",
		body("cloudhost-ad-jp.example"), nil, true)
	checkPhishing(t, model.Address{Name: "クラウドホスト", Email: "info@cloudhost.example"}, "【重要】お支払い情報の確認のお願い",
		body("cloudhost.example"), nil, false)
}
