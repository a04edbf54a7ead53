package triage

import (
	"testing"

	"mailsift/model"
)

// Money asked to an account other than the usual one under the usual
// cover story (the usual account frozen, audited or migrating; an
// interim or alternative account) is a diversion in each language; an
// invoice asking payment to the account on file is not.
func TestDiversionCoverStories(t *testing.T) {
	from := model.Address{Name: "Accounts", Email: "accounts@fleetparts-supply.example"}
	for _, tt := range []struct {
		subject, body string
		want          bool
	}{
		{"Invoice FP-3301 due 30 November", "Dear customer,\n\nOur main account is frozen for incoming payments during our bank migration. Please pay invoice FP-3301 (EUR 12,400) to our interim account:\nIBAN LT12 1000 0111 0100 1000\n\nRegards", true},
		{"Open invoices", "Dear Alex,\n\nplease settle the two open invoices below to the new account from now on:\nIBAN GB29 NWBK 6016 1331 9268 19\n\nThanks", true},
		{"Factura FP-3301 pendiente de pago", "Estimado cliente:\n\nNuestra cuenta habitual está en revisión. Le rogamos que abone la factura FP-3301 por transferencia a esta cuenta:\nIBAN ES91 2100 0418 4502 0005 1332", true},
		{"Rechnung FP-3301", "Sehr geehrte Damen und Herren,\n\nbitte überweisen Sie den Betrag der Rechnung FP-3301 bis Monatsende auf unser Übergangskonto:\nIBAN DE89 3704 0044 0532 0130 00", true},
		{"Facture FP-3301", "Madame, Monsieur,\n\nmerci de régler la facture FP-3301 sur notre compte provisoire :\nIBAN FR76 3000 6000 0112 3456 7890 189", true},
		{"Invoice FP-3301 due 30 November", "Dear customer,\n\nPlease find invoice FP-3301 (EUR 12,400) attached, payable by 30 November to the account on file.\n\nRegards", false},
	} {
		checkPhishing(t, from, tt.subject, tt.body, nil, tt.want)
	}
}

// The extortion of a recording ("Videos von Ihnen", "sitios para
// adultos") is spam, its bitcoin demand its own: not phishing, in each
// language.
func TestSextortionInOtherLanguages(t *testing.T) {
	for subject, body := range map[string]string{
		"Ihr Konto wurde gehackt":         "Ich habe Videos von Ihnen über Ihre Kamera aufgenommen, als Sie eine Website für Erwachsene besucht haben. Überweisen Sie 1200 EUR in Bitcoin an diese Adresse: bc1qz4lt8ua0x3m7k2ry9wpsn5dg6vhe0cjf2q8tk7",
		"Votre appareil a été piraté":     "J'ai enregistré une vidéo de vous avec votre webcam pendant que vous visitiez des sites pour adultes. Payez 900 EUR en bitcoin : bc1qz4lt8ua0x3m7k2ry9wpsn5dg6vhe0cjf2q8tk7",
		"Tu dispositivo ha sido hackeado": "Grabé un vídeo tuyo con tu cámara web mientras visitabas sitios para adultos. Envía 800 EUR en bitcoin a esta dirección: bc1qz4lt8ua0x3m7k2ry9wpsn5dg6vhe0cjf2q8tk7",
	} {
		m := &model.Message{MessageID: subject + "@x", From: demoPrincipal, To: []model.Address{demoPrincipal}, Subject: subject, Text: body, HasBody: true,
			Headers: map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=fail smtp.mailfrom=northwind.example; dkim=none; dmarc=fail header.from=northwind.example"}}}
		o := Deterministic([]*model.Message{m}, model.Address{Name: "Alex Morgan", Email: "alex@other.example"})
		if o.Result.IsPhishing || !o.Result.IsSpam {
			t.Errorf("%q: phishing %v spam %v, want spam only; signals %v", subject, o.Result.IsPhishing, o.Result.IsSpam, o.Signals)
		}
	}
}

// Carriers, telecoms, exchanges and services phishing borrows are known
// brands: a hyphenated domain in their name imitates them, their own
// domains do not, and a brand named by a common word ("carta") only as a
// word of a hyphenated name.
func TestMoreImitatedBrands(t *testing.T) {
	for host, want := range map[string]bool{
		"royalmail-redelivery-uk.example": true, "movistar-clientes.example": true, "binance-rewards.example": true,
		"teamviewer-abo.example": true, "coupa-approvals.example": true, "carta-shareholders.example": true,
		"unicef-relief-fund.example": true, "wetransfer-files.example": true, "digicert-certcenter.example": true,
		"airfrance-bagages.example": true, "vfsglobal-de.example": true, "docomo-dpoint-club.example": true,
		"bahnbonus-punkte.example": true, "rundfunkbeitrag-zahlung.example": true, "eki-net-jreast.example": true,
		"wetransfer.com": false, "we.tl": false, "digicert.com": false, "bahn.de": false, "eki-net.com": false,
		"distribuciones-iberia.example": false, "securemail-box.example": false, "box-notification-service.example": false, "pypj.example": false, "pypi-verify.example": true, "acrobat-firma-documentos.example": true,
		"royalmail.com": false, "movistar.es": false, "binance.com": false, "teamviewer.com": false, "coupahost.com": false,
		"carta.com": false, "unicef.org": false, "carta.example": false, "cartagena-hotels.example": false,
	} {
		if _, ok := lookalike(host, "northwind.example"); ok != want {
			t.Errorf("lookalike(%q) = %v, want %v", host, ok, want)
		}
	}
}

// A file host in a brand's name as a word of a subdomain label of
// someone else's domain imitates the brand; the brand's own tenant hosts
// do not.
func TestBrandWordInSubdomainLabel(t *testing.T) {
	for host, want := range map[string]bool{
		"atlas-sharepoint.docs-secure-view.example": true,
		"sharepoint-files.review-portal.example":    true,
		"atlas.sharepoint.com":                      false,
		"atlas-files.sharepoint.com":                false,
		"files.review-portal.example":               false,
		"slack-files.review-portal.example":         false, // a common word's brand is imitated only in the registrable name
	} {
		if _, ok := lookalike(host, "northwind.example"); ok != want {
			t.Errorf("lookalike(%q) = %v, want %v", host, ok, want)
		}
	}
}

// A correspondent's domain written with homoglyphs ("rn" for "m") is
// imitated as one a letter off is; a run of a hyphenated name's words
// that is a correspondent's name imitates it.
func TestCorrespondentImitationsWidened(t *testing.T) {
	for _, tt := range []struct {
		label, c string
		want     bool
	}{
		{"telernatix", "telematix", true}, {"telematix", "telematix", false}, {"telemetrix", "telematix", false},
	} {
		if got := imitatesLabel(tt.label, tt.c); got != tt.want {
			t.Errorf("imitatesLabel(%q, %q) = %v, want %v", tt.label, tt.c, got, tt.want)
		}
	}
	a := NewAnalyzer(nil)
	ix := a.newCorrespondentIndex([]string{"brightline-assurance.example", "kestrel.example"})
	for reg, want := range map[string]string{
		"brightline-assurance-docs.example": "brightline-assurance.example",
		"docs-brightline-assurance.example": "brightline-assurance.example",
		"brightline-assurance.example":      "",
		"assurance-docs.example":            "",
	} {
		if got := ix.imitated(reg); got != want {
			t.Errorf("imitated(%q) = %q, want %q", reg, got, want)
		}
	}
	// a partner's mail quoted Outlook-style, answered from a homoglyph of
	// its domain asking to confirm a document: phishing; from the
	// partner's own domain: not
	quoted := "\n\nFrom: Stefan Hoffmann <s.hoffmann@telematix.example>\nSent: Wednesday, 18 November 2026 10:05\nTo: Alex Morgan\nSubject: Q4 order\n\nDear Alex, the Q4 order confirmation follows next week."
	for domain, want := range map[string]bool{"telernatix.example": true, "telematix.example": false} {
		checkPhishing(t, model.Address{Name: "Stefan Hoffmann", Email: "s.hoffmann@" + domain}, "RE: Q4 order",
			"Dear Alex,\n\nplease review and confirm the revised order here: https://"+domain+"/orders/q4\n\nBest regards,\nStefan"+quoted, nil, want)
	}
}

// A free-mail sender whose replies go to another provider's mailbox,
// asking for discretion, is the opening of gift-card fraud: phishing.
// Without the diverted replies, or without the discretion, it is not.
func TestFreeMailRelayWithDiscretion(t *testing.T) {
	body := "Alex,\n\nAre you at your desk? I'm in back to back meetings and can't take calls right now. I need you to handle something for me discreetly today, please don't mention it to the team yet.\n\nMartin"
	plain := "Alex,\n\nhere are the photos from Saturday's hike. Let me know which ones you want printed.\n\nMartin"
	for _, tt := range []struct {
		subject, body, replyTo string
		want                   bool
	}{
		{"Quick favour", body, "martin.h.private@outlook.com", true},
		{"Quick favour", body, "", false},
		{"Hike photos", plain, "martin.h.private@outlook.com", false},
	} {
		m := &model.Message{MessageID: "f@x", From: model.Address{Name: "Martin Holloway", Email: "m.holloway.office@gmail.com"},
			To: []model.Address{demoPrincipal}, Subject: tt.subject, Text: tt.body, HasBody: true}
		if tt.replyTo != "" {
			m.ReplyTo = []model.Address{{Name: "Martin Holloway", Email: tt.replyTo}}
		}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.IsPhishing != tt.want {
			t.Errorf("reply-to %q, body %.20q: phishing %v, want %v; signals %v", tt.replyTo, tt.body, o.Result.IsPhishing, tt.want, o.Signals)
		}
	}
}

// A document said to open only after signing in with the reader's work
// account asks for that password, in each language.
func TestWorkAccountSignInAsk(t *testing.T) {
	for _, text := range []string{
		"You will need to sign in with your Microsoft 365 email to view the secured documents.",
		"To protect the case, access requires verification with your corporate Microsoft 365 account.",
		"Acceda con su correo corporativo para visualizarlo.",
		"Deberá iniciar sesión con su cuenta de correo corporativa.",
		"You will be asked to confirm your corporate email and password before viewing.",
		"Connectez-vous avec votre adresse professionnelle pour consulter le document.",
	} {
		found := signalOf(model.Address{Email: "docs@partner.example"}, "Document", text, SigCredentialRequest)
		if !found {
			t.Errorf("%q: no credential request", text)
		}
	}
}

// An answer or a call asked plainly ("Just tell me which by 16:45",
// "Call me on ext. 4410"), work held until the reader confirms, what a
// team needs from the reader, and "ich hätte gern dein Review" ask the
// reader; a sentence telling of a call does not.
func TestPlainAsks(t *testing.T) {
	for text, want := range map[string]bool{
		"Either fix it in the next hour or take it off the milestone. Just tell me which by 16:45.":   true,
		"Call me on ext. 4410 when you are back at your desk.":                                        true,
		"We'll keep testing paused on the driver API until you confirm a fix.":                        true,
		"Before we can issue the invoice, our finance team needs three things from you.":              true,
		"Hallo Alex, ich hätte gern dein Review für den Umbau des Consumers.":                         true,
		"The call with the carrier went fine and the new rates start in January.":                     false,
		"Tell-tale signs of wear were found on two of the forklifts during the inspection this week.": false,
	} {
		found := signalOf(model.Address{Name: "Nina Petrova", Email: "nina.petrova@northwind.example"}, "Release cut", text, SigRequest)
		if found != want {
			t.Errorf("%q: request %v, want %v", text, found, want)
		}
	}
}

// A known signing or invoicing service's own authenticated mail that
// points replies at its customer's business address is not diverting
// them; replies pointed at free mail still count against it.
func TestBrandServiceReplyToCustomer(t *testing.T) {
	auth := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=docusign.net; dkim=pass header.d=docusign.net; dmarc=pass header.from=docusign.net"}}
	for replyTo, want := range map[string]int{"marta@voltaris-energy.example": 0, "marta.voltaris@gmail.com": 1} {
		m := &model.Message{MessageID: "d@x", From: model.Address{Name: "Marta via Docusign", Email: "dse_na2@docusign.net"},
			ReplyTo: []model.Address{{Email: replyTo}}, To: []model.Address{demoPrincipal}, Subject: "Complete with Docusign: Mutual NDA",
			Text: "Marta sent you a document to review and sign. Could you sign by the end of next week?", HasBody: true, Headers: auth}
		an := NewAnalyzer(nil).analyze([]*model.Message{m}, demoPrincipal, nil)
		if an.suspicious != want {
			t.Errorf("reply-to %s: %d spam indicators, want %d", replyTo, an.suspicious, want)
		}
	}
}

// A draft circulated for comments by a date, and a service's invitation
// into a shared space, wait for the reader: actionable.
func TestCommentsByAndInvitedSubjects(t *testing.T) {
	for subject, from := range map[string]model.Address{
		"Design doc: multi-region writes (v2) - comments by Thu 3 Dec": {Name: "Elena Kovac", Email: "elena.kovac@northwind.example"},
		"Konzept Archivierung: Kommentare bis Freitag":                 {Name: "Lukas Vogel", Email: "lukas.vogel@northwind.example"},
		"Marta Kowalski invited you to the vault \"Audit-Evidence\"":   {Name: "Vault Service", Email: "hello@vault-service.example"},
	} {
		m := &model.Message{MessageID: subject + "@x", From: from, To: []model.Address{demoPrincipal}, Subject: subject,
			Text: "The document is here: https://docs.example/d/42\n\nThanks", HasBody: true}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.Category != "actionable" {
			t.Errorf("%q: %s, want actionable; signals %v", subject, o.Result.Category, o.Signals)
		}
	}
}

// Payroll, HR and benefits services are known brands; the organisation's
// name run together with a department's ("northwindhr-portal") imitates
// it, its own name in another word ("northwindows") does not.
func TestPayrollBrandsAndRoleSuffixedOrg(t *testing.T) {
	for host, want := range map[string]bool{
		"adp-payroll-services.example": true, "myworkday-notifications.example": true, "datev-lohnportal.example": true,
		"payfit-bulletins.example": true, "moncompteformation-droits.example": true,
		"adp.com": false, "myworkday.com": false, "datev.de": false, "payfit.com": false, "moncompteformation.gouv.fr": false,
		"northwindhr-portal.example": true, "northwindit.example": true, "northwindows.example": false, "northwindpark-hotel.example": false,
	} {
		if _, ok := lookalike(host, "northwind.example"); ok != want {
			t.Errorf("lookalike(%q) = %v, want %v", host, ok, want)
		}
	}
}

// A free-mail address signing as an executive and asking for
// discretion is CEO fraud; the same signature without discretion is
// not.
func TestFreeMailSignedAsExecutive(t *testing.T) {
	from := model.Address{Name: "高橋 健一", Email: "k.takahashi.private@gmail.com"}
	checkPhishing(t, from, "至急のお願い", "Alexさん\n\n社外に漏らせない件があり、少人数で連絡を取りたいと考えています。会議中のため電話には出られません。本件は他の方には内密にお願いします。\n\n高橋 健一\n代表取締役", nil, true)
	checkPhishing(t, from, "来週の会食", "Alexさん\n\n来週の会食の件、木曜日でいかがでしょうか。\n\n高橋 健一\n代表取締役", nil, false)
	checkPhishing(t, model.Address{Name: "Martin Holloway", Email: "m.holloway.private@gmail.com"}, "Quick question",
		"Alex,\n\nAre you at your desk? I'm boarding and can't take calls. Keep this between us for now.\n\nMartin Holloway\nCEO", nil, true)
}

// A link downloading a program or a disk image, and a text telling the
// reader to open a program, are risky outside list mail; a software
// newsletter naming its installers is not.
func TestRiskyLinksAndProgramNames(t *testing.T) {
	for u, want := range map[string]string{
		"https://files-share.example/downloads/8f1c2a/Portfolio.iso": "Portfolio.iso",
		"https://files-share.example/get/setup.EXE?x=1":              "setup.EXE",
		"https://www.example.com":                                    "",
		"https://docs.example/report.pdf":                            "",
		"https://shop.example/item.com":                              "",
	} {
		if got := runsFromLink(u); got != want {
			t.Errorf("runsFromLink(%q) = %q, want %q", u, got, want)
		}
	}
	for text, want := range map[string]string{
		"Ouvrez le fichier CV_candidat.exe contenu dans l'archive.": "CV_candidat.exe",
		"We moved to node.js and example.com last year.":            "",
		"Run .exe files only from IT.":                              "",
	} {
		if _, got, _ := fileNames(text); got != want {
			t.Errorf("fileNames(%q) program %q, want %q", text, got, want)
		}
	}
	from := model.Address{Name: "Jordan Reyes", Email: "jordan.reyes.data@gmail.com"}
	body := "Dear Alex,\n\nmy CV and portfolio are too large to attach, please download them here:\nhttps://files-share.example/downloads/8f1c2a/Portfolio.iso\n\nJordan"
	checkPhishing(t, from, "Application - Senior Data Engineer", body, nil, true)
	checkPhishing(t, from, "Application - Senior Data Engineer", body, map[string][]string{"List-Id": {"<jobs.lists.example>"}, "List-Unsubscribe": {"<https://lists.example/u>"}}, false)
}

// Sign-in details asked to be verified again, an account or email
// password, identity numbers: credential asks.
func TestMoreCredentialAsks(t *testing.T) {
	for _, text := range []string{
		"All users must re-verify their login details before statements can be released.",
		"You will need your Northwind email password to confirm.",
		"You will be asked for your National Insurance number and online account password.",
		"Bitte bestätigen Sie Ihre Steuer-ID bis zum 30.11.",
	} {
		found := signalOf(model.Address{Email: "notices@benefits-portal.example"}, "Notice", text, SigCredentialRequest)
		if !found {
			t.Errorf("%q: no credential request", text)
		}
	}
}

// A message in a service's name from another domain that links to the
// service's real authorization page answering to a third domain is
// consent phishing; the service's own mail and a vendor's integration
// link answering to itself from its own domain are not.
func TestConsentLure(t *testing.T) {
	link := func(redirect string) string {
		return "To activate it, an owner must authorize the app:\nhttps://github.com/login/oauth/authorize?client_id=Ov23li&scope=repo%20admin:org&redirect_uri=https://" + redirect + "/callback\n"
	}
	checkPhishing(t, model.Address{Name: "GitHub Advanced Security", Email: "security@gh-secops.example"}, "Your organization was selected for autofix (action needed)", link("gh-secops.example"), nil, true)
	checkPhishing(t, model.Address{Name: "Deploybot", Email: "hello@deploybot.example"}, "Connect GitHub to Deploybot", link("app.deploybot.example"), nil, false)
	checkPhishing(t, model.Address{Name: "GitHub", Email: "noreply@github.com"}, "Authorize the GitHub app", link("github.com"), nil, false)
}

// Free-mail providers' other country domains are free mail: a CEO's
// title in an outlook.jp address asking for discretion is CEO fraud.
func TestFreeMailOtherCountries(t *testing.T) {
	for _, d := range []string{"outlook.jp", "hotmail.co.uk", "msn.com", "me.com", "gmx.com", "free.fr"} {
		if !freeMail(d) {
			t.Errorf("freeMail(%q) = false", d)
		}
	}
	checkPhishing(t, model.Address{Name: "Elena Varga", Email: "northwind.ceo.office@outlook.jp"}, "至急のお願い",
		"Alexさん\n\nLINEで新しいグループを作成し、QRコードを返信してください。本件は他の方には共有しないでください。\n\nElena", nil, true)
}

// A code host's own notification relaying a user's issue that links to
// an imitation of the code host on a page anyone can publish is
// phishing; the same notification linking to the host's blog is not.
func TestServiceNoticeRelaysImitation(t *testing.T) {
	hdr := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=github.com; dkim=pass header.d=github.com; dmarc=pass header.from=github.com"},
		"List-Id": {"northwind/app <app.northwind.github.com>"}, "List-Unsubscribe": {"<https://github.com/notifications/unsubscribe/X>"}}
	body := func(link string) string {
		return "security-bot opened an issue (northwind/app#12)\n\nWe detected a sign-in to your GitHub account from a new device. If this was not you, secure your account:\n" + link + "\n\nThe GitHub Security Team\n\nReply to this email directly, view it on GitHub:\nhttps://github.com/northwind/app/issues/12"
	}
	checkPhishing(t, model.Address{Name: "security-bot", Email: "notifications@github.com"}, "[northwind/app] Security Alert (Issue #12)", body("https://github-session-reset.vercel.app/secure"), hdr, true)
	checkPhishing(t, model.Address{Name: "security-bot", Email: "notifications@github.com"}, "[northwind/app] Release notes (Issue #12)", body("https://github.blog/news"), hdr, false)
}

// A stranger telling the reader to fetch code and run it inside a hiring
// process, or from a password-locked archive, is phishing; a partner's
// integration note with the same commands, a colleague's take-home
// review and a newsletter's menu ("News | Shopping") are not.
func TestCodeRunLure(t *testing.T) {
	task := "Hi Alex,\n\nthe hiring manager wants to fast-track you. Before the call:\n1. Clone https://bitbucket.org/talent-assess/platform-task\n2. Run npm install && npm run setup on your usual machine\n\nBest,\nDaniel"
	checkPhishing(t, model.Address{Name: "Daniel Mercer", Email: "d.mercer@helix-talent.example"}, "Head of Platform - quick technical step", task, nil, true)
	repro := "Hello Alex,\n\nI prepared a repro project: https://drive-share-files.example/d/repro.zip (password: tide2026)\nUnzip, run ./setup.sh, then make repro.\n\nAndrei"
	checkPhishing(t, model.Address{Name: "Andrei V", Email: "andrei.v.dev@outlook.com"}, "crash with nested env vars - repro project", repro, nil, true)
	sdk := "Hi Alex,\n\nthe new SDK is out: https://github.com/partner-co/sdk\nRun npm install @partner/sdk and follow the README.\n\nBest,\nKim"
	checkPhishing(t, model.Address{Name: "Kim Lee", Email: "kim@partner-co.example"}, "New SDK release", sdk, nil, false)
	checkPhishing(t, model.Address{Name: "Priya Raman", Email: "priya.raman@northwind.example"}, "Take-home for the backend candidate", task, nil, false)
	checkPhishing(t, model.Address{Name: "Tech Update", Email: "news@techupdate.example"}, "Tech Update: the interview",
		"In part two of our interview, the VP explains the roadmap.\nNews | Shopping | Downloads\nhttps://techupdate.example/story", nil, false)
}

// A share notice whose display name is a file-sharing service's while it
// comes from another domain is phishing; the service's own notice from
// its own domain (SharePoint from sharepointonline.com) is not.
func TestFakeShareNotice(t *testing.T) {
	body := func(host string) string {
		return "Frank Oberle (f.oberle@kessler.example) has sent you a file.\nNDA_2027.pdf (412 KB)\nhttps://" + host + "/d-s8f2a7/download"
	}
	checkPhishing(t, model.Address{Name: "ShareFile", Email: "mail@sf-notify.example"}, "Frank Oberle has sent you NDA_2027.pdf", body("sf-notify.example"), nil, true)
	checkPhishing(t, model.Address{Name: "Box", Email: "noreply@box-notification-service.example"}, "Frank Oberle shared \"NDA_2027.pdf\" with you", body("box-notification-service.example"), nil, true)
	checkPhishing(t, model.Address{Name: "DocuSign", Email: "dse@docs-esign-review.example"}, "Completed: Q4 bonus allocation", body("docs-esign-review.example"), nil, true)
	auth := map[string][]string{"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=sharepointonline.com; dkim=pass header.d=sharepointonline.com; dmarc=pass header.from=sharepointonline.com"}}
	checkPhishing(t, model.Address{Name: "Priya Raman via SharePoint Online", Email: "no-reply@sharepointonline.com"}, "Priya Raman shared \"Roadmap 2027\" with you",
		body("northwind.sharepoint.com"), auth, false)
	checkPhishing(t, model.Address{Name: "Box Hill Logistics", Email: "ops@boxhill-logistics.example"}, "Updated delivery slots",
		"Dear Alex, the updated slots for December are in the portal: https://boxhill-logistics.example/slots", nil, false)
}

// Three credential asks in one message (a portal wanting the login, the
// bank details and the tax number) weigh as much as phishing needs; two
// do not.
func TestThreeCredentialAsks(t *testing.T) {
	from := model.Address{Name: "Rentenportal", Email: "service@rentenportal-service.example"}
	checkPhishing(t, from, "Datenabgleich erforderlich",
		"Bitte bestätigen Sie Ihre Steuer-ID, Ihre Zugangsdaten und Ihre Bankdaten im Portal: https://rentenportal-service.example/abgleich", nil, true)
	checkPhishing(t, from, "Datenabgleich erforderlich",
		"Bitte bestätigen Sie Ihre Steuer-ID und Ihre Zugangsdaten im Portal: https://rentenportal-service.example/abgleich", nil, false)
}

// A sale's pressure in the five languages' marketing ("nur diese Woche",
// "solo hoy", "offre limitée") and the Japanese side-job pitch are spam
// wording; a customer's escalation that names a sales peak is not.
func TestMarketingPressureWording(t *testing.T) {
	for text, want := range map[string]bool{
		"Nur diese Woche: ergonomische Bürostühle mit Rabatt.":                true,
		"Liquidación de sillas: solo hoy, sin compromiso.":                    true,
		"Offre limitée : formations certifiantes éligibles.":                  true,
		"スマホだけで月30万円を稼ぐ方法を限定公開します。":                                           true,
		"Since this morning the drivers cannot sync before the weekend peak.": false,
	} {
		found := signalOf(model.Address{Email: "news@shop.example"}, "Angebot", text, SigSpamPhrase)
		if found != want {
			t.Errorf("%q: spam wording %v, want %v", text, found, want)
		}
	}
}

// Your own organisation's authenticated, automatically sent reminder
// that your password expires today is its notice, not phishing; the same
// words from a lookalike of your domain are.
func TestOwnAutomatedPasswordReminder(t *testing.T) {
	body := "Hello Alex,\n\nYour Northwind network password expires today at 23:59. Change it on your laptop (Ctrl+Alt+Del, Change a password) or in Okta before then. Update your password today: an expired password cannot be reset over VPN.\n\nIT Service Desk"
	hdr := func(d string) map[string][]string {
		return map[string][]string{"Auto-Submitted": {"auto-generated"},
			"Authentication-Results": {"mx.northwind.example; spf=pass smtp.mailfrom=" + d + "; dkim=pass header.d=" + d + "; dmarc=pass header.from=" + d}}
	}
	checkPhishing(t, model.Address{Name: "Northwind IT Service Desk", Email: "it-servicedesk@northwind.example"}, "Your Northwind password expires today", body, hdr("northwind.example"), false)
	checkPhishing(t, model.Address{Name: "Northwind IT Service Desk", Email: "it-servicedesk@northwind-helpdesk.example"}, "Your Northwind password expires today",
		body+"\nhttps://northwind-helpdesk.example/reset", hdr("northwind-helpdesk.example"), true)
}

// Your own organisation's monitor copying you on a failure it sends to a
// team (Precedence: bulk) is yours: urgent when production fails or
// something runs out within two days; a service's reminder that an
// alert it raised is still open stays urgent, its all-clear does not.
func TestOwnerCopiedFailureAndStillAlerting(t *testing.T) {
	team := model.Address{Email: "platform-oncall@northwind.example"}
	hdr := map[string][]string{"Auto-Submitted": {"auto-generated"}, "Precedence": {"bulk"}}
	for subject, want := range map[string]string{
		"FAILED: nightly backup orders-db-prod (3rd consecutive failure)":            "urgent",
		"[certwatch] api.northwind.example expires in 1 day (auto-renewal failed)":   "urgent",
		"[certwatch] daily report: all 212 certificates valid for more than 21 days": "informational",
	} {
		m := &model.Message{MessageID: subject + "@x", From: model.Address{Name: "backup-bot", Email: "noreply-backups@northwind.example"},
			To: []model.Address{team}, Cc: []model.Address{demoPrincipal}, Subject: subject, Text: "Job: nightly\nStatus: see subject\nRunbook: https://wiki.northwind.example/rb", HasBody: true, Headers: hdr}
		if o := Deterministic([]*model.Message{m}, demoPrincipal); string(o.Result.Category) != want {
			t.Errorf("%q: %s, want %s; signals %v", subject, o.Result.Category, want, o.Signals)
		}
	}
	pd := model.Address{Name: "PagerDuty", Email: "no-reply@pagerduty.example"}
	auto := map[string][]string{"Auto-Submitted": {"auto-generated"}}
	first := &model.Message{MessageID: "pd1@x", From: pd, To: []model.Address{demoPrincipal}, Subject: "[PagerDuty] ESCALATED: [#88417] checkout-api p99 latency above 2s",
		Text: "Incident #88417 has been escalated to you.", HasBody: true, Headers: auto}
	for subject, want := range map[string]string{
		"[PagerDuty] REMINDER: [#88417] checkout-api p99 latency above 2s is still open": "urgent",
		"[PagerDuty] RESOLVED: [#88417] checkout-api p99 latency above 2s":               "informational",
	} {
		next := &model.Message{MessageID: "pd2@x", InReplyTo: []string{"pd1@x"}, From: pd, To: []model.Address{demoPrincipal}, Subject: subject,
			Text: "Incident #88417, latest value 3910ms.", HasBody: true, Headers: auto}
		if o := Deterministic([]*model.Message{first, next}, demoPrincipal); string(o.Result.Category) != want {
			t.Errorf("%q: %s, want %s; signals %v", subject, o.Result.Category, want, o.Signals)
		}
	}
}

// Your own security team's automated notice that your account was
// restricted or your sessions revoked after a suspicious sign-in is
// urgent; a vendor's automated incident notice is not made urgent by it.
// Support and CRM tools are known brands (a host spelling
// "acme.zendesk.com." in front of another domain imitates Zendesk).
func TestOwnSecurityNoticeAndSupportBrands(t *testing.T) {
	auto := map[string][]string{"Auto-Submitted": {"auto-generated"}}
	m := &model.Message{MessageID: "sec@x", From: model.Address{Name: "Northwind Security", Email: "security@northwind.example"}, To: []model.Address{demoPrincipal},
		Subject: "Suspicious sign-in to your Northwind account - session revoked", Text: "We revoked all your active sessions. Please change your password today and call the Security hotline.", HasBody: true, Headers: auto}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.Category != "urgent" {
		t.Errorf("own security notice: %s, want urgent; signals %v", o.Result.Category, o.Signals)
	}
	m.From = model.Address{Name: "Vendor Status", Email: "noreply@status-vendor.example"}
	m.Subject = "[Vendor Status] Suspicious sign-in attempts against the login page - investigating"
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.Category == "urgent" {
		t.Errorf("vendor's incident notice: urgent; signals %v", o.Signals)
	}
	for host, want := range map[string]bool{"northwind.zendesk.com.agent-verify.example": true, "northwind.zendesk.com": false, "salesforce-login.example": true} {
		if _, ok := lookalike(host, "northwind.example"); ok != want {
			t.Errorf("lookalike(%q) = %v, want %v", host, ok, want)
		}
	}
}

// The award a fee buys and the SEO seller's pitch are spam wording; a
// hiring shortlist is not.
func TestAwardAndSEOPitchWording(t *testing.T) {
	for text, want := range map[string]bool{
		"Congratulations, you've been shortlisted for the Top 100 Engineering Leaders.": true,
		"We would love to contribute a guest post with a dofollow link.":                true,
		"Votre site n'apparaît pas en première page de Google.":                         true,
		"The shortlist of candidates for the staff engineer role is in Greenhouse.":     false,
	} {
		found := signalOf(model.Address{Email: "hello@outreach.example"}, "Hello", text, SigSpamPhrase)
		if found != want {
			t.Errorf("%q: spam wording %v, want %v", text, found, want)
		}
	}
}

// A tool's "X has requested feedback from you" asks the reader.
func TestFeedbackRequestedSubject(t *testing.T) {
	m := &model.Message{MessageID: "fb@x", From: model.Address{Name: "Workday", Email: "northwind@hr-suite.example"}, To: []model.Address{demoPrincipal},
		Subject: "Ingrid Svensson has requested feedback from you", Text: "Go to your inbox to respond: https://hr-suite.example/inbox",
		HasBody: true, Headers: map[string][]string{"Auto-Submitted": {"auto-generated"}}}
	if o := Deterministic([]*model.Message{m}, demoPrincipal); o.Result.Category != "actionable" {
		t.Errorf("%s, want actionable; signals %v", o.Result.Category, o.Signals)
	}
}

// signalOf reports whether a one-message thread from from with subject
// and text carries a signal of kind.
func signalOf(from model.Address, subject, text string, kind SignalKind) bool {
	m := &model.Message{MessageID: "s@x", From: from, To: []model.Address{demoPrincipal}, Subject: subject, Text: text, HasBody: true}
	return hasSignal(Signals([]*model.Message{m}, demoPrincipal), kind)
}
