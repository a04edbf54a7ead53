package triage

import (
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
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
		"bookingsite.com-id4127883902.guest-confirm.example": "bookingsite.com",
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

// A sender named after the first word of its domain, whose other words
// make it a notice address ("Vaultline Security" from
// vaultline-alerts.example), linking to that domain, is phishing; the
// service's own domain, a product named with its domain's words
// ("EuroRoute Connect" from euroroute-connect.example) and a newsletter
// are not.
func TestSelfNamedNoticeDomain(t *testing.T) {
	const subject = "Security alert: rotate the access keys of your workspace"
	body := func(host string) string {
		return "We detected a sign-in to your workspace from a new location. Please rotate your access keys now: https://" + host + "/keys/rotate"
	}
	for _, tt := range []struct {
		name, from string
		hdr        map[string][]string
		phish      bool
	}{
		{"Vaultline Security", "security@vaultline-alerts.example", nil, true},
		{"Vaultline", "noreply@vaultline-account-verify.example", nil, true},
		{"Vaultline Security", "security@vaultline.example", nil, false},
		{"EuroRoute Connect", "devrel@euroroute-connect.example", nil, false},
		{"Vaultline", "news@vaultline-updates.example", map[string][]string{"List-Unsubscribe": {"<https://vaultline-updates.example/u>"}}, false},
	} {
		host := tt.from[strings.IndexByte(tt.from, '@')+1:]
		checkPhishing(t, model.Address{Name: tt.name, Email: tt.from}, subject, body(host), tt.hdr, tt.phish)
	}
	for name, want := range map[string]string{
		"scaleway security": "scaleway", "pagerbell billing": "pagerbell", "acme connect": "", "acme": "", "box": "",
		"crates.io": "crates", "tyler brennan": "", "air france": "airfrance", "miles & more": "milesandmore",
		"kenji mori via wetransfer": "wetransfer", "eurowings": "eurowings",
		"harbour of eastport authority - procurement": "harbourofeastport",
		"orbitfleet talent acquisition":               "orbitfleet",
	} {
		reg := map[string]string{"scaleway security": "scaleway-alerts.example", "pagerbell billing": "pagerbell-invoices.example",
			"acme connect": "acme-connect.example", "acme": "acme.example", "box": "box-notification.example",
			"crates.io": "crates-io.example", "tyler brennan": "obsvly-io.example", "air france": "airfrance-remboursement.example",
			"miles & more": "milesandmore-refunds.example", "kenji mori via wetransfer": "wetransfer-notification.example",
			"eurowings": "eurowings-rueckerstattung.example",
			"harbour of eastport authority - procurement": "harbourofeastport-procurement.example",
			"orbitfleet talent acquisition":               "orbitfleet-recruiting.example"}[name]
		if got := selfNamedNoticeDomain(name, reg); got != want {
			t.Errorf("selfNamedNoticeDomain(%q, %q) = %q, want %q", name, reg, got, want)
		}
	}
}

// A brand's name counts inside a hyphenated domain only from the start
// of one of its words: kintai-cloud is no icloud lookalike, while
// icloud-verify and pay-pal-secure are.
func TestBrandStartsAWord(t *testing.T) {
	for host, want := range map[string]bool{
		"kintai-cloud.example":   false,
		"icloud-verify.example":  true,
		"pay-pal-secure.example": true,
		"mypaypal-login.example": true,
	} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%q) = %v, want %v", host, got, want)
		}
	}
}

// A partner warning that a domain asking for payment to a new bank
// account is not theirs, and that their bank details have not changed,
// is not itself a payment diversion.
func TestPartnerWarnsBankDetailsUnchanged(t *testing.T) {
	from := model.Address{Name: "Tom Becker", Email: "tom.becker@vendor.example"}
	checkPhishing(t, from, "Invoices this month",
		"Hi Alex,\n\nA heads-up: we've seen emails from vendor-billing.example asking customers to pay the November invoice to a new bank account. That domain isn't ours and our bank details haven't changed.\n\nTom", nil, false)
	checkPhishing(t, from, "Invoices this month",
		"Hi Alex,\n\nPlease note that we have a new bank account: pay the November invoice to IBAN DE44 5001 0517 5407 3249 31 from now on.\n\nTom", nil, true)
}

// Mail in a service's name from another domain whose link leads to a
// page anyone can publish (a Google Sites page, a *.web.app host) is
// phishing; the same link from a colleague, or the service's own notice
// linking to its own site, is not.
func TestUserContentLinkLure(t *testing.T) {
	const subject = "Your project is scheduled for suspension"
	for _, tt := range []struct {
		name, from, link string
		phish            bool
	}{
		{"Google Cloud Platform", "noreply@cloud-policy.example", "https://sites.google.com/view/project-appeal-center", true},
		{"Microsoft 365", "admin@m365-team.example", "https://m365-review.web.app/signin", true},
		{"Google Cloud Platform", "cloudplatform-noreply@google.com", "https://console.cloud.google.com/appeal", false},
		{"Priya Shah", "priya.shah@northwind.example", "https://sites.google.com/view/project-appeal-center", false},
	} {
		body := "We detected activity in your project that violates our policy. Submit an appeal before Friday: " + tt.link
		checkPhishing(t, model.Address{Name: tt.name, Email: tt.from}, subject, body, nil, tt.phish)
	}
	for url, want := range map[string]bool{
		"https://docs.google.com/forms/d/e/1FAIp/viewform": true,
		"https://docs.google.com/document/d/1abc/edit":     false,
		"https://status.example.com/":                      false,
		"https://acme.github.io/docs":                      true,
	} {
		host := strings.TrimPrefix(url, "https://")
		host, _, _ = strings.Cut(host, "/")
		if got := userContentLink(link{URL: url, Host: host}); got != want {
			t.Errorf("userContentLink(%s) = %v, want %v", url, got, want)
		}
	}
}

// colleagueSenders is a Senders that knows one colleague's name.
type colleagueSenders struct {
	fakeSenders
	name string
}

func (c colleagueSenders) Colleague(name string) bool { return strings.EqualFold(name, c.name) }

// A free-mail address carrying the name of someone who writes from the
// principal's domain, asking whether the reader is around, is phishing;
// the same words from the colleague's own address, from a stranger's
// free-mail address, or without a mailbox that knows the colleague are
// not.
func TestColleagueNameFromFreeMail(t *testing.T) {
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	const body = "Hi Alex, are you around? My laptop died and I need a quick favour before 5. Text me at +44 7700 900412.\n\nPriya"
	for _, tt := range []struct {
		from    model.Address
		senders Senders
		phish   bool
	}{
		{model.Address{Name: "Priya Raman", Email: "priya.raman.nw@outlook.com"}, colleagueSenders{fakeSenders{}, "Priya Raman"}, true},
		{model.Address{Name: "Priya Raman", Email: "priya.raman@northwind.example"}, colleagueSenders{fakeSenders{}, "Priya Raman"}, false},
		{model.Address{Name: "Dana Whit", Email: "dana.whit@outlook.com"}, colleagueSenders{fakeSenders{}, "Priya Raman"}, false},
		{model.Address{Name: "Priya Raman", Email: "priya.raman.nw@outlook.com"}, fakeSenders{}, false},
	} {
		m := &model.Message{MessageID: "c@x", From: tt.from, To: []model.Address{p}, Subject: "are you around?", Text: body, HasBody: true}
		if o, _ := NewAnalyzer(nil).deterministic([]*model.Message{m}, p, tt.senders); o.Result.IsPhishing != tt.phish {
			t.Errorf("%s: phishing %v, want %v; signals %v", tt.from.Email, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// A colleague forwarding a supplier's bank change with their own note
// (the German Outlook separator above the forwarded message) relays it;
// the supplier's own message asking to pay to the new account is the
// diversion.
func TestColleagueForwardsBankChange(t *testing.T) {
	const subject = "Änderung unserer Bankverbindung - Kartendienst GmbH"
	supplier := "Sehr geehrte Damen und Herren,\n\nzum 1. Dezember ändert sich unsere Bankverbindung. Bitte überweisen Sie die Rechnung vom November auf das neue Konto IBAN DE44 5001 0517 5407 3249 31.\n\nMit freundlichen Grüßen\nPetra Wiese"
	forward := "Alex, FYI only: I called them on the number in our contract and they confirmed it. Updated in SAP: the December invoice will be paid to the new account, nothing needed from you.\n\nClaire\n\n-----Ursprüngliche Nachricht-----\nVon: Petra Wiese <p.wiese@kartendienst.example>\nBetreff: " + subject + "\n\n" + supplier
	checkPhishing(t, model.Address{Name: "Claire Dubois", Email: "claire.dubois@northwind.example"}, "WG: "+subject, forward, nil, false)
	checkPhishing(t, model.Address{Name: "Petra Wiese", Email: "p.wiese@kartendienst.example"}, subject, supplier, nil, true)
}

// An investment scam under a made-up firm's name dressed as a notice
// address ("Crest Capital Desk" from crestcapital-alerts.example)
// imitates no one: spam, not phishing.
func TestSelfNamedWindfallIsSpam(t *testing.T) {
	m := &model.Message{MessageID: "w@x", From: model.Address{Name: "Crest Capital Desk", Email: "desk@crestcapital-alerts.example"},
		To: []model.Address{demoPrincipal}, Subject: "Alex, your $250 account has grown to $18,742.90", HasBody: true,
		Text: "Congratulations! Your guaranteed returns of 300% are ready. Withdraw your profit today: https://crestcapital-alerts.example/withdraw"}
	o := Deterministic([]*model.Message{m}, demoPrincipal)
	if o.Result.IsPhishing || !o.Result.IsSpam {
		t.Errorf("phishing %v spam %v, want spam only; signals %v", o.Result.IsPhishing, o.Result.IsSpam, o.Signals)
	}
}

// A supplier's "updated remittance instructions" (or wire or banking
// instructions) asking to pay to them is a diversion; a remittance
// advice of a payment made is not.
func TestRemittanceInstructionsDiversion(t *testing.T) {
	from := model.Address{Name: "Accounts Receivable", Email: "ar@telematics-vendor.example"}
	checkPhishing(t, from, "Updated remittance instructions (effective immediately)",
		"Dear customer,\n\nPlease find our updated remittance instructions below. Kindly pay the open invoice INV-2207 to the account listed here from now on.\n\nRegards,\nAccounts Receivable", nil, true)
	checkPhishing(t, from, "Remittance advice - payment 0048821",
		"Dear customer,\n\nThis is to confirm that invoice INV-2207 was paid today to your usual account. No action is needed.\n\nRegards,\nAccounts Receivable", nil, false)
}

// A thread's correspondent imitated by two neighbouring letters swapped
// (harborfreigth for harborfreight) asking to pay elsewhere is phishing;
// the correspondent's own domain is not.
func TestSwappedLettersImitateCorrespondent(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"harborfreight", "harborfreigth", true}, {"harborfreight", "hraborfreight", true},
		{"harborfreight", "harborfreight", false}, {"harborfreight", "harborfrieght", true},
		{"harborfreight", "harborfreihgtx", false}, {"abcde", "badce", false},
	} {
		if got := swapped(tt.a, tt.b); got != tt.want {
			t.Errorf("swapped(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	p := demoPrincipal
	first := &model.Message{MessageID: "s1@x", From: p, To: []model.Address{{Name: "Dana", Email: "dana@harborfreight.example"}},
		Subject: "SLA credit", Text: "Hi Dana, we will wire the SLA credit on December 1 to the account on file.", HasBody: true}
	for domain, want := range map[string]bool{"harborfreigth.example": true, "harborfreight.example": false} {
		reply := &model.Message{MessageID: "s2@x", InReplyTo: []string{"s1@x"}, From: model.Address{Name: "Dana", Email: "dana@" + domain},
			To: []model.Address{p}, Subject: "Re: SLA credit", HasBody: true,
			Text: "Hi Alex, quick correction before your payment run: please wire the credit to the account below instead, the old one is closing.\n\nIBAN GB33 BUKB 2020 1555 5555 55"}
		if o := Deterministic([]*model.Message{first, reply}, p); o.Result.IsPhishing != want {
			t.Errorf("reply from %s: phishing %v, want %v; signals %v", domain, o.Result.IsPhishing, want, o.Signals)
		}
	}
}

// A supplier announcing new bank details that asks to verify the change
// by calling the number the reader already has is no diversion; the same
// announcement without it is.
func TestBankChangeInvitingCallBack(t *testing.T) {
	from := model.Address{Name: "Eva Janssen", Email: "eva.janssen@mapvendor.example"}
	base := "Dear Alex,\n\nFrom 1 January we receive payments into a new bank account: please pay invoices dated from then on to IBAN NL91 ABNA 0417 1643 00.\n\n"
	checkPhishing(t, from, "Change of bank account from 1 January", base+
		"Please do not update anything based on this email alone: ask your accounts payable team to verify the change by calling our finance desk on the number in our master agreement.\n\nEva", nil, false)
	checkPhishing(t, from, "Change of bank account from 1 January", base+"Thank you for updating your records.\n\nEva", nil, true)
}

// A partner's mail sending you to a device sign-in page with a code to
// type is phishing (device-code phishing); the partner's warning about
// such mail, quoting the page and the code, is not.
func TestDeviceCodeLure(t *testing.T) {
	from := model.Address{Name: "Henrik Solberg", Email: "henrik.solberg@shipping-partner.example"}
	checkPhishing(t, from, "Q1 rates - secure Teams share",
		"Hi Alex,\n\nThe rates are shared through a secure Teams session. To open it, go to https://microsoft.com/devicelogin, enter the code HBQ7K2MXP and sign in with your Microsoft account.\n\nHenrik", nil, true)
	checkPhishing(t, model.Address{Name: "Partner IT Security", Email: "it-security@shipping-partner.example"}, "Security notice: fraudulent emails sent from one of our mailboxes",
		"An unauthorised party used one of our mailboxes to send emails asking recipients to enter a code at microsoft.com/devicelogin. If you entered the code, reset your password and revoke your sessions.", nil, false)
}

// A sender imitating your organisation's domain that links to your
// organisation's name on someone else's domain (a copied tenant page) is
// phishing; a link to a domain not naming it is not evidence of that.
func TestOwnLookalikeLinksToOrgTenant(t *testing.T) {
	from := model.Address{Name: "Northwind People Team", Email: "people@northwind-benefits.example"}
	body := func(link string) string {
		return "Hi Alex,\n\nYour personalised 2027 total compensation statement is now available until 30 November.\n\nView my statement: " + link + "\n\nPeople Team"
	}
	checkPhishing(t, from, "Your 2027 total compensation statement is ready", body("https://northwind.hr-portal-statements.example/2027"), nil, true)
	checkPhishing(t, from, "Your 2027 total compensation statement is ready", body("https://statements.hr-portal.example/2027"), nil, false)
}

// A tracker's notice that an issue the reader reported was resolved is
// worth knowing; the same notice about someone else's issue is read
// later.
func TestTrackerNoticeOfReadersIssue(t *testing.T) {
	for reporter, want := range map[string]string{"Alex Morgan": "informational", "Priya Raman": "low priority"} {
		m := &model.Message{MessageID: "j@x", From: model.Address{Name: "Sam Okoye (Jira)", Email: "jira@northwind.atlassian.example"},
			To: []model.Address{demoPrincipal}, Subject: "[JIRA] (PLAT-4390) Increase node pool for route-batch", HasBody: true,
			Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}, "Precedence": {"bulk"}},
			Text:    "Sam Okoye changed the status of PLAT-4390 to Done.\n\nPLAT-4390: Increase node pool for route-batch\nReporter: " + reporter + "\nAssignee: Sam Okoye\nResolution: Done\n"}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != want {
			t.Errorf("reporter %s: %s, want %s; signals %v", reporter, o.Result.Category, want, o.Signals)
		}
	}
	if !reportedBy("Melder: Alex Morgan\n", "Alex") || reportedBy("Reporter: Alexandra Stone", "Alex") || reportedBy("Assignee: Alex", "Alex") {
		t.Error("reportedBy reads the reporter field only")
	}
}

// An invitation marked as sent for information needs no answer; the
// same invitation without the mark asks for one.
func TestFYIInvitation(t *testing.T) {
	for subject, want := range map[string]string{
		"Invitation: Booth duty B4.310 - Alex (FYI, no response needed) @ Wed 2 Dec 2026 10:00": "informational",
		"Invitation: [HOLD - FYI only] press release goes live @ Wed 2 Dec 2026 09:00":          "informational",
		"Invitation: Booth duty B4.310 - Alex @ Wed 2 Dec 2026 10:00":                           "actionable",
	} {
		m := &model.Message{MessageID: subject + "@x", From: model.Address{Name: "Ravi", Email: "ravi@northwind.example"}, To: []model.Address{demoPrincipal},
			Subject: subject, Text: "Ravi has invited you to an event.", HasBody: true, Date: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC),
			Attachments: []model.Attachment{{Filename: "invite.ics", ContentType: "text/calendar; method=REQUEST"}}}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != want {
			t.Errorf("%q: %s, want %s; signals %v", subject, o.Result.Category, want, o.Signals)
		}
	}
}

// A thread whose newest message is the reader's own answer waits on the
// others: informational, whatever the question before it asked, and
// the answered ask is no action item any more.
func TestReaderAnsweredLast(t *testing.T) {
	ask := &model.Message{MessageID: "q@x", From: model.Address{Name: "Priya Raman", Email: "priya.raman@northwind.example"}, To: []model.Address{demoPrincipal},
		Subject: "Snowflake credits for the ETA backfill?", Text: "Alex, can you approve 200 extra Snowflake credits for the backfill by Friday?", HasBody: true,
		Date: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	answer := &model.Message{MessageID: "a@x", InReplyTo: []string{"q@x"}, From: demoPrincipal, To: []model.Address{ask.From},
		Subject: "Re: Snowflake credits for the ETA backfill?", Text: "Approved, go ahead.", HasBody: true, Date: time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC)}
	if o := Deterministic([]*model.Message{ask}, demoPrincipal); o.Result.Category != contract.CategoryActionable {
		t.Errorf("the question alone: %s, want actionable", o.Result.Category)
	}
	if o := Deterministic([]*model.Message{ask, answer}, demoPrincipal); o.Result.Category != contract.CategoryInformational || len(o.Result.ActionItems) != 0 {
		t.Errorf("answered: %s with action items %v, want informational with none; signals %v", o.Result.Category, o.Result.ActionItems, o.Signals)
	}
}
