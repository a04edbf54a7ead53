package triage

// Lures dressed as a service's notice: a real file-sharing service's
// notice whose sharer is a stranger's free-mail account, a voicemail or
// fax notice that links to the message instead of attaching it, a
// renewal notice for your own domain from no registrar of yours, a bill
// in a security brand's name with a number to call, a trademark's renewal
// or a legal threat from a stranger, an authority's name on a domain of
// several words.

import (
	"fmt"
	"net/url"
	"strings"

	"mailsift/model"
)

// shareWords mark a file-sharing service's notice (lower case).
var shareWords = []string{"shared with you", "has shared", " shared \"", " shared a ", "a partagé", "partagé avec vous", "ha compartido",
	"compartido contigo", "compartido con usted", "hat ihnen", "mit ihnen geteilt", "freigegeben", "を共有しました", "が共有されました"}

// moneyDocWords name a document about money or pay: the bait of a share
// lure (lower case).
var moneyDocWords = []string{"salary", "salaries", "bonus", "compensation", "payroll", "remittance", "payment", "invoice", "wire transfer",
	"bank details", "severance", "layoff", "pay rise", "pay review", "gehalt", "gehälter", "vergütung", "prämie", "zahlung", "rechnung",
	"salaire", "salaires", "rémunération", "primes", "paiement", "facture", "virement", "nómina", "salario", "salarios", "pago", "factura",
	"transferencia", "給与", "賞与", "振込", "請求書", "支払"}

// shareLure flags a file-sharing service's notice (a real Google Drive or
// OneDrive share) of a document about money or pay whose sharer is a
// free-mail account the reader has never written to: the service is
// real, the sharer is not who the title says (a "Remittance Advice"
// shared by lena.remit@gmail.com). Colleagues and partners share from
// their organisations' accounts.
func shareLure(an *analysis, m *model.Message, senders Senders, add func(Signal)) {
	sharer := ""
	for _, rt := range m.ReplyTo {
		if freeMail(domainOf(rt.Email)) {
			sharer = rt.Email
		}
	}
	if sharer == "" || freeMail(domainOf(m.From.Email)) {
		return // (free mail writing itself is judged as such)
	}
	subject := strings.ToLower(m.Subject)
	if _, ok := containsAnyOf(subject, shareWords); !ok {
		return
	}
	bait, ok := containsAnyOf(subject, moneyDocWords)
	if !ok {
		return
	}
	if senders != nil {
		if written, _ := senders.Familiar(sharer); written > 0 {
			return
		}
	}
	add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("shares a document about %q from a free-mail account you have not written to (%s)", bait, sharer), Message: an.latest, Value: sharer, Weight: 3.5})
}

// messageNoticeWords name a voicemail or fax notice in a subject (lower
// case; "fax" alone counts as a word of its own, see noticeLure).
var messageNoticeWords = []string{"voicemail", "voice mail", "voice message", "voice-message", "efax", "sprachnachricht",
	"mailbox-nachricht", "message vocal", "messagerie vocale", "mensaje de voz", "buzón de voz", "ボイスメール", "留守番電話", "留守電"}

// noticeLure flags a voicemail or fax notice from a sender that is
// neither your organisation nor a telephony brand's real domain nor known
// to you, which links to the message instead of attaching it: phone
// systems attach the recording or the pages (audio, PDF, TIFF), the lure
// needs the click ("Play voice message", "View fax online").
func (a *Analyzer) noticeLure(an *analysis, m *model.Message, add func(Signal)) {
	if an.internal || an.familiar || an.links == 0 {
		return
	}
	low := strings.ToLower(m.Subject)
	if _, ok := containsAnyOf(low, messageNoticeWords); !ok && !hasWord(low, "fax") {
		return
	}
	reg := a.regDomain(domainOf(m.From.Email))
	if reg == "" || realBrandDomain(reg) {
		return
	}
	for _, at := range m.Attachments {
		ct := strings.ToLower(at.ContentType)
		if strings.HasPrefix(ct, "audio/") || ct == "application/pdf" || ct == "image/tiff" {
			return
		}
	}
	add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("a voicemail or fax notice from %s links to the message instead of attaching it", reg), Message: an.latest, Value: reg, Weight: 3.5})
}

// domainWords name a domain name in a subject; domainTermWords its
// expiry, renewal, suspension or listing (lower case).
var (
	domainWords     = []string{"domain", "domaine", "dominio", "ドメイン"}
	domainTermWords = []string{"expir", "renew", "suspen", "listing", "registration", "ablauf", "läuft ab", "verlänger", "gesperrt",
		"échéance", "renouvel", "caducidad", "caduca", "renovación", "suspensión", "有効期限", "更新", "停止"}
)

// domainRenewalLure flags a notice that the reader's own domain expires,
// is suspended or must be listed or renewed ("FINAL NOTICE:
// northwind.example - Domain Service Expiration"), from a sender that is
// neither your organisation nor a registrar's real domain nor known to
// you: domain slamming, the invoice or the sign-in of a registrar you do
// not use.
func (a *Analyzer) domainRenewalLure(an *analysis, m *model.Message, pDomain string, add func(Signal)) {
	if an.internal || an.familiar {
		return
	}
	pReg := a.regDomain(pDomain)
	// (domain names are written in lower case: the subject is lowered
	// only when it holds the organisation's name as written)
	if pReg == "" || !strings.Contains(m.Subject, firstLabel(pReg)) {
		return
	}
	low := strings.ToLower(m.Subject)
	if !strings.Contains(low, pReg) && !strings.Contains(low, firstLabel(pReg)+".") {
		return // (the organisation's name, not its domain)
	}
	if _, ok := containsAnyOf(low, domainWords); !ok {
		return
	}
	if _, ok := containsAnyOf(low, domainTermWords); !ok {
		return
	}
	reg := a.regDomain(domainOf(m.From.Email))
	if reg == "" || realBrandDomain(reg) {
		return
	}
	add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("a notice that your domain expires or must be renewed, from %s, which is no registrar you deal with", reg), Message: an.latest, Value: reg, Weight: 3.5})
}

// callbackBrands are consumer security and tech-support brands whose
// names the callback scam bills in, with their real domains: "your
// Norton renewal of $399.99 was processed, call us to cancel".
var callbackBrands = []struct {
	name string
	real []string
}{
	{"norton", []string{"norton.com", "nortonlifelock.com", "gen.com", "gendigital.com"}},
	{"lifelock", []string{"lifelock.com", "norton.com", "nortonlifelock.com"}},
	{"mcafee", []string{"mcafee.com"}},
	{"geek squad", []string{"geeksquad.com", "bestbuy.com"}},
	{"geeksquad", []string{"geeksquad.com", "bestbuy.com"}},
	{"avast", []string{"avast.com"}},
	{"bitdefender", []string{"bitdefender.com"}},
	{"kaspersky", []string{"kaspersky.com"}},
}

// callbackLure flags a bill, order or renewal in a consumer security or
// tech-support brand's name with a phone number to call, from a free-mail
// address or through a payment service's invoice: the callback scam,
// whose lure is the phone call that follows.
func (a *Analyzer) callbackLure(an *analysis, m *model.Message, add func(Signal)) {
	if an.internal || an.familiar {
		return
	}
	reg := a.regDomain(domainOf(m.From.Email))
	if !freeMail(reg) && !invoicingServices[reg] {
		// The scam has no domain of its own: it writes from free mail
		// or bills through a real payment service's invoice. A company
		// writing from its own domain about these products (a reseller,
		// a newsletter) is not it.
		return
	}
	text := strings.ToLower(m.Subject + "\n" + an.latestOwn)
	for _, b := range callbackBrands {
		if !strings.Contains(text, b.name) || isRealBrandDomain(reg, b.real) {
			continue
		}
		if !mentionsPayment(m.Subject, an.latestOwn) || !hasPhoneNumber(text) {
			return
		}
		add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("bills you in %s's name with a number to call, from %s", b.name, reg), Message: an.latest, Value: b.name, Weight: 3.5})
		return
	}
}

// invoicingServices are payment services whose invoices anyone can send
// in any name.
var invoicingServices = map[string]bool{"paypal.com": true, "paypal.co.uk": true, "paypal.de": true, "paypal.fr": true, "paypal.es": true,
	"stripe.com": true, "squareup.com": true, "intuit.com": true, "zellepay.com": true}

// hasPhoneNumber reports whether s holds a run of at least nine digits
// written as a phone number (digits with spaces, dashes, dots,
// parentheses or a leading +).
func hasPhoneNumber(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
			if digits >= 9 {
				return true
			}
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '+':
			// a separator within the number: the count goes on
		default:
			digits = 0
		}
	}
	return false
}

// trademarkWords name a trademark in a subject; legalThreatWords a legal
// claim or a formal demand (lower case).
var (
	trademarkWords   = []string{"trademark", "marke", "marque", "marca", "商標"}
	legalThreatWords = []string{"copyright infringement", "infringement notice", "notice of infringement", "patent infringement",
		"notice of claim", "cease and desist", "mise en demeure", "abmahnung", "requerimiento", "demanda judicial"}
)

// legalNoticeLure flags what presents itself as an office's or a law
// firm's notice to the organisation from a sender the reader does not
// know: a renewal or listing of the organisation's trademark with a
// payment asked (the registry scam, like domain slamming), or a legal
// threat (copyright, patent, a formal demand) with a link to "the
// evidence" or "the case documents". The organisation's own counsel
// writes from its domain; a real claimant's counsel comes through it.
func (a *Analyzer) legalNoticeLure(an *analysis, m *model.Message, pDomain string, add func(Signal)) {
	if an.internal || an.familiar || an.bulk {
		return // (a newsletter writes about lawsuits and trademarks too)
	}
	low := strings.ToLower(m.Subject)
	reg := a.regDomain(domainOf(m.From.Email))
	if reg == "" || realBrandDomain(reg) || govPretender(domainOf(m.From.Email), reg) {
		return
	}
	if w, ok := containsAnyOf(low, legalThreatWords); ok && an.links > 0 {
		add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("a legal threat (%q) from %s, unknown to you, with a link to its evidence", w, reg), Message: an.latest, Value: reg, Weight: 3.5})
		return
	}
	pReg := a.regDomain(pDomain)
	if pReg == "" || !strings.Contains(low, firstLabel(pReg)) {
		return
	}
	for _, w := range trademarkWords {
		// (words of their own: "marke" is no trademark in "marketing")
		if hasWord(low, w) && mentionsPayment(m.Subject, an.latestOwn) {
			add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("bills the renewal or listing of your %s from %s, no office you deal with", w, reg), Message: an.latest, Value: reg, Weight: 3.5})
			return
		}
	}
}

// authorityNames in a display name present the sender as a public
// authority or an official service: tax, traffic and toll offices,
// health insurance, customs, police (lower case).
var authorityNames = []string{"ministerio", "ministère", "ministerium", "ministry", "dirección general", "direction générale",
	"agencia tributaria", "tributaria", "hacienda", "finanzamt", "impôts", "impots", "tax office", "revenue",
	"tráfico", "trafico", "dgt", "antai", "amende", "multa", "bußgeld", "e-zpass", "ezpass", "toll", "péage", "peaje", "maut",
	"assurance maladie", "ameli", "krankenkasse", "seguridad social", "sécurité sociale", "customs", "douane", "aduana", "zoll",
	"police", "polizei", "policía", "gendarmerie", "etc利用", "国税", "税務署", "警察", "年金機構", "高速道路"}

// authorityLure flags a sender presenting itself as a public authority or
// an official service (a traffic office, a tax office, a toll operator,
// health insurance) from a domain of several hyphenated words under no
// government's suffix that links to itself and asks for something:
// authorities write from their own short domain ("dgt.es",
// "agenciatributaria.gob.es"), the imitation registers
// "dgt-multas-pendientes.info" for the link it needs.
func (a *Analyzer) authorityLure(an *analysis, m *model.Message, add func(Signal)) {
	if an.internal || an.familiar || an.list || !an.linkToSender || m.From.Name == "" {
		return
	}
	host := domainOf(m.From.Email)
	reg := a.regDomain(host)
	if !strings.Contains(firstLabel(reg), "-") || realBrandDomain(reg) || governmentDomain(reg) {
		return
	}
	name := strings.ToLower(m.From.Name)
	w, ok := containsAnyOf(name, authorityNames)
	if !ok || !(len(w) > 4 || hasWord(name, w)) {
		return // (a short name as a word of its own: "DGT", not "budget")
	}
	if an.questions+an.requests == 0 && !an.soonDeadline && !mentionsPayment(m.Subject, an.latestOwn) {
		return
	}
	add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("presents itself as an authority (%q) from %s, a domain of several words that it links to", w, reg), Message: an.latest, Value: reg, Weight: 3.5})
}

// userContentLink reports whether l goes to a page anyone can publish
// without owning a domain: a site builder's or hosting service's
// subdomain, a form, a shared storage bucket. Phishing hosts its sign-in
// copies there because the service's own domain lends them its
// reputation; a brand's notices link to the brand's own site.
func userContentLink(l link) bool {
	host := strings.ToLower(strings.TrimSuffix(l.Host, "."))
	switch host {
	case "sites.google.com", "forms.gle", "forms.office.com", "forms.microsoft.com", "storage.googleapis.com",
		"firebasestorage.googleapis.com", "ipfs.io":
		return true
	case "docs.google.com":
		return strings.Contains(strings.ToLower(l.URL), "docs.google.com/forms/")
	}
	return userContentHost(host)
}

// userContentHost reports whether host (lower case) is a page of a
// hosting service anyone publishes on (see userContentSuffixes).
func userContentHost(host string) bool {
	for _, suffix := range userContentSuffixes {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}

// userContentSuffixes end the hosts of pages published on a hosting,
// site-builder or form service (see userContentLink).
var userContentSuffixes = []string{".web.app", ".firebaseapp.com", ".github.io", ".netlify.app", ".vercel.app",
	".pages.dev", ".workers.dev", ".glitch.me", ".notion.site", ".weebly.com", ".wixsite.com", ".blogspot.com",
	".000webhostapp.com", ".r2.dev", ".herokuapp.com", ".webflow.io", ".square.site", ".godaddysites.com",
	".mystrikingly.com", ".azurewebsites.net", ".web.core.windows.net", ".appspot.com", ".onrender.com",
	".framer.website", ".canva.site", ".jimdosite.com", ".typeform.com", ".jotform.com", ".ipfs.dweb.link"}

// deviceLoginPages are the pages where a sign-in started on another
// device is completed by typing its code (the OAuth device flow).
var deviceLoginPages = []string{"microsoft.com/devicelogin", "aka.ms/devicelogin", "microsoftonline.com/common/oauth2/deviceauth",
	"login.microsoft.com/device", "google.com/device", "github.com/login/device"}

// codeWords name the code such a page asks for (lower case).
var codeWords = []string{"code", "código", "コード"}

// deviceCodeLure flags mail from outside your organisation that sends you
// to a device sign-in page with a code to type: the code was started by
// the sender, and signing in with it hands them your account (device-code
// phishing, which passes MFA). A real device shows its own code on its
// own screen; nobody mails one.
func deviceCodeLure(an *analysis, subject string, add func(Signal)) {
	own := an.latestOwn
	if an.internal || !strings.Contains(own, "evice") {
		return // (every page's address holds "device": one cheap look first)
	}
	low := strings.ToLower(own)
	page, ok := containsAnyOf(low, deviceLoginPages)
	if !ok {
		return
	}
	if _, ok := containsAnyOf(low, codeWords); !ok || warnsOfFraud(subject, own) {
		// (a warning about such mail quotes the page and the code)
		return
	}
	add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("sends you to a device sign-in page (%s) with a code to type, which signs the sender in as you", page), Message: an.latest, Value: page, Weight: 3.5})
}

// linksToOrgTenant reports whether own links to a host naming the
// principal's organisation (pDomain's first label, five letters or more)
// as a subdomain of another domain: "northwind.workday-portal.net", as a
// service's tenant pages are named.
func (a *Analyzer) linksToOrgTenant(own, pDomain string) bool {
	pReg := a.regDomain(pDomain)
	org := firstLabel(pReg)
	if len(org) < 5 || !strings.Contains(own, org) {
		return false
	}
	for _, l := range findLinks(own, 20) {
		host := strings.ToLower(l.Host)
		reg := a.regDomain(host)
		if reg == "" || reg == pReg {
			continue
		}
		for label := range strings.SplitSeq(strings.TrimSuffix(host, reg), ".") {
			if label == org {
				return true
			}
		}
	}
	return false
}

// consentLure flags a message in a service's name that is not the
// service's own mail, linking to the service's real authorization page
// with the answer sent to another domain
// ("https://github.com/login/oauth/authorize?client_id=…&redirect_uri=https://gh-secops.com/callback"):
// the page is genuine, and granting the app hands the account to whoever
// runs the other domain (consent phishing). A service's own mail and a
// vendor's own integration link (its app answering to itself, sent from
// its own domain) are not.
func (a *Analyzer) consentLure(an *analysis, m *model.Message, add func(Signal)) {
	if an.list || an.links == 0 || !strings.Contains(an.latestOwn, "redirect_uri") {
		return
	}
	senderReg := a.regDomain(domainOf(m.From.Email))
	for _, l := range findLinks(an.latestOwn, 50) {
		low := strings.ToLower(l.URL)
		if !strings.Contains(low, "authorize") || !strings.Contains(low, "oauth") {
			continue
		}
		hostReg := a.regDomain(l.Host)
		names := brandsOwning(hostReg)
		if len(names) == 0 || realBrandDomain(senderReg) {
			continue
		}
		k := strings.Index(low, "redirect_uri=")
		if k < 0 {
			continue
		}
		ru, err := url.QueryUnescape(l.URL[k+len("redirect_uri="):])
		if err != nil {
			continue
		}
		if i := strings.IndexByte(ru, '&'); i >= 0 {
			ru = ru[:i]
		}
		rhost := ru
		if i := strings.Index(rhost, "://"); i >= 0 {
			rhost = rhost[i+3:]
		}
		if i := strings.IndexAny(rhost, "/?#:"); i >= 0 {
			rhost = rhost[:i]
		}
		rReg := a.regDomain(rhost)
		if rReg == "" || rReg == hostReg || realBrandDomain(rReg) {
			continue
		}
		who := strings.ToLower(m.From.Name)
		for _, n := range names {
			if hasWord(who, n) {
				add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("in %s's name, asks you to authorize an app on %s that answers to %s (consent phishing)", n, hostReg, rReg),
					Message: an.latest, Value: rReg, Weight: 3.5})
				return
			}
		}
	}
}

// brandsOwning returns the names of the brands reg is a real domain of.
func brandsOwning(reg string) []string {
	var out []string
	for _, b := range brands {
		for _, r := range b.real {
			if r == reg {
				out = append(out, b.name)
				break
			}
		}
	}
	return out
}

// jaRunWords tell the reader to run a script, in Japanese.
var jaRunWords = []string{"スクリプトを実行", "を実行して"}

// hireWords put a task in a hiring process; lockedWords lock an archive
// with a password (lower case).
var (
	hireWords = []string{"hiring", "interview", "assessment", "take-home", "take home", "fast-track", "candidate", "recruit",
		"vorstellungsgespräch", "erstgespräch", "programmieraufgabe", "bewerbung", "entretien", "candidat", "recrutement",
		"entrevista", "candidato", "selección", "面接", "選考", "採用"}
	lockedWords = []string{"password:", "password is", "passwort:", "mot de passe", "contraseña", "パスワード"}
)

// codeRunLure flags a stranger's mail telling the reader to fetch code
// and run it, inside a hiring process ("clone the repo and run npm
// install && npm run setup before the call") or from an archive locked
// with a password (which keeps scanners out): the malware delivery of
// fake recruiters and of "repro projects", also once the reader has
// answered the first approach. A colleague's mail, list mail and a
// service's notices are not judged.
func codeRunLure(an *analysis, m *model.Message, add func(Signal)) {
	if an.internal || an.list || an.bulk || an.automated || an.notifier ||
		an.links == 0 && len(m.Attachments) == 0 {
		return
	}
	w := an.runCode
	if w == "" && strings.IndexByte(an.latestOwn, 0xE3) >= 0 {
		w, _ = containsAnyOf(an.latestOwn, jaRunWords)
	}
	if w == "" {
		return
	}
	low := an.ownLower()
	_, hire := containsAnyOf(low, hireWords)
	if !hire {
		_, hire = containsAnyOf(strings.ToLower(m.Subject), hireWords)
	}
	if _, locked := containsAnyOf(low, lockedWords); !hire && !locked {
		return
	}
	add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("a stranger asks you to run code you fetch (%q)", w), Message: an.latest, Value: w, Weight: 3.5})
}

// shareBrands are the file-sharing and signing services whose notices
// ("X shared a file with you", "X sent you a document") are copied.
var shareBrands = map[string]bool{"sharefile": true, "box": true, "dropbox": true, "wetransfer": true, "docusign": true,
	"onedrive": true, "sharepoint": true, "google": true, "adobesign": true, "acrobat": true, "docsend": true, "signaturit": true}

// sentWords say a file or a document was sent to the reader (lower
// case), besides shareWords.
var sentWords = []string{"sent you", "please docusign", "completed:", "review and sign", "te ha enviado", "le ha enviado",
	"vous a envoyé", "hat ihnen", "hat dir", "があなたに送信", "を送信しました"}

// fakeShareLure flags a share or signing notice whose display name is a
// file-sharing service's while the mail comes from another domain
// ("ShareFile <mail@sf-notify.net>: Frank sent you NDA.pdf"): the
// service's own notices come from its own domain.
func fakeShareLure(an *analysis, m *model.Message, add func(Signal)) {
	if !shareBrands[an.spoofedBrand] || an.list || an.links == 0 {
		return
	}
	low := strings.ToLower(m.Subject)
	if _, share := containsAnyOf(low, shareWords); !share {
		if _, sent := containsAnyOf(low, sentWords); !sent {
			return
		}
	}
	add(Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("a share notice in %s's name from another domain", an.spoofedBrand), Message: an.latest, Value: an.spoofedBrand, Weight: 1.5})
}

// idDocWords name a copy of an identity document (lower case); the
// short "dni" is matched with the words around it.
var idDocWords = []string{"passport", "pasaporte", "passeport", "reisepass", "personalausweis", "ausweiskopie",
	"driving licence", "driving license", "driver's license", "drivers license", "identity card", "id card",
	"carte d'identité", "pièce d'identité", "documento de identidad", " dni ", "tu dni", "su dni", "del dni",
	"パスポート", "運転免許証", "マイナンバーカード", "身分証"}

// jaIdCompanionWords are pkIdentity's asks in Japanese (the word
// stream does not split Japanese text).
var jaIdCompanionWords = []string{"マイナンバー", "口座番号", "キャッシュカード"}

// loanWords offer a loan (lower case).
var loanWords = []string{"loan", "kredit", "darlehen", "prêt ", "crédit", "préstamo", "crédito", "融資", "ローン"}

// identityLure flags a stranger asking for a copy of an identity
// document together with an identity number, a bank account, a selfie
// with the document or a fee: the identity theft of fake job offers,
// fake screenings and fake visa portals. An employer's onboarding asks
// the same through its own people and portals, so a colleague's mail,
// a correspondent's, list mail and a windfall's (a lottery scam's,
// spam) are not judged.
func identityLure(an *analysis, add func(Signal)) {
	if an.internal || an.list || an.familiar || an.conversation || an.windfall {
		return
	}
	if an.idCompanion == "" {
		if strings.IndexByte(an.latestOwn, 0xE3) < 0 {
			return
		}
		if _, ok := containsAnyOf(an.latestOwn, jaIdCompanionWords); !ok {
			return
		}
	}
	low := an.ownLower()
	doc, ok := containsAnyOf(low, idDocWords)
	if !ok {
		return
	}
	if _, loan := containsAnyOf(low, loanWords); loan {
		// (a loan offer's ask for the same is the advance-fee scam, spam
		// like a lottery's)
		return
	}
	doc = strings.TrimSpace(doc)
	add(Signal{Kind: SigCredentialRequest, Reason: fmt.Sprintf("a stranger asks for a copy of your identity document (%q) with an identity number, bank details or a fee", doc),
		Message: an.latest, Value: doc, Weight: 3.5})
}

// bankDetailWords introduce the bank details a payment is asked to (lower
// case).
var bankDetailWords = []string{"iban", "sort code", "account number", "account no", "bic:", "swift", "routing number",
	"kontonummer", "numéro de compte", "número de cuenta", "口座番号"}

// secretPaymentLure flags a stranger asking for discretion about a
// payment to the bank details it gives ("the deposit is to be placed in
// our escrow account … it must not be discussed with other members of
// staff"): the move of CEO and lawyer fraud, which keeps the people who
// would check the payment out of it.
func secretPaymentLure(an *analysis, add func(Signal)) {
	if an.internal || an.familiar || an.conversation || an.list {
		return
	}
	secret := false
	for _, s := range an.signals {
		if s.Kind == SigSecrecy && s.Message == an.latest {
			secret = true
			break
		}
	}
	if !secret {
		return
	}
	w, ok := containsAnyOf(an.ownLower(), bankDetailWords)
	if !ok {
		return
	}
	add(Signal{Kind: SigPaymentDiversion, Reason: fmt.Sprintf("asks for discretion about a payment to the bank details it gives (%q)", w), Message: an.latest, Value: w, Weight: 3.5})
}
