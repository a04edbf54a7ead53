package triage

import (
	"testing"

	"mailsift/model"
	"mailsift/model/contract"
)

// A brand's own authenticated notice is the brand: its account wording
// does not make it phishing, while the same words from a stranger, from
// the brand's domain unauthenticated, or from a free-mail provider still
// do.
func TestBrandOwnNoticeIsNotPhishing(t *testing.T) {
	auth := func(d string) map[string][]string {
		return map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=" + d + "; dkim=pass header.d=" + d + "; dmarc=pass header.from=" + d}}
	}
	factor := "A new factor was enrolled for your account. If you did not enroll it, report suspicious activity immediately: https://northwind.okta.com/signin/report-suspicious-activity . Report suspicious activity so your administrator can reset your factors."
	alert := "A critical severity vulnerability was found in your dependencies. You are listed as a security alert recipient; security alert notifications are enabled. Review the alert: https://github.com/northwind/identity-gateway/security/dependabot/41"
	for _, tt := range []struct {
		from    model.Address
		hdr     map[string][]string
		subject string
		body    string
		phish   bool
	}{
		{model.Address{Name: "Okta", Email: "noreply@okta.com"}, auth("okta.com"), "New factor enrolled for your account", factor, false},
		{model.Address{Name: "GitHub", Email: "noreply@github.com"}, auth("github.com"), "[northwind/identity-gateway] Critical severity Dependabot alert", alert, false},
		// the same words from a lookalike of the brand, authenticated as itself
		{model.Address{Name: "Okta Security", Email: "noreply@okta-secure-login.com"}, auth("okta-secure-login.com"), "New factor enrolled for your account", factor, true},
	} {
		checkPhishing(t, tt.from, tt.subject, tt.body, tt.hdr, tt.phish)
	}
	// A free-mail provider is a brand too, but anyone writes from it.
	ceo := map[string][]string{"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=gmail.com; dmarc=pass header.from=gmail.com"}}
	checkPhishing(t, model.Address{Name: "Okta", Email: "okta.security.team@gmail.com"}, "New factor enrolled for your account", factor, ceo, true)
}

// An advance-fee scam (an inheritance, a lottery, funds to release) is
// spam; the fee it asks to release the funds is its own offer's, so it
// is phishing only with another lure.
func TestWindfallIsSpamNotPhishing(t *testing.T) {
	fail := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=fund-release.example; dmarc=fail header.from=fund-release.example"}}
	for _, tt := range []struct {
		subject, body string
		phish         bool
	}{
		{"Your compensation fund of USD 2,500,000 has been approved", "ATTENTION: BENEFICIARY. Your compensation fund has been approved. To release it, pay the delivery fee of USD 350 immediately.", false},
		{"UNCLAIMED INHERITANCE FUNDS", "I am the attorney of the late Robert Morgan. You are the beneficiary of his inheritance of 8.5 million dollars. A processing fee of USD 900 is required.", false},
		{"Sie haben gewonnen!", "Herzlichen Glückwunsch, Sie haben gewonnen! Zahlen Sie die Bearbeitungsgebühr von 49 EUR per Überweisung.", false},
		// the windfall as a pretext for a sign-in
		{"Your compensation fund of USD 2,500,000 has been approved", "ATTENTION: BENEFICIARY. To release your compensation fund, verify your account and enter your password at http://fund-release.example/login today.", true},
	} {
		m := &model.Message{MessageID: tt.subject + "@x", From: model.Address{Name: "Release Desk", Email: "desk@fund-release.example"},
			To: []model.Address{demoPrincipal}, Subject: tt.subject, Text: tt.body, HasBody: true, Headers: fail}
		o := Deterministic([]*model.Message{m}, demoPrincipal)
		if !o.Result.IsSpam || o.Result.IsPhishing != tt.phish {
			t.Errorf("%q: spam %v phishing %v, want spam and phishing %v; signals %v", tt.subject, o.Result.IsSpam, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// A subject naming today presses like an urgency word: with a lookalike
// of the reader's own domain asking to act, it is phishing.
func TestSubjectTodayPressesPhishing(t *testing.T) {
	body := "Following today's security review, all Northwind accounts must re-enroll Okta Verify with the new device policy. Please complete it before 18:00: https://northwind-okta-verify.com/enroll"
	checkPhishing(t, model.Address{Name: "Northwind IT Security", Email: "security-noreply@northwind-okta-verify.com"},
		"Action required: your Okta Verify enrollment will be removed today", body, nil, true)
	checkPhishing(t, model.Address{Name: "Northwind IT-Sicherheit", Email: "security-noreply@northwind-okta-verify.com"},
		"Ihre Okta-Verify-Registrierung wird heute entfernt", "Bitte registrieren Sie Okta Verify bis 18:00 Uhr neu: https://northwind-okta-verify.com/enroll", nil, true)
	// the organisation's own notice with the same words is not
	auth := map[string][]string{"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=northwind.example; dmarc=pass header.from=northwind.example"}}
	checkPhishing(t, model.Address{Name: "Northwind IT Security", Email: "it-security@northwind.example"},
		"Action required: your Okta Verify enrollment will be removed today", "Please re-enroll Okta Verify before 18:00: https://northwind.okta.com/enroll", auth, false)
}

// A four-letter label is a word of its own, not a typo of a five-letter
// brand (mail.com is a provider, not gmail.com); five letters still are.
func TestShortLabelIsNoTypoLookalike(t *testing.T) {
	if d, ok := lookalike("mail.com", "northwind.example"); ok {
		t.Errorf("mail.com imitates %s", d)
	}
	if _, ok := lookalike("gmaii.com", "northwind.example"); !ok {
		t.Error("gmaii.com is not a lookalike")
	}
	if _, ok := lookalike("paypa1.com", "northwind.example"); !ok {
		t.Error("paypa1.com is not a lookalike")
	}
}

// writtenSenders is a Senders that knows the domains the user wrote to.
type writtenSenders struct {
	fakeSenders
	domains []string
}

func (w writtenSenders) WrittenDomains() []string { return w.domains }

// A reply from a domain one letter away from a correspondent's (the
// supplier's simfleet.com as simfieet.com) asking for a payment to new
// bank details is phishing, whether the real domain is in the thread or
// only among those the user writes to; the correspondent's own domain,
// an unrelated domain and a domain the user also writes to are not.
func TestCorrespondentLookalike(t *testing.T) {
	auth := func(d string) map[string][]string {
		return map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=" + d + "; dkim=pass header.d=" + d + "; dmarc=pass header.from=" + d}}
	}
	quote := &model.Message{MessageID: "q1@x", From: demoPrincipal, To: []model.Address{{Name: "Rob Keane", Email: "rob.keane@simfleet.com"}},
		Subject: "Quote request: 2,000 eSIM profiles", Text: "Hi Rob, could you send us a quote?", HasBody: true}
	pay := func(from string) *model.Message {
		return &model.Message{MessageID: "p-" + from + "@x", InReplyTo: []string{"q1@x"}, From: model.Address{Name: "Rob Keane", Email: from},
			To: []model.Address{demoPrincipal}, Subject: "Re: Quote request: 2,000 eSIM profiles - setup fee",
			Text:    "Hi Alex, to reserve the profiles please transfer the setup fee of USD 9,400. Our finance team has moved to a new bank, so please use the details below, not those of previous invoices: IBAN BE71 9671 0044 2289. Could you confirm once the payment is scheduled?",
			HasBody: true, Headers: auth(domainOf(from))}
	}
	a := NewAnalyzer(nil)
	for _, tt := range []struct {
		name    string
		msgs    []*model.Message
		senders Senders
		phish   bool
	}{
		{"thread", []*model.Message{quote, pay("rob.keane@simfieet.com")}, nil, true},
		{"written to", []*model.Message{pay("rob.keane@simfieet.com")}, writtenSenders{fakeSenders{}, []string{"simfleet.com", "zenloop.example"}}, true},
		{"homoglyph", []*model.Message{pay("rob.keane@simf1eet.com")}, writtenSenders{fakeSenders{}, []string{"simfleet.com"}}, true},
		{"the correspondent", []*model.Message{quote, pay("rob.keane@simfleet.com")}, nil, false},
		{"unrelated", []*model.Message{pay("rob.keane@simcorp.com")}, writtenSenders{fakeSenders{}, []string{"simfleet.com"}}, false},
		{"written to both", []*model.Message{pay("rob.keane@simfieet.com")}, writtenSenders{fakeSenders{}, []string{"simfleet.com", "simfieet.com"}}, false},
	} {
		o, _ := a.deterministic(tt.msgs, demoPrincipal, tt.senders)
		if o.Result.IsPhishing != tt.phish || tt.phish && !hasSignal(o.Signals, SigLookalikeDomain) {
			t.Errorf("%s: phishing %v, want %v; signals %v", tt.name, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// Mail its sender's domain disowns (DMARC failed) with a link, presenting
// itself as an authority (a traffic-fine office, a tax office, customs),
// is phishing in each language; a shop's offer failing the same way is
// spam, not phishing.
func TestSpoofedAuthorityIsPhishing(t *testing.T) {
	fail := func(d string) map[string][]string {
		return map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=" + d + "; dmarc=fail header.from=" + d}}
	}
	for _, tt := range []struct {
		name, from, subject, body string
		phish                     bool
	}{
		{"ANTAI - Service des amendes", "avis@antai-gouv-amendes.example", "Avis de contravention impayé - majoration sous 48h",
			"Votre avis de contravention n° 2026-88412 reste impayé. Réglez 35 EUR sur https://antai-gouv-amendes.example/paiement avant majoration.", true},
		{"Bußgeldstelle Berlin", "info@bussgeld-berlin-online.example", "Offener Bußgeldbescheid Nr. 4471-22",
			"Ihr Bußgeld über 55 EUR ist noch offen. Zahlen Sie bis Freitag unter https://bussgeld-berlin-online.example/zahlung.", true},
		{"Customs Clearance Desk", "clearance@parcel-customs-fees.example", "Your parcel is held: customs fee unpaid",
			"Your parcel is held until the customs fee of 2.99 EUR is paid: https://parcel-customs-fees.example/pay", true},
		{"Ofertas Oficina", "ofertas@suministros-oficina-top.example", "¡Black Friday! Sillas ergonómicas -60% solo hoy",
			"Sillas ergonómicas con un 60 % de descuento, solo hoy: https://suministros-oficina-top.example/ofertas", false},
	} {
		checkPhishing(t, model.Address{Name: tt.name, Email: tt.from}, tt.subject, tt.body, fail(domainOf(tt.from)), tt.phish)
	}
}

// An offer dressed as an invoice, whose small print says it is none, is
// a fake invoice in each language; an insurer's statement that is "not
// a bill" and a shop's order confirmation that is "keine Rechnung" are
// not.
func TestSolicitationInvoiceIsPhishing(t *testing.T) {
	for _, tt := range []struct {
		name, from, subject, body string
		phish                     bool
	}{
		{"Domain Services Europe", "renewals@domain-services-europe.example", "Final Notice: Domain Name Registration Renewal for northwind.example",
			"Amount due: 389.00 EUR. Pay now: https://domain-services-europe.example/pay or transfer to IBAN HU42 1170 0024 4913 7788. This is not a bill. This is a solicitation. You are under no obligation to pay unless you accept this offer.", true},
		{"Gewerbeverzeichnis Deutschland", "service@gewerbe-register.example", "Eintragung Gewerbeverzeichnis 2027 - Zahlungsaufforderung",
			"Für die Eintragung Ihrer Firma überweisen Sie bitte 1.089,00 EUR auf das Konto IBAN DE12 5001 0517 0648 4898 90. Dies ist keine Rechnung, sondern ein Angebot.", true},
		{"Annuaire des Entreprises", "contact@annuaire-pro.example", "Renouvellement de votre inscription – facture 2027",
			"Montant à régler : 690 EUR par virement, IBAN FR76 3000 6000 0112 3456 7890 189. Ceci n'est pas une facture mais une offre.", true},
		{"Acme Health Insurance", "statements@acme-health.example", "Your explanation of benefits",
			"This is not a bill. Your plan paid 180.00 USD of the claim; the amount you may owe the provider is 20.00 USD.", false},
		{"Bürobedarf Schmidt", "bestellung@buerobedarf-schmidt.example", "Ihre Bestellung 55810",
			"Vielen Dank für Ihre Bestellung über 89,90 EUR. Dies ist keine Rechnung; die Rechnung erhalten Sie mit der Lieferung.", false},
	} {
		checkPhishing(t, model.Address{Name: tt.name, Email: tt.from}, tt.subject, tt.body, nil, tt.phish)
	}
}

// A colleague's message below a notice that reads like phishing is the
// colleague's thread, not a lure (their reply's subject repeats the
// notice's words); a thread whose colleague message itself fails
// authentication stays phishing.
func TestColleagueAnswersNotice(t *testing.T) {
	notice := &model.Message{MessageID: "n@x", From: model.Address{Name: "Billing", Email: "billing@sms-provider.example"}, To: []model.Address{demoPrincipal},
		Subject: "Action required: your account will be suspended in 6 hours", HasBody: true,
		Text: "We could not charge your card. Your account will be suspended today at 16:00 UTC. Update your payment information immediately: https://console.sms-provider.example/billing"}
	reply := func(hdr map[string][]string) *model.Message {
		return &model.Message{MessageID: "r@x", InReplyTo: []string{"n@x"}, From: model.Address{Name: "Sam Okafor", Email: "sam.okafor@northwind.example"},
			To: []model.Address{demoPrincipal}, Subject: "Re: Action required: your account will be suspended in 6 hours", HasBody: true, Headers: hdr,
			Text: "Alex, saw this in the shared ops inbox too. That's the account the driver app uses. I don't have billing rights on it, only you. 16:00 UTC is two hours from now."}
	}
	if o := Deterministic([]*model.Message{notice}, demoPrincipal); !o.Result.IsPhishing {
		t.Fatalf("the notice alone should read as phishing for this test; signals %v", o.Signals)
	}
	if o := Deterministic([]*model.Message{notice, reply(nil)}, demoPrincipal); o.Result.IsPhishing || o.Result.IsSpam {
		t.Errorf("a colleague's reply: phishing %v spam %v; signals %v", o.Result.IsPhishing, o.Result.IsSpam, o.Signals)
	}
	spoofed := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=northwind.example; dmarc=fail header.from=northwind.example"}}
	if o := Deterministic([]*model.Message{notice, reply(spoofed)}, demoPrincipal); !o.Result.IsPhishing {
		t.Errorf("a spoofed colleague's reply: not phishing; signals %v", o.Signals)
	}
}

// A supplier's notice in Japanese that its account for transfers has
// changed ("お振込先口座を下記の通り変更", "新口座へお振込み") asks to pay
// to new bank details: with a failed DMARC and a Reply-To elsewhere it
// is phishing.
func TestJapaneseAccountChangeIsPhishing(t *testing.T) {
	hdr := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=bridge-career.example; dmarc=fail header.from=bridge-career.example"}}
	m := &model.Message{MessageID: "j@x", From: model.Address{Name: "経理部", Email: "keiri@bridge-career.example"}, ReplyTo: []model.Address{{Email: "keiri@outlook.example"}},
		To: []model.Address{demoPrincipal}, Subject: "【重要】お振込先口座変更のお知らせ", HasBody: true, Headers: hdr,
		Text: "弊社のメインバンク変更に伴い、お振込先口座を下記の通り変更させていただくこととなりました。11月分以降のお支払いにつきましては、必ず新口座へお振込みくださいますようお願い申し上げます。"}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); !o.Result.IsPhishing {
		t.Errorf("not phishing; signals %v", o.Signals)
	}
}

// A domain imitating the reader's own organisation is phishing when its
// sender asks something, and not when it sends a notice or a
// confirmation (organisations send from their other domains too).
func TestOwnLookalikeAsking(t *testing.T) {
	for _, tt := range []struct {
		from, subject, body string
		phish               bool
	}{
		{"it-servicedesk@northwind-sso.com", "Okta Verify re-enrolment", "Please re-enrol Okta Verify before Wednesday: https://northwind-sso.com/enrol", true},
		{"javier.ruiz@northwind-es.com", "¿Estás disponible?", "Hola Alex, ¿estás disponible? Necesito que me ayudes con una gestión confidencial.", true},
		{"marcus.lindqvist@northvvind.example", "Project Harbor", "Alex, can you call me before 15:00? Keep it between us for now.", true},
		{"noreply@status.northwind-dispatch.example", "[Northwind Status] Resolved: Elevated API error rates", "The incident has been resolved. Error rates are back to normal.", false},
		{"benefits@northwind-benefits.example", "Your 2027 benefits elections are confirmed", "Your elections for 2027 have been saved. No further action is needed.", false},
	} {
		checkPhishing(t, model.Address{Name: "Northwind", Email: tt.from}, tt.subject, tt.body, nil, tt.phish)
	}
}

// A service's name used as the sender's display name or in a hyphenated
// domain, by someone else's domain, is phishing evidence, also for short
// names as words of their own ("Zoom") and new work tools; a brand named
// by a common word is imitated only as a word of a hyphenated name
// (slack.net is an old provider's, not Slack's).
func TestServiceLookalikes(t *testing.T) {
	for _, tt := range []struct {
		host string
		want bool
	}{
		{"slack-signin-alerts.com", true}, {"crank.slack.net", false}, {"slackware-mirror.net", false},
		{"atlassian-id-verify.com", true}, {"npmjs.help", true}, {"concur-expense-mail.com", true}, {"concurrent.example", false},
		{"personio-gehaltsabrechnung.de", true}, {"tollcollect-nachzahlung.de", true}, {"nta-etax-nouzei.com", true},
		{"smbc-card-kakunin.com", true}, {"smbc-card.com", false}, {"atlassian.net", false}, {"toll-collect.de", false},
		{"1passwordsecurity.com", true}, {"pagerduty-notification.com", true}, {"datadoghq-invoices.com", true},
		{"dockerhub-verify.io", true}, {"cloudflare-dnsalerts.com", true}, {"hetzner-accounts.com", true},
		{"vodafone-empresas-factura.es", true}, {"denic-domainservice.de", true}, {"datadoghq.eu", false}, {"docker.io", false},
	} {
		if _, got := lookalike(tt.host, "northwind.example"); got != tt.want {
			t.Errorf("lookalike(%s) = %v, want %v", tt.host, got, tt.want)
		}
	}
	checkPhishing(t, model.Address{Name: "Zoom", Email: "no-reply@zoom-us-meetings.net"}, "Rafael shared a cloud recording with you",
		"Rafael Ortiz shared a cloud recording with you. View recording: https://zoom-us-meetings.net/rec/8812", nil, true)
	checkPhishing(t, model.Address{Name: "Zoomer Weekly", Email: "news@zoomer-weekly.example"}, "This week in Zoomer",
		"Read the issue: https://zoomer-weekly.example/issue/44", nil, false)
}

// Asking to pay an employee's salary or a supplier to changed bank
// details in German, or a payroll change from outside, is the diversion.
func TestMoreDiversions(t *testing.T) {
	for _, tt := range []struct {
		from, subject, body string
	}{
		{"s.kroeger@fahrzeugelektronik.example", "Änderung unserer Bankverbindung ab 01.12.2026", "Sehr geehrte Damen und Herren, bitte beachten Sie die Änderung unserer Bankverbindung: Zahlungen ab dem 01.12. bitte nur noch auf IBAN DE44 5001 0517 5407 3249 31 überweisen."},
		{"tomas.herrera.nw@gmail.com", "bank details for payroll", "Hi, I changed banks. Please update my bank details for this month's payroll: IBAN ES91 2100 0418 4502 0005 1332. Thanks, Tomas"},
	} {
		checkPhishing(t, model.Address{Name: "x", Email: tt.from}, tt.subject, tt.body, nil, true)
	}
}

// A sender in a domain imitating a brand's that asks you to act through
// a link to that domain is phishing; a real business's brand-like domain
// linking to its own site is not; a host named after a brand word under
// someone's domain is no imitation, the brand's domain in front of
// another one is.
func TestBrandLookalikeAskingThroughLink(t *testing.T) {
	checkPhishing(t, model.Address{Name: "npm", Email: "support@npmjs.help"}, "Action required: update your npm two-factor authentication by 26 November",
		"Please update your two-factor settings here: https://www.npmjs.help/settings/2fa", nil, true)
	checkPhishing(t, model.Address{Name: "ヤマト運輸", Email: "info@kuronekoyamato-delivery.top"}, "【ヤマト運輸】お荷物お届けのお知らせ",
		"お荷物をお届けにあがりましたが不在のため持ち帰りました。再配達をご希望の場合はこちらからお手続きください: https://kuronekoyamato-delivery.top/redeliver", nil, true)
	checkPhishing(t, model.Address{Name: "Lufthansa", Email: "online@booking-lufthansa.com"}, "Important information about your flight LH 1800",
		"Your flight has a new departure time. Please check your booking: https://www.lufthansa.com/mybookings", nil, false)
	for host, want := range map[string]bool{"hermes.sun.com": false, "booking.lufthansa.com": false, "paypal.com.account-check.net": true} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %v, want %v", host, got, want)
		}
	}
}

// A message warning of a payment-diversion fraud quotes its words ("new
// bank details", 振込先の変更) without asking for them: not phishing.
func TestFraudWarningIsNoDiversion(t *testing.T) {
	for _, tt := range []struct{ subject, body string }{
		{"Brightline \"new bank details\" - fake, nothing paid", "FYI: the mail with Brightline's new bank details for the November invoice was fake. Nothing was paid; please ignore any such request."},
		{"【注意喚起】弊社を装った不審なメールについて", "弊社を装い、振込先の変更を依頼する不審なメールが確認されています。弊社が振込先の変更をメールでお願いすることはございません。お支払いは従来の口座へお願いいたします。"},
		{"Achtung: gefälschte Rechnungen im Umlauf", "Derzeit sind gefälschte Rechnungen mit einer neuen Bankverbindung in unserem Namen im Umlauf. Bitte überweisen Sie nur auf das bekannte Konto."},
	} {
		checkPhishing(t, model.Address{Name: "Accounts", Email: "accounts@supplier.example"}, tt.subject, tt.body, nil, false)
	}
}

// An executive or a colleague writing from a free-mail address who asks
// for discretion, checks you are at hand or moves the talk to a private
// channel is phishing, in each language; the same colleague asking a
// plain question is not.
func TestSecrecyFromFreeMail(t *testing.T) {
	for _, tt := range []struct {
		name, from, subject, body string
		phish                     bool
	}{
		{"Dana Whitfield", "ceo.dwhitfield@protonmail.com", "Confidential", "Alex, I'm in a board session. I need your assistance with a confidential matter that can't go through normal channels today. Please send me your mobile number.", true},
		{"Dana Whitfield", "ceo.dwhitfield@protonmail.com", "Are you at your desk?", "Alex, are you at your desk? I need a quick favour.", true},
		{"Jens Albrecht (CFO)", "cfo.jens.albrecht@gmail.com", "Vertraulich", "Hallo Alex, bist du erreichbar? Es geht um eine streng vertrauliche Transaktion.", true},
		{"佐藤 健一", "kenichi.sato.northwind@gmail.com", "至急のお願い", "社用のアドレスが一時的に使えないため、こちらから連絡しています。LINEで新しいグループを作成し、QRコードを送ってください。会議中のため、電話には出られません。", true},
		{"Dana Whitfield", "ceo.dwhitfield@protonmail.com", "Board deck", "Alex, could you send me the slide on the outage for Thursday's board?", false},
	} {
		checkPhishing(t, model.Address{Name: tt.name, Email: tt.from}, tt.subject, tt.body, nil, tt.phish)
	}
}

// A sender calling itself a brand ("Microsoft Teams") from a domain of
// its own, asking you to act through a link to that domain, is
// phishing; a newsletter named after a brand is not.
func TestBrandNameLinkingHome(t *testing.T) {
	checkPhishing(t, model.Address{Name: "Microsoft Teams", Email: "noreply@teams-notify-mail.com"}, "You have 3 unread messages from Priya",
		"Priya sent you messages. Please sign in to read them: https://teams-notify-mail.com/read?u=alex", nil, true)
	m := &model.Message{MessageID: "l@x", From: model.Address{Name: "Lockergnome Apple Core", Email: "subscriptions@lockergnome.example"},
		To: []model.Address{demoPrincipal}, Subject: "[Lockergnome Apple Core] Skip Content", HasBody: true,
		Headers: map[string][]string{"List-Unsubscribe": {"<mailto:leave@lockergnome.example>"}},
		Text:    "This week's tips for your Mac. Please read the full issue: https://lockergnome.example/apple/issue"}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing {
		t.Errorf("a newsletter named after a brand: phishing; signals %v", o.Signals)
	}
}

// Replies diverted to a domain imitating your organisation, a display
// name presenting an outside sender as your mail service, a domain
// presenting itself as a government's, and an ask to follow a link to a
// brand's imitation: each phishing evidence, beside the genuine cases.
func TestMorePhishingEvidence(t *testing.T) {
	spoofed := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=northwind.example; dmarc=fail header.from=northwind.example"}}
	m := &model.Message{MessageID: "v@x", From: model.Address{Name: "Dana Whitfield", Email: "dana.whitfield@northwind.example"},
		ReplyTo: []model.Address{{Email: "dana.whitfield@northwind-exec.com"}}, To: []model.Address{demoPrincipal},
		Subject: "RE: Q4 vendor consolidation", HasBody: true, Headers: spoofed,
		Text: "Alex, please set up the new vendor today and send me the confirmation. Reply to me directly."}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); !o.Result.IsPhishing {
		t.Errorf("spoofed colleague with replies to northwind-exec.com: not phishing; signals %v", o.Signals)
	}
	checkPhishing(t, model.Address{Name: "IT-Service Postmaster", Email: "k.schaefer@stud.hs-weserland.example"}, "Ihr Postfach wurde vorübergehend eingeschränkt",
		"Ihr Postfach wurde eingeschränkt. Bestätigen Sie sofort Ihre Zugangsdaten: https://hs-weserland.example/owa", nil, true)
	auth := map[string][]string{"Authentication-Results": {"mx.northwind.example; dkim=pass header.d=northwind.example; dmarc=pass header.from=northwind.example"}}
	checkPhishing(t, model.Address{Name: "Northwind IT Service Desk", Email: "servicedesk@northwind.example"}, "Postfach-Migration am Samstag",
		"Am Samstag wird Ihr Postfach migriert. Danach melden Sie sich mit Ihren bekannten Zugangsdaten an.", auth, false)
	for host, want := range map[string]bool{"hmrc-gov-uk.info": true, "chorus-pro-gouv.fr.com": true, "tax.service.gov.uk": false,
		"impots.gouv.fr": false, "governance-weekly.example": false} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %v, want %v", host, got, want)
		}
	}
	checkPhishing(t, model.Address{Name: "Marta Lindqvist", Email: "marta.lindqvist@fjordfreight.example"}, "Marta shared \"Rate Card Q1 2027\" with you",
		"Marta shared a file with you. Could you review the rates before Friday? Open: https://fjordfreight-my.sharepoint.com.docview-secure.app/rate-card", nil, true)
}

// Mail "from your own account" that your domain's authentication
// disowns is a stranger's: the extortion it carries is spam in
// quarantine, not your own sent mail; your own authenticated message is
// still yours.
func TestSpoofedSelfIsAStranger(t *testing.T) {
	fail := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=northwind.example; dmarc=fail header.from=northwind.example"}}
	m := &model.Message{MessageID: "s@x", From: demoPrincipal, To: []model.Address{demoPrincipal}, Subject: "Your account has been hacked - payment required",
		HasBody: true, Headers: fail, Text: "As you may have noticed, I sent you this email from your own account. I have full access to your device. " +
			"I recorded you through your webcam while you visited an adult website. Pay 1,500 USD in Bitcoin to the wallet below within 48 hours."}
	o := Deterministic([]*model.Message{m}, demoPrincipal)
	if !o.Result.IsSpam || o.Result.IsPhishing || o.Result.Category != contract.CategoryLowPriority {
		t.Errorf("spoofed self: spam %v phishing %v %s, want spam, not phishing, low priority; signals %v", o.Result.IsSpam, o.Result.IsPhishing, o.Result.Category, o.Signals)
	}
	m.Headers = nil
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsSpam || o.Result.Category != contract.CategoryInformational {
		t.Errorf("the principal's own message: spam %v %s, want informational", o.Result.IsSpam, o.Result.Category)
	}
}

// An account or a mailbox said to be switched off, in each language,
// is a lure; a sender imitating your organisation whose subject tells you
// what to do ("Confirm your direct deposit details…") asks as much as
// its text would.
func TestDeactivationAndImperativeLookalike(t *testing.T) {
	fail := func(d string) map[string][]string {
		return map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=" + d}}
	}
	for _, tt := range []struct{ from, subject, body string }{
		{"soporte@correo-verificacion.example", "Su cuenta de correo sera desactivada hoy", "Su cuenta de correo será desactivada hoy. Acceda aquí para mantenerla activa: https://correo-verificacion.example/activar"},
		{"support@mail-check.example", "Your mailbox will be deactivated today", "Your mailbox will be deactivated today. Keep it active here: https://mail-check.example/keep"},
		{"service@postfach-pruefung.example", "Ihr Postfach wird deaktiviert", "Ihr Postfach wird heute deaktiviert. Hier aktiv halten: https://postfach-pruefung.example/aktiv"},
	} {
		checkPhishing(t, model.Address{Name: "Soporte", Email: tt.from}, tt.subject, tt.body, fail(domainOf(tt.from)), true)
	}
	checkPhishing(t, model.Address{Name: "Northwind Payroll", Email: "payroll@northwind-hr.com"}, "Confirm your direct deposit details before the 25 November payroll run",
		"Our payroll provider has changed. The portal is at https://portal.northwind-hr.com/deposit", nil, true)
}
