package triage

import (
	"testing"

	"mailsift/model"
)

// A sender imitating a brand or the reader's organisation that links to
// its own domain is phishing whatever words its button uses (no "please",
// no "verify your account"); the same sender through a mailing list is
// left to the other evidence.
func TestImitationLinkingHomeIsLure(t *testing.T) {
	checkPhishing(t, model.Address{Name: "Hacienda", Email: "avisos@agenciatributaria-reembolsos.com"}, "Reembolso disponible: 212,40 €",
		"Su reembolso de 212,40 € está disponible.\n\nAcceso al reembolso: https://agenciatributaria-reembolsos.com/acceso?r=7731", nil, true)
	checkPhishing(t, model.Address{Name: "Voice Mail", Email: "vm@northwind-voicebox.com"}, "New voice message (0:32)",
		"You have a new voice message from +1 555 0134.\n\nListen: https://northwind-voicebox.com/play?id=8812", nil, true)
	checkPhishing(t, model.Address{Name: "Hacienda", Email: "avisos@agenciatributaria-reembolsos.com"}, "Boletín de noviembre",
		"Novedades del mes en https://agenciatributaria-reembolsos.com/boletin",
		map[string][]string{"List-Unsubscribe": {"<https://agenciatributaria-reembolsos.com/baja>"}, "List-Id": {"<boletin.agenciatributaria-reembolsos.com>"}}, false)
}

// A domain imitating a correspondent's by adding a word or its own
// country code to the name (haulfleet-billing.com, haulfleet-nl.com for
// haulfleet.nl) or by one letter once hyphens are dropped is a lookalike,
// and one that asks is phishing without payment wording: in the thread, in
// a quoted earlier message, or among the domains the user writes to. Mail
// from the reader's own name with a word added (northwind-benefits) is
// judged as an imitation of the reader's domain, not of a correspondent.
func TestCorrespondentComboLookalike(t *testing.T) {
	first := &model.Message{MessageID: "h1@x", From: model.Address{Name: "Ines Vos", Email: "ines.vos@haulfleet.nl"}, To: []model.Address{demoPrincipal},
		Subject: "Invoice HF-2291 (October)", Text: "Hi Alex, invoice HF-2291 for October is attached. Due 30 November.", HasBody: true}
	follow := func(from, quoted string) *model.Message {
		text := "Hi Alex, following up on HF-2291: could you let me know when it will be remitted? Our account on file is being closed at year end, so we will share the account that applies now."
		if quoted != "" {
			text += "\n\n> From: Ines Vos <ines.vos@" + quoted + ">\n> Sent: 12 November 2026\n> Invoice HF-2291 for October is attached."
		}
		return &model.Message{MessageID: "h2-" + from + "@x", From: model.Address{Name: "Ines Vos", Email: from}, To: []model.Address{demoPrincipal},
			Subject: "RE: Invoice HF-2291 (October)", Text: text, HasBody: true}
	}
	a := NewAnalyzer(nil)
	for _, tt := range []struct {
		name    string
		msgs    []*model.Message
		senders Senders
		phish   bool
	}{
		{"country code added", []*model.Message{first, follow("ines.vos@haulfleet-nl.com", "")}, nil, true},
		{"word added", []*model.Message{first, follow("ines.vos@haulfleet-billing.com", "")}, nil, true},
		{"hyphen and a letter", []*model.Message{first, follow("ines.vos@haul-fleel.nl", "")}, nil, true},
		{"quoted only", []*model.Message{follow("ines.vos@haulfleet-nl.com", "haulfleet.nl")}, nil, true},
		{"written to", []*model.Message{follow("ines.vos@haulfleet-nl.com", "")}, writtenSenders{fakeSenders{}, []string{"haulfleet.nl"}}, true},
		{"the correspondent", []*model.Message{first, follow("ines.vos@haulfleet.nl", "")}, nil, false},
		{"quoted, the correspondent", []*model.Message{follow("ines.vos@haulfleet.nl", "haulfleet.nl")}, nil, false},
		{"own name with a word", []*model.Message{{MessageID: "b@x", From: model.Address{Name: "Benefits", Email: "benefits@northwind-benefits.example"},
			To: []model.Address{demoPrincipal}, Subject: "Your elections are confirmed", Text: "Your 2027 elections are confirmed. Details: https://benefits-portal.example/elections", HasBody: true,
			Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}}, writtenSenders{fakeSenders{}, []string{"northwind.example"}}, false},
	} {
		o, _ := a.deterministic(tt.msgs, demoPrincipal, tt.senders)
		if o.Result.IsPhishing != tt.phish || tt.phish && !hasSignal(o.Signals, SigLookalikeDomain) {
			t.Errorf("%s: phishing %v, want %v; signals %v", tt.name, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// The ask to verify an identity or update an account's details is found
// in each language's polite forms, and in Japanese; a customer telling
// how they sign in is no such ask.
func TestCredentialAskForms(t *testing.T) {
	for text, want := range map[string]bool{
		"Pour continuer, vérifiez votre compte avant vendredi.":                                        true,
		"Para continuar, verifique su identidad en nuestro portal.":                                    true,
		"Bitte bestätigen Sie Ihre Identität über den folgenden Link.":                                 true,
		"以下のリンクから登録情報を更新してください。":                                                                       true,
		"お客様のアカウントが停止されました。本人確認をお願いします。":                                                               true,
		"昨日からログインして配車画面を開くとエラーになります。ご確認いただけますか。":                                                       false,
		"Depuis ce matin, quand je me connecte, le tableau de bord reste vide. Pouvez-vous regarder ?": false,
	} {
		m := &model.Message{MessageID: "c@x", From: model.Address{Email: "someone@partner.example"}, To: []model.Address{demoPrincipal},
			Subject: "x", Text: text, HasBody: true}
		if got := hasSignal(Deterministic([]*model.Message{m}, demoPrincipal).Signals, SigCredentialRequest); got != want {
			t.Errorf("%q: credential ask %v, want %v", text, got, want)
		}
	}
}

// A file-sharing service's notice of a document about money or pay
// shared from a free-mail account the reader never wrote to is
// phishing, in each language; the same share from a colleague's account,
// a share of another document, and a sharer the reader writes to are not.
func TestShareLure(t *testing.T) {
	share := func(subject, replyTo string) *model.Message {
		return &model.Message{MessageID: subject + replyTo + "@x", From: model.Address{Name: "Drive", Email: "drive-shares-noreply@google.com"},
			ReplyTo: []model.Address{{Email: replyTo}}, To: []model.Address{demoPrincipal}, Subject: subject,
			Text: "A file has been shared with you.\n\nOpen: https://docs.google.com/spreadsheets/d/1x/edit", HasBody: true,
			Headers: map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=google.com; dkim=pass header.d=google.com; dmarc=pass header.from=google.com"}}}
	}
	a := NewAnalyzer(nil)
	for _, tt := range []struct {
		m       *model.Message
		senders Senders
		phish   bool
	}{
		{share(`Spreadsheet shared with you: "Bonus allocation 2027"`, "hr.office.payouts@gmail.com"), nil, true},
		{share(`« Rémunération 2027 » a été partagé avec vous`, "rh.paie.service@outlook.com"), nil, true},
		{share(`Rechnung 2026-118 wurde mit Ihnen geteilt`, "buchhaltung.zentrale@gmx.de"), nil, true},
		{share(`Spreadsheet shared with you: "Bonus allocation 2027"`, "mei.ito@northwind.example"), nil, false},
		{share(`Document shared with you: "Offsite photos"`, "hr.office.payouts@gmail.com"), nil, false},
		{share(`Document shared with you: "Wireframes v3 (primer)"`, "studio.freelance@gmail.com"), nil, false},
		{share(`Spreadsheet shared with you: "Invoice tracker"`, "kim.freelance@gmail.com"), familiarOnly{"kim.freelance@gmail.com"}, false},
	} {
		o, _ := a.deterministic([]*model.Message{tt.m}, demoPrincipal, tt.senders)
		if o.Result.IsPhishing != tt.phish {
			t.Errorf("%q from %s: phishing %v, want %v; signals %v", tt.m.Subject, tt.m.ReplyTo[0].Email, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// familiarOnly says the user wrote to the addresses it holds.
type familiarOnly []string

func (f familiarOnly) Familiar(addr string) (written, read int) {
	for _, x := range f {
		if x == addr {
			return 1, 0
		}
	}
	return 0, 0
}

func (familiarOnly) ListRead(string) int { return 0 }

// An investment scam's deposit is its own offer's, as a windfall's fee
// is: spam, not phishing, even from a domain failing its own DMARC; the
// French "arbitrage" of a business decision is no such offer.
func TestInvestmentScamIsSpamNotPhishing(t *testing.T) {
	fail := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=softfail smtp.mailfrom=yieldhouse.example; dmarc=fail header.from=yieldhouse.example"}}
	for subject, body := range map[string]string{
		"Alex, your seat in our AI trading desk":   "Our members earned 9.4 % last month with guaranteed returns. Reserve your seat with a bank transfer of EUR 2,500 before Friday.",
		"Placement garanti 7 % par an":             "Un placement garanti réservé aux cadres : rendement garanti de 7 % par an. Virement bancaire de 10 000 EUR pour réserver votre part.",
		"Rentabilidad garantizada del 6 % mensual": "Rentabilidad garantizada con nuestro fondo. Envíe una transferencia bancaria de 1.000 € para empezar.",
	} {
		m := &model.Message{MessageID: subject + "@x", From: model.Address{Name: "Yield House", Email: "desk@yieldhouse.example"},
			To: []model.Address{demoPrincipal}, Subject: subject, Text: body, HasBody: true, Headers: fail}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); !o.Result.IsSpam || o.Result.IsPhishing {
			t.Errorf("%q: spam %v phishing %v, want spam and no phishing; signals %v", subject, o.Result.IsSpam, o.Result.IsPhishing, o.Signals)
		}
	}
	m := &model.Message{MessageID: "arb@x", From: model.Address{Name: "Claire Dubois", Email: "claire.dubois@northwind.example"},
		To: []model.Address{demoPrincipal}, Subject: "Revue des remontées clients : arbitrage des priorités",
		Text: "Bonjour Alex, jeudi nous faisons l'arbitrage des priorités du trimestre. Peux-tu apporter tes trois sujets ?", HasBody: true}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsSpam || hasSignal(o.Signals, SigSpamPhrase) {
		t.Errorf("a business arbitrage: spam %v; signals %v", o.Result.IsSpam, o.Signals)
	}
}

// A colleague's authenticated mail about a supplier's changed bank
// details relays the request for checking: not phishing. The same words
// from the supplier's side, or from the colleague's address failing the
// organisation's DMARC, are.
func TestColleagueRelaysDiversion(t *testing.T) {
	text := "Hi Alex, AP got a message asking us to pay invoice 4471 (EUR 12,300) to their new bank details at a bank in Lithuania. Could you call their finance contact on the number you know and confirm before tomorrow's run?"
	auth := func(d, verdict string) map[string][]string {
		return map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=" + verdict + " smtp.mailfrom=" + d + "; dmarc=" + verdict + " header.from=" + d}}
	}
	for _, tt := range []struct {
		from  string
		hdr   map[string][]string
		phish bool
	}{
		{"ap.lead@northwind.example", auth("northwind.example", "pass"), false},
		{"ap.lead@northwind.example", auth("northwind.example", "fail"), true},
		{"billing@supplier-invoices.example", nil, true},
	} {
		checkPhishing(t, model.Address{Name: "Accounts", Email: tt.from}, "Invoice 4471 - new bank details", text, tt.hdr, tt.phish)
	}
}

// A voicemail or fax notice from an unknown domain that links to the
// message is phishing, in each language; a telephony brand's own notice,
// one that attaches the recording, and your own phone system's are not.
func TestVoicemailNoticeLure(t *testing.T) {
	notice := func(from, subject string, att []model.Attachment) *model.Message {
		return &model.Message{MessageID: from + subject + "@x", From: model.Address{Name: "Voice", Email: from}, To: []model.Address{demoPrincipal},
			Subject: subject, Text: "You have a new message (0:41).\n\nPlay: https://" + domainOf(from) + "/vm/play?id=5531", HasBody: true, Attachments: att}
	}
	for _, tt := range []struct {
		m     *model.Message
		phish bool
	}{
		{notice("vm@phone-inbox-center.com", "New voicemail from +44 20 7946 0113 (0:41)", nil), true},
		{notice("fax@docs-faxline.net", "Fax message from +49 40 555 0199 - 2 pages", nil), true},
		{notice("notify@sprachbox-dienst.de", "Neue Sprachnachricht von +49 30 555 0111", nil), true},
		{notice("notify@ringcentral.com", "New Voice Message from +44 20 7946 0113", nil), false},
		{notice("vm@phone-inbox-center.com", "New voicemail from +44 20 7946 0113 (0:41)", []model.Attachment{{Filename: "vm.wav", ContentType: "audio/wav"}}), false},
		{notice("pbx@northwind.example", "New voicemail from +44 20 7946 0113 (0:41)", nil), false},
	} {
		if o := Deterministic([]*model.Message{tt.m}, demoPrincipal); o.Result.IsPhishing != tt.phish {
			t.Errorf("%q from %s: phishing %v, want %v; signals %v", tt.m.Subject, tt.m.From.Email, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// A Japanese bank-change announced in the subject, asking the payment to
// go elsewhere, is a diversion; asking not to be called back on it is
// discretion asked (secrecy); card, expense and travel brands are
// imitated as others are.
func TestDiversionSubjectAndNoCallBack(t *testing.T) {
	checkPhishing(t, model.Address{Name: "経理部", Email: "keiri@yamabuki-sys.example"}, "【重要】振込先口座変更のお知らせ",
		"いつもお世話になっております。今月分のご請求につきまして、お支払いは下記の口座へお振込みいただけますようお願いいたします。\n\n銀行名：みなと銀行\n口座番号：1234567", nil, true)
	m := &model.Message{MessageID: "nc@x", From: model.Address{Name: "Accounts", Email: "accounts@supplier.example"}, To: []model.Address{demoPrincipal},
		Subject: "Invoice 2291", Text: "Hi Alex, the payment details are in the attached letter. Please do not call our office about it, reply here instead.", HasBody: true}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); !hasSignal(o.Signals, SigSecrecy) {
		t.Errorf("no call-back asked: no secrecy signal; signals %v", o.Signals)
	}
	for host, want := range map[string]bool{"welcome.aexp-corporatecard.com": true, "expensify-mail.net": true, "navan-tripsupport.com": true, "expensify.com": false, "aexp.com": false} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %v, want %v", host, got, want)
		}
	}
}

// Mail in a colleague's name that the organisation's DMARC disowns, whose
// replies go to another domain, asking whether you are available, is the
// opening of a fraud: phishing. The same colleague's authenticated
// question is not, nor the spoofed one without a reply diversion.
func TestSpoofedColleagueDivertsReplies(t *testing.T) {
	auth := func(verdict string) map[string][]string {
		return map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=" + verdict + " smtp.mailfrom=northwind.example; dmarc=" + verdict + " header.from=northwind.example"}}
	}
	for _, tt := range []struct {
		verdict string
		replyTo string
		phish   bool
	}{
		{"fail", "dana.whitfield.office@gmail.com", true},
		{"fail", "", false},
		{"pass", "", false},
	} {
		m := &model.Message{MessageID: tt.verdict + tt.replyTo + "@x", From: model.Address{Name: "Dana Whitfield", Email: "dana.whitfield@northwind.example"},
			To: []model.Address{demoPrincipal}, Subject: "are you available", Text: "Alex, are you available? I need something handled right now.", HasBody: true, Headers: auth(tt.verdict)}
		if tt.replyTo != "" {
			m.ReplyTo = []model.Address{{Email: tt.replyTo}}
		}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.phish {
			t.Errorf("dmarc=%s reply-to %q: phishing %v, want %v; signals %v", tt.verdict, tt.replyTo, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// Registrars, hosts, cloud marketplaces and app stores are imitated as
// other brands are: a short name (aws) as a word of a hyphenated domain.
func TestRegistrarAndMarketplaceLookalikes(t *testing.T) {
	for host, want := range map[string]bool{
		"gandi-renouvellement.com": true, "renewals.gandi-billing.net": true, "ionos-vertrag.de": true,
		"aws-marketplace-payouts.com": true, "appstoreconnect-payments.net": true,
		"gandi.net": false, "aws.amazon.com": false, "laws-firm.com": false, "ionos.de": false,
	} {
		if _, got := lookalike(host, "northwind.example"); got != want {
			t.Errorf("lookalike(%s) = %v, want %v", host, got, want)
		}
	}
}

// An IT-role name counts as a word of the display name: "Sofortkredit
// Service" holds "it service" inside a word and is no IT service.
func TestITRoleNameIsAWord(t *testing.T) {
	for name, want := range map[string]bool{"IT Service Desk": true, "Postmaster": true, "Sofortkredit Service": false, "Edit Support Team": false} {
		m := &model.Message{MessageID: name + "@x", From: model.Address{Name: name, Email: "info@outside-sender.example"}, To: []model.Address{demoPrincipal},
			Subject: "Hello", Text: "Hello Alex.", HasBody: true}
		if got := hasSignal(Deterministic([]*model.Message{m}, demoPrincipal).Signals, SigDisplayNameSpoof); got != want {
			t.Errorf("%q: IT-role spoof %v, want %v", name, got, want)
		}
	}
}

// Replies diverted to a domain imitating the sender's own (a word added
// to a hyphenated name, one letter off) are phishing evidence enough with
// a payment asked; replies to the sender's own other country domain, or
// to an unrelated service, are only a mismatch.
func TestReplyToImitatesSender(t *testing.T) {
	for _, tt := range []struct {
		replyTo string
		phish   bool
	}{
		{"m.ito@kita-denki-co.example", true},
		{"m.ito@klta-denki.example", true},
		{"m.ito@kita-denki.jp", false},
		{"m.ito@helpdesk-tickets.example", false},
	} {
		m := &model.Message{MessageID: tt.replyTo + "@x", From: model.Address{Name: "Ito", Email: "m.ito@kita-denki.example"}, ReplyTo: []model.Address{{Email: tt.replyTo}},
			To: []model.Address{demoPrincipal}, Subject: "Re: invoice 1182", Text: "Hello Alex, could you confirm when invoice 1182 will be paid? Please reply to this address.", HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.phish {
			t.Errorf("reply-to %s: phishing %v, want %v; signals %v", tt.replyTo, o.Result.IsPhishing, tt.phish, o.Signals)
		}
	}
}

// Writes blocked or nothing left since an hour of today, and an incident
// call the reader is asked to join, are live problems: urgent. The same
// words looking back, or counting since another day, are not.
func TestBlockedSinceAndBridge(t *testing.T) {
	for _, tt := range []categoryCase{
		{"marc@northwind.example", "Prod EU : la migration 0147 bloque les écritures depuis 15h40", "Marc ici. On a besoin de ton avis sur le rollback.", nil, false, "urgent"},
		{"chloe@northwind.example", "Plus de tournées sur les terminaux depuis 13h", "Les chauffeurs de Lyon n'ont rien reçu. Tu peux regarder ?", nil, false, "urgent"},
		{"lea@northwind.example", "Depot board can't assign tours - need you on the bridge", "Support has three customers on the phone. Can you join?", nil, false, "urgent"},
		{"lea@northwind.example", "Post-mortem: war room notes from the 12 November outage", "Notes attached for Thursday's review.", nil, false, "informational"},
		{"events@northwind.example", "Plus de 200 inscrits depuis lundi pour le meetup", "Merci à tous pour la diffusion !", nil, false, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// A tool relaying someone's ask of the reader in its subject ("asked you
// for feedback", "requested your review", "te ha pedido") hands them a
// task; the same tool reporting what was done does not.
func TestToolRelaysAsk(t *testing.T) {
	for _, tt := range []categoryCase{
		{"notifications@reviews.example", "Tariq Hassan asked you for feedback", "Tariq Hassan asked you for feedback on the Q4 route-planning work.", nil, true, "actionable"},
		{"notifications@git.example", "Jonas Weber requested your review on #4821", "Jonas Weber requested your review on ETA cache per customer.", nil, true, "actionable"},
		{"notificaciones@rrhh.example", "Rafael Gómez te ha pedido aprobar sus vacaciones", "Rafael Gómez te ha pedido aprobar del 21/12 al 2/1.", nil, true, "actionable"},
		{"notifications@reviews.example", "Tariq Hassan submitted his self-review", "Tariq Hassan submitted his self-review for the 2026 cycle.", nil, true, "informational"},
	} {
		checkCategory(t, tt)
	}
}

// A notice that the reader's own domain expires or must be renewed or
// listed, from a sender that is no registrar's real domain, is phishing
// (in each language); the registrar's own notice, a certificate monitor's
// alert and a subject naming the organisation but not its domain are not.
func TestDomainRenewalLure(t *testing.T) {
	for _, tt := range []struct {
		from, subject string
		phish         bool
	}{
		{"renewals@domain-registry-center.example", "FINAL NOTICE: northwind.example - Domain Service Expiration", true},
		{"avisos@dominios-renovacion.example", "Su dominio northwind.es caduca en 48 horas", true},
		{"support@domain-kanri.example", "【重要】northwind.jp ドメイン有効期限のお知らせ", true},
		{"noreply@gandi.net", "[Gandi] Renewal confirmation: domain northwind.example", false},
		{"alerts@certwatch-service.example", "[CRITICAL] Certificate for api.northwind.example expires in 5h", false},
		{"events@logistics-expo.example", "Northwind: your expo listing registration is confirmed", false},
	} {
		checkPhishing(t, model.Address{Name: "Domains", Email: tt.from}, tt.subject, "Your domain will be suspended. Renew here: https://"+domainOf(tt.from)+"/renew", nil, tt.phish)
	}
}

// A Japanese warning about a fake bank-change request ("偽の請求書を装う",
// "異なる送信元のため支払いを保留") quotes the fraud without asking for it,
// and sextortion's bitcoin demand is its own offer's: neither is phishing.
func TestJapaneseFraudWarningAndSextortion(t *testing.T) {
	checkPhishing(t, model.Address{Name: "松本", Email: "r.matsumoto@partner-logi.example"}, "【至急確認】貴社名義の振込先変更依頼メールについて",
		"貴社名義で、振込先を新しい口座に変更してほしいというメールが届きました。通常と異なる送信元のため、弊社では支払いを保留しております。ご確認いただけますでしょうか。", nil, false)
	checkPhishing(t, model.Address{Name: "情報センター", Email: "news@infosec-center.example"}, "偽の請求書を装うメールにご注意を",
		"取引先を装い、振込先口座の変更を依頼する偽のメールが増えています。お支払いの前に電話でご確認ください。", nil, false)
	fail := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=northwind.example; dmarc=fail header.from=northwind.example"}}
	m := &model.Message{MessageID: "sx@x", From: demoPrincipal, To: []model.Address{demoPrincipal}, Subject: "your account has been compromised",
		Text: "I am a hacker who has access to your operating system. Your device was infected with my trojan while you visited adult websites. Transfer 1200 USD to my bitcoin address within 48 hours.", HasBody: true, Headers: fail}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); !o.Result.IsSpam || o.Result.IsPhishing {
		t.Errorf("sextortion: spam %v phishing %v, want spam only; signals %v", o.Result.IsSpam, o.Result.IsPhishing, o.Signals)
	}
}

// A bill in a consumer security brand's name with a number to call, from
// free mail or through a payment service's invoice, is the callback
// scam: phishing. The brand's own mail, and a company writing about the
// product from its own domain, are not.
func TestCallbackLure(t *testing.T) {
	body := "Your annual Norton 360 renewal of $399.99 has been charged to your account. If you did not authorize this payment, call our billing desk at +1 (808) 555-0143 within 24 hours."
	for _, tt := range []struct {
		from  string
		phish bool
	}{
		{"billing.desk7731@gmail.com", true},
		{"service@paypal.com", true},
		{"no-reply@norton.com", false},
		{"sales@it-reseller.example", false},
	} {
		checkPhishing(t, model.Address{Name: "Billing", Email: tt.from}, "Your order has been processed - $399.99", body, nil, tt.phish)
	}
}

// A service's notice to its customer that prices, terms or features
// change is worth knowing, in each language; its marketing through the
// same list is read later.
func TestServiceChangeNotice(t *testing.T) {
	list := map[string][]string{"List-Unsubscribe": {"<https://maps.example/unsub>"}, "Precedence": {"bulk"}}
	for _, tt := range []categoryCase{
		{"no-reply@maps.example", "Upcoming changes to MapCo pricing (effective January 1, 2027)", "From January, map loads above 100k per month are billed at a new rate.", list, true, "informational"},
		{"no-reply@maps.example", "Preisänderung ab 1. Januar 2027", "Ab Januar gelten neue Preise für Kartenaufrufe über 100.000 pro Monat.", list, true, "informational"},
		{"no-reply@maps.example", "料金改定のお知らせ", "2027年1月より、月間10万回を超える地図読み込みの料金が変わります。", list, true, "informational"},
		{"no-reply@maps.example", "New: 3D terrain for your maps - try it free", "Bring your maps to life with 3D terrain. Start your free trial today.", list, true, "low priority"},
	} {
		checkCategory(t, tt)
	}
}

// A predatory journal's call for papers, whose fee is the point, is spam
// even when it greets the reader by name; a colleague's mention of a
// journal submission is not.
func TestPredatoryJournalIsSpam(t *testing.T) {
	m := &model.Message{MessageID: "pj@x", From: model.Address{Name: "Editorial Office", Email: "editor@intl-journal-logistics.example"}, To: []model.Address{demoPrincipal},
		Subject: "Invitation to publish in the International Journal of Fleet Engineering",
		Text:    "Dear Dr. Alex Morgan,\n\nWe came across your esteemed talk and cordially invite you to submit your manuscript. Fast peer review within 7 days. Article processing charge: only USD 149.", HasBody: true}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); !o.Result.IsSpam {
		t.Errorf("predatory journal: not spam; signals %v", o.Signals)
	}
	c := &model.Message{MessageID: "pj2@x", From: model.Address{Name: "Mei", Email: "mei.lin@northwind.example"}, To: []model.Address{demoPrincipal},
		Subject: "Our paper on ETA drift", Text: "Alex, the journal accepted our paper; the publication fee is covered by the research budget. Can you sign the copyright form?", HasBody: true}
	if o := Deterministic([]*model.Message{c}, demoPrincipal); o.Result.IsSpam {
		t.Errorf("a colleague's paper: spam; signals %v", o.Signals)
	}
}

// A stranger's legal threat with a link to its evidence, and a bill for
// renewing or listing the organisation's trademark, are phishing in each
// language; the organisation's counsel writing about a claim, a
// newsletter about a lawsuit and a marketing mail are not.
func TestLegalNoticeLure(t *testing.T) {
	for _, tt := range []struct {
		from, subject, body string
		hdr                 map[string][]string
		phish               bool
	}{
		{"legal@photo-rights-office.example", "Copyright infringement notice - images on northwind.example",
			"Your site uses our photographs without a licence. Evidence: https://sites.google.com/view/evidence-2611", nil, true},
		{"recouvrement@etude-commissaires.example", "MISE EN DEMEURE avant poursuites - Dossier 2026/118",
			"Nous vous mettons en demeure de régler 3 742,18 EUR sous 72 heures. Pièces : https://etude-commissaires.example/dossier/118", nil, true},
		{"rechnung@markenregister-online.example", "Rechnung 2026-118 - Eintragung Marke NORTHWIND ROUTE",
			"Eintragung Ihrer Marke in das Online-Markenregister. Betrag: 1.290,00 €. Bitte überweisen Sie den Betrag innerhalb von 8 Tagen.", nil, true},
		{"olivia.grant@northwind.example", "Copyright infringement notice about our docs - can you check?",
			"We received a takedown notice through our CDN's abuse desk: https://cdn.example/ticket/339120", nil, false},
		{"news@tech-weekly.example", "This week: patent infringement suits against route planners",
			"Read the story: https://tech-weekly.example/2026/11/patents", map[string][]string{"List-Unsubscribe": {"<https://tech-weekly.example/u>"}, "Precedence": {"bulk"}}, false},
		{"offers@ads-partner.example", "Northwind: boost your marketing with our ad credits",
			"Pay EUR 99 for 500 EUR of ad credits: https://ads-partner.example/buy", nil, false},
	} {
		checkPhishing(t, model.Address{Name: "Sender", Email: tt.from}, tt.subject, tt.body, tt.hdr, tt.phish)
	}
}

// A sender presenting itself as an authority (a traffic office, a toll
// operator, health insurance) from a domain of several hyphenated words
// that links to itself and asks for a payment is phishing, in each
// language; the authority's own short domain and a budget newsletter are
// not.
func TestAuthorityLure(t *testing.T) {
	for _, tt := range []struct {
		name, from, subject, body string
		phish                     bool
	}{
		{"DGT - Dirección General de Tráfico", "avisos@dgt-sanciones-pago.example", "Sanción pendiente de pago - expediente 2026/118",
			"Tiene una multa pendiente de 100 €. Pague hoy con un 50 % de descuento: https://dgt-sanciones-pago.example/pago?exp=118", true},
		{"E-ZPass Customer Service", "notice@ezpass-billing-center.example", "Unpaid toll: $6.85 due",
			"Please pay your outstanding toll of $6.85 to avoid a late fee: https://ezpass-billing-center.example/pay", true},
		{"Assurance Maladie", "contact@ameli-remboursement-info.example", "Remboursement en attente",
			"Votre remboursement de 86,40 € attend le paiement des frais de dossier : https://ameli-remboursement-info.example/confirmer", true},
		{"DGT - Dirección General de Tráfico", "avisos@dgt.example", "Sanción pendiente de pago - expediente 2026/118",
			"Tiene una multa pendiente de 100 €. Consulte su expediente: https://dgt.example/sede/118", false},
		{"Budget Planning Team", "news@budget-planning-tools.example", "Plan your 2027 budget faster",
			"Please try our budgeting templates: https://budget-planning-tools.example/templates", false},
	} {
		checkPhishing(t, model.Address{Name: tt.name, Email: tt.from}, tt.subject, tt.body, nil, tt.phish)
	}
}
