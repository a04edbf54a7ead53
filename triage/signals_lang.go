package triage

// Language-independent and multilingual cues for the bucket: calendar
// responses and cancellations, requests and questions in German, French,
// Spanish and Japanese, and asks and deadlines written in the subject.

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"mailsift/model"
	"mailsift/triage/internal/ascii"
)

// calendarNoticePrefixes start the subjects calendar software writes for
// a response to an invitation or a cancellation (lower-case, without the
// colon): no answer is expected from the reader.
var calendarNoticePrefixes = []string{
	"accepted", "declined", "tentative", "tentatively accepted", "canceled", "cancelled", "event canceled",
	"event cancelled", "canceled event", "cancelled event", "invitation canceled",
	"angenommen", "abgelehnt", "mit vorbehalt angenommen", "abgesagt", "absage",
	"accepté", "refusé", "provisoire", "annulé", "annulation", "événement annulé",
	"aceptado", "rechazado", "cancelado", "cancelada", "evento cancelado",
	"承諾", "辞退", "仮承諾", "キャンセル", "中止",
}

// isCalendarNotice reports whether subject starts like a calendar
// response or cancellation ("Canceled: Retro @ Fri", "Annulé : …").
func isCalendarNotice(subject string) bool {
	s := strings.ToLower(strings.TrimSpace(subject))
	for _, p := range calendarNoticePrefixes {
		// "【キャンセル】…", "[Cancelled] …": the word in brackets
		for _, br := range [][2]string{{"【", "】"}, {"[", "]"}} {
			if strings.HasPrefix(s, br[0]+p+br[1]) {
				return true
			}
		}
		if rest, ok := strings.CutPrefix(s, p); ok {
			rest = strings.TrimLeft(rest, " ")
			if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "：") {
				return true
			}
		}
	}
	return false
}

// foreignRequests mark a sentence that asks the reader to do something,
// in German, French, Spanish and Japanese (lower-case; matched as
// substrings of the lower-cased sentence).
var foreignRequests = []string{
	"bitte ", "bitten sie", "könnten sie", "können sie", "könntest du", "kannst du", "würden sie",
	"merci de ", "pourriez-vous", "pouvez-vous", "pourrais-tu", "peux-tu", "je vous prie", "veuillez",
	"por favor", "podría", "podrías", "necesito que", "le agradecería", "le rogamos", "les rogamos", "te rogamos",
	"rogamos que", "nous vous prions", "vous prions de",
	"ください", "をお願い", "いただけ", "頂け", "ご確認", "ご判断", "ご対応", "ご承認",
	// a polite question closed with 。 rather than ？: "…という理解でよろしいでしょうか。"
	"でしょうか", "よろしいですか", "いかがですか",
	// the decision is the reader's: "c'est à toi de valider la demande"
	"c'est à toi de", "c'est à vous de", "c’est à toi de", "c’est à vous de", "liegt bei dir", "liegt bei ihnen",
	"te toca", "le toca", "le corresponde a usted",
	// polite and conditional asks: "if you could…", "I would like you to…"
	"ich hätte gerne, dass", "ich hätte gern, dass", "hätte gern dein", "hätte gerne dein", "hätte gern ihr", "hätte gerne ihr",
	"hätte gern euer", "hätte gerne euer", "ich möchte sie bitten", "ich möchte dich bitten",
	"si vous pouviez", "si tu pouvais", "j'aimerais que", "j’aimerais que", "je souhaiterais que", "nous souhaiterions que",
	"si pudiera", "si pudieras", "si pudieran", "me gustaría que", "nos gustaría que",
	// indirect questions: "we wanted to know whether…", "I'd like to know…"
	"ich wollte fragen", "wir wollten fragen", "gerne wissen", "gern wissen", "möchte wissen", "möchten wissen",
	"je voudrais savoir", "nous voudrions savoir", "j'aimerais savoir", "nous aimerions savoir", "je me demandais",
	"nous nous demandions", "quería saber", "queríamos saber", "quisiera saber", "quisiéramos saber",
	"me gustaría saber", "nos gustaría saber",
	// a need or a wish of the writer's that only the reader can meet,
	// said in the conditional: "nous aurions besoin du bon de commande
	// signé", "une réponse d'ici mardi nous conviendrait", "wäre ideal"
	"nous aurions besoin", "j'aurais besoin", "j’aurais besoin", "nous conviendrait", "me conviendrait",
	"ce serait parfait", "serait idéal", "wäre ideal", "wäre super", "wäre toll", "bräuchten wir", "wir bräuchten",
	"ich bräuchte", "bräuchte ich", "me gustaría pedirte", "me gustaría pedirle", "te agradecería", "sería ideal",
	"necesitaríamos", "nos vendría bien", "necesitamos que", "nos confirme", "nos confirméis", "nos confirmes",
	// an ask as a condition of what the writer will do: "si me las pasas
	// el lunes, me da tiempo", "si je peux l'avoir d'ici le 2, c'est
	// parfait"
	"si me lo pasas", "si me la pasas", "si me los pasas", "si me las pasas", "si me lo envías", "si me las envías",
	"si me lo mandas", "si me las mandas", "si je peux l'avoir", "si je peux l’avoir", "si je pouvais l'avoir",
	"si je pouvais l’avoir", "si tu peux me l", "si tu me l'envoies", "si tu me l’envoies",
	// the reader's sign-off named as what is missing: "la politique
	// demande ta validation ; il suffit de l'approuver"
	"ta validation", "votre validation", "ton feu vert", "votre feu vert", "il suffit de", "il te suffit", "il vous suffit",
	"deine freigabe", "ihre freigabe", "deine zustimmung", "ihre zustimmung", "dein okay", "dein ok ",
	"tu aprobación", "su aprobación", "tu visto bueno", "su visto bueno", "basta con que",
	// what only the reader can still supply: "il ne manque que le tien",
	// "nos faltan los justificantes", "siguen pendientes", and the
	// conditional "si tu peux saisir ton retour avant jeudi"
	"il ne manque que", "ne manque plus que", "il nous manque", "toujours en attente de ton", "toujours en attente de votre",
	"fehlt nur noch", "fehlen noch", "es fehlt noch", "uns fehlt noch",
	"solo falta", "sólo falta", "nos falta", "nos faltan", "siguen pendientes", "sigue pendiente",
	"si tu peux", "si vous pouvez", "si tu pouvais", "si puedes", "si pudieras",
	"j'aimerais ta", "j’aimerais ta", "j'aimerais ton", "j’aimerais ton", "j'aimerais votre", "j’aimerais votre", "j'aimerais avoir ton", "j’aimerais avoir ton",
	"si me la apruebas", "si me lo apruebas", "si puedes aprobar", "でお願い",
	"brauche eine entscheidung", "brauche ein ok", "besoin d'une réponse", "besoin d’une réponse", "besoin d'une décision",
	"besoin d’une décision", "necesito una respuesta", "necesito una decisión",
}

// hasForeignRequest reports whether a sentence asks something in one of
// the languages of foreignRequests. A Japanese cue in the past or thanked
// for ("先日ご承認いただいた請求書", "ご確認いただきありがとうございます")
// recalls an ask already met, and a sentence saying nothing is asked
// (see notAsked) asks nothing.
func hasForeignRequest(sentence string) bool {
	low := strings.ToLower(sentence)
	// Every occurrence of the request cues and of notAsked, in one pass
	// (see cueSet) rather than one search per phrase. This also finds
	// occurrences overlapping an earlier one of the same cue ("si tu
	// pouvaisi tu pouvais"), which a search resuming after each match
	// skips; they change nothing: the earlier one is followed by the rest
	// of the cue, not by the Japanese of askMet, so it already answers.
	var buf [8]cueHit
	hits := foreignRequestCues.find(low, buf[:0])
	for _, h := range hits {
		if h.set&cueNotAsked != 0 {
			return false
		}
	}
	for _, h := range hits {
		if h.set&cueForeignRequest != 0 {
			if !askMetAfter(low[h.end:]) {
				return true
			}
		}
	}
	return false
}

// askMetAfter reports whether rest, what follows a Japanese request cue
// in its sentence, recalls the ask as met (see askMet), also with thanks
// later in the sentence: "迅速にご対応いただき、誠にありがとうございました".
func askMetAfter(rest string) bool {
	if _, done := hasAnyPrefix(rest, askMet); done {
		return true
	}
	if _, did := hasAnyPrefix(rest, []string{"いただき", "頂き"}); did {
		return strings.Contains(rest, "ありがとう")
	}
	return false
}

// The lists of hasForeignRequest, as bits of foreignRequestCues.
const (
	cueForeignRequest uint8 = 1 << iota // foreignRequests
	cueNotAsked                         // notAsked
)

var foreignRequestCues = newCueSet(foreignRequests, notAsked)

// askMet follow a Japanese request cue that recalls a request already met:
// the past of いただく, thanks, "done" (済).
var askMet = []string{"いただいた", "いただきました", "頂いた", "頂きました", "いただきありがとう", "頂きありがとう", "ありがとう", "済"}

// notAsked are the ways a message says that no answer or action is
// wanted ("please do not reply", "no action is required", "特にご対応いた
// だくことはありません"): the polite words around them ask nothing.
var notAsked = []string{
	"do not reply", "don't reply", "do not respond", "no need to reply", "no need to respond", "no reply is needed",
	"no action is required", "no action required", "no action is needed", "no action needed", "nothing you need to do",
	"nicht antworten", "nicht auf diese", "kein handlungsbedarf", "keine aktion erforderlich", "nichts zu tun",
	"ne pas répondre", "ne répondez pas", "aucune action", "rien à faire",
	"no responda", "no contestes", "no conteste", "no se requiere", "no es necesario", "no hace falta",
	"返信しないで", "返信不要", "返信は不要", "対応不要", "対応は不要", "ことはありません", "必要はありません", "必要ありません",
	// discretion asked about news, not a task: "please keep it to
	// yourselves until Monday"
	"keep it confidential", "keep this confidential", "keep it to yourself", "keep it to yourselves", "keep this to yourself",
	"keep this to yourselves", "vertraulich behandeln", "für dich behalten", "für euch behalten",
	"garder confidentiel", "garder pour toi", "garder pour vous", "reste confidentiel", "mantenerlo en confidencialidad",
	"mantenlo en confidencialidad", "no lo comentes", "内密に",
	// a notice's closing lines: "If this was you, there's nothing else
	// you need to do", "Please do not share this email"
	// an instruction for those it concerns, not an ask of everyone ("if
	// you need access, contact us", 入館が必要な方は…ご連絡ください)
	"if you need", "those who need", "anyone who needs", "falls sie", "si vous avez besoin", "quienes necesiten",
	"let me know if you have any questions", "let me know if you have questions", "let me know if you need anything",
	"let me know if anything", "si necesitas", "必要な方は", "希望される方は", "ご希望の方は", "からご確認いただけます。", "ご利用いただけます。",
	// an ask taken back: "Please ignore my request above, I have
	// everything I need"
	"ignore my request", "ignore my previous", "ignore my last", "disregard my", "never mind", "nevermind",
	"no longer need", "have everything i need", "hat sich erledigt", "vergiss meine", "ne tiens pas compte",
	"oublie ma demande", "oubliez ma demande", "olvida mi", "ya no hace falta", "ya no es necesario", "不要になりました",
	"nothing else you need to do", "nothing more you need to do", "no need to do anything", "you don't need to do anything",
	// a notice's "please be aware" ("以上、ご承知おきください", "please
	// note that the release moved to Monday"): news, not a task
	"ご承知おきください", "ご承知おき下さい", "ご了承ください", "ご了承下さい", "ご留意ください", "お含みおきください",
	"please note that", "please be aware that", "bitte beachten sie, dass", "bitte beachte, dass", "veuillez noter que",
	"à noter que", "tenga en cuenta que", "ten en cuenta que",
	// a notice's closing formula: "ご理解とご協力をお願いいたします"
	"ご理解とご協力", "ご協力をお願いいたします", "ご協力をお願いします", "ご協力のほど", "ご理解のほど",
	// a courtesy, not a task: "please pass on our thanks to the team"
	"pass on our thanks", "pass on my thanks", "pass our thanks", "pass my thanks", "pass along our thanks",
	"transmettre nos remerciements", "transmettez nos remerciements", "transmettre mes remerciements",
	"dank weiter", "dank aus", "nuestro agradecimiento", "mi agradecimiento", "よろしくお伝えください",
	"do not share this", "don't share this", "do not forward this", "nicht weiterleiten", "ne partagez pas", "no comparta",
}

// hasAnyPrefix reports whether s starts with one of prefixes, returning it.
func hasAnyPrefix(s string, prefixes []string) (string, bool) {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return p, true
		}
	}
	return "", false
}

// isQuestion reports whether a sentence is a question: it ends with a
// question mark (ASCII or full-width; before closing quotes or brackets,
// as a quoted comment's question does: `"…still valid?"`), or holds a
// full-width one (Japanese sentences are not split at it).
func isQuestion(sentence string) bool {
	return strings.HasSuffix(strings.TrimRight(sentence, "\"'”’»)]」』"), "?") || strings.Contains(sentence, "？")
}

// foreignSoon are words for "today", "tonight", "tomorrow" and "as soon as
// possible" beyond soonRe's English ones (lower-case substrings).
var foreignSoon = []string{
	"heute", "morgen früh", "bis morgen", "sofort", "umgehend", "dringend", "in einer stunde", "in zwei stunden",
	"in einer viertelstunde", "dans le quart d'heure", "dans le quart d’heure", "tout de suite", "de inmediato",
	"en un cuarto de hora", "15分以内",
	"dans une heure", "dans l'heure", "dans deux heures", "en una hora", "en dos horas", "1時間以内",
	"aujourd'hui", "aujourd’hui", "ce soir", "demain", "immédiatement", "dès que possible", "urgent",
	"hoy", "esta noche", "esta tarde", "mañana", "cuanto antes", "urgente", "inmediatamente",
	"本日", "今日", "今夜", "明日", "至急", "緊急", "今すぐ",
}

// foreignDeadlines mark a stated deadline beyond deadlineRe's English.
var foreignDeadlines = []string{
	"bis ", "spätestens", "frist", "avant ", "d'ici", "au plus tard", "antes del", "antes de", "a más tardar", "plazo",
	"までに", "期限", "締め切り", "締切",
}

// notYouWords open the conditional of a sign-in or account notice ("If
// this wasn't you, contact IT right away"): what follows is for the case
// the reader did not do it, not an urgency of the notice (lower case).
var notYouWords = []string{"if this wasn't you", "if this was not you", "if it wasn't you", "if it was not you",
	"if you didn't", "if you did not", "if you don't recognize", "if you do not recognize", "if you don't recognise",
	"if you do not recognise", "wenn sie das nicht waren", "falls sie das nicht waren", "wenn du das nicht warst",
	"si ce n'était pas vous", "si ce n’était pas vous", "si vous n'êtes pas à l'origine", "si vous n’êtes pas à l’origine",
	"si no fue usted", "si no has sido tú", "si no fuiste tú", "心当たりがない場合", "身に覚えがない場合"}

// inNotYouSentence reports whether the first occurrence of phrase (a
// lower-case phrase as the phrase lists hold it) in own stands in a
// sentence with a "not you" conditional (see notYouWords).
func inNotYouSentence(own, phrase string) bool {
	low := strings.ToLower(flatSpace(own))
	i := strings.Index(low, phrase)
	if i < 0 {
		return false
	}
	// The sentence starts after the last ". ", "! ", "? " or "。" (a
	// dot inside an address or a domain does not end one).
	start := 0
	for _, end := range []string{". ", "! ", "? ", "。"} {
		if j := strings.LastIndex(low[:i], end); j >= 0 {
			start = max(start, j+len(end))
		}
	}
	_, ok := containsAnyOf(low[start:i], notYouWords)
	return ok
}

// phraseSentence returns the lower-cased sentence of text holding the
// first occurrence of phrase (lower case, as written, capitalised or in
// capitals), split at it ("" and false if none). Only the sentence is
// lower-cased: text may be a whole message.
func phraseSentence(text, phrase string) (before, after string, ok bool) {
	i := -1
	for _, p := range []string{phrase, strings.ToUpper(phrase[:1]) + phrase[1:], strings.ToUpper(phrase)} {
		if j := strings.Index(text, p); j >= 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i < 0 {
		return "", "", false
	}
	start := 0
	for _, end := range []string{". ", "! ", "? ", "。", "\n\n"} {
		if j := strings.LastIndex(text[:i], end); j >= 0 {
			start = max(start, j+len(end))
		}
	}
	rest := text[i+len(phrase):]
	stop := len(rest)
	for _, end := range []string{". ", "! ", "? ", "。", "\n\n"} {
		if j := strings.Index(rest, end); j >= 0 {
			stop = min(stop, j)
		}
	}
	return strings.ToLower(flatSpace(text[start:i])), strings.ToLower(flatSpace(rest[:stop])), true
}

// pastMarkers in a sentence put an outage it names in the past ("the
// November 17 outage", "after last week's outage", "sorry to hear about
// the outage"): a postmortem's or a credit claim's subject, not a live
// problem (lower case).
var pastMarkers = []string{"last week", "yesterday", "last month", "after the", "after our", "after last", "sorry to hear",
	"postmortem", "post-mortem", "retrospective", "credit", "january", "february", "march", "april", "may ", "june", "july",
	"august", "september", "october", "november", "december", " was ", " were ", " had "}

// urgencyNotMeant reports whether the first occurrence of phrase, an
// urgency phrase, says something other than urgency in its sentence of
// subject or own: a severity label ("Critical: 0", "Critical severity
// Dependabot alert"; unless the flaw is exploited already), someone's availability ("Available immediately"),
// "right now" for "currently" ("Right now you're on 60 seats", "2+ weeks
// right now"), an outage of the past ("the November 17 outage").
func urgencyNotMeant(subject, own, phrase string) bool {
	switch phrase {
	case "critical", "immediately", "right now", "outage":
	default:
		return false
	}
	before, after, ok := phraseSentence(subject, phrase)
	if !ok {
		if before, after, ok = phraseSentence(own, phrase); !ok {
			return false
		}
	}
	switch phrase {
	case "critical":
		if _, exploited := containsAnyOf(strings.ToLower(own), exploitedWords); exploited {
			return false // a critical flaw attackers already use presses
		}
		return strings.HasPrefix(after, ":") || strings.HasPrefix(after, " severity") || strings.HasPrefix(after, " vulnerabilit") ||
			strings.HasPrefix(after, " finding") || strings.HasSuffix(before, "severity: ") || strings.HasSuffix(before, "severity ")
	case "immediately":
		return strings.HasSuffix(before, "available ") || strings.HasSuffix(before, "start ")
	case "right now":
		return isCurrently(before, after)
	case "outage":
		_, past := containsAnyOf(before+" "+after, pastMarkers)
		return past
	}
	return false
}

// exploitedWords say a vulnerability is being exploited already (lower
// case).
var exploitedWords = []string{"actively exploited", "exploited in the wild", "known exploitation", "under active exploitation",
	"aktiv ausgenutzt", "activement exploitée", "activement exploité", "explotada activamente", "explotado activamente", "悪用が確認"}

// isCurrently reports whether "right now", between before and after,
// means "currently": it opens a statement of how things are ("Right now
// you're on…", "right now we have…") or closes a figure ("(2+ weeks right
// now)").
func isCurrently(before, after string) bool {
	for _, w := range []string{" you're", " you are", " we're", " we are", " we have", " you have", " there are", " there is",
		" it's", " it is", " the ", " our ", " your ", ","} {
		if strings.HasPrefix(after, w) {
			return true
		}
	}
	b := strings.TrimRight(before, " ")
	for _, w := range []string{"week", "weeks", "day", "days", "month", "months"} {
		if strings.HasSuffix(b, w) {
			return true
		}
	}
	return false
}

// withinOfAnEvent reports whether phrase, an urgency phrase of the
// "within 24 hours" kind, counts from an event rather than from now
// ("submit your scorecard within 24 hours of the interview", "within 48
// hours after delivery"): the first occurrence in own is followed by
// "of", "after" or "from".
func withinOfAnEvent(own, phrase string) bool {
	if !strings.HasPrefix(phrase, "within") {
		return false
	}
	low := strings.ToLower(flatSpace(own))
	i := strings.Index(low, phrase)
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(low[i+len(phrase):], " ")
	return strings.HasPrefix(rest, "of ") || strings.HasPrefix(rest, "after ") || strings.HasPrefix(rest, "from ")
}

// containsWordStart reports whether low holds one of words at the start
// of a word, returning it: "eilt" in "Es eilt", not in "verteilt". A word
// written in CJK characters matches anywhere (Japanese has no spaces).
func containsWordStart(low string, words []string) (string, bool) {
	for _, w := range words {
		for off := 0; ; {
			i := strings.Index(low[off:], w)
			if i < 0 {
				break
			}
			i += off
			if hasCJK(w) || i == 0 {
				return w, true
			}
			r, _ := utf8.DecodeLastRuneInString(low[:i])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return w, true
			}
			off = i + len(w)
		}
	}
	return "", false
}

// namesAny reports whether s, lower-cased, holds one of words (lower
// case): the look-up of the subject predicates below.
func namesAny(s string, words []string) bool {
	_, ok := containsAnyOf(strings.ToLower(s), words)
	return ok
}

// containsAnyOf reports whether low holds one of subs, returning it.
func containsAnyOf(low string, subs []string) (string, bool) {
	for _, s := range subs {
		if strings.Contains(low, s) {
			return s, true
		}
	}
	return "", false
}

// subjectAsks are subject phrases that ask the recipient to act
// (approve, review, decide), in the languages above.
var subjectAsks = []string{
	"approval needed", "approval required", "needs your", "need your", "requires your", "please approve",
	// a draft sent for review: "Postmortem INC-1163 - draft for review"
	"for review", "for your review", "review request", "zur durchsicht", "zur prüfung", "pour relecture",
	"pour validation", "para revisión", "para su revisión",
	// a vulnerability found in the reader's code: theirs to fix
	"dependabot alert:", "vulnerability alert", "security advisory", "severity vulnerability",
	"brauche dein", "brauche deine", "brauche ihre", "besoin de ton", "besoin de ta", "besoin de votre",
	"necesito tu", "necesito su", "your scorecard",
	"need your ok", "needs your ok", "brauche dein ok", "brauche ihr ok", "brauche deine freigabe", "besoin de ton ok",
	"besoin de ton accord", "besoin de votre accord", "necesito tu ok", "necesito tu visto bueno",
	"action needed", "awaiting approval", "pending approval", "needs approval", "wartet auf genehmigung",
	"wartet auf ihre", "wartet auf deine", "en attente d'approbation", "en attente de validation", "承認待ち", "要対応",
	"レビュー依頼", "確認依頼", "承認依頼", "ご依頼",
	"scorecard due", "feedback due", "review due", "reviews due", "ratings due", "report due",
	// a draft circulated for comments by a date: "RFC-031 (comments by
	// Mon 30 Nov)"
	"comments by", "comments due", "feedback by", "input by", "kommentare bis", "feedback bis", "anmerkungen bis",
	"commentaires avant", "commentaires d'ici", "retours avant", "retours d'ici", "comentarios antes", "comentarios hasta",
	"requested your feedback", "requests your feedback", "requested feedback from you", "requests feedback from you",
	"asked you for feedback", "please confirm",
	// an approval request of a manager's: "Time Off Request - Mateo Ruiz"
	"time off request", "leave request", "absence request", "abwesenheitsantrag", "urlaubsantrag", "demande de congé",
	"demande d'absence", "solicitud de vacaciones", "solicitud de ausencia", "休暇申請",
	"please review", "action required", "please sign", "please docusign", "awaiting your", "your approval", "for approval",
	"bitte um", "freigabe", "ihre rückmeldung", "zur genehmigung", "en attente de votre", "validation requise",
	"merci de", "pendiente de aprobación", "requiere su", "aprobación", "承認", "ご判断", "ご確認",
	// a task of the reader's falling due: "Reminder: submit your
	// scorecard", "Your self-review is due in 5 days"
	"submit your", "complete your", "is due on", "is due by", "is due in ", "are due on", "are due by", "are due in ",
	"is due jan", "is due feb", "is due mar", "is due apr", "is due may", "is due jun", "is due jul", "is due aug",
	"is due sep", "is due oct", "is due nov", "is due dec", "is due mon", "is due tue", "is due wed", "is due thu",
	"is due fri", "is due today", "is due tomorrow",
	"(due jan", "(due feb", "(due mar", "(due apr", "(due may", "(due jun", "(due jul", "(due aug", "(due sep",
	"(due oct", "(due nov", "(due dec", "(due mon", "(due tue", "(due wed", "(due thu", "(due fri", "(due today",
	"(due tomorrow", "(due by", "(due on", "(due:",
	// an invitation to join something waits for the reader's acceptance
	"invited you to join", "invited you to collaborate", "has invited you to", "invited you to the", "hat dich eingeladen", "hat sie eingeladen",
	"vous a invité à rejoindre", "t'a invité à rejoindre", "t’a invité à rejoindre", "te ha invitado a unirte", "le ha invitado a unirse",
	"への招待",
	"due today", "due tomorrow", "overdue",
	"einreichen", "ausfüllen", "ist fällig", "sind fällig", "à soumettre", "à compléter", "à remplir", "à rendre",
	"vence ", "vencimiento", "pendiente de entrega", "提出", "未提出", "期限切れ",
	// a quote or an access request waits for the reader's decision
	"quotation", "quote for", "our quote", "angebot", "devis", "presupuesto", "cotización", "見積",
	"access request", "request for access", "zugriffsanfrage", "zugangsanfrage", "berechtigungsanfrage",
	"demande d'accès", "demande d’accès", "solicitud de acceso", "アクセス申請", "権限申請",
	// the subject hands the reader a task or a decision: "23 questions
	// for you", "6 tasks are waiting for you", "your go/no-go",
	// "Entscheidung nötig: …"
	"questions for you", "waiting for you", "waiting on you", "your go/no-go", "your go-no-go", "your decision",
	"your input", "your sign-off", "needs you", "need you", "entscheidung nötig", "entscheidung erforderlich", "warten auf dich", "warten auf sie",
	"décision requise", "décision nécessaire", "vous attendent", "t'attendent", "decisión necesaria", "te esperan",
	"le esperan", "あなたの判断",
	// the reader's vote or answer is missing: "RFC-0042 … your vote is
	// missing"
	"your vote", "deine stimme", "ihre stimme", "votre vote", "ton vote", "tu voto", "su voto", "is missing", "still missing",
	// a tool relays someone's ask of the reader: "Tariq asked you for
	// feedback", "Jonas requested your review"
	"asked you for", "asked you to", "requested your", "requests your", "is requesting your", "hat dich um", "hat sie um",
	"vous a demandé", "t'a demandé", "t’a demandé", "te ha pedido", "le ha pedido", "te ha solicitado", "le ha solicitado",
}

// mentionWords in a tool's subject say the reader was mentioned
// ("Ravi Menon mentioned you on …").
var mentionWords = []string{"mentioned you", "hat dich erwähnt", "hat sie erwähnt", "vous a mentionné", "t'a mentionné",
	"t’a mentionné", "te ha mencionado", "le ha mencionado", "があなたをメンション"}

// foreignUrgent are words that press for urgency beyond the English
// phrase list (lower-case substrings).
var foreignUrgent = []string{"dringend", "eilt", "sofort", "urgente", "urgencia", "immédiatement", "inmediatamente", "至急", "緊急"}

// failureWords in a notification's subject say something broke (a failed
// build, a failed renewal, a service down); resolvedWords that it is over.
var (
	failureWords  = []string{"failed", "failure", "failing", "broken", "is down", "outage", "fehlgeschlagen", "ausfall", "échec", "échoué", "fallido", "fallo", "失敗", "障害"}
	resolvedWords = []string{"resolved", "recovered", "fixed", "passed", "succeeded", "success:", "back to normal", "behoben", "résolu", "resuelto", "復旧"}
)

// failureNotice reports whether subject reports a failure that is not
// resolved.
func failureNotice(subject string) bool {
	low := strings.ToLower(subject)
	_, failed := containsAnyOf(low, failureWords)
	_, resolved := containsAnyOf(low, resolvedWords)
	return failed && !resolved && !plannedWork(subject) && !lookedBack(subject)
}

// travelWords name a flight or a train; cancelledWords say it does not
// run (lower case, five languages).
var (
	travelWords    = []string{"flight", "flug", "vol ", "vuelo", "train ", "zug ", "tren ", "列車", "新幹線"}
	cancelledWords = []string{"cancelled", "canceled", "cancellation", "annulliert", "gestrichen", "fällt aus", "annulé", "supprimé",
		"cancelado", "cancelación", "欠航", "運休"}
)

// travelCancelled reports whether subject says a flight or a train was
// cancelled.
func travelCancelled(subject string) bool {
	low := strings.ToLower(subject)
	_, travel := containsAnyOf(low, travelWords)
	_, cancelled := containsAnyOf(low, cancelledWords)
	return travel && cancelled
}

// digestWords in an automated message's subject say it gathers updates
// for reading later (lower-case substrings).
var digestWords = []string{"digest", "daily summary", "weekly summary", "daily update", "weekly update", "activity summary",
	// satisfaction surveys after a ticket
	"how did we do", "rate your experience", "tell us how we did", "take our survey", "wie zufrieden", "votre avis sur",
	"encuesta de satisfacción", "満足度",
	"daily agenda", "your agenda for", "missed activit", "notifications from", "what you missed", "unread messages", "new messages in", "usage report",
	"tagesübersicht", "verpasste aktivitäten", "benachrichtigungen von", "agenda du jour", "activités manquées",
	"notifications de", "agenda diaria", "actividades perdidas", "notificaciones de", "本日の予定", "未読",
	"zusammenfassung", "tägliche übersicht", "wöchentliche übersicht", "récapitulatif", "résumé quotidien", "résumé hebdomadaire",
	"resumen diario", "resumen semanal", "ダイジェスト", "まとめ"}

// isDigest reports whether subject names a digest of updates.
func isDigest(subject string) bool {
	return namesAny(subject, digestWords)
}

// isReplySubject reports whether subject is a reply's or a forward's
// ("Re:", "AW:", "RE :", "Fwd:", "WG:", "TR:", "RV:").
func isReplySubject(subject string) bool {
	s := strings.ToLower(strings.TrimSpace(subject))
	for _, p := range []string{"re", "aw", "sv", "antw", "fwd", "fw", "wg", "tr", "rv", "rif"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			rest = strings.TrimLeft(rest, " ")
			if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "：") {
				return true
			}
		}
	}
	return false
}

// alertWords in an automated notification's subject say that a live
// problem was raised to the reader: a paging alert that fired or was
// escalated, a monitor that went down, a secret or credential exposed
// (lower-case substrings). A bare "alert" is not one: "Security alert:
// new sign-in" reports something that already happened and is fine.
var alertWords = []string{"triggered", "escalated", "firing", "is down", "went down", "[down]",
	"secret scanning alert", "key detected", "spike protection", "spike detected", "token detected", "key id detected", "your services are impacted",
	"your services are affected", "vos services sont impactés", "perturbation en cours", "incident en cours",
	"ihre dienste sind betroffen", "sus servicios están afectados", "ongoing incident", "outage", "ausfall", "störung",
	"exposed", "leaked", "secret detected", "secrets detected", "credentials detected",
	"ausgelöst", "eskaliert", "ist ausgefallen", "offengelegt", "geleakt",
	"déclenché", "escaladé", "est en panne", "exposé", "divulgué",
	"disparada", "disparado", "escalado", "caído", "caída", "caida", "expuesto", "filtrado",
	"エスカレーション", "ダウン", "漏洩", "流出",
	// an incident tool handing the reader a live incident
	"assigned as incident lead", "assigned as incident commander", "you are the incident lead", "you've been paged",
	"you have been paged", "paged you",
	// the reader's account, card or sending stopped by its service
	"suspended", "blocked your", "has been blocked", "has been locked", "gesperrt", "suspendu", "suspendue", "bloqué", "bloquée",
	"suspendida", "suspendido", "bloqueada", "bloqueado", "利用停止", "凍結"}

// alertNotice reports whether subject raises a live problem (see
// alertWords) that is not said to be over.
func alertNotice(subject string) bool {
	return namesAny(subject, alertWords) && !passedNotice(subject) && !plannedWork(subject)
}

// bookedWords in a subject confirm a booking or a reservation (lower
// case).
var bookedWords = []string{"booking confirmed", "reservation confirmed", "booking confirmation", "reservation confirmation",
	"your booking", "your reservation", "buchungsbestätigung", "reservierungsbestätigung", "ihre buchung", "réservation confirmée",
	"confirmation de réservation", "votre réservation", "reserva confirmada", "confirmación de reserva", "su reserva", "tu reserva",
	"予約確定", "予約完了", "ご予約の確認"}

// bookingConfirmed reports whether subject confirms a booking (see
// bookedWords).
func bookingConfirmed(subject string) bool {
	return namesAny(subject, bookedWords)
}

// productionWords in a subject name the production environment (lower
// case).
var productionWords = []string{"production", "prod ", "prod-", "prod)", "produktion", "producción", "本番"}

// productionRun reports whether subject names a run or a deploy to
// production (see productionWords).
func productionRun(subject string) bool {
	return namesAny(subject+" ", productionWords)
}

// phishingWords name phishing itself (lower case).
var phishingWords = []string{"phishing", "hameçonnage", "suplantación de identidad", "フィッシング"}

// warnsOfPhishing reports whether a message's subject or own text names
// phishing (see phishingWords): a warning about it.
func warnsOfPhishing(subject, own string) bool {
	return namesAny(subject, phishingWords) || namesAny(own, phishingWords)
}

// triggeredWords say a monitor of the reader's fired ("[Triggered on
// {service:route-optimizer}] error rate above 5%"), which a status page's
// incident notice never says (lower case).
var triggeredWords = []string{"triggered", "firing", "ausgelöst", "déclenché", "disparada"}

// monitorTriggered reports whether subject says a monitor fired (see
// triggeredWords).
func monitorTriggered(subject string) bool {
	return namesAny(subject, triggeredWords)
}

// incidentWords in a subject say that something of the reader's is in
// trouble now: besides alertWords, an outage, a suspended account, an
// abuse report, a suspicious sign-in, a breach (lower-case substrings).
var incidentWords = []string{"outage", "suspended", "abuse report", "suspicious login", "suspicious sign-in",
	"credential stuffing", "ddos", "under attack", "ransomware", "degraded", "blocage complet", "[sev", "sev2", "sev-2",
	"stolen", "remote wipe", "gestohlen", "volé", "robado", "盗難",
	"failing", "unable to", "nicht möglich", "not possible", "imposible", "cannot log", "can't log", "cannot sign", "can't sign", "not receiving", "no space left", "disk full",
	"out of disk", "since this morning", "seit heute morgen", "kein speicherplatz", "kommen nicht an", "können sich nicht",
	"depuis ce matin", "ne reçoivent plus", "n'arrivent plus", "impossible de se connecter", "plus d'espace",
	"desde esta mañana", "no reciben", "no pueden", "no llegan", "sin espacio", "今朝から", "届かない", "できない", "容量不足",
	"unusual sign-in", "security incident", "breach", "compromised", "not working", "secret scanning",
	"temporarily restricted", "has been restricted", "session revoked", "sessions revoked", "vorübergehend eingeschränkt",
	"temporairement restreint", "restringida temporalmente",
	"ausfall", "störung", "gesperrt", "verdächtige anmeldung", "sicherheitsvorfall", "kompromittiert", "funktioniert nicht",
	"panne", "suspendu", "connexion suspecte", "incident de sécurité", "compte compromis", "piraté", "ne fonctionne plus",
	"suspendida", "suspendido", "incidente de seguridad", "inicio de sesión sospechoso", "cuenta comprometida", "no funciona",
	"障害", "不審なログイン", "不正アクセス", "不正ログイン", "停止",
	// stuck, climbing, spiking, blocked or anomalous right now, or
	// counted over the last hour
	"stuck", "hängt", "hangs", "spiking", "climbing", "anomalous", "anómalo", "anómala", "anormal", "bloqué", "bloquée",
	"bloqueado", "bloqueada", "blockiert", "atascad", "in the last hour", "in der letzten stunde", "dans la dernière heure",
	"en la última hora", "直近1時間", "詰まって",
	// an incident call the reader is asked to join
	"on the bridge", "incident bridge", "join the bridge", "war room",
	// a deploy that failed or is being rolled back
	"delayed for", "locked out", "lockout", "ausgesperrt", "publicly readable", "publicly accessible", "öffentlich zugänglich",
	"öffentlich lesbar", "accessible publiquement", "publiquement accessible", "de acceso público", "públicamente accesible", "公開状態", "deploy failed", "deployment failed", "rollout failed", "rollback", "roll back", "デプロイ失敗", "ロールバック",
	"deployment fehlgeschlagen", "zurückrollen", "échec du déploiement", "despliegue fallido", "revertir el despliegue"}

// afterWords in a subject say a problem is being looked back on, not
// lived: a postmortem or a retrospective (lower-case substrings).
var afterWords = []string{"postmortem", "post-mortem", "post mortem", "retro", "rca:", " rca", "lessons learned", "nachbetrachtung",
	"root cause", "root-cause", "ursachenbericht", "ursachenanalyse", "analyse des causes", "causa raíz", "原因報告",
	// a summary told afterwards: "Resumen: caída de la app de conductores"
	"summary:", "recap:", "resumen:", "récapitulatif", "zusammenfassung:", "まとめ",
	"rétrospective", "retour d'expérience", "retrospectiva", "振り返り", "事後",
	// a claim or a credit for an incident of the past
	"credit claim", "service credit", "sla credit", "gutschrift", "avoir sla", "crédito de servicio"}

// liveIncident reports whether a subject of the thread raises a live
// problem (see alertWords and incidentWords) that is neither said to be
// over nor looked back on.
func liveIncident(msgs []*model.Message) bool {
	for _, m := range msgs {
		low := strings.ToLower(m.Subject)
		if _, ok := containsAnyOf(low, alertWords); !ok {
			if _, ok := containsAnyOf(low, incidentWords); !ok && brokenSinceToday(m.Subject, ascii.LowerString(m.Subject)) == "" {
				continue
			}
		}
		return !passedNotice(m.Subject) && !lookedBack(m.Subject) && !plannedWork(m.Subject)
	}
	return false
}

// maintenanceWords in a subject announce planned work: what it stops is
// stopped on purpose, later (lower case).
var maintenanceWords = []string{"maintenance", "wartung", "mantenimiento", "メンテナンス", "scheduled", "geplant", "planifié",
	"programado", "予定"}

// plannedWork reports whether subject announces planned work (see
// maintenanceWords).
func plannedWork(subject string) bool {
	return namesAny(subject, maintenanceWords)
}

// lookedBack reports whether subject looks back on a problem (see
// afterWords): its outage words tell a story, they do not press.
func lookedBack(subject string) bool {
	return namesAny(subject, afterWords) || datedIncidentRe.MatchString(subject)
}

// datedIncidentRe finds an incident named by its date in a subject ("the
// November 17 outage", "Störung vom 17.11.", "incident du 17/11",
// "caída del 17 de noviembre", "11月17日の障害"): one being talked about
// afterwards, a live one needs no date.
var datedIncidentRe = regexp.MustCompile(`(?i)(?:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?|\b\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)(?:'s)? (?:outage|incident|downtime|disruption)` +
	`|\b(?:outage|incident|downtime|disruption|störung|ausfall|panne|incident|incidencia|caída|interrupción)s? (?:on|of|vom|du|del|de la|from) (?:the )?(?:\d{1,2}[./]\d{1,2}|\d{1,2}(?:st|nd|rd|th)?(?: de)? [a-zé]+|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2})` +
	`|\d{1,2}月\d{1,2}日の(?:障害|インシデント|システム障害)`)

// deliveryWords in a subject say a parcel is on its way or arrived: a
// shipping notice, worth knowing whatever day it names (lower-case).
var deliveryWords = []string{"arriving", "arrives", "out for delivery", "delivered", "will be delivered", "your delivery",
	"your parcel", "your package", "your shipment",
	"ihr paket", "ihre sendung", "zugestellt", "zustellung", "kommt heute", "votre colis", "livré", "livraison",
	"su paquete", "su envío", "su pedido llega", "en reparto", "entrega prevista", "配達", "お届け", "発送"}

// deliveryNotice reports whether subject is a shipping notice.
func deliveryNotice(subject string) bool {
	return namesAny(subject, deliveryWords)
}

// incidentResolvedWords in a subject say an incident was resolved (not
// that a build passed or a metric recovered by itself): worth knowing,
// like the incident notice it closes (lower case).
var incidentResolvedWords = []string{"resolved", "behoben", "résolu", "resuelto", "解決"}

// incidentResolved reports whether subject says an incident or an alert
// is over (see incidentResolvedWords).
func incidentResolved(subject string) bool {
	return namesAny(subject, incidentResolvedWords)
}

// passedNotice reports whether subject says that something passed or
// recovered (see resolvedWords) and nothing failed.
func passedNotice(subject string) bool {
	_, passed := containsAnyOf(strings.ToLower(subject), resolvedWords)
	return passed && !failureNotice(subject)
}

// statusWords in a subject name a service incident or maintenance, as
// status pages write them (lower-case substrings).
var statusWords = []string{"incident", "outage", "degraded", "service disruption", "error rate", "increased latency", "maintenance",
	"störung", "wartung", "panne", "perturbation", "incidencia", "interrupción", "mantenimiento", "障害", "メンテナンス"}

// statusNotice reports whether subject names a service incident or
// maintenance.
func statusNotice(subject string) bool {
	return namesAny(subject, statusWords)
}

// toolDomains are the registrable domains of the collaboration tools whose
// notices report activity (issue trackers, code hosts, chat, video calls,
// documents, design and planning boards).
var toolDomains = []string{"atlassian.net", "atlassian.com", "github.com", "gitlab.com", "bitbucket.org", "zoom.us",
	"slack.com", "asana.com", "trello.com", "notion.so", "figma.com", "linear.app", "monday.com", "clickup.com",
	"miro.com", "loom.com", "basecamp.com", "airtable.com", "smartsheet.com", "webex.com", "dropbox.com", "box.com",
	"terraform.io", "circleci.com", "vercel.com", "netlify.com", "buildkite.com", "travis-ci.com",
	"connpass.com", "meetup.com", "eventbrite.com", "makenotion.com", "backlog.jp", "backlog.com"}

// accountWords in a subject say a notice is about the reader's account,
// security or money (a new sign-in, a password change, a receipt): worth
// knowing from any service (lower case).
var accountWords = []string{"sign-in", "sign in", "signed in", "login", "log-in", "password", "security", "two-factor", "2fa",
	"ssh key", "access token", "verify", "verification", "receipt", "invoice", "payment", "billing", "subscription", "renew",
	"anmeldung", "kennwort", "passwort", "sicherheit", "rechnung", "zahlung", "connexion", "mot de passe", "sécurité",
	"facture", "paiement", "inicio de sesión", "contraseña", "seguridad", "factura", "pago",
	"ログイン", "パスワード", "セキュリティ", "請求", "領収"}

// toolNotice reports whether m comes from a collaboration tool (see
// toolDomains, or a tenant's subdomain of one: northwind.atlassian.net),
// about its activity rather than the reader's account (see accountWords).
func toolNotice(m *model.Message) bool {
	if _, ok := containsAnyOf(strings.ToLower(m.Subject), accountWords); ok {
		return false
	}
	d := strings.ToLower(domainOf(m.From.Email))
	for _, t := range toolDomains {
		if d == t || strings.HasSuffix(d, "."+t) {
			return true
		}
	}
	return false
}

// absenceWords in a subject say someone is away ("out sick today", "OOO
// tomorrow", "heute krank"): the day it names is theirs, not a deadline
// (lower case).
var absenceWords = []string{"out sick", "off sick", "sick today", "out of office", "ooo", "off today", "day off",
	"working from home", "wfh", "krank", "abwesend", "malade", "absent", "enfermo", "enferma", "de baja", "休み", "欠勤", "病欠"}

// absenceNotice reports whether subject says someone is away (see
// absenceWords).
func absenceNotice(subject string) bool {
	return namesAny(subject, absenceWords)
}

// serviceChangeWords in a subject announce a change of a service's
// prices, terms or features to its customers (lower case).
var serviceChangeWords = []string{"upcoming changes to", "changes to your plan", "changes to our pricing", "changes to our terms",
	"pricing change", "price change", "price increase", "changes to pricing", "update to our terms", "updates to our terms",
	"preisänderung", "preiserhöhung", "änderung der preise", "änderung unserer preise", "änderung der agb", "änderung unserer agb",
	"changement de tarif", "changements de tarif", "évolution tarifaire", "évolution de nos tarifs", "modification des conditions",
	"cambio de precios", "cambios en los precios", "actualización de precios", "cambios en las condiciones",
	"料金改定", "価格改定", "利用規約の改定", "利用規約改定"}

// serviceChangeNotice reports whether subject announces a change of a
// service's prices, terms or features (see serviceChangeWords).
func serviceChangeNotice(subject string) bool {
	return namesAny(subject, serviceChangeWords)
}

// reporterFields label the reporter of an issue in a tracker's
// notification, in the five languages, without their first letter
// (which may be upper or lower case: "Reporter:", "reporter:").
var reporterFields = []string{"eporter:", "elder:", "utor:", "apporteur :", "apporteur:", "nformador:", "報告者:", "報告者："}

// assigneeFields label the assignee of an issue or a ticket the same way
// ("Assignee:", "Assigned to:", "Zugewiesen an:", "Assigné à :",
// "Asignado a:", "担当者:").
var assigneeFields = []string{"ssignee:", "ssigned to:", "ugewiesen an:", "ssigné à :", "ssigné à:", "signado a:", "担当者:", "担当者："}

// reportedBy reports whether own, a tracker's notification, names the
// reader (name, their first name) as the issue's reporter ("Reporter:
// Alex Morgan"). It reads own only where a field's name stands, without
// lowering the whole text (it is asked of every bulk message).
func reportedBy(own, name string) bool {
	return namedInField(own, name, reporterFields)
}

// namedInField reports whether one of fields in own is followed by name
// as a whole word ("Assignee: Alex Morgan" for "Alex").
func namedInField(own, name string, fields []string) bool {
	name = strings.TrimSpace(name)
	if name == "" {
		return false
	}
	for _, f := range fields {
		for rest := own; ; {
			i := strings.Index(rest, f)
			if i < 0 {
				break
			}
			rest = strings.TrimLeft(rest[i+len(f):], " \t")
			if len(rest) >= len(name) && strings.EqualFold(rest[:len(name)], name) {
				if r, _ := utf8.DecodeRuneInString(rest[len(name):]); !unicode.IsLetter(r) {
					return true // (the whole name: not "Alexandra" for "Alex")
				}
			}
		}
	}
	return false
}

// noResponseWords say an invitation needs no answer (lower case, five
// languages).
var noResponseWords = []string{"no response needed", "no response required", "no need to respond", "no need to reply",
	"no rsvp needed", "fyi only", "for your information only", "keine antwort nötig", "keine rückmeldung nötig",
	"nur zur info", "pas besoin de répondre", "pour info uniquement", "no es necesario responder", "solo para tu información",
	"solo informativo", "返信不要", "ご返信は不要"}

// noResponseNeeded reports whether text says an invitation needs no
// answer (see noResponseWords).
func noResponseNeeded(text string) bool {
	return namesAny(text, noResponseWords)
}
