package triage

// Sentence scoring for the extractive summary: the sentences of the
// latest message from others that ask something of the reader and say
// by when, in the five languages mailsift handles (English, German,
// French, Spanish, Japanese).

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/triage/internal/ascii"
)

// sentenceScore is what one sentence carries.
type sentenceScore struct {
	// ask is 1 for a question, a request or a stated need addressed to
	// the reader, or an imperative, else 0.
	ask int
	// deadline is 1 when the sentence says by when, else 0.
	deadline int
}

// rank orders sentences: an ask outweighs a deadline.
func (s sentenceScore) rank() int { return 2*s.ask + s.deadline }

// The alternatives of askRe that hold their gate's mark after their start.
const (
	askNeedEN   = `\b(?:i|we)(?:'d| would)?\s+(?:really\s+|urgently\s+|still\s+|also\s+)?(?:need|require|expect)\b`
	askNeedDE   = `\b(?:ich|wir)\s+(?:\S+\s+)?(?:brauche|brauchen|benötige|benötigen)\b`
	askNeedFR   = `\b(?:j'ai|nous avons) besoin\b|\bil (?:me|nous) faut\b`
	askThanksES = `\b(?:te|le|les) agradecer(?:ía|ia)\b`
)

var (
	// askRe finds requests, needs and questions beyond the English
	// prefixes isRequest knows (Go's \b is ASCII: the words around it
	// start and end with ASCII letters).
	askRe = regexp.MustCompile(`(?i)` +
		// English: stated needs and wishes of the writer
		askNeedEN + `|\bwould you\b|\bcan you\b|\bcould you\b|\bwould like you to\b|` +
		// German
		`\bbitte\b|\b(?:kannst|könntest|können|könnten|würdest|würden|wären)\s+(?:du|sie|ihr)\b|` + askNeedDE + `|` +
		// French
		`\bmerci de\b|\bs'il (?:te|vous) pla[iî]t\b|\bsvp\b|\bveuillez\b|\b(?:pourriez|pouvez|pourrais|peux|pourrions|pouvons)[- ](?:vous|tu|nous)\b|` + askNeedFR + `|` +
		// Spanish
		`\bpor favor\b|\b(?:puedes|podrías|podrias|puede|podría|podria|pueden|podrían)\s|` + askThanksES + `|\bnecesit(?:o|amos)\b|` +
		// Japanese
		`ください|下さい|お願い|おねがい|いただけ|頂け|ほしい|欲しい|ませんか|でしょうか`)
	// askInnerRe are the alternatives of askRe that do not begin with the
	// word their gate looks for (need, brauche, besoin, agradecer...):
	// see gatedRe.matchPlain.
	askInnerRe = regexp.MustCompile(`(?i)` + askNeedEN + `|` + askNeedDE + `|` + askNeedFR + `|` + askThanksES)
	// imperativeRe is an English sentence that opens with an imperative
	// verb of the kind mail asks for.
	imperativeRe = regexp.MustCompile(`(?i)^(?:(?:so|and|also|then),?\s+)?(?:approve|confirm|review|send|sign|submit|check|call|reply|respond|fill|complete|update|book|pick|choose|forward|pay|schedule|register|rotate|renew|reset|revoke|install|upgrade|migrate|enable|patch|let me know|make sure|remember|don't forget|do not forget)\b`)
	// dueRe are deadline phrases beyond deadlineRe and soonRe (English
	// closing dates and time spans, and the other four languages).
	dueRe = regexp.MustCompile(`(?i)` +
		`\b(?:closes?|ends?|expires?)\s+(?:on|at|in)\b|\bwithin (?:the )?(?:next )?(?:\w+ )?(?:minutes?|hours?|days?|weeks?)\b|\bin the next (?:\w+ )?(?:minutes?|hours?|days?)\b|\bdue (?:on|by|in)\b|\bdeadline\b|\bthis week\b|` +
		// German
		`\bbis (?:zum |spätestens |morgen|heute|montag|dienstag|mittwoch|donnerstag|freitag|ende|\d)|\b(?:heute|morgen|spätestens|umgehend|sofort|frist)\b|` +
		// French
		`\b(?:avant|d'ici) (?:le |la |demain|ce soir|cet|ce |lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|midi|\d)|\baujourd'hui\b|\bdemain\b|\bau plus tard\b|\bimmédiatement\b|` +
		// Spanish
		`\b(?:antes del?|para el|hasta el) |\bhoy\b|\bmañana\b|\bcuanto antes\b|\bfecha límite\b|` +
		// Japanese
		`までに|本日中|今日中|明日|本日|今日|至急|期限|締め切り|締切`)
)

// dueStarts removes "from today/tomorrow" (本日から, 今日から, 明日から): a
// start, not a deadline.
var dueStarts = strings.NewReplacer("本日から", "", "今日から", "", "明日から", "")

// scoreSentence scores one sentence (white space already collapsed).
func scoreSentence(s string) sentenceScore {
	x := newScoring(s)
	var sc sentenceScore
	if x.asks() {
		sc.ask = 1
	}
	if x.due() {
		sc.deadline = 1
	}
	return sc
}

// scoring is one sentence being scored. askSentences asks for its ask and
// its deadline separately, only when the answer can change its choice;
// what both need (the lower-cased text, the gates' marks) is computed
// once, when first needed.
type scoring struct {
	s string
	// ascii: s is all ASCII, so strings.ToLower(s) is low, and the
	// Japanese phrases scoreSentence removes cannot occur; plain: all its
	// bytes are printable (see gatedRe.matchPlain).
	ascii, plain bool
	// low is ascii.LowerString(s) ("" until lower).
	low    string
	lowSet bool
	// marks are the gates (gateAsk...) with a mark in low, for an ASCII
	// sentence (once marksSet).
	marks    uint8
	marksSet bool
	// lowU is strings.ToLower(s) of a non-ASCII sentence ("" until set).
	lowU    string
	lowUSet bool
}

func newScoring(s string) *scoring {
	x := &scoring{s: s, ascii: true, plain: true}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			x.plain = false
			if c >= utf8.RuneSelf {
				x.ascii = false
				break
			}
		}
	}
	return x
}

// match is g.MatchString(s, low) for an ASCII sentence whose marks were
// found (bit is g's gate).
func (x *scoring) match(g *gatedRe, bit uint8) bool {
	if !x.gated(bit) {
		return false
	}
	if x.plain {
		return g.matchPlain(x.s, x.low)
	}
	return g.re.MatchString(x.s)
}

// lower returns ascii.LowerString(s), without a copy when s has no
// capitals.
func (x *scoring) lower() string {
	if !x.lowSet {
		x.low, x.lowSet = lowerASCII(x.s), true
	}
	return x.low
}

// lowerU returns strings.ToLower(s) for a non-ASCII sentence.
func (x *scoring) lowerU() string {
	if !x.lowUSet {
		x.lowU, x.lowUSet = strings.ToLower(x.s), true
	}
	return x.lowU
}

// gated reports, for an ASCII sentence, whether gate g has a mark in it:
// the four gates' marks are found in one pass (see sentenceMarks).
func (x *scoring) gated(g uint8) bool {
	if !x.marksSet {
		x.marks, x.marksSet = sentenceMarks.scan(x.lower()), true
	}
	return x.marks&g != 0
}

// asks reports whether the sentence asks something: a question, a
// request, a stated need, an imperative.
func (x *scoring) asks() bool {
	s := x.s
	t := strings.TrimRight(s, " \"')")
	if strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") {
		return true
	}
	if !x.ascii {
		if isRequest(x.lower()) {
			return true
		}
		// よろしくお願いします closes Japanese mail as "best regards"
		// does: it asks nothing.
		plain := strings.ReplaceAll(strings.ReplaceAll(s, "よろしくお願い", ""), "宜しくお願い", "")
		lowPlain := x.lowerU() // the gates' marks are lower-case in every language
		if plain != s {
			lowPlain = strings.ToLower(plain)
		}
		return askGate.MatchString(plain, lowPlain) || imperative(s)
	}
	// isRequest, its inside phrases found in the pass of the gates' marks
	low := x.lower()
	if asksUpFront(low) || x.gated(gateInside) {
		if _, not := notAskedCues.first(low); !not {
			return true
		}
	}
	return x.match(askGate, gateAsk) || imperativeASCII(s, low)
}

// due reports whether the sentence says by when.
func (x *scoring) due() bool {
	s := x.s
	if x.ascii {
		return x.match(deadlineGate, gateDeadline) || x.match(soonGate, gateSoon) || x.match(dueGate, gateDue)
	}
	lowU := x.lowerU()
	// 本日から is "from today", a start and not a deadline.
	due, lowDue := s, lowU
	if strings.Contains(s, "から") {
		due = dueStarts.Replace(s)
		lowDue = strings.ToLower(due)
	}
	return deadlineGate.MatchString(s, lowU) || soonGate.MatchString(s, lowU) || dueGate.MatchString(due, lowDue)
}

// imperativeVerbs are the words imperativeRe's match begins with (after
// "so", "and", "also" or "then", a comma and white space).
var imperativeVerbs = newWordMarks([]string{"approve", "confirm", "review", "send", "sign", "submit", "check", "call", "reply",
	"respond", "fill", "complete", "update", "book", "pick", "choose", "forward", "pay", "schedule", "register",
	"rotate", "renew", "reset", "revoke", "install", "upgrade", "migrate", "enable", "patch", "let me know", "make sure", "remember", "don't forget", "do not forget"})

// imperative is imperativeRe.MatchString(s). The expression is anchored:
// an ASCII sentence (where it matches ASCII letters as their lower-case
// forms) that does not open with one of its verbs, directly or after one
// of its connectives, cannot match and is not run through it.
func imperative(s string) bool {
	if isASCII(s) {
		return imperativeASCII(s, lowerASCII(s))
	}
	return imperativeRe.MatchString(s)
}

// imperativeASCII is imperative of an ASCII sentence s, low being s
// lower-cased.
func imperativeASCII(s, low string) bool {
	if !imperativeVerbs.startsAt(low, 0) && !imperativeAfterConnective(low) {
		return false
	}
	return imperativeRe.MatchString(s)
}

// imperativeAfterConnective reports whether low may open with "so", "and",
// "also" or "then", an optional comma, white space (RE2's \s) and one of
// imperativeVerbs.
func imperativeAfterConnective(low string) bool {
	for _, c := range [...]string{"so", "and", "also", "then"} {
		if !strings.HasPrefix(low, c) {
			continue
		}
		t := strings.TrimPrefix(low[len(c):], ",")
		u := strings.TrimLeft(t, " \t\n\f\r")
		if len(u) < len(t) && imperativeVerbs.startsAt(u, 0) {
			return true
		}
	}
	return false
}

// lowerASCII is ascii.LowerString(s), returning s itself when it has no
// ASCII capitals.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return ascii.LowerString(s)
		}
	}
	return s
}

// splitCJK splits a sentence further after the full-width stops
// (。！？) that sentenceRanges does not know.
func splitCJK(s string) []string {
	// 。 is E3 80 82 in UTF-8, ！ and ？ are EF BC 81 and EF BC 9F: without
	// either lead byte, s holds none of them.
	if strings.IndexByte(s, 0xE3) < 0 && strings.IndexByte(s, 0xEF) < 0 || !strings.ContainsAny(s, "。！？") {
		return []string{s}
	}
	var out []string
	start := 0
	for i, r := range s {
		if r == '。' || r == '！' || r == '？' {
			end := i + utf8.RuneLen(r)
			if p := strings.TrimSpace(s[start:end]); p != "" {
				out = append(out, p)
			}
			start = end
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}

// askSentences returns the sentences of own (the author's own text of the
// latest message from others) that carry its ask and its deadline, in
// message order: the best-ranked sentence that asks something and, when
// it says no deadline, the best-ranked one that does. It returns nil when
// no sentence asks anything or sets a deadline. Sentences aimed at an AI
// assistant (when skip says so) are never chosen. ask is the sentence
// that asks ("" when none does).
func askSentences(own string, skip func(string) bool) (quote []string, ask string) {
	if len(own) > 1500 {
		own = own[:1500] // asks sit near the top, as in sentenceSignals
	}
	// The choice below needs less than every sentence's full score: a
	// sentence that both asks and says by when is the best-ranked of
	// either kind, and the first such one is the answer; before it, only
	// the first sentence that asks and the first that says by when count.
	// So a sentence is scored only for what can still change the answer,
	// and the scan stops at the first sentence that does both.
	ai, due := "", "" // "" until found; sentences are never empty
	aiFirst := false  // the asking sentence comes before the deadline's
	for k, rg := range sentenceRanges(own, 40) {
		raw := own[rg[0]:rg[1]]
		if k < 2 {
			if g := greetingRe.FindStringIndex(raw); g != nil {
				raw = raw[g[1]:]
			}
		}
		for _, s := range splitCJK(normSpace(raw)) {
			if utf8.RuneCountInString(s) < 8 || skip != nil && skip(s) {
				continue
			}
			x := newScoring(s)
			var isAsk, isDue bool
			switch {
			case ai == "" && due == "":
				isAsk = x.asks()
				isDue = x.due()
			case ai == "":
				isAsk = x.asks()
				isDue = isAsk && x.due()
			default:
				isDue = x.due()
				isAsk = isDue && x.asks()
			}
			if isAsk && isDue {
				return []string{s}, s
			}
			if isAsk && ai == "" {
				ai, aiFirst = s, due == ""
			}
			if isDue && due == "" {
				due = s
			}
		}
	}
	switch {
	case ai == "" && due == "":
		return nil, ""
	case ai == "":
		return []string{due}, ""
	case due == "":
		return []string{ai}, ai
	case aiFirst:
		return []string{ai, due}, ai
	default:
		return []string{due, ai}, ai
	}
}

// withAsk puts the summary's ask sentence first among items when no item
// already carries it: a stated need ("we need the complete export within
// the next two hours") or a request in another language is the thread's
// action even when it is not one of the English request forms the items
// come from. Its due hint is the deadline the sentence names. Items stay
// at most five.
func withAsk(items []contract.ActionItem, ask string, from model.Address) []contract.ActionItem {
	sender := from.Name
	if sender == "" {
		sender = from.Email
	}
	if f := strings.Fields(sender); len(f) > 0 {
		sender = f[0]
	}
	q := strings.HasSuffix(strings.TrimRight(ask, " \"')"), "?") || strings.HasSuffix(ask, "？")
	desc := actionText(ask, sender, q)
	core := strings.TrimRight(ask, "?.!？。 ")
	for _, it := range items {
		if it.Description == desc || strings.Contains(it.Description, core) || strings.Contains(ask, strings.TrimRight(it.Description, "?.!…")) {
			return items
		}
	}
	it := contract.ActionItem{Description: desc}
	for _, re := range []*regexp.Regexp{deadlineRe, dueRe, soonRe} {
		if m := re.FindStringSubmatch(ask); m != nil {
			d := m[len(m)-1]
			if d == "" {
				d = m[0]
			}
			d = normSpace(d)
			it.DueHint = &d
			break
		}
	}
	out := append([]contract.ActionItem{it}, items...)
	return out[:min(len(out), 5)]
}
