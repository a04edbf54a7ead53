package triage

// Unsolicited commercial outreach: the cold pitch a stranger writes to one
// person (an SEO or web-design offer, a lead list, a business loan, a
// "15-minute call", a paid award, a follow-up to mail never sent). The
// 2002 spam model does not know it: it is written like business mail, to
// one recipient, without list headers. It is told by what it says
// combined with who sends it: one sales word is never enough (vendors the
// user works with, recruiters and customers use them too).

import (
	"slices"
	"strings"

	"mailsift/model"
)

// outreachCue is one kind of evidence of a cold pitch.
type outreachCue int

const (
	// ocOpener: a stranger introduces themselves or says they looked at
	// the reader's business ("I came across your website", 突然のご連絡失礼).
	ocOpener outreachCue = iota
	// ocOffer: what cold outreach sells (ranking on Google, a redesign,
	// an attendee list, qualified leads, business funding, unlisted shares).
	ocOffer
	// ocAsk: its call to action ("would you be interested", "can I send
	// you", "a quick 15-minute call", "reply YES").
	ocAsk
	// ocOptOut: an opt-out line in mail that is not list mail ("if you're
	// not interested, just reply no", "keine weiteren E-Mails").
	ocOptOut
	// ocFollowUp: a claim to follow up earlier mail ("just following up on
	// my last email", "je me permets de vous relancer").
	ocFollowUp
	// ocPrize: the reader is said to have been selected, to have won or
	// been nominated.
	ocPrize
	// ocFee: a fee to pay to receive it (a listing fee, shipping costs).
	ocFee
	numOutreachCues
)

// outreachPhrases are the cues in English, German, French, Spanish and
// Japanese, lower case. A phrase starting or ending with a letter or digit
// matches whole words only; Japanese phrases match anywhere.
var outreachPhrases = [numOutreachCues][]string{
	ocOpener: {
		"i came across", "came across your website", "i was checking your website", "i was looking at your website",
		"i was browsing your website", "i visited your website", "i noticed your website", "i noticed that your website",
		"i found your website", "i found your company", "i found your contact", "hope this email finds you well",
		"hope this finds you well", "i'm reaching out", "i am reaching out", "i wanted to reach out", "reaching out to see",
		"my name is", "i'm writing to introduce", "allow me to introduce", "let me introduce", "quick question about",
		"quick question",
		"i noticed that you", "i noticed you", "i saw that you", "i stumbled upon", "while researching", "i was researching",
		"i was analyzing your website", "i was analysing your website", "i analyzed your website", "i analysed your website",
		"i was reviewing your website", "i reviewed your website", "i audited your website", "i ran your website",
		"i help companies", "i work with companies",
		// German
		"auf ihre website gestoßen", "auf ihre webseite gestoßen", "auf ihre website gestossen", "auf ihre webseite gestossen",
		"auf ihre website aufmerksam", "auf ihr unternehmen aufmerksam", "ihre website angesehen", "ihre webseite angesehen",
		"mein name ist", "mich kurz vorstellen", "ich hoffe, diese e-mail erreicht sie", "kurze frage zu",
		"ich habe gesehen, dass", "auf sie aufmerksam geworden",
		// French
		"je me permets de vous contacter", "je me permets de vous écrire", "je suis tombé sur votre site",
		"en visitant votre site", "j'ai visité votre site", "j'ai consulté votre site", "je m'appelle",
		"permettez-moi de me présenter", "je vous contacte car", "petite question",
		"j'ai remarqué que", "j'ai vu que votre", "je travaille avec des entreprises",
		// Spanish
		"me pongo en contacto", "me permito contactarle", "me permito escribirle", "he visto su página web",
		"he visitado su sitio web", "revisando su sitio web", "encontré su sitio web", "mi nombre es", "le escribo porque",
		"le contacto porque", "una pregunta rápida",
		"he notado que", "vi que su", "trabajo con empresas",
		// Japanese
		"突然のご連絡失礼", "突然のメール失礼", "突然のご連絡を失礼", "突然のご連絡申し訳", "突然のメールにて失礼",
		"初めてご連絡", "はじめてご連絡", "ホームページを拝見", "ウェブサイトを拝見", "サイトを拝見",
		"御社のホームページ", "貴社のホームページ",
	},
	ocOffer: {
		// search ranking, web design, marketing
		"first page of google", "page 1 of google", "ranking on google", "rank higher", "search engine optimization",
		"seo services", "seo audit", "free audit", "website audit", "website redesign", "redesign your website",
		"we build websites", "we design websites", "we build modern websites", "modern websites", "free mockup",
		"web design services", "web development services", "app development services", "digital marketing services",
		"our packages", "backlinks", "guest post", "domain authority",
		"search rankings", "google rankings", "organic traffic", "website traffic", "not ranking", "website design",
		"mobile-friendly", "outdated website",
		"improve your seo", "seo agency", "seo package", "seo experts", "top of google", "page one of google", "google's first page", "rank your website",
		// exhibiting and sponsoring at someone else's event
		"exhibitor booth", "exhibitor booths", "exhibitor spots", "exhibitor package", "booth packages", "booth package",
		"sponsorship package", "sponsorship packages", "sponsorship opportunities",
		// leads and contact lists
		"attendee list", "attendees list", "delegate list", "contact list", "verified contacts", "verified emails",
		"b2b leads", "qualified leads", "lead generation", "book more meetings", "counts and pricing",
		"list of attendees", "attendee data", "contact database",
		"prospect list", "targeted list", "b2b data", "b2b database", "email addresses of", "reach decision makers",
		"reach decision-makers", "decision-maker contacts", "c-level contacts", "qualified appointments", "sales appointments", "leads per month", "lead list",
		// money
		"pre-approved", "preapproved", "business funding", "business loan", "working capital", "merchant cash advance",
		"no collateral", "no credit check", "funding of up to", "guaranteed returns", "guaranteed profit", "pre-ipo",
		"line of credit", "get funded", "approved for up to", "qualify for up to", "personal loan",
		"financing options", "funding options", "cash advance", "revenue-based financing", "loan offer",
		"low-interest", "low interest rate",
		// a shop's sale to someone who never bought there
		"half price", "free shipping", "today only", "limited time offer",
		"versandkostenfrei", "nur heute", "livraison gratuite", "aujourd'hui seulement", "envío gratis", "solo hoy",
		"半額", "送料無料", "本日限定", "期間限定",
		// outsourcing
		"offshore development", "dedicated developers", "hire developers", "staff augmentation",
		"at a fraction of the cost", "at a very low cost", "scale your engineering team", "engineers from $",
		"developers from $", "engineers at $", "developers at $", "qualifizierte termine", "demo-termine",
		"profils disponibles", "profils sre", "consultants disponibles", "perfiles disponibles", "ai trading",
		"projektrabatt", "% rabatt", "ship faster", "engineering capacity", "how we could help your", "reduce your aws bill",
		"reduce your cloud", "cut your cloud", "réduire votre facture", "vorqualifizierte", "réduisez vos impôts",
		"réduire vos impôts", "défiscalisation", "steuern sparen", "droits cpf", "droits à la formation", "compte personnel de formation", "副業", "月収", "稼げる", "稼ぐ方法",
		"trading account", "trading bot", "extend your engineering team",
		"extend your team", "vetted engineers", "vetted developers", "nearshore", "a third of the cost", "1/3 the cost",
		"1/3 of the cost", "dedicated team of",
		"outsource your", "outsourcing services",
		// growth promises
		"increase your revenue", "grow your business", "boost your sales", "more customers", "more leads",
		"leading provider of",
		"we help companies", "we've helped", "we have helped", "companies like yours", "businesses like yours",
		"teams like yours",
		// German
		"erste seite bei google", "erste seite von google", "suchmaschinenoptimierung", "seo-optimierung",
		"ihre website überarbeiten", "kostenlose analyse", "unverbindliches angebot", "mehr kunden",
		"neukunden gewinnen", "leadgenerierung", "teilnehmerliste", "adressliste", "verifizierte kontakte",
		"firmenkredit", "unternehmenskredit", "ohne schufa", "ohne sicherheiten", "vorab genehmigt",
		"garantierte rendite",
		"kredit bis zu", "finanzierung bis zu", "sofortkredit", "privatkredit", "wir helfen unternehmen",
		"unternehmen wie ihres", "unternehmen wie ihrem", "teilnehmerdaten",
		"kreditangebot", "finanzierungsangebot", "sofortfinanzierung", "b2b-adressen", "firmenadressen",
		"kontakte zu entscheidern", "qualifizierte leads", "e-mail-adressen von",
		// French
		"première page de google", "référencement naturel", "refonte de votre site", "création de site",
		"audit gratuit", "maquette gratuite", "plus de clients", "génération de leads", "prospects qualifiés",
		"liste des participants", "fichier de prospects", "financement pour votre entreprise", "prêt professionnel",
		"pré-approuvé", "rendement garanti",
		"prêt personnel", "financement jusqu'à", "prêt jusqu'à", "nous aidons les entreprises",
		"entreprises comme la vôtre",
		"offre de prêt", "offre de financement", "crédit professionnel", "contacts de décideurs", "fichier b2b",
		"base de données b2b", "rendez-vous qualifiés", "leads qualifiés",
		// Spanish
		"primera página de google", "posicionamiento web", "posicionamiento seo", "rediseño de su sitio",
		"rediseño desde", "diseñamos webs", "diseño web", "tu web está", "su web está",
		"auditoría gratuita", "maqueta gratuita", "más clientes", "generación de leads", "clientes potenciales",
		"lista de asistentes", "financiación para su empresa", "préstamo para su negocio", "sin aval", "preaprobado",
		"rentabilidad garantizada",
		"préstamo personal", "préstamo de hasta", "financiación de hasta", "crédito rápido", "ayudamos a empresas",
		"empresas como la suya", "base de datos de contactos",
		"oferta de préstamo", "financiación para su negocio", "préstamo para empresas", "línea de crédito",
		"contactos de tomadores de decisiones", "base de datos b2b", "leads cualificados", "citas cualificadas",
		// Japanese
		"seo対策", "検索上位", "上位表示", "ホームページ制作", "ホームページのリニューアル", "無料診断", "集客",
		"新規顧客の獲得", "営業リスト", "リード獲得", "ファクタリング", "資金調達", "未公開株", "上場前", "値上がり",
		"特別価格でご案内", "選ばれた方だけ",
		"参加者リスト", "売上アップ", "即日融資", "融資のご案内", "融資可能", "ビジネスローン", "事業資金のご案内", "決裁者リスト", "決裁者とのアポ",
		"アポイント獲得", "企業リスト",
	},
	ocAsk: {
		"would you be interested", "are you interested", "if you are interested", "if you're interested",
		"let me know if you're interested", "let me know if you are interested", "let me know and i will send",
		"can i send you", "shall i send you", "may i send you", "can i send it over", "shall i send it over", "should i send it over",
		"want me to send it over", "would it make sense", "are you open to",
		"open to a quick", "worth a quick", "quick call", "15-minute call", "15 minute call", "10-minute call",
		"15 minutes", "hop on a call", "jump on a call", "book a call", "free consultation", "reply yes",
		"reply with yes", "who is the right person", "who would be the right person",
		"interested in learning more", "open to exploring", "send you more details", "would love to chat",
		"grab 15 minutes", "find a time to chat", "15-minute chat", "20-minute chat", "30-minute chat", "20-minute call",
		"30-minute call", "quick chat", "worth a chat", "worth a 15", "worth a 20", "brief call",
		"quick demo", "short demo", "free demo", "let me know a good time", "when is a good time",
		"do you have time for a call", "are you available for a call", "something you'd be interested in",
		"something you would be interested in", "worth a conversation", "would you like me to send",
		// German
		"hätten sie interesse", "haben sie interesse", "bei interesse", "falls interesse besteht",
		"wenn sie interesse haben", "kurzes telefonat", "15 minuten", "darf ich ihnen", "soll ich ihnen",
		"antworten sie einfach", "kostenloses erstgespräch",
		"kurzen austausch", "kurzes gespräch", "wann passt es ihnen", "wäre das interessant", "unverbindliches gespräch",
		// French
		"seriez-vous intéressé", "êtes-vous intéressé", "si cela vous intéresse", "si vous êtes intéressé",
		"un court appel", "15 minutes", "puis-je vous envoyer", "répondez simplement", "répondez oui",
		"un court échange", "un rendez-vous téléphonique", "seriez-vous disponible", "cela pourrait-il vous intéresser",
		// Spanish
		"le interesaría", "le interesa", "si está interesado", "estaría interesado", "una llamada rápida",
		"una breve llamada", "15 minutos", "puedo enviarle", "responda sí", "simplemente responda",
		"agendar una llamada", "una breve reunión", "tiene 15 minutos", "podríamos agendar", "me encantaría mostrarle",
		// Japanese
		"ご興味がございましたら", "ご興味があれば", "ご興味をお持ち", "お申し込みは", "本メールへの返信",
		"このメールにご返信", "オンライン面談", "資料をお送り",
		"無料相談", "お時間をいただけ", "ご検討いただけますと幸いです", "お打ち合わせのお時間",
	},
	ocOptOut: {
		"if you're not interested", "if you are not interested", "if this isn't relevant", "if this is not relevant",
		"not the right person", "reply stop", "reply \"stop\"", "reply no", "reply \"no\"", "i won't reach out again",
		"i will not contact you again", "remove you from my list",
		"prefer not to hear from me", "i'll stop emailing", "i won't follow up", "reply unsubscribe",
		"to stop receiving", "stop receiving these emails", "no longer wish to receive", "no longer want to receive",
		// German
		"wenn sie kein interesse haben", "falls kein interesse", "kein interesse besteht", "keine weiteren e-mails",
		"nicht mehr kontaktieren", "mit stop antworten", "keine e-mails mehr", "keine weiteren nachrichten",
		// French
		"si vous n'êtes pas intéressé", "si cela ne vous intéresse pas", "ne plus être contacté", "répondez stop",
		"ne plus recevoir",
		// Spanish
		"si no le interesa", "si no está interesado", "no volver a contactarle", "responda stop", "responda baja",
		"no deseas recibir", "no desea recibir", "darte de baja", "darse de baja", "responde baja", "dejar de recibir",
		// Japanese
		"ご不要の場合", "不要な場合", "今後のご案内が不要", "配信停止",
	},
	ocFollowUp: {
		"just following up", "following up on my last", "following up on my previous", "following up on my email",
		"my previous email", "my last email", "bumping this", "circling back", "top of your inbox",
		"haven't heard back", "have not heard back",
		"following up on my", "follow up on my", "did you see my", "did you get my", "any thoughts on my",
		"just checking in", "wanted to make sure you saw", "in case you missed my", "in case it got buried",
		// German
		"nochmal nachhaken", "noch einmal nachhaken", "kurz nachhaken", "meine letzte e-mail", "meine letzte nachricht",
		"meine vorherige e-mail", "haben sie meine e-mail", "meine e-mail von letzter woche", "ich melde mich noch einmal",
		"falls meine e-mail untergegangen",
		// French
		"je me permets de vous relancer", "mon dernier e-mail", "mon précédent e-mail", "mon dernier message",
		"mon précédent message", "mon dernier mail", "suite à mon précédent", "suite à mon dernier", "je me permets de revenir vers vous",
		"au cas où mon message",
		// Spanish
		"le escribo de nuevo", "dando seguimiento", "hacer seguimiento", "mi último correo", "mi correo anterior",
		"mi mensaje anterior", "siguiendo con mi", "tuvo oportunidad de ver mi", "le escribo nuevamente", "vuelvo a escribirle",
		"por si no vio mi",
		// Japanese
		"先日お送りした", "以前お送りした", "先日ご連絡", "再度のご連絡", "先日のメール", "前回のメール", "再度ご連絡",
	},
	ocPrize: {
		"you have been selected", "you've been selected", "you have been chosen", "you have been nominated",
		"you've been nominated", "you have won", "selected as a winner", "selected as one of", "nominated as one of",
		"invite you to speak", "invited to speak", "selected to speak", "selected to be featured",
		"you have been shortlisted", "you've been shortlisted", "selected to receive",
		// German
		"sie wurden ausgewählt", "als gewinner", "sie haben gewonnen", "sie wurden nominiert", "nominiert",
		// French
		"vous avez été sélectionné", "vous avez gagné", "vous avez été nominé", "vous avez été choisi", "lauréat",
		// Spanish
		"ha sido seleccionado", "ha sido seleccionada", "ha ganado", "ha sido nominado", "ha sido nominada", "galardonado",
		// Japanese
		"当選", "ノミネート", "選ばれました", "選出されました", "受賞",
	},
	ocFee: {
		"listing fee", "processing fee", "registration fee", "handling fee", "shipping fee", "release fee",
		"clearance fee", "speaker fee", "speaking fee", "keynote fee", "pay only", "only pay", "just pay", "publication fee", "participation fee", "fee of", "sponsorship package", "to secure your",
		"to confirm your place",
		// German
		"versandkosten", "bearbeitungsgebühr", "zahlen sie nur", "teilnahmegebühr", "veröffentlichungsgebühr", "gebühr von", "kostenbeitrag",
		// French
		"frais de port", "frais de dossier", "frais d'inscription", "frais de traitement", "payez seulement", "frais de participation", "frais de publication", "des frais de",
		// Spanish
		"gastos de envío", "cuota de inscripción", "gastos de gestión", "solo pague", "solo tiene que pagar", "cuota de participación", "una cuota de", "una tarifa de", "la cuota de", "cuota de ponente",
		// Japanese
		"手数料", "送料", "掲載料", "登録料", "参加費", "費用",
	},
}

// freeMailDomains are providers anyone can write from: a business pitch
// from one is a stranger's.
var freeMailDomains = []string{
	"gmail.com", "googlemail.com", "yahoo.com", "hotmail.com", "outlook.com", "live.com", "aol.com", "icloud.com",
	"gmx.de", "gmx.net", "web.de", "t-online.de", "yahoo.fr", "orange.fr", "laposte.net", "hotmail.fr",
	"yahoo.es", "hotmail.es", "yahoo.co.jp", "proton.me", "protonmail.com", "mail.ru", "yandex.ru",
	// the same providers' other countries, and the other large ones
	"outlook.jp", "outlook.fr", "outlook.de", "outlook.es", "hotmail.co.uk", "hotmail.de", "hotmail.it", "hotmail.co.jp",
	"live.fr", "live.de", "live.co.uk", "live.jp", "msn.com", "yahoo.de", "yahoo.co.uk", "yahoo.it", "ymail.com",
	"me.com", "mac.com", "gmx.com", "gmx.at", "gmx.ch", "gmx.fr", "freenet.de", "zoho.com", "tutanota.com", "tuta.io",
	"pm.me", "free.fr", "sfr.fr", "wanadoo.fr", "libero.it", "qq.com", "163.com", "naver.com", "docomo.ne.jp",
	"ezweb.ne.jp", "au.com", "softbank.ne.jp", "i.softbank.jp",
}

// freeMailSet is freeMailDomains as a set.
var freeMailSet = func() map[string]bool {
	m := make(map[string]bool, len(freeMailDomains))
	for _, d := range freeMailDomains {
		m[d] = true
	}
	return m
}()

// outreach is what made a message cold outreach: the cues found and a
// reason for the user ("" when it is not).
type outreach struct {
	found  [numOutreachCues]string // the first phrase of each cue
	reason string
}

// coldOutreach reports whether the latest message from others (msgs[an.latest])
// is an unsolicited pitch. It only looks at mail from a stranger (the
// principal has not written in the thread, to the sender or read them,
// and the sender is outside the principal's domain) to the principal
// alone or their organisation's one address (info@), outside lists and
// automated mail. Then it takes an offer with a stranger's opener, a call
// to action, an opt-out line, a follow-up claim, a free-mail sender or a
// "Re:" that answers nothing; a prize or nomination with a fee to pay; or
// a claim to follow up earlier mail that the thread does not hold with a
// call to action or an opt-out line.
func coldOutreach(msgs []*model.Message, an *analysis, principal model.Address) outreach {
	var o outreach
	if an.latest < 0 || an.replied || an.familiar || an.internal || an.automated || an.bulk {
		return o
	}
	m := msgs[an.latest]
	if isListMail(m) || len(m.To)+len(m.Cc) > 1 {
		return o
	}
	if rcpt := append(slices.Clip(m.To), m.Cc...); len(rcpt) == 1 && principal.Email != "" && !sameAddr(rcpt[0].Email, principal.Email) &&
		!strings.EqualFold(domainOf(rcpt[0].Email), domainOf(principal.Email)) {
		// To someone outside the principal's organisation: a forward or
		// a Bcc of a group. A pitch to the organisation's own address
		// (info@, sales@) reaching the principal is still one.
		return o
	}
	// A stranger's bump of their own unanswered mail ("Did you get a
	// chance to look at my note below?"): every earlier message of the
	// thread is theirs, and the pitch is in the first.
	selfBump := an.latest > 0
	for _, x := range msgs[:an.latest] {
		if !sameAddr(x.From.Email, m.From.Email) {
			selfBump = false
		}
	}
	// an.latestOwn is ownText of m's body (cut at maxAnalyzed bytes).
	own := an.latestOwn
	if selfBump {
		first := msgs[0].Body()
		if len(first) > maxAnalyzed {
			first = first[:maxAnalyzed]
		}
		own += "\n" + first
	}
	text := outreachText(m.Subject + "\n" + own)
	words, cjk := textWords(text)
	for c := range o.found {
		o.found[c] = findCue(text, words, cjk, compiledOutreach[c])
	}
	has := func(c outreachCue) bool { return o.found[c] != "" }
	// Phantom follow-up: no earlier message of the sender in the thread.
	phantom := true
	for _, x := range msgs[:an.latest] {
		if sameAddr(x.From.Email, m.From.Email) {
			phantom = false
		}
	}
	free := freeMail(domainOf(m.From.Email))
	// A reply that answers nothing: "Re:" on the first message of the
	// thread, with no In-Reply-To or References (a real reply to mail the
	// mailbox does not hold, the principal's sent mail, still names it).
	fakeReply := phantom && len(m.InReplyTo) == 0 && len(m.References) == 0 && answerSubject(m.Subject)
	switch {
	case has(ocOffer) && (has(ocOpener) || has(ocAsk) || has(ocOptOut) || has(ocFollowUp) || free || fakeReply):
		o.reason = "a stranger's sales pitch (" + quoteCues(&o, ocOffer, ocOpener, ocAsk, ocOptOut, ocFollowUp) + ")"
		if fakeReply && !has(ocOpener) && !has(ocAsk) && !has(ocOptOut) && !has(ocFollowUp) && !free {
			o.reason = "a stranger's sales pitch written as a reply to nothing (" + quoteCues(&o, ocOffer) + ")"
		}
	case has(ocAsk) && has(ocOptOut) && (has(ocOpener) || has(ocFollowUp)):
		// Without a named offer, the whole shape of a pitch: a stranger
		// introduces themselves or bumps their own mail, asks for a call,
		// and offers to go away ("If you're not the right person…"),
		// which no customer or colleague writes.
		o.reason = "a stranger's sales pitch (" + quoteCues(&o, ocOpener, ocAsk, ocOptOut, ocFollowUp) + ")"
	case has(ocPrize) && has(ocFee):
		o.reason = "a prize or an award that costs a fee (" + quoteCues(&o, ocPrize, ocFee) + ")"
	case has(ocFollowUp) && phantom && (has(ocAsk) || has(ocOptOut)):
		o.reason = "follows up mail the thread does not hold (" + quoteCues(&o, ocFollowUp, ocAsk, ocOptOut) + ")"
	}
	return o
}

// answerSubject reports whether subject says it answers a message ("Re:",
// "AW:", "Antw:", "RV:", "SV:"; not a forward).
func answerSubject(subject string) bool {
	s := strings.ToLower(strings.TrimSpace(subject))
	for _, p := range []string{"re", "aw", "antw", "rv", "sv"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			rest = strings.TrimLeft(rest, " ")
			if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "：") {
				return true
			}
		}
	}
	return false
}

// quoteCues lists the phrases found for cues, quoted, comma separated.
func quoteCues(o *outreach, cues ...outreachCue) string {
	var b strings.Builder
	for _, c := range cues {
		if o.found[c] == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + o.found[c] + `"`)
	}
	return b.String()
}

// outreachText is s lower-cased with runs of white space made one space
// and typographic apostrophes made straight.
func outreachText(s string) string {
	s = strings.ToLower(normSpace(s))
	return strings.ReplaceAll(s, "’", "'")
}

// cuePhrase is an outreach phrase with what screens it: its first word
// must be among the text's words, or, for a phrase holding Japanese
// (written without spaces), the text must hold Japanese.
type cuePhrase struct {
	text, first string
	cjk         bool
}

// compiledOutreach is outreachPhrases screened (see cuePhrase).
var compiledOutreach = func() (out [numOutreachCues][]cuePhrase) {
	for c, list := range outreachPhrases {
		for _, p := range list {
			cp := cuePhrase{text: p, cjk: hasCJK(p)}
			if !cp.cjk {
				cp.first = firstWord(p)
			}
			out[c] = append(out[c], cp)
		}
	}
	return out
}()

// hasCJK reports whether s holds a character of the CJK blocks (from
// U+2E80: kana, kanji, full-width forms). Their UTF-8 lead byte is 0xE2
// or more, which textWords checks first.
func hasCJK(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 {
			return true
		}
	}
	return false
}

// firstWord is the first run of word bytes of s (see isWordByte).
func firstWord(s string) string {
	i := 0
	for i < len(s) && !isWordByte(s[i]) {
		i++
	}
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	return s[i:j]
}

// textWords returns the set of text's words (runs of word bytes) and
// whether it holds CJK letters.
func textWords(text string) (map[string]struct{}, bool) {
	words := make(map[string]struct{}, len(text)/6)
	cjk := false
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWordByte(text[j]) {
			if text[j] >= 0xE2 {
				cjk = true
			}
			j++
		}
		words[text[i:j]] = struct{}{}
		i = j
	}
	return words, cjk && hasCJK(text)
}

// findCue returns the first phrase of list found in text ("" none). A
// phrase starting (ending) with an ASCII letter or digit must start (end)
// a word.
func findCue(text string, words map[string]struct{}, cjk bool, list []cuePhrase) string {
	for _, cp := range list {
		if cp.cjk && !cjk {
			continue
		}
		if !cp.cjk {
			if _, ok := words[cp.first]; !ok {
				continue
			}
		}
		p := cp.text
		for i := 0; ; {
			j := strings.Index(text[i:], p)
			if j < 0 {
				break
			}
			j += i
			end := j + len(p)
			if (!asciiAlnum(p[0]) || j == 0 || !isWordByte(text[j-1])) &&
				(!asciiAlnum(p[len(p)-1]) || end == len(text) || !isWordByte(text[end])) {
				return p
			}
			i = j + 1
		}
	}
	return ""
}

func asciiAlnum(c byte) bool {
	return ('a' <= c && c <= 'z') || ('0' <= c && c <= '9')
}

// freeMail reports whether domain is a free-mail provider's.
func freeMail(domain string) bool {
	return freeMailSet[domain]
}

// recruitClient and recruitAsk are the two halves of a recruiter's pitch:
// a search for someone else's company ("I'm partnering with a Series C
// company on a Head of Platform search") and the ask of the reader's
// openness to it ("would you be open to a chat"), in the five languages
// (lower case).
var (
	recruitClient = []string{"i'm partnering with", "i am partnering with", "i'm working with a", "i am working with a",
		"my client", "a client of ours", "on behalf of a", "retained by", "executive search", "looking for a head of",
		"looking for a director", "looking for a vp", "head of", "director of", "vp of",
		"mein mandant", "meine mandantin", "unser mandant", "im auftrag eines", "im auftrag einer",
		"mon client", "ma cliente", "pour le compte d", "cabinet de recrutement",
		"mi cliente", "en nombre de una", "en nombre de un", "empresa cliente",
		"ヘッドハンティング", "転職", "スカウト", "人材紹介"}
	recruitAsk = []string{"would you be open", "you'd be open", "you would be open", "are you open to", "if you're open to",
		"open to exploring", "interested in exploring", "not looking", "confidential chat", "confidential conversation",
		"confidential call",
		"wären sie offen", "wärst du offen", "offen für ein gespräch", "wechselbereit", "vertrauliches gespräch",
		"vertraulichen gespräch", "vertrauliches telefonat", "vertraulichen austausch", "diskretes gespräch", "diskreten austausch",
		"seriez-vous ouvert", "serais-tu ouvert", "ouvert à un échange", "ouverte à un échange", "échange confidentiel",
		"à l'écoute du marché", "estarías abierto", "estaría abierto", "abierto a una conversación", "conversación confidencial",
		"ご興味があれば", "ご興味はございますか", "カジュアル面談"}
)

// recruiterPitch says why the latest message is a recruiter's pitch to the
// principal ("" when it is not one): a stranger (see coldOutreach) writing
// to the principal alone about a search for another company and asking
// whether they are open to it. It is not spam (a person wrote it, to this
// reader), but it asks nothing the reader has to do: low priority.
func recruiterPitch(msgs []*model.Message, an *analysis) string {
	if an.latest < 0 || !an.addressed || an.replied || an.familiar || an.internal || an.automated || an.bulk {
		return ""
	}
	m := msgs[an.latest]
	if isListMail(m) || len(m.To)+len(m.Cc) > 1 {
		return ""
	}
	text := outreachText(m.Subject + "\n" + an.latestOwn)
	c, ok := containsAnyOf(text, recruitClient)
	if !ok {
		return ""
	}
	a, ok := containsAnyOf(text, recruitAsk)
	if !ok {
		return ""
	}
	return "a recruiter's pitch (\"" + strings.TrimSpace(c) + "\", \"" + strings.TrimSpace(a) + "\")"
}
