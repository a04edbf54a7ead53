package triage

import (
	"sort"

	"mailsift/triage/bayes"
)

// phraseKind groups phrases by what they indicate.
type phraseKind uint8

const (
	pkInjection phraseKind = iota
	pkCredential
	pkPayment
	pkDiversion
	pkUrgency
	pkMeeting
	pkRequest
	pkPositive
	pkNegative
	pkSpammy
	pkWindfall
	pkSolicitation
	pkSecrecy
	pkSolicitWord
	pkNotBill
	pkCalm
	pkRunCode
	pkIdentity
	numPhraseKinds
)

// phraseLists are matched word by word over lower-cased words (1-letter
// words such as "a" and "i" are not words for the tokenizer, so phrases
// omit them).
var phraseLists = [numPhraseKinds][]string{
	// fetched code to be run: install and setup commands, a setup
	// script (see codeRunLure)
	pkRunCode: {
		"npm install", "npm run", "npm ci", "yarn install", "pnpm install", "pip install", "setup sh", "setup env",
		"install sh", "docker run", "python setup py", "run the script", "execute the script", "skript",
		"exécutez le script", "lancez le script", "ejecuta el script", "ejecute el script",
	},
	// what identity theft asks beside a copy of an identity document:
	// an identity number, a bank account or card, a selfie holding the
	// document, a fee for the check (see identityLure)
	pkIdentity: {
		"national insurance number", "social security number", "sécurité sociale", "seguridad social",
		"sozialversicherungsnummer", "steuer id", "steueridentifikationsnummer", "iban", "rib", "bank account", "bank card",
		"card details", "cuenta bancaria", "compte bancaire", "bankverbindung", "kontonummer", "selfie", "verification fee",
	},
	pkInjection: {
		"ignore previous instructions", "ignore all previous instructions", "ignore the previous instructions",
		"ignore prior instructions", "ignore all prior instructions", "ignore your instructions", "ignore the above",
		"ignore all above", "ignore your rules", "ignore the rules", "ignore all rules", "ignore your previous",
		"disregard previous instructions", "disregard all previous", "disregard the above", "disregard your instructions",
		"disregard all prior", "forget your instructions", "forget all previous", "new instructions", "system prompt",
		"you are now", "as an ai", "you are an ai", "language model", "mark this as urgent", "mark this email as",
		"mark this message as", "mark this as", "mark as urgent", "classify this as", "classify this email",
		"categorize this as", "categorise this as", "set the category", "set category", "is_spam", "is_phishing",
		"do not flag", "reply with your", "forward this email to", "forward this message to",
		"forward all emails", "forward all messages", "send me the contents", "assistant must", "the assistant should",
		"ai assistant", "triage this as", "treat this as urgent", "override the", "end of mail", "end of email",
	},
	pkCredential: {
		"verify your account", "verify your identity", "confirm your identity", "confirm your account",
		"confirm your password", "enter your password", "update your password", "your password will expire",
		"password expires", "login credentials", "sign in to verify", "log in to verify", "verify your login",
		"validate your account", "account will be suspended", "account has been suspended", "account will be closed",
		"account has been locked", "account is locked", "unusual activity", "unusual sign in", "suspicious activity",
		"security alert", "social security number", "bank account details", "card details", "credit card number",
		"update your payment", "update your billing", "payment information", "verify your payment", "reactivate your account",
		"restore access", "mailbox is full", "mailbox quota", "mailbox storage", "storage full", "messages on hold", "re validate", "revalidate",
		// German, French, Spanish: sign-in and bank details
		"anmeldedaten", "zugangsdaten", "passwort bestätigen", "konto bestätigen", "konto verifizieren",
		"konto wurde gesperrt", "bankdaten", "bankverbindung bestätigen", "mot de passe", "identifiants",
		"vous identifier", "identifiez vous", "melden sie sich mit", "inicie sesión con", "identifíquese",
		"coordonnées bancaires", "vérifier votre compte", "confirmer votre identité", "compte sera suspendu",
		"contraseña", "usuario y clave", "datos bancarios", "verifique su cuenta", "verificar su identidad",
		"cuenta ha sido bloqueada", "tarjeta ha sido bloqueada",
		// the same asks in the other persons and moods: "vérifiez votre
		// compte", "verifique su identidad", "bestätigen Sie Ihre Identität"
		"vérifier mon compte", "vérifiez votre compte", "vérifier l'identité", "vérifiez votre identité", "confirmez votre identité",
		"suspension de votre compte", "mettre à jour vos informations", "mettez à jour vos informations",
		"verifique su identidad", "confirme su identidad", "verifique sus datos", "confirme sus datos", "actualice sus datos",
		"suspensión de su cuenta", "confirme el número de cuenta", "verifique su cuenta bancaria",
		"identität bestätigen", "bestätigen sie ihre identität", "verifizieren sie ihr konto", "aktualisieren sie ihre daten",
		"sperrung ihres kontos",
		// an account or a mailbox about to be switched off
		"will be deactivated", "will be disabled", "will be suspended", "wird gesperrt", "werden gesperrt", "sera suspendu", "seront suspendus",
		"será suspendida", "será suspendido", "serán suspendidos", "wird deaktiviert", "werden deaktiviert", "sera désactivé", "sera désactivée",
		"será desactivada", "sera desactivada", "será desactivado", "sera desactivado",
		// a mailbox said to be full or about to be closed, in the other
		// languages ("mailbox is full", "mailbox quota" above)
		"postfach ist voll", "speichergrenze erreicht", "postfach wird deaktiviert", "postfach automatisch deaktiviert",
		"speicher erweitern", "boîte aux lettres est pleine", "quota de votre boîte", "boîte mail est pleine",
		"votre boîte sera désactivée", "buzón está lleno", "cuota del buzón", "buzón será desactivado",
		// sign-in details and identity data asked to be confirmed again
		"login details", "re verify", "reverify", "account password", "email password", "online account password",
		"verifying your identity", "national insurance number", "steuer id", "numéro de sécurité sociale",
		// a document or a portal said to open only after signing in with
		// the reader's work account: the page asks for that password
		"with your microsoft 365", "your corporate microsoft 365", "with your office 365", "your microsoft 365 account", "your microsoft 365 email",
		"sign in with your work email", "sign in with your corporate", "with your work email account", "with your corporate email", "with your company email", "sign in with your company", "email and password",
		"mit ihrem microsoft 365", "mit ihrer geschäftlichen mail", "mit ihren firmenzugangsdaten",
		"avec votre compte microsoft 365", "avec votre adresse professionnelle", "avec vos identifiants professionnels",
		"con su cuenta de microsoft 365", "con su correo corporativo", "cuenta de correo corporativa", "con tu correo corporativo", "con sus credenciales corporativas",
	},
	pkPayment: {
		"gift card", "gift cards", "giftcard", "giftcards", "itunes card", "google play card", "steam card",
		"geschenkkarte", "geschenkkarten", "gutscheinkarte", "gutscheinkarten", "carte cadeau", "cartes cadeaux",
		"tarjeta regalo", "tarjetas regalo", "wire transfer", "wire the", "bank transfer",
		"western union", "moneygram", "bitcoin", "btc wallet", "crypto wallet", "send payment", "make payment",
		"outstanding invoice", "overdue invoice", "overdue payment", "pay the invoice",
		// the same in German, French and Spanish
		"offene rechnung", "überfällige rechnung", "unbezahlte rechnung", "facture impayée", "factures impayées",
		"facture en retard", "factura impagada", "factura vencida", "facturas impagadas",
		// a small fee held against a parcel: the carrier-lookalike lure
		"customs fee", "customs duty", "delivery fee", "redelivery fee", "shipping fee",
		"zollgebühr", "zollgebühren", "zustellgebühr", "nachgebühr",
		"frais de douane", "droits de douane", "frais de livraison", "frais de réexpédition",
		"tasas de aduana", "gastos de aduana", "tasa de aduana", "gastos de envío",
	},
	// Payment diversion: money asked to go to changed bank details, the
	// move of invoice and CEO fraud (a real change is confirmed by phone
	// on a known number, not announced by mail).
	pkDiversion: {
		"change of bank details", "new bank details", "updated bank details", "new banking details", "new bank account",
		"bank details have changed", "bank details have been changed", "bank details has changed", "banking details have changed",
		"bank account has changed", "bank account has been changed", "changed banks", "their bank changed", "our bank changed",
		"bank has changed", "new banking details", "banking details have changed", "updated banking details", "new details below", "changed our bank", "changed their bank",
		"payment to the new account", "payments to the new account", "paid to our new account", "paid into our new account",
		"to their new bank", "to our new bank", "updated remittance details", "new remittance details", "updated payment details",
		"updated remittance instructions", "new remittance instructions", "updated payment instructions", "new payment instructions",
		"updated banking instructions", "new banking instructions", "updated wire instructions", "new wire instructions",
		"updated wiring instructions", "new wiring instructions",
		"neue bankverbindung", "geänderte bankverbindung", "bankverbindung hat sich geändert", "bankverbindung geändert",
		"neue kontoverbindung", "auf das neue konto", "auf unser neues konto", "änderung unserer bankverbindung",
		"änderung der bankverbindung", "unsere bankverbindung ändert sich",
		// an employee's pay to a new account (payroll diversion)
		"update my bank details", "change my bank details", "my new bank details", "my new account details",
		"update my direct deposit", "change my direct deposit",
		"mi nueva cuenta", "cambiado de banco", "cambié de banco", "mon nouveau compte", "changé de banque", "ma nouvelle banque",
		"mein neues konto", "meine neue bankverbindung", "bank gewechselt",
		"nouvelles coordonnées bancaires", "changement de coordonnées bancaires", "coordonnées bancaires ont changé",
		"nouveau rib", "sur notre nouveau compte", "vers notre nouveau compte", "sur le nouveau compte",
		"nuevos datos bancarios", "cambio de datos bancarios", "datos bancarios han cambiado", "nueva cuenta bancaria",
		"a nuestra nueva cuenta", "a la nueva cuenta",
		// money asked to an account other than the usual one while that
		// one is said to be frozen, audited or migrating (the usual
		// cover story of invoice fraud)
		"to the new account", "to our new account", "interim account", "alternative account", "alternate account",
		"temporary account", "frozen for incoming payments", "account is currently under audit", "account is under audit",
		"update our bank details", "update our banking details", "updating our bank details",
		"übergangskonto", "ausweichkonto", "alternatives konto", "auf ein anderes konto", "aktualisierung unserer bankverbindung",
		"compte provisoire", "compte temporaire", "compte alternatif", "notre compte habituel",
		"mise à jour de nos coordonnées bancaires", "actualización de datos bancarios", "actualización de nuestros datos bancarios",
		"nuestra cuenta habitual", "cuenta provisional", "cuenta alternativa",
		"temporalmente inoperativa", "cuenta ha quedado bloqueada", "a la siguiente cuenta", "temporarily unavailable for incoming",
		"vorübergehend gesperrt", "auf folgendes konto", "temporairement indisponible", "sur le compte suivant",
		// an employee's salary to a new bank, in other words
		"my salary account", "switched my salary", "switched banks", "changed my bank", "change to my bank details", "changes to my bank details",
		"my bank details have changed",
	},
	pkUrgency: {
		"urgent", "urgently", "immediately", "asap", "as soon as possible", "right away", "right now", "act now",
		"within 24 hours", "within 48 hours", "within hours", "final notice", "final warning", "last chance",
		"expires today", "time sensitive", "time critical", "critical", "emergency", "deadline today", "eod today",
		"end of day today", "before noon", "outage", "down for", "production is down",
	},
	pkMeeting: {
		"meeting", "meet", "call", "calendar", "invite", "invitation", "reschedule", "schedule", "agenda",
		"zoom", "teams meeting", "google meet", "hop on", "sync up", "catch up", "are you available",
		"are you free", "does that work", "does this work", "works for you", "work for you", "time slot", "rsvp",
		"conference call", "standup", "1:1", "one on one",
	},
	pkRequest: {
		"please", "can you", "could you", "would you", "will you", "kindly", "let me know", "need you to",
		"need your", "your approval", "your feedback", "your input", "your review", "please review", "please confirm",
		"please send", "please sign", "action required", "required action", "waiting for your", "get back to me",
		"respond by", "reply by", "sign off", "approve",
	},
	pkPositive: {
		"thanks", "thank you", "great", "glad", "appreciate", "congratulations", "congrats", "awesome", "happy",
		"excellent", "wonderful", "well done", "good news", "pleased", "delighted", "love",
	},
	pkNegative: {
		"unfortunately", "problem", "issue", "issues", "disappointed", "frustrated", "angry", "broken", "failed",
		"failure", "complaint", "sorry", "concern", "concerned", "unacceptable", "bad news", "delay", "delayed",
		"cancelled", "canceled", "error", "outage", "refund", "escalate", "escalation",
	},
	// an urgency word said not to apply ("Rien d'urgent, mais…"), as
	// the tokenizer reads it (d', n't and 1-letter words dropped)
	pkCalm: {
		"not urgent", "nothing urgent", "isn urgent", "no rush", "no hurry", "not in hurry", "not rush", "non urgent",
		"not time sensitive", "nicht dringend", "nichts dringendes", "keine eile", "eilt nicht", "pas urgent",
		"rien urgent", "pas urgence", "sans urgence", "rien de pressé", "no es urgente", "nada urgente", "sin prisa",
		"no hay prisa", "no corre prisa",
	},
	pkSpammy: {
		"free money", "risk free", "100 free", "no cost", "earn money", "work from home", "make money", "cheap", "viagra",
		"cialis", "unsubscribe here", "limited time offer", "special promotion", "click below", "click here",
		"nigeria", "dear friend", "this is not spam",
		// German, French, Spanish
		"gratis", "kostenlos", "geld verdienen", "von zu hause",
		"sans justificatif", "crédit rapide", "gagner de l'argent", "depuis chez vous",
		"desde casa", "ganar dinero", "sin riesgo",
		// the predatory journal's and conference's call, whose fee is the
		// point ("article processing charge", "your esteemed research")
		"article processing charge", "publication fee", "your esteemed", "fast peer review", "cordially invite you",
		"speaker registration fee",
		// a sale's pressure in the five languages' marketing ("nur diese
		// Woche", "solo hoy", "offre limitée", "Black Friday")
		"final hours", "only today", "today only", "this week only",
		"nur heute", "nur diese woche", "nur noch bis", "sonderangebot", "jetzt zugreifen", "sofortkredit",
		"offre limitée", "offre exceptionnelle", "dernières heures", "profitez vite", "sans engagement", "réduisez vos impôts",
		"solo hoy", "solo esta semana", "oferta exclusiva", "últimas horas", "sin compromiso", "liquidación",
		// the award a fee buys, and the SEO seller's pitch
		"you've been shortlisted", "you have been shortlisted", "been shortlisted for", "has been shortlisted",
		"guest post", "link insertion", "dofollow", "do follow", "first page of google", "première page de google",
		"primera página de google", "erste seite bei google",
	},
	// the small print of an offer dressed as an invoice (the disclaimer
	// US law asks of such mailings, the German "Adressbuchschwindel"'s,
	// and their French and Spanish forms; see bodySignals)
	pkSolicitation: {"this is solicitation", "keine rechnung sondern ein angebot", "pas une facture mais une offre",
		"no es una factura sino una oferta"},
	pkSolicitWord: {"solicitation"},
	// discretion asked, or the reader's presence checked: how a fraud in
	// someone's name opens
	pkSecrecy: {"strictly confidential", "keep this between us", "keep it between us", "between the two of us", "keep this confidential",
		"be discreet", "your discretion", "are you at your desk", "are you available", "are you around", "do you have minute",
		"quick favor", "quick favour", "streng vertraulich", "unter uns", "bist du erreichbar", "sind sie erreichbar",
		"bist du am platz", "strictement confidentiel", "en toute discrétion", "es tu disponible", "êtes vous disponible",
		"estrictamente confidencial", "con discreción", "estás disponible", "ご内密", "内密に", "極秘",
		// and moves the talk to a channel nobody else sees
		"confidential matter", "normal channels", "mention this to anyone", "don tell anyone",
		"cannot talk", "send me your mobile", "send me your cell", "your mobile number", "your cell number", "whatsapp",
		"deine handynummer", "ihre handynummer", "kann gerade nicht telefonieren", "ton numéro de portable",
		"votre numéro de portable", "tu número de móvil", "su número de móvil", "no puedo hablar",
		// and asks not to be called back on it: no check on a known number
		"please do not call", "please don't call", "do not call our office", "rather than calling", "instead of calling",
		"bitte nicht anrufen", "von anrufen abzusehen", "merci de ne pas appeler", "ne pas nous appeler", "no nos llame", "no llamen"},
	// "This is not a bill" alone is also what an insurer's statement says
	pkNotBill: {"this is not bill"},
	// a windfall offered: a prize, a lottery, an inheritance or funds to
	// release, or the extortion's threat (spam wording too; see windfall)
	pkWindfall: {
		"you have won", "you won", "winner", "lottery", "claim your prize", "claim your reward", "million dollars",
		"inheritance", "beneficiary", "dear beneficiary",
		"sie haben gewonnen", "gewonnen", "gewinnspiel", "vous avez gagné", "gagnant", "ha ganado", "has ganado", "ganador",
		// and its reverse, the extortion ("I recorded you"): a demand
		// of the scam's own, not a payment in someone else's name
		"adult website", "adult websites", "recorded you", "your webcam", "full access to your device", "access to your device",
		"i am a hacker", "my trojan", "access to your operating system", "made a video of you", "i made a video",
		"website für erwachsene", "websites für erwachsene", "webseite für erwachsene", "seiten für erwachsene",
		"videos von ihnen", "über ihre kamera", "ihre webcam", "vollen zugriff auf ihr konto", "zugriff auf ihre geräte",
		"site pour adultes", "sites pour adultes", "site pornographique", "votre webcam", "vidéo de vous",
		"accès complet à votre", "sitio para adultos", "sitios para adultos", "página para adultos", "páginas para adultos",
		"tu cámara web", "su cámara web", "un vídeo tuyo", "un video tuyo", "acceso total a tu", "acceso completo a su",
		// and the investment scam, whose deposit is its own offer's
		// ("AI trading", "guaranteed returns", "placement garanti")
		"ai trading", "trading bot", "arbitrage fund", "arbitrage pool", "ai arbitrage", "crypto arbitrage",
		"guaranteed return", "guaranteed returns", "guaranteed profit", "guaranteed profits", "fixed return",
		"weekly return", "weekly returns", "monthly returns", "daily returns",
		"rendement garanti", "rendements garantis", "placement garanti", "garantierte rendite", "garantierten renditen",
		"rentabilidad garantizada", "rendimiento garantizado", "beneficios garantizados",
	},
}

// phraseIndex is the compiled phrase lists, indexed by 12 bits of the
// bayes.Hash of their last word so that words can be matched as they
// stream by: most words end no phrase and find an empty slot.
type phraseIndex struct {
	// slot holds 1 + the index in lists of the phrases whose last word
	// has these hash bits, 0 for none.
	slot  [1 << 12]uint16
	lists [][]compiledPhrase
}

// slotOf is the slot of a word's bayes.Hash.
func slotOf(h uint64) uint { return uint(h >> 52) }

type compiledPhrase struct {
	words  []string
	hashes []uint64 // bayes.Hash of each word
	kind   phraseKind
	text   string
}

// maxPhraseWords bounds the words of one phrase (the stream's window).
const maxPhraseWords = 8

func compilePhrases() *phraseIndex {
	idx := &phraseIndex{}
	for k, list := range phraseLists {
		for _, p := range list {
			w := bayes.AppendWords(nil, p, "")
			if len(w) == 0 || len(w) > maxPhraseWords {
				continue
			}
			hs := make([]uint64, len(w))
			for j := range w {
				hs[j] = bayes.Hash(w[j])
			}
			i := slotOf(hs[len(hs)-1])
			if idx.slot[i] == 0 {
				idx.lists = append(idx.lists, nil)
				idx.slot[i] = uint16(len(idx.lists))
			}
			l := &idx.lists[idx.slot[i]-1]
			*l = append(*l, compiledPhrase{words: w, hashes: hs, kind: phraseKind(k), text: p})
		}
	}
	// Injection phrases first, longest first, so they win over the rest
	// (phrases with other last words sharing a slot never match).
	for _, c := range idx.lists {
		sort.SliceStable(c, func(i, j int) bool {
			if (c[i].kind == pkInjection) != (c[j].kind == pkInjection) {
				return c[i].kind == pkInjection
			}
			return len(c[i].words) > len(c[j].words)
		})
	}
	return idx
}

// phraseStream matches phrases over words pushed one at a time.
type phraseStream struct {
	idx    *phraseIndex
	win    [maxPhraseWords]bayes.Word
	n      int
	counts [numPhraseKinds]int
	first  [numPhraseKinds]string
}

// push adds the next word. A word that ends an injection phrase counts for
// nothing else, so "mark this as urgent" is an injection attempt, not urgency.
func (p *phraseStream) push(w bayes.Word) {
	p.win[p.n%maxPhraseWords] = w
	p.n++
	i := p.idx.slot[slotOf(w.Hash)]
	if i == 0 {
		return
	}
	for _, c := range p.idx.lists[i-1] {
		if !p.tail(c) {
			continue
		}
		if p.counts[c.kind] == 0 {
			p.first[c.kind] = c.text
		}
		p.counts[c.kind]++
		if c.kind == pkInjection {
			return
		}
	}
}

// tail reports whether the last words pushed are c's words.
func (p *phraseStream) tail(c compiledPhrase) bool {
	ws := c.words
	if len(ws) > p.n {
		return false
	}
	for j := range ws {
		if w := &p.win[(p.n-len(ws)+j)%maxPhraseWords]; w.Hash != c.hashes[j] || !w.Is(ws[j]) {
			return false
		}
	}
	return true
}

// containsInjection says whether s contains an injection phrase; used to
// keep such sentences out of summaries, action items and the spam score.
func (idx *phraseIndex) containsInjection(s string) bool {
	ps := phraseStream{idx: idx}
	bayes.EachToken(s, ps.push)
	return ps.counts[pkInjection] > 0
}
