package triage

import (
	"strings"
	"testing"
	"time"

	"mailsift/model"
)

// A stranger asking for a copy of an identity document together with an
// identity number, a bank account, a selfie or a fee is identity theft:
// phishing, in each language. A colleague's onboarding mail asking the
// same, a document alone, and a lottery scam's ask (spam) are not.
func TestIdentityTheftAsk(t *testing.T) {
	stranger := model.Address{Name: "Onboarding Team", Email: "onboarding@meridian-careers.net"}
	for _, tt := range []struct {
		from model.Address
		text string
		want bool
	}{
		{stranger, "Hi Alex,\n\nto finalise your contract please upload a scan of your passport and your social security number at https://meridian-careers.net/start today.\n\nRegards", true},
		{stranger, "Hola Alex:\n\nsube una foto de tu DNI por ambas caras y un selfie sosteniéndolo en https://meridian-careers.net/alta para completar tu alta.\n\nSaludos", true},
		{stranger, "Bonjour,\n\nmerci de nous transmettre une copie de votre pièce d'identité et votre RIB via https://meridian-careers.net/dossier avant vendredi.\n\nCordialement", true},
		{stranger, "Guten Tag,\n\nbitte laden Sie eine Kopie Ihres Reisepasses hoch und bezahlen Sie die verification fee von 40 EUR: https://meridian-careers.net/check\n\nMit freundlichen Grüßen", true},
		{stranger, "Hi Alex,\n\nplease bring your passport to the visitor desk on Thursday; the building needs it for your badge.\n\nThanks", false},
		{model.Address{Name: "Priya Shah", Email: "priya.shah@northwind.example"},
			"Hi Alex,\n\nfor your new starter's first day, please remind them to bring their passport and the bank account details for payroll.\n\nThanks, Priya", false},
	} {
		m := &model.Message{MessageID: "id@x", From: tt.from, To: []model.Address{demoPrincipal}, Subject: "Next step", Text: tt.text, HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.want {
			t.Errorf("%.40q from %s: phishing %v, want %v; signals %v", tt.text, tt.from.Email, o.Result.IsPhishing, tt.want, o.Signals)
		}
	}
	lottery := "Congratulations! You have won 850,000 EUR in the international email lottery. To claim your prize send a copy of your passport and your bank account number."
	if signalOf(model.Address{Email: "claims@lotto-intl.example"}, "Winner notification", lottery, SigCredentialRequest) &&
		Deterministic([]*model.Message{{MessageID: "l@x", From: model.Address{Email: "claims@lotto-intl.example"}, To: []model.Address{demoPrincipal},
			Subject: "Winner notification", Text: lottery, HasBody: true}}, demoPrincipal).Result.IsPhishing {
		t.Errorf("a lottery scam's identity ask is phishing, want spam only")
	}
}

// Your own organisation's monitor sending a failure or a firing alert to a
// team's address, or to the team's own list of your organisation, is the
// team's live problem: urgent in production, without the reader in Cc.
// A list of another domain's, and a report that all is well, are not.
func TestOrgMonitorToTeam(t *testing.T) {
	team := model.Address{Email: "platform-reliability@northwind.example"}
	bulk := map[string][]string{"Auto-Submitted": {"auto-generated"}, "Precedence": {"bulk"}}
	list := func(id string) map[string][]string {
		return map[string][]string{"Auto-Submitted": {"auto-generated"}, "Precedence": {"bulk"}, "List-Id": {"Alerts <" + id + ">"}}
	}
	for _, tt := range []struct {
		subject string
		hdr     map[string][]string
		want    string
	}{
		{"[FAILED] payments-db-prod nightly snapshot - 2nd consecutive failure", bulk, "urgent"},
		{"[FIRING:1] CertificateRenewalFailing api.northwind.example (prod critical)", list("platform-alerts.northwind.example"), "urgent"},
		{"[FIRING:1] CertificateRenewalFailing api.northwind.example (prod critical)", list("alerts.monitoring-vendor.example"), "low priority"},
		{"Weekly backup report: all 41 jobs succeeded", bulk, "low priority"},
	} {
		m := &model.Message{MessageID: "mon@x", From: model.Address{Name: "Monitor", Email: "monitor@northwind.example"},
			To: []model.Address{team}, Subject: tt.subject, Text: "Job: see subject\nRunbook: https://wiki.northwind.example/rb", HasBody: true, Headers: tt.hdr}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != tt.want {
			t.Errorf("%q (%v): %s, want %s; signals %v", tt.subject, tt.hdr["List-Id"], o.Result.Category, tt.want, o.Signals)
		}
	}
}

// A brand named by a common word is also imitated by its own longer
// domain's name as a word of a hyphenated domain.
func TestWordBrandLongDomainLookalike(t *testing.T) {
	checkLookalikes(t, map[string]bool{
		"concursolutions-mail.com": true, "concursolutions.com": false, "concursolutionsgroup.com": false,
	})
}

// A stranger telling you to open a program from an archive locked with a
// password (which keeps mail scanners out) delivers malware: phishing.
// The same program named without the locked archive is not enough.
func TestProgramInLockedArchive(t *testing.T) {
	from := model.Address{Name: "Ravi K", Email: "ravi.k.research@gmail.com"}
	body := "Hello,\n\nI found a vulnerability in your login page. The report is here: https://files.quickshare.example/d/8812/report.zip\n%s\nOpen audit_tool.exe from the archive on a machine in your network to confirm it.\n\nRavi"
	for _, tt := range []struct {
		pw   string
		want bool
	}{{"Password: nw-9921", true}, {"", false}} {
		m := &model.Message{MessageID: "rce@x", From: from, To: []model.Address{demoPrincipal}, Subject: "Vulnerability report",
			Text: strings.Replace(body, "%s", tt.pw, 1), HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.want {
			t.Errorf("password %q: phishing %v, want %v; signals %v", tt.pw, o.Result.IsPhishing, tt.want, o.Signals)
		}
	}
}

// Payroll, HR and recruiting services employees sign in to are brands: a
// hyphenated domain with their name imitates them; their own do not.
func TestHRServiceBrands(t *testing.T) {
	checkLookalikes(t, map[string]bool{
		"moneyforward-nenmatsu.net": true, "bizreach-premium-scout.com": true, "factorialhr-nominas.com": true,
		"smarthr-login.jp": true, "rippling-payroll.com": true, "sterlingcheck-verify.com": true,
		"moneyforward.com": false, "smarthr.jp": false, "factorialhr.es": false, "bizreach.jp": false,
	})
}

// A tracker's notice naming the reader as the assignee ("Assignee: Alex
// Morgan") gives them the issue, and so does an earlier notice of the
// same thread: a later comment on it is not background. The same notices
// for a colleague's issue are.
func TestTrackerAssignee(t *testing.T) {
	jira := model.Address{Name: "Marco Rossi (Jira)", Email: "jira@northwind.atlassian.net"}
	auto := map[string][]string{"Auto-Submitted": {"auto-generated"}}
	notice := func(id, text string) *model.Message {
		return &model.Message{MessageID: id, From: jira, To: []model.Address{demoPrincipal}, Subject: "[JIRA] (SUP-77) Export job times out for large tenants",
			Text: text + "\n\nView issue: https://northwind.atlassian.net/browse/SUP-77\n\nThis message was sent by Atlassian Jira.", HasBody: true, Headers: auto}
	}
	comment := notice("c@x", "Marco Rossi commented on SUP-77\n\nMarco Rossi:\nThe customer confirmed the export of 2.1 GB fails after 30 minutes.")
	comment.InReplyTo = []string{"a@x"}
	for _, tt := range []struct {
		assignee string
		want     bool
	}{{"Alex Morgan", true}, {"Priya Shah", false}} {
		first := notice("a@x", "Marco Rossi created SUP-77\n\nKey: SUP-77\nPriority: Medium\nAssignee: "+tt.assignee+"\nReporter: Marco Rossi")
		for _, thread := range [][]*model.Message{{first}, {first, comment}} {
			o := Deterministic(thread, demoPrincipal)
			if got := o.Result.Category != "low priority"; got != tt.want {
				t.Errorf("assignee %s, %d message(s): %s; signals %v", tt.assignee, len(thread), o.Result.Category, o.Signals)
			}
		}
	}
}

// The reader's own flight or train of today or tomorrow, cancelled, is
// urgent; one of next week, and a training session cancelled tomorrow,
// are not.
func TestOwnTravelCancelled(t *testing.T) {
	sent := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	for subject, want := range map[string]bool{
		"Your flight BA478 on 25 November has been cancelled": true,
		"Ihr Zug ICE 597 am 24.11. fällt aus":                 true,
		"Your flight BA478 on 3 December has been cancelled":  false,
		"Training session on 25 November cancelled":           false,
		"Votre vol AF1234 du 25 nov a été annulé":             true,
	} {
		m := &model.Message{MessageID: "tr@x", From: model.Address{Name: "Airline", Email: "service@mail.airline-example.com"}, To: []model.Address{demoPrincipal},
			Subject: subject, Date: sent, Text: "We are sorry. You can rebook or request a refund in Manage My Booking.", HasBody: true,
			Headers: map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=mail.airline-example.com; dkim=pass header.d=airline-example.com; dmarc=pass header.from=airline-example.com"}}}
		if got := Deterministic([]*model.Message{m}, demoPrincipal).Result.Category == "urgent"; got != want {
			o := Deterministic([]*model.Message{m}, demoPrincipal)
			t.Errorf("%q: urgent %v, want %v; %s %v", subject, got, want, o.Result.Category, o.Signals)
		}
	}
}

// A subject saying the reader's vote is missing, and a Spanish "we need
// each of you to confirm", ask the reader.
func TestVoteMissingAndSpanishNeed(t *testing.T) {
	auto := map[string][]string{"Auto-Submitted": {"auto-generated"}}
	vote := &model.Message{MessageID: "v@x", From: model.Address{Name: "rfc-bot", Email: "rfc-bot@northwind.example"}, To: []model.Address{demoPrincipal},
		Subject: "RFC-0077 \"Split the billing service\": comment period ends Fri 27 Nov - your vote is missing",
		Text:    "Required approvers:\n  [x] tom.becker approve\n  [ ] alex.morgan (no vote)\n\nVote: https://rfc.northwind.example/0077", HasBody: true, Headers: auto}
	dinner := &model.Message{MessageID: "d@x", From: model.Address{Name: "Lucía Fernández", Email: "lucia@congreso-ejemplo.es"},
		To: []model.Address{{Name: "Ponentes", Email: "ponentes@congreso-ejemplo.es"}, demoPrincipal}, Subject: "Cena de ponentes - viernes 27",
		Text: "Hola a todos:\n\nPara hacer la reserva necesitamos que cada uno nos confirme antes del miércoles si asistirá.\n\nUn abrazo,\nLucía", HasBody: true}
	for _, m := range []*model.Message{vote, dinner} {
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.Category != "actionable" {
			t.Errorf("%q: %s, want actionable; signals %v", m.Subject, o.Result.Category, o.Signals)
		}
	}
}

// Marketplaces, shop builders, business banks and postage services of
// online sellers are brands.
func TestSellerServiceBrands(t *testing.T) {
	checkLookalikes(t, map[string]bool{
		"etsy-sellercentre-review.com": true, "pirateship-labels.com": true, "qonto-espace-pro.com": true, "creema-seller-support.com": true,
		"squarespace-billing.net": true, "etsy.com": false, "qonto.com": false, "pirateship.com": false,
	})
}

// More of the diversion's wordings: the usual account said to be out of
// order with payment asked to "the following account", an employee's
// salary moved to a new bank, and an employee telling of their own new
// bank or account in Spanish, French and German.
func TestMoreDiversionWordings(t *testing.T) {
	for _, text := range []string{
		"He cambiado de banco y necesito que la nómina se ingrese en mi nueva cuenta.",
		"J'ai changé de banque, merci de verser mon salaire sur mon nouveau compte.",
		"Ich habe die Bank gewechselt, bitte überweist das Gehalt auf mein neues Konto.",
		"La cuenta que tienen registrada ha quedado temporalmente inoperativa; les rogamos que emitan el pago a la siguiente cuenta: IBAN BE38 9670 1289 4410.",
		"Unser Konto ist vorübergehend gesperrt, bitte überweisen Sie die Rechnung auf folgendes Konto: DE12 5001 0517 0648 4898 90.",
		"I've switched my salary account to a new bank, could you update my details before the payroll is run? Sort code 04-00-04.",
	} {
		if !signalOf(model.Address{Email: "admin@carrier-example.com"}, "Payment", text, SigPaymentDiversion) {
			t.Errorf("%q: no payment diversion", text)
		}
	}
}

// An archive sent with its password beside it, by a stranger, is locked
// only against mail scanners: phishing, linked, attached or named. A
// password said to come separately (how businesses lock archives) is not.
func TestArchiveWithItsPassword(t *testing.T) {
	from := model.Address{Name: "Facturación Logística Norte", Email: "facturas@logistica-norte-ejemplo.es"}
	for _, tt := range []struct {
		text   string
		attach string
		want   bool
	}{
		{"Adjuntamos la factura pendiente. Descárguela aquí: https://logistica-norte-ejemplo.es/d/Factura_1187.zip\nContraseña del archivo: 1187", "", true},
		{"Please find the invoice attached.\nThe password is 4412.", "Invoice_4412.zip", true},
		{"Please find the invoice attached. The password follows in a separate email.", "Invoice_4412.zip", false},
		{"Please find the invoice attached (Invoice_4412.zip).", "", false},
	} {
		m := &model.Message{MessageID: "z@x", From: from, To: []model.Address{demoPrincipal}, Subject: "Factura 1187", Text: tt.text, HasBody: true}
		if tt.attach != "" {
			m.Attachments = []model.Attachment{{Filename: tt.attach, ContentType: "application/zip"}}
		}
		if got := hasSignal(Signals([]*model.Message{m}, demoPrincipal), SigRiskyAttachment); got != tt.want {
			t.Errorf("%.50q (attached %q): risky %v, want %v", tt.text, tt.attach, got, tt.want)
		}
	}
}

// Social-security and health-insurance bodies, and the public
// e-invoicing portal, are imitated like tax offices.
func TestSocialSecurityBrands(t *testing.T) {
	checkLookalikes(t, map[string]bool{
		"urssaf-entreprises-contact.fr": true, "ameli-remboursement.com": true, "seg-social-tramites.com": true, "chorus-pro-factures.fr": true,
		"urssaf.fr": false, "ameli.fr": false, "seg-social.es": false, "chorus-pro.gouv.fr": false,
	})
}

// A stranger asking for discretion about a payment to the bank details
// it gives is CEO or lawyer fraud: phishing. The same payment asked
// openly, and discretion asked without bank details, are not.
func TestSecretPaymentToGivenAccount(t *testing.T) {
	from := model.Address{Name: "Edward Lang", Email: "e.lang@lang-legal-example.com"}
	pay := "The completion deposit of EUR 486,000.00 is to be placed in our escrow account before 15:00 today.\nIBAN: LU28 0019 4006 4475 0000\n"
	secret := "This transaction is strictly confidential and must not be discussed with other members of staff until the announcement.\n"
	for _, tt := range []struct {
		text string
		want bool
	}{{pay + secret, true}, {pay, false}, {"We are preparing the announcement of Project Heron.\n" + secret, false}} {
		m := &model.Message{MessageID: "e@x", From: from, To: []model.Address{demoPrincipal}, Subject: "Project Heron", Text: "Dear Mr Morgan,\n\n" + tt.text + "\nYours sincerely,\nEdward Lang", HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.want {
			t.Errorf("%.60q: phishing %v, want %v; signals %v", tt.text, o.Result.IsPhishing, tt.want, o.Signals)
		}
	}
}

// A link imitating a file-sharing service, in mail that is not the
// service's, leads to the lure: phishing. The service's real link is not.
func TestFileShareImitationLink(t *testing.T) {
	from := model.Address{Name: "Marta Ibáñez", Email: "pedidos@tienda-ejemplo.es"}
	for link, want := range map[string]bool{
		"https://wetransfer-download.tienda-ejemplo-files.com/downloads/8a7c2e1f": true,
		"https://we.tl/t-8a7c2e1f": false,
	} {
		m := &model.Message{MessageID: "w@x", From: from, To: []model.Address{demoPrincipal}, Subject: "Pedido mayorista",
			Text: "Hola,\n\nle hemos enviado nuestro pedido por WeTransfer:\n" + link + "\n\nUn saludo,\nMarta", HasBody: true}
		if got := hasSignal(Signals([]*model.Message{m}, demoPrincipal), SigNoticeLure); got != want {
			t.Errorf("%s: lure %v, want %v", link, got, want)
		}
	}
}

// "Will be suspended" threatens the account like "will be deactivated",
// in each language.
func TestSuspensionThreat(t *testing.T) {
	for _, text := range []string{
		"If payment is not received within 48 hours, your services will be suspended.",
		"Ihr Konto wird gesperrt, falls keine Zahlung eingeht.",
		"Sans paiement, votre compte sera suspendu.",
		"Si no recibimos el pago, su cuenta será suspendida.",
	} {
		if !signalOf(model.Address{Email: "billing@cloud-example.com"}, "Payment declined", text, SigCredentialRequest) {
			t.Errorf("%q: no credential request", text)
		}
	}
}

// A loan offer asking for an identity document and a bank account is the
// advance-fee scam: spam, not phishing (as a lottery's is).
func TestLoanScamIdentityAskIsSpam(t *testing.T) {
	m := &model.Message{MessageID: "k@x", From: model.Address{Name: "Sofortkredit Service", Email: "info@sofortkredit-ejemplo.de"}, To: []model.Address{demoPrincipal},
		Subject: "Ihr Kredit über 25.000 EUR ist genehmigt", Text: "Sehr geehrter Kunde,\n\nIhr Kredit ohne Schufa ist genehmigt. Senden Sie uns eine Kopie Ihres Personalausweises und Ihre Kontonummer für die Auszahlung.\n\nMit freundlichen Grüßen", HasBody: true}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing {
		t.Errorf("loan scam: phishing, want spam only; signals %v", o.Signals)
	}
}

// A service's own notice that it stopped the reader's account, card or
// sending is a live problem of theirs: urgent. Planned maintenance that
// suspends a service is not.
func TestServiceStoppedYourAccount(t *testing.T) {
	auth := map[string][]string{"Auto-Submitted": {"auto-generated"},
		"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=mailer-example.com; dkim=pass header.d=mailer-example.com; dmarc=pass header.from=mailer-example.com"}}
	for subject, want := range map[string]bool{
		"Sending temporarily suspended on your account (Northwind Marketing)": true,
		"We've temporarily blocked your card":                                 true,
		"Planned maintenance: sending suspended Saturday 02:00-04:00 UTC":     false,
	} {
		m := &model.Message{MessageID: "s@x", From: model.Address{Name: "Mailer Compliance", Email: "compliance@mailer-example.com"}, To: []model.Address{demoPrincipal},
			Subject: subject, Text: "Hello Alex,\n\nsee the subject. Details are in your dashboard.\n\nThe Mailer Team", HasBody: true, Headers: auth}
		if got := Deterministic([]*model.Message{m}, demoPrincipal).Result.Category == "urgent"; got != want {
			t.Errorf("%q: urgent %v, want %v", subject, got, want)
		}
	}
}

// "Black Friday" and "Cyber Monday" name shopping events, not another
// day: an ask due at an hour beside them is due today.
func TestShoppingEventIsNotAnotherDay(t *testing.T) {
	sent := time.Date(2026, 11, 24, 11, 52, 0, 0, time.UTC) // a Tuesday
	for text, want := range map[string]string{
		"Alex, the review got moved up. Could you send me the headroom numbers (and what the Black Friday peak looks like) by 15:00?": "urgent",
		"Alex, could you send me the headroom numbers by 15:00 on Friday?":                                                            "actionable",
	} {
		m := &model.Message{MessageID: "b@x", From: model.Address{Name: "Dana Whitfield", Email: "dana.whitfield@northwind.example"}, To: []model.Address{demoPrincipal},
			Subject: "headroom numbers", Date: sent, Text: text + "\n\nD.", HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != want {
			t.Errorf("%.60q: %s, want %s; signals %v", text, o.Result.Category, want, o.Signals)
		}
	}
}

// checkLookalikes checks lookalike on each host against whether it should
// imitate a protected name.
func checkLookalikes(t *testing.T, hosts map[string]bool) {
	t.Helper()
	for host, want := range hosts {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %v, want %v", host, got, want)
		}
	}
}
