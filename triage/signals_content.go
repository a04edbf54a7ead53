package triage

// Content signals: what a message's text says (links, phrases, the
// learned spam score, and the questions, requests and deadlines that
// become action items).

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/triage/bayes"
	"mailsift/triage/internal/ascii"
)

// bodySignals checks links and phrases of one message.
func (a *Analyzer) bodySignals(an *analysis, i int, m *model.Message, pDomain string, seen map[string]bool, add func(Signal), latest bool) {
	body := m.Body()
	if len(body) > maxAnalyzed {
		body = body[:maxAnalyzed]
	}
	own := ownText(body)
	if latest {
		an.latestOwn = own
	}
	// Links. List mail links to trackers and to many third-party sites:
	// a link's domain (raw IP, punycode, lookalike) weighs half there; a
	// link whose text shows another domain than it goes to keeps its
	// full weight.
	lw := 1.0
	if isListMail(m) {
		lw = 0.5
	}
	links := findLinks(body, 50)
	// A message linking to many different sites is a newsletter or a
	// digest, whatever its headers say: a phishing message leads to one
	// place (a copied brand template adds the brand's own links, not a
	// dozen other sites'). One odd link among them weighs half, mismatch
	// included.
	mw := 2.5
	if linkDense(a, links) {
		lw, mw = lw/2, mw/2
	}
	var ipDone, mismatchDone bool
	senderReg := ""
	if latest && len(links) > 0 {
		senderReg = a.regDomain(domainOf(m.From.Email))
	}
	for _, l := range links {
		an.links++
		if !ipDone && net.ParseIP(strings.Trim(l.Host, "[]")) != nil {
			ipDone = true
			an.suspicious++
			add(Signal{Kind: SigIPLink, Reason: "a link goes to a bare IP address (" + l.Host + ")", Message: i, Value: l.Host, Weight: 2 * lw})
		}
		if latest && !an.linkToSender && senderReg != "" && a.regDomain(l.Host) == senderReg {
			an.linkToSender = true
		}
		if latest && an.fileLink == "" {
			an.fileLink = runsFromLink(l.URL)
		}
		if latest && !an.userContentLink && userContentLink(l) {
			an.userContentLink = true
		}
		if !seen[l.Host] {
			seen[l.Host] = true
			a.domainSignals(an, l.Host, "a link's domain", i, pDomain, lw, add)
		}
		if !mismatchDone && l.Text != "" {
			hreg := a.regDomain(l.Host)
			for _, d := range domainsIn(l.Text) {
				if a.regDomain(d) != hreg {
					mismatchDone = true
					add(Signal{Kind: SigLinkMismatch, Reason: fmt.Sprintf("a link shows %s but goes to %s", d, l.Host), Message: i, Value: l.Host, Weight: mw})
					break
				}
			}
		}
	}
	// Phrases over subject and own text.
	// (over the whole body, quotes included: the words are shared with the
	// spam score, which was trained on whole bodies)
	// One pass: phrase matching and, for the latest message, the spam score.
	ps := phraseStream{idx: a.phrases}
	var weights *bayes.Table
	var score float64
	if latest && a.spam != nil {
		score, weights = a.spam.Table()
	}
	// With the user's marks, the shipped model's score is summed in the
	// same pass, to tell whether the marks changed the verdict.
	var shipped *bayes.Table
	var shippedScore float64
	if weights != nil && a.spam.Marked() {
		shippedScore, shipped = shippedClassifier(a.spam).Table()
	}
	var tokens, known int
	bayes.EachToken(m.Subject, func(w bayes.Word) {
		ps.push(w)
		if weights != nil {
			t := w.String() // subjects are short: the copy is cheap
			h := bayes.HashPrefixed("s:", t)
			wt := weights.WeightPrefixed("s:", t, h)
			score += wt
			tokens++
			if wt != 0 {
				known++
			}
			if shipped != nil {
				shippedScore += shipped.WeightPrefixed("s:", t, h)
			}
		}
	})
	bayes.EachToken(body, func(w bayes.Word) {
		ps.push(w)
		if weights != nil {
			wt := weights.Weight(w)
			score += wt
			tokens++
			if wt != 0 {
				known++
			}
			if shipped != nil {
				shippedScore += shipped.Weight(w)
			}
		}
	})
	if weights != nil {
		if d := domainOf(m.From.Email); d != "" {
			h := bayes.HashPrefixed("d:", d)
			score += weights.WeightPrefixed("d:", d, h)
			if shipped != nil {
				shippedScore += shipped.WeightPrefixed("d:", d, h)
			}
		}
		if shipped != nil {
			an.shippedScore, an.shippedScored = shippedScore, true
		}
		an.latestScore, an.latestScored = score, true
		an.coverage, an.known = coverage(known, tokens), known
		an.accented = accentedLetters(m.Subject, own) >= minAccented
	}
	counts, first := ps.counts, ps.first
	if latest {
		an.runCode = first[pkRunCode]
		an.idCompanion = first[pkIdentity]
	}
	if (counts[pkCredential] > 0 || counts[pkPayment] > 0) && len(own) < len(body) {
		// A request for credentials or for a payment is the author's
		// only in their own text: one that stands only in quoted or
		// forwarded text is someone else's (a warning about a scam, or a
		// joke appeal passed on, quotes the scam's words).
		ops := phraseStream{idx: a.phrases}
		bayes.EachToken(m.Subject, ops.push)
		bayes.EachToken(own, ops.push)
		for _, k := range []phraseKind{pkCredential, pkPayment} {
			counts[k], first[k] = ops.counts[k], ops.first[k]
		}
	}
	if counts[pkInjection] > 0 {
		an.injection = true
		add(Signal{Kind: SigInjection, Reason: fmt.Sprintf("contains text aimed at an AI assistant (%q)", first[pkInjection]), Message: i, Value: first[pkInjection]})
	}
	// Japanese text holds kana (UTF-8 lead byte 0xE3): only then are the
	// Japanese phrases looked for, not in every message with an accent.
	japanese := strings.IndexByte(own, 0xE3) >= 0
	if counts[pkSpammy] == 0 && japanese {
		if w, ok := containsAnyOf(m.Subject+own, jaSpammy); ok {
			counts[pkSpammy], first[pkSpammy] = 1, w
		}
	}
	if counts[pkCredential] == 0 && japanese {
		if w, ok := containsAnyOf(own, jaCredential); ok {
			counts[pkCredential], first[pkCredential] = 1, w
		}
	}
	if counts[pkCredential] > 0 {
		w := 2.0
		if counts[pkCredential] > 1 {
			w = 3
		}
		if counts[pkCredential] > 2 {
			w = 3.5
		}
		add(Signal{Kind: SigCredentialRequest, Reason: fmt.Sprintf("asks for credentials or account verification (%q)", first[pkCredential]), Message: i, Value: first[pkCredential], Weight: w})
	}
	if counts[pkPayment] > 0 {
		add(Signal{Kind: SigPaymentRequest, Reason: fmt.Sprintf("asks for an unusual payment (%q)", first[pkPayment]), Message: i, Value: first[pkPayment], Weight: 1.5})
	}
	div := first[pkDiversion]
	if div == "" && japanese {
		div, _ = containsAnyOf(own, jaDiversion)
		if div == "" {
			// (a subject announces it too: 【重要】お振込先口座変更のお知らせ)
			div, _ = containsAnyOf(m.Subject, jaDiversion)
		}
	}
	if div != "" && !mentionsPayment(m.Subject, own) {
		div = "" // a new bank account, no payment asked
	}
	if div != "" && an.internal && isReplySubject(m.Subject) && !strings.Contains(strings.ToLower(own), div) {
		// A colleague forwarding or answering a supplier's bank change
		// ("WG: Änderung unserer Bankverbindung") carries the supplier's
		// subject; only the colleague's own words would ask the reader.
		div = ""
	}
	if div != "" && invitesCallBack(own) {
		// "please do not update anything based on this email alone: ask
		// your AP team to verify the change by calling our finance desk
		// on the number in our agreement": a real change asks to be
		// checked out of band; the diversion avoids the call.
		div = ""
	}
	if div != "" && warnsOfFraud(m.Subject, own) {
		// "Brightline 'new bank details' - fake, nothing paid",
		// "【注意喚起】弊社を装った不審なメールについて": a warning quotes
		// the fraud it warns of.
		div = ""
	}
	if div != "" {
		// Asking that a payment go to changed bank details is the fraud
		// itself: it weighs as much as phishing needs.
		add(Signal{Kind: SigPaymentDiversion, Reason: fmt.Sprintf("asks to pay to changed bank details (%q)", div), Message: i, Value: div, Weight: 3.5})
	} else if w := solicitationMark(counts, first); w != "" && mentionsPayment(m.Subject, own) {
		// An offer dressed as an invoice (a domain "renewal" or a
		// directory listing from someone who never served the reader),
		// whose small print says it is no bill: the fake invoice itself.
		add(Signal{Kind: SigPaymentRequest, Reason: fmt.Sprintf("presents an offer as an invoice (%q)", w), Message: i, Value: w, Weight: 3.5})
	} else if w := giftCardCodes(own, counts[pkPayment] > 0); w != "" {
		// Asking the reader to buy gift cards and pass on their codes is
		// the gift-card fraud itself (nobody pays a business that way).
		add(Signal{Kind: SigPaymentDiversion, Reason: fmt.Sprintf("asks for gift card codes (%q)", w), Message: i, Value: w, Weight: 3.5})
	}
	secrecy := first[pkSecrecy]
	if secrecy == "" && japanese {
		secrecy, _ = containsAnyOf(own, jaSecrecy)
	}
	if secrecy != "" {
		add(Signal{Kind: SigSecrecy, Reason: fmt.Sprintf("asks for discretion or checks you are at hand (%q)", secrecy), Message: i, Value: secrecy, Weight: 1.5})
	}
	if n := counts[pkSpammy] + counts[pkWindfall]; n > 0 {
		// The messages of a thread quote each other: the thread's spam
		// wording is that of its wordiest message, not the sum.
		an.spamPhrases = max(an.spamPhrases, n)
		w := first[pkSpammy]
		if counts[pkWindfall] > 0 {
			an.windfall = true
			w = first[pkWindfall]
		}
		add(Signal{Kind: SigSpamPhrase, Reason: fmt.Sprintf("uses typical spam wording (%q)", w), Message: i, Value: w, Weight: float64(n)})
	}
	if !latest {
		return
	}
	if counts[pkUrgency] > 0 && counts[pkCalm] == 0 && !(!isASCII(own) && saysNotUrgent(own)) &&
		!(counts[pkUrgency] == 1 && (autoSubmitted(m) || an.notifier) && inNotYouSentence(own, first[pkUrgency])) &&
		!(counts[pkUrgency] == 1 && withinOfAnEvent(own, first[pkUrgency])) &&
		!(counts[pkUrgency] == 1 && urgencyNotMeant(m.Subject, own, first[pkUrgency])) {
		an.urgency = counts[pkUrgency]
		add(Signal{Kind: SigUrgency, Reason: fmt.Sprintf("presses for urgency (%q)", first[pkUrgency]), Message: i, Value: first[pkUrgency]})
	}
	if counts[pkMeeting] > 0 {
		an.meeting = true
		add(Signal{Kind: SigMeeting, Reason: fmt.Sprintf("talks about a meeting (%q)", first[pkMeeting]), Message: i, Value: first[pkMeeting]})
	}
	an.positive, an.negative = counts[pkPositive], counts[pkNegative]
	an.greeted = greetsByName(own, an.firstName) || greetsByTitle(own, an.surname)
	if an.latestScored && !an.replied && !an.vouched() &&
		a.spam != nil && !an.unscorable() && bayes.Probability(an.latestScore) >= a.spam.Threshold() && !an.injection {
		// Spam by the learned score alone already, with none of the
		// exemptions of Deterministic: its questions and deadlines are not
		// worth extracting; the summary still gets its first sentence.
		for _, rg := range sentenceRanges(own, 3) {
			if raw := own[rg[0]:rg[1]]; len(raw) > 12 {
				an.firstLine = normSpace(raw)
				break
			}
		}
		return
	}
	a.sentenceSignals(an, i, m, own, add)
}

var (
	deadlineRe = regexp.MustCompile(`(?i)\b(?:by|before|until|till|due(?: on| by)?|no later than|deadline(?: is)?:?|avant)\s+((?:(?:next|this|the end of|end of|the)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|tonight|noon|midnight|eod|eow|cob|day|week|month|quarter|lundi|mardi|mercredi|jeudi|vendredi)(?:\s+(?:morning|afternoon|evening|noon))?(?:,?\s+(?:at\s+)?\d{1,2}(?::\d\d)?\s*(?:am|pm)?)?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{1,2}(?::\d\d)\s*(?:am|pm)?|\d{1,2}\s*(?:am|pm))`)
	soonRe     = regexp.MustCompile(`(?i)\b(eod|asap|end\s+of\s+(?:the\s+)?day|today|tonight|this\s+morning|this\s+afternoon|within\s+the\s+hour|within\s+\d+\s+hours?|right\s+away|immediately|tomorrow|in\s+(?:an|one|two|\d)\s+hours?|in\s+the\s+next\s+hour|(?:in|within)\s+\d{1,2}\s+minutes|as\s+soon\s+as\s+(?:possible|you\s+(?:can|see\s+this|get\s+this|read\s+this)))\b`)
	greetingRe = regexp.MustCompile(`(?i)^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|bonjour|hallo|guten tag)\b[^,.!?\n]{0,40}[,!.]?\s*`)
)

// sentenceSignals finds questions, requests and deadlines in the latest
// message from others, and turns them into action items.
func (a *Analyzer) sentenceSignals(an *analysis, i int, m *model.Message, own string, add func(Signal)) {
	sent := m.Date
	sender := m.From.Name
	if sender == "" {
		sender = m.From.Email
	}
	if f := strings.Fields(sender); len(f) > 0 {
		sender = f[0]
	}
	var deadlineDone, soonDone, sinceDone bool
	auto := autoSubmitted(m)
	// Requests and deadlines sit near the top of a message, or close a
	// person's long one ("The one thing I need from you: sign-off on
	// option B"): its first 1,500 bytes are read and, from a person, its
	// last 600.
	if len(own) > 1500 {
		if len(own) > 2100 && !an.bulk && !auto && !an.notifier {
			tail := own[len(own)-600:]
			if i := strings.IndexByte(tail, '\n'); i >= 0 {
				tail = tail[i+1:]
			}
			own = own[:1500] + "\n\n" + tail
		} else {
			own = own[:1500]
		}
	}
	// Keywords are found once over the whole text; the regular expressions
	// then run only on sentences holding one.
	var greetHits, reqHits, dlHits, soonHits []int
	var foreign bool
	// dlLive are the deadline hits deadlineRe may match at (see
	// deadlineLive): windows holding none are not searched.
	var dlLive []int
	scanTriggers(own, func(off int, mask uint8) {
		if mask&trigGreet != 0 {
			greetHits = append(greetHits, off)
		}
		if mask&trigRequest != 0 {
			reqHits = append(reqHits, off)
		}
		if mask&trigDeadline != 0 {
			dlHits = append(dlHits, off)
			if deadlineLive(own, off) {
				dlLive = append(dlLive, off)
			}
		}
		if mask&trigSoon != 0 {
			soonHits = append(soonHits, off)
		}
		if mask&trigForeign != 0 {
			foreign = true
		}
	})
	// The other languages' cues are looked for only in text that may hold
	// them: a non-ASCII byte, or one of their ASCII trigger words.
	foreign = foreign || !isASCII(own)
	an.foreign = foreign
	// Plain-text mail is wrapped at about 72 columns, so a phrase ("ask
	// you\nto", "this\nafternoon") may straddle a line break inside its
	// sentence: the phrases and expressions are matched on the text with
	// its line breaks and tabs as spaces (same offsets as own; sentences
	// are still cut at the paragraph breaks of own).
	flat := flatSpace(own)
	low := ascii.LowerString(flat) // offsets are those of own
	// The cue words of closing dates, hours, stated needs and breakage
	// since today, found once (see cueSet).
	cues := sentenceCues.find(low, nil)
	// earlierSoon: the first time within the day a sentence named
	// (see thenWords).
	var earlierSoon string
	for k, rg := range sentenceRanges(own, 40) {
		a0, b0 := rg[0], rg[1]
		has := func(h []int) bool { return len(hitsIn(h, a0, b0)) > 0 }
		raw := own[a0:b0]
		if an.injection && a.phrases.containsInjection(raw) {
			continue
		}
		// voc: the sentence turns to the reader by name; looked for in
		// every sentence of automated mail only (see taskNamed).
		voc := (!an.named || auto) && vocative(raw, an.firstName)
		if !voc && (auto || an.notifier) && an.handle != "" && strings.Contains(low[a0:b0], an.handle) {
			// "@alex.morgan can you give me a rough size": a comment
			// mentioning the reader in a document or a tracker.
			voc = true
		}
		if voc {
			an.named = true
		}
		if k < 2 && has(greetHits) {
			if g := greetingRe.FindStringIndex(raw); g != nil {
				raw = strings.TrimSpace(raw[g[1]:])
				a0 = b0 - len(raw) // ranges end trimmed, so raw still ends at b0
			}
		}
		if raw == "" {
			continue
		}
		raw = flat[a0:b0]
		if an.firstLine == "" && len(raw) > 12 {
			an.firstLine = normSpace(raw)
		}
		q := isQuestion(raw)
		r := false
		if has(reqHits) {
			r = isRequest(low[a0:b0])
		}
		var rawLow string // raw lower-cased, for the other languages' cues
		if foreign {
			rawLow = strings.ToLower(raw)
			r = r || hasForeignRequest(rawLow)
		}
		var due *string
		// The regexps run on short windows at the trigger words.
		for _, off := range hitsIn(dlHits, a0, b0) {
			ws, we := max(off-4, a0), min(off+80, b0)
			if len(hitsIn(dlLive, ws-4, we)) == 0 {
				continue // deadlineRe cannot match in the window
			}
			win := flat[ws:we]
			if mm := deadlineRe.FindStringSubmatch(win); mm != nil {
				d := normSpace(mm[1])
				due = &d
				if !deadlineDone {
					deadlineDone = true
					add(Signal{Kind: SigDeadline, Reason: fmt.Sprintf("mentions a deadline (%q)", d), Message: i, Value: d})
				}
				break
			}
		}
		soon := false
		var soonText string
		for _, off := range hitsIn(soonHits, a0, b0) {
			win := flat[max(off-6, a0):min(off+24, b0)]
			if m := soonRe.FindString(win); m != "" {
				if endOfDay(m) && namesOtherDay(raw, sent) {
					// "by Thursday end of day": the end of another day.
					continue
				}
				if withinOfAnEvent(raw, strings.ToLower(m)) {
					// "within 24 hours of the interview": from an event.
					continue
				}
				soon, soonText = true, m
				break
			}
		}
		if !soon && foreign {
			if w, ok := containsAnyOf(rawLow, foreignSoon); ok && !saysNotUrgent(rawLow) {
				soon, soonText = true, w
			}
		}
		if due == nil {
			// "The window closes this Friday", "the offer ends Monday":
			// after it the option is gone. On the weekday the message was
			// sent or the next one, it is as near as tomorrow.
			// closingDeadline(raw, low[a0:b0]), its closing verb found
			// already.
			var mm []string
			if cueWithin(cues, cueClosing, a0, b0) {
				mm = closesRe.FindStringSubmatch(raw)
			}
			if mm != nil {
				d := normSpace(mm[1])
				due = &d
				if !deadlineDone {
					deadlineDone = true
					add(Signal{Kind: SigDeadline, Reason: fmt.Sprintf("mentions a deadline (%q)", d), Message: i, Value: d})
				}
				if !soon && withinADay(d, m.Date) {
					soon, soonText = true, d
				}
			}
		}
		if !soon && cueWithin(cues, cueHour, a0, b0) {
			// A deadline that is an hour of the day ("by 14:00", "bis 10
			// Uhr", "avant 14h", "15時までに") falls within the day, unless
			// the sentence names another day. (hourDeadline finds nothing
			// in a sentence without one of its hourMarkers.)
			if h := hourDeadline(raw, low[a0:b0], m.Date); h != "" && !quoted(raw, h) {
				soon, soonText = true, h
				if due == nil {
					due = &h
					if !deadlineDone {
						deadlineDone = true
						add(Signal{Kind: SigDeadline, Reason: fmt.Sprintf("mentions a deadline (%q)", h), Message: i, Value: h})
					}
				}
			}
		}
		if !soon && (q || r) && !auto && !an.notifier && strings.ContainsAny(raw, "0123456789") {
			// A person's ask for something at an hour that names no
			// other day ("Can you get on a call with her at 3:30pm?",
			// "You on the 2pm with Globex?", "um 15 Uhr", "à 15h") is of
			// today (not a digest quoting a channel's "lunch at 12:15?").
			if h := atHourRe.FindString(raw); h != "" && !namesOtherDay(raw, m.Date) {
				soon, soonText = true, normSpace(h)
			}
		}
		if !soon && (q || r) && earlierSoon != "" {
			// "Maggie moved the check-in to 18:00 today. Could you send
			// me three numbers before then?": an ask due by the time an
			// earlier sentence set within the day.
			if _, ok := containsAnyOf(low[a0:b0], thenWords); ok {
				soon, soonText = true, earlierSoon
			}
		}
		if soon && earlierSoon == "" {
			earlierSoon = soonText
		}
		if !q && !r && due != nil && imperative(raw) {
			// "Confirm your participation in the speaker portal by
			// December 10": an imperative with its deadline.
			r = true
		}
		if soon && !an.expiresSoon {
			// "The current cert expires tonight 23:59 UTC": something
			// runs out within the day; with an ask elsewhere in the
			// message, the ask is of the day (see below).
			_, an.expiresSoon = containsAnyOf(low[a0:b0], expiryWords)
		}
		if !q && !r && (due != nil || has(reqHits) || foreign) {
			// "We need a firm answer by 10", "we need the export today",
			// "ich brauche … von dir": a need stated with a deadline, for
			// today, or of the reader asks.
			sl := low[a0:b0]
			if cueWithin(cues, cueNeed, a0, b0) { // containsAnyOf(sl, needWords)
				_, from := containsAnyOf(sl, fromYou)
				r = due != nil || soon || from
			}
		}
		if due == nil && foreign {
			if w, ok := containsAnyOf(rawLow, foreignDeadlines); ok && (soon || q || r) {
				d := foreignDue(raw, rawLow, w)
				if soon {
					d = soonText
				}
				due = &d
				if !deadlineDone {
					deadlineDone = true
					add(Signal{Kind: SigDeadline, Reason: fmt.Sprintf("mentions a deadline (%q)", strings.TrimSpace(w)), Message: i, Value: strings.TrimSpace(w)})
				}
			}
		}
		if due == nil && soon && (q || r) {
			d := normSpace(soonText)
			due = &d
		}
		if due != nil && soon && !soonDone {
			soonDone = true
			an.soonDeadline = true
		}
		// brokenSinceToday finds nothing without one of its sinceMarkers.
		if an.urgency == 0 && !sinceDone && cueWithin(cues, cueSince, a0, b0) {
			if w := brokenSinceToday(raw, low[a0:b0]); w != "" {
				sinceDone = true
				an.urgency++
				add(Signal{Kind: SigUrgency, Reason: fmt.Sprintf("something has not worked since earlier today (%q)", w), Message: i, Value: w})
			}
		}
		if !q && !r && asksOfNamed(low[a0:b0], an.firstName) {
			// "I'd particularly like Alex to look at section 5": an ask
			// naming the reader in the third person, to a group.
			r, voc = true, true
			an.named = true
		}
		if !q && !r {
			continue
		}
		if voc {
			// "Alex, please write up the phases": an ask turned to the
			// reader by name, not a greeting.
			an.taskNamed = true
		} else if !an.otherNamed {
			an.otherNamed = turnsToSomeone(raw)
		}
		if r && !an.named {
			_, an.named = containsAnyOf(low[a0:b0], yoursToDo)
			an.taskNamed = an.named
		}
		if q {
			an.questions++
		}
		if r {
			an.requests++
		}
		if len(an.items) < 5 {
			an.items = append(an.items, contract.ActionItem{Description: actionText(normSpace(raw), sender, q), DueHint: due})
		}
	}
	if an.expiresSoon && an.questions+an.requests > 0 {
		an.soonDeadline = true
	}
	if !an.taskNamed && auto {
		// "Hannah assigned NW-4412 to you": the task is the reader's
		// wherever the message says so (asked only where it matters: of
		// automated mail, whose other asks are instructions).
		_, an.taskNamed = containsAnyOf(low, yoursToDo)
		an.taskNamed = an.taskNamed || assignedToYou(low) || namedInField(own, an.firstName, assigneeFields)
	}
	a.subjectSignals(an, i, m, own, sender, add)
	if an.questions > 0 {
		add(Signal{Kind: SigQuestion, Reason: fmt.Sprintf("asks %d question(s)", an.questions), Message: i})
	}
	if an.requests > 0 {
		add(Signal{Kind: SigRequest, Reason: fmt.Sprintf("makes %d request(s)", an.requests), Message: i})
	}
}

// subjectSignals finds an ask, urgency and a near deadline written in the
// subject of the latest message from others ("Approval needed: …",
// "Rechnung – Bitte um Freigabe", "… closes Friday", "Frist morgen").
func (a *Analyzer) subjectSignals(an *analysis, i int, m *model.Message, own, sender string, add func(Signal)) {
	subj := strings.TrimSpace(m.Subject)
	if subj == "" || an.bulk {
		return
	}
	low := strings.ToLower(subj)
	// The subject's ask counts when the text asks nothing itself (a text
	// that asks already has its action item).
	w, ok := subjectAskCues.first(low)
	if ok {
		// "Tu solicitud de ausencia ha sido aprobada": decided already.
		_, done := containsAnyOf(low, decisionsMade)
		ok = !done
	}
	if !ok {
		if m := tasksWaitingRe.FindString(subj); m != "" {
			w, ok = m, true
		} else if strings.Contains(low, "due ") {
			if m := dueDateSubjectRe.FindString(subj); m != "" {
				w, ok = m, true
			}
		}
	}
	an.subjectAsks = ok
	if ok && an.requests+an.questions == 0 {
		an.requests++
		add(Signal{Kind: SigRequest, Reason: fmt.Sprintf("the subject asks for action (%q)", w), Message: i, Value: w})
		if len(an.items) < 5 {
			an.items = append(an.items, contract.ActionItem{Description: truncateRunes("Respond to "+sender+": "+normSpace(subj), 160)})
		}
	}
	if an.requests+an.questions == 0 && !an.automated && !an.notifier && subjectQuestion(subj) {
		// A person's question written as the subject ("¿Serías mi mentor
		// el próximo semestre?", "Can you cover Friday?") with a text
		// that explains it.
		an.questions++
		add(Signal{Kind: SigQuestion, Reason: "the subject asks a question", Message: i})
		if len(an.items) < 5 {
			an.items = append(an.items, contract.ActionItem{Description: truncateRunes("Answer "+sender+": "+normSpace(subj), 160)})
		}
	}
	soon := soonRe.MatchString(subj) || minutesRe.MatchString(subj) || expiresWithinTwoDays(low)
	if !soon {
		_, soon = containsAnyOf(low, foreignSoon)
	}
	if !soon && strings.ContainsAny(subj, "0123456789") && subjectHourRe.MatchString(subj) && !namesOtherDay(subj, m.Date) {
		// "go/no-go at 17:00", "step in for Marcus at 11:00?": an hour
		// and no other day is an hour of the day the mail was sent.
		soon = true
	}
	if !soon && an.calendar && !isCalendarNotice(subj) && namesSendDay(subj, m.Date) {
		// "Invitation: … @ Tue 24 Nov 2026 17:30" sent on the 24th: a
		// meeting later the same day, to answer before it starts.
		soon = true
	}
	if !an.subjectAsks && an.requests+an.questions == 0 && imperative(subj) && (soon || deadlineRe.MatchString(subj)) {
		// "Rotate staging database credentials by 18:00 today", "…by
		// Friday": the subject itself tells the reader what to do by when.
		an.subjectAsks = true
		an.requests++
		add(Signal{Kind: SigRequest, Reason: "the subject asks for action by a deadline", Message: i})
		if len(an.items) < 5 {
			an.items = append(an.items, contract.ActionItem{Description: truncateRunes(normSpace(subj), 160)})
		}
	}
	if soon {
		// The subject names today, tonight, tomorrow or minutes: what it
		// is about happens within a day.
		an.subjectSoon = true
		if an.requests+an.questions > 0 {
			an.soonDeadline = true
		}
	}
	if w := priorityRe.FindString(subj); w != "" {
		an.urgency++
		add(Signal{Kind: SigUrgency, Reason: fmt.Sprintf("the subject marks the highest priority (%q)", w), Message: i, Value: w})
	}
	if an.urgency == 0 {
		w, ok := containsWordStart(low, foreignUrgent)
		if !ok && an.foreign {
			w, ok = containsWordStart(strings.ToLower(own), foreignUrgent)
		}
		if ok && !saysNotUrgent(subj) && !saysNotUrgent(own) {
			an.urgency = 1
			add(Signal{Kind: SigUrgency, Reason: fmt.Sprintf("presses for urgency (%q)", w), Message: i, Value: w})
		}
	}
}

var (
	// hourDeadlineRe finds a deadline written as an hour of the day, in
	// English, German, French, Spanish and Japanese.
	hourDeadlineRe = regexp.MustCompile(`(?i)\b(?:by|before|no later than)\s+(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+)?(?:about\s+|around\s+)?(?:\d{1,2}:\d\d(?:\s*[ap]\.?m\b)?|\d{1,2}\s*[ap]\.?m\b|noon|midday)` +
		// a bare hour where nothing else can follow: "before 3 if at all
		// possible", "sag mir bis 11 Bescheid" ("by 5." is as often an
		// amount: "rose by 5.")
		`|\bbefore\s+(?:1[0-2]|[1-9])(?:\s+(?:if|today|tonight|at the latest|please)\b|\s*[!?,;)]|\s*\.(?:\s|$)|\s*$)` +
		// "I need them by 3": a need of something by a bare hour
		`|\bneed\s+(?:it|them|this|that|these|those)\s+by\s+(?:1[0-2]|[1-9])(?:\s*[ap]\.?m\b|\b)` +
		`|\bbis\s+(?:spätestens\s+)?(?:1[0-9]|2[0-3]|[1-9])\s+(?:bescheid|zurück|bitte|heute)\b` +
		`|\b(?:bis|vor)\s+(?:spätestens\s+)?(?:um\s+)?(?:\d{1,2}(?:[:.]\d\d)?\s*uhr\b|mittag)` +
		`|\b(?:avant|d['’]ici)\s+(?:\d{1,2}\s*h(?:\s*\d\d)?\b|\d{1,2}:\d\d|midi\b)` +
		`|\b(?:antes de las?|para las?|a más tardar a las?)\s+\d{1,2}(?:[:.]\d\d)?|\bantes del mediodía` +
		`|\d{1,2}時(?:\d{1,2}分|半)?(?:頃|ごろ)?まで|正午まで`)
	// otherDayRe finds a day named in a sentence: a weekday, next week, a
	// date, yesterday (in the five languages).
	otherDayRe = regexp.MustCompile(`(?i)\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|lunes|martes|miércoles|jueves|viernes|sábado|domingo|next week|nächste[n]? woche|semaine prochaine|próxima semana|semana que viene|yesterday|last night|gestern|hier|ayer|anoche)\b` +
		`|\b\d{1,2}(?:st|nd|rd|th)?\.?\s+(?:de\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|mai|juni|juli|okt|dez|janv|févr|avr|mai|juin|juil|août|sept|déc|ene|abr|ago|dic)` +
		`|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\.\d{1,2}\.(?:\d{2,4}\b|[^\d]|$)|\b\d{1,2}/\d{1,2}\b|\b\d{4}-\d\d-\d\d\b|[月火水木金土日]曜|\d{1,2}月\d{1,2}日|来週|昨日|昨夜`)
)

// hourDeadlineAt is hourDeadlineRe anchored at the start of its input.
var hourDeadlineAt = regexp.MustCompile(`(?i)^(?:` + strings.TrimPrefix(hourDeadlineRe.String(), `(?i)`) + `)`)

// hourStarts are the words an hourDeadlineRe match in ASCII text begins
// with, at the start of a word (its other alternatives need a non-ASCII
// character: 時, 正午, más, mediodía, ’).
var hourStarts = newWordMarks([]string{"by", "before", "no later than", "need", "bis", "vor", "avant", "d'ici", "antes de la", "para la"})

// findHourDeadline is hourDeadlineRe.FindString(sentence), low being the
// sentence ASCII lower-cased. In an ASCII sentence a match begins at one
// of hourStarts, so the leftmost match is the anchored expression's first
// match at those places, tried in order: the expression is not run over
// the sentence from every position.
func findHourDeadline(sentence, low string) string {
	if !isASCII(sentence) {
		return hourDeadlineRe.FindString(sentence)
	}
	for i := 0; i+1 < len(low); i++ {
		if hourStarts.startsAt(low, i) {
			if h := hourDeadlineAt.FindString(sentence[i:]); h != "" {
				return h
			}
		}
	}
	return ""
}

// hourDeadline returns the deadline of sentence written as an hour of the
// day ("by 14:00", "bis 10 Uhr", "avant 14h", "antes de las 12", "15時ま
// でに"), "" when there is none or the sentence names another day than
// today (a weekday, a date, next week, yesterday): such a deadline falls
// within the day. "Until" is left out: it as often tells how long
// something lasted.
// The regular expression runs only on a sentence holding one of its
// markers (low is the sentence ASCII lower-cased).
func hourDeadline(sentence, low string, sent time.Time) string {
	if !strings.ContainsAny(low, "0123456789") && !strings.Contains(low, "noon") && !strings.Contains(low, "midday") &&
		!strings.Contains(low, "mittag") && !strings.Contains(low, "midi") && !strings.Contains(low, "mediod") &&
		!strings.Contains(low, "正午") {
		return ""
	}
	if _, ok := containsAnyOf(low, hourMarkers); !ok {
		return ""
	}
	h := findHourDeadline(sentence, low)
	if h == "" || namesOtherDay(sentence, sent) {
		return ""
	}
	if i := strings.Index(sentence, h); i > 0 && rangeStartRe.MatchString(sentence[:i]) {
		// "von 02:00 bis 05:00 Uhr": the end of a time range, no deadline
		return ""
	}
	// A bare hour's match ends with what showed it is one ("before 3 if",
	// "before 4?"): the deadline is the hour.
	h = strings.TrimRight(h, " \t\n!?,;).")
	for _, w := range []string{" if", " please", " bitte"} {
		if len(h) > len(w) && strings.EqualFold(h[len(h)-len(w):], w) {
			h = h[:len(h)-len(w)]
		}
	}
	return normSpace(h)
}

// rangeStartRe is the start of a time range ending right where it ends
// ("von 02:00 ", "zwischen 9 und … ", a clock time "10:00 ", 10時から:
// the "bis 05:00 Uhr" or 13時まで after it ends the range).
var rangeStartRe = regexp.MustCompile(`(?i)(?:\b(?:von|ab|zwischen)\s+\d{1,2}(?:[:.]\d\d)?|\b\d{1,2}:\d\d|\d{1,2}時(?:\d{1,2}分|半)?から)\s*(?:uhr\s*)?[-–]?\s*$`)

// endOfDay reports whether soon, a match of soonRe, names the end of a
// day ("EOD", "end of day"), which may be another day's.
func endOfDay(soon string) bool {
	low := strings.ToLower(soon)
	return low == "eod" || strings.HasPrefix(low, "end")
}

// quoted reports whether the first occurrence of part in sentence stands
// inside double quotes (a title: "Replanning 180 trucks before 6 a.m.:
// what we learned"), where it is no deadline: an odd number of straight
// quotes before it, or more opening than closing typographic ones.
func quoted(sentence, part string) bool {
	i := strings.Index(sentence, part)
	if i < 0 {
		return false
	}
	before := sentence[:i]
	if strings.Count(before, `"`)%2 == 1 {
		return true
	}
	return strings.Count(before, "“")+strings.Count(before, "«") > strings.Count(before, "”")+strings.Count(before, "»")
}

// atHourRe is an hour of the day something happens at: "at 3:30pm",
// "the 2pm", "at 14:00", "um 15 Uhr", "à 15h", "a las 15:00", "15時に".
var atHourRe = regexp.MustCompile(`(?i)(?:\b(?:at|the|um|a las)|(?:^|\s)à)\s+\d{1,2}(?:(?::\d\d)?\s*(?:am|pm)\b|:\d\d\b|\s*uhr\b|h\d{0,2}\b)|\d{1,2}時(?:\d{1,2}分|半)?に`)

// hourMarkers are the words hourDeadlineRe needs (lower-case).
var hourMarkers = []string{"by ", "by\n", "before", "no later", "bis ", "bis\n", "vor ", "vor\n", "avant", "d'ici", "d’ici", "antes", "para la", "まで"}

// jaSpammy are pkSpammy in Japanese (substrings): the side-job and
// easy-money pitch, the "only now" sale, the dating scam's opening.
var jaSpammy = []string{"副業", "稼ぐ方法", "スマホだけで", "在宅ワーク", "限定公開", "今だけ", "無料プレゼント", "プロフィールを見て",
	"月収", "不労所得"}

// jaSecrecy are pkSecrecy in Japanese (substrings): in a meeting and
// unable to call, the company address "unavailable", a new LINE group.
var jaSecrecy = []string{"電話には出られません", "電話に出られません", "アドレスが一時的に使え", "lineで", "LINEで", "他言無用", "内密に", "ご内密", "極秘",
	"機密事項", "共有しないよう", "共有しないで", "LINEのグループ", "個人のアドレスから",
	// and asks not to be called back on it: no check on a known number
	"お電話でのお問い合わせはご遠慮", "電話でのお問い合わせはご遠慮", "お電話はご遠慮"}

// jaCredential are pkCredential in Japanese (substrings): sign in and
// update the registration, verify your identity, the account or the
// service stopped.
var jaCredential = []string{"ログインの上", "登録情報を更新", "登録情報の更新", "登録情報をご確認", "本人確認", "アカウント情報を更新",
	"アカウント情報の更新", "アカウントが停止", "アカウントを停止", "利用停止", "無効になりました", "カード情報を更新",
	"カード情報の更新", "お支払い情報を更新", "お支払い情報の更新"}

// jaDiversion are pkDiversion in Japanese (matched as substrings: the
// tokenizer does not split Japanese words).
var jaDiversion = []string{"振込先の変更", "振込先が変更", "振込先を変更", "新しい振込先", "新しい口座", "口座が変更", "口座を変更", "口座の変更",
	"口座変更", "振込先変更", "振込先口座を", "新口座", "新しいお振込先"}

var (
	// sinceTodayRe finds when something started earlier the same day: an
	// hour ("since about 16:20", "seit 6 Uhr", "depuis 8h", "desde las
	// 8:45", "9時から"), this morning, last night.
	sinceTodayRe = regexp.MustCompile(`(?i)\bsince\s+(?:about\s+|around\s+|roughly\s+|approximately\s+)?(?:\d{1,2}:\d\d|\d{1,2}\s*[ap]\.?m\b|this morning|last night|earlier today)` +
		`|\bseit\s+(?:etwa\s+|ca\.\s+|heute\s+)?(?:\d{1,2}(?:[:.]\d\d)?\s*uhr\b|\d{1,2}:\d\d\b|heute (?:morgen|früh|nacht)|gestern abend)` +
		`|\bdepuis\s+(?:environ\s+)?(?:\d{1,2}\s*h(?:\s*\d\d)?\b|\d{1,2}:\d\d|ce matin|cette nuit|hier soir)` +
		`|\bdesde\s+(?:las?\s+\d{1,2}(?:[:.]\d\d)?|esta mañana|esta madrugada|anoche)` +
		`|今朝から|昨夜から|\d{1,2}時(?:\d{1,2}分|半)?(?:頃|ごろ)?(?:から|以降)|\d{1,2}:\d\d(?:頃|ごろ)?(?:から|以降)` +
		// a regression since a change went out: "since your retry
		// change", "desde la release de las 14:00", "リリース後に"
		`|\bsince\s+(?:the\s+|your\s+|our\s+|this\s+|today's\s+)?(?:[a-z0-9.-]+\s+){0,2}(?:deploy|deployment|release|rollout|change|upgrade|migration|merge|cutover|hotfix)\b` +
		`|\bseit\s+(?:dem|der|deinem|deiner|unserem|unserer)\s+(?:\S+\s+){0,2}(?:deploy|deployment|release|rollout|änderung|upgrade|migration|umstellung|hotfix)` +
		`|\bdepuis\s+(?:le|la|ton|ta|votre|notre|la mise)\s+(?:\S+\s+){0,2}(?:déploiement|release|mise en prod|changement|migration|bascule|hotfix)` +
		`|\bdesde\s+(?:el|la|tu|nuestro|nuestra)\s+(?:\S+\s+){0,2}(?:despliegue|release|subida|cambio|migración|actualización|hotfix)` +
		`|(?:リリース|デプロイ|切り替え|切替|移行)(?:後|以降)`)
	// brokenWords say that something does not work (in the five languages).
	brokenWords = []string{"declined", "failing", "failed", "fails", " fail ", " fail.", " down", "not working", "unavailable", "no longer", "cannot", "can't",
		"stopped", "outage", "errors", "offline", "unreachable", "duplicate", "5xx", "500s", "timeouts", "holding a lock", "hält lock",
		"hält den lock", "duplicad", "doppelt", "en double", "増加", "されていません", "されません", "動きません", "つながりません",
		"keine", "nicht mehr", "ausgefallen", "fehler", "nicht erreichbar", "offline", "gestört",
		// only errors left ("seit 14:05 Uhr nur noch HTTP 502"): gateway
		// and server errors by their status
		"nur noch", "http 50", " 502", " 503", " 504",
		"ne reçoi", "plus aucun", "ne fonctionne", "en panne", "panne", "erreur", "impossible", "hors ligne", "coupé",
		// writes held up or nothing left since an hour of today ("bloque
		// les écritures depuis 15h40", "plus de tournées depuis 13h")
		"bloque", "bloquea", "blocks", "blocking", "blockiert", "plus de ",
		"no funciona", "caído", "caída", "sin conexión", "sin servicio", "ya no", "errores", "fallan",
		// a server error by its number, something without what it needs
		// or missing, a tail latency off since an hour of today ("devuelve
		// error 500 desde las 15:10", "90 camiones sin posición GPS desde
		// las 13:00", "p99 in eu-west since 14:10")
		"error 500", " 500 ", "sin ", " no ", "missing", "silent", "fehlen", "stumm", "manquent", "muets", "faltan",
		"p99", "latency", "latenz", "latence", "latencia",
		"停止", "障害", "できない", "できません", "エラー", "つながらない", "落ちて"}
)

// brokenSinceToday returns the words of sentence saying that something
// has not worked since earlier the same day ("since about 16:20 40% of
// card payments are declined", "seit heute 6 Uhr können … keine
// Kartenzahlungen mehr …", "depuis ce matin … ne reçoivent plus"), "" when
// it does not say so: a disruption in progress, the calm way to write an
// incident.
func brokenSinceToday(sentence, low string) string {
	if _, ok := containsAnyOf(low, sinceMarkers); !ok {
		return ""
	}
	if _, ok := containsAnyOf(strings.ToLower(sentence), brokenWords); !ok {
		return ""
	}
	return normSpace(sinceTodayRe.FindString(sentence))
}

// sinceMarkers are the words sinceTodayRe needs (lower-case).
var sinceMarkers = []string{"since", "seit", "depuis", "desde", "から", "後", "以降"}

// closesRe finds a deadline written as something closing, ending or
// expiring on a weekday ("the window closes this Friday", "l'offre se
// termine vendredi", "la oferta vence el viernes", "Frist endet Freitag").
var closesRe = regexp.MustCompile(`(?i)\b(?:closes|ends|expires|runs out|endet|läuft|se termine|expire|se cierra|cierra|termina|vence)\s+(?:on\s+|am\s+|el\s+|le\s+)?((?:this\s+|ce\s+|este\s+|diesen\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|lunes|martes|miércoles|jueves|viernes|sábado|domingo)\b(?:,?\s+\d{1,2}\b\.?)?)`)

// closingDeadline is closesRe's match in sentence (low is the sentence
// ASCII lower-cased: the expression runs only where one of its verbs is).
func closingDeadline(sentence, low string) []string {
	if _, ok := containsAnyOf(low, closingVerbs); !ok {
		return nil
	}
	return closesRe.FindStringSubmatch(sentence)
}

// closingVerbs are the verbs closesRe needs (lower-case).
var closingVerbs = []string{"closes", " ends", "expire", "runs out", "endet", "läuft", "termine", "cierra", "vence"}

// weekdayNames are the weekdays in English, German, French and Spanish.
var weekdayNames = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sonntag": time.Sunday, "montag": time.Monday, "dienstag": time.Tuesday, "mittwoch": time.Wednesday,
	"donnerstag": time.Thursday, "freitag": time.Friday, "samstag": time.Saturday,
	"dimanche": time.Sunday, "lundi": time.Monday, "mardi": time.Tuesday, "mercredi": time.Wednesday,
	"jeudi": time.Thursday, "vendredi": time.Friday, "samedi": time.Saturday,
	"domingo": time.Sunday, "lunes": time.Monday, "martes": time.Tuesday, "miércoles": time.Wednesday,
	"jueves": time.Thursday, "viernes": time.Friday, "sábado": time.Saturday,
}

// withinADay reports whether a deadline as closesRe writes it ("Friday",
// "this Friday", "Friday, 20") names the weekday the message was sent on,
// or the next one (and that day of the month, when it is written).
func withinADay(due string, sent time.Time) bool {
	if sent.IsZero() {
		return false
	}
	f := strings.Fields(strings.ToLower(due))
	if len(f) == 0 {
		return false
	}
	w := f[0]
	if (w == "this" || w == "ce" || w == "este" || w == "diesen") && len(f) > 1 {
		w = f[1]
	}
	d, ok := weekdayNames[strings.Trim(w, ",.")]
	if !ok {
		return false
	}
	next := sent.AddDate(0, 0, 1)
	day := -1
	if n, err := strconv.Atoi(strings.Trim(f[len(f)-1], ",.")); err == nil {
		day = n
	}
	return d == sent.Weekday() && (day < 0 || day == sent.Day()) || d == next.Weekday() && (day < 0 || day == next.Day())
}

// paymentWords name a payment (lower-case substrings, five languages).
var paymentWords = []string{"pay", "invoice", "remittance", "transfer", "iban", "zahl", "rechnung", "überweis",
	"paiement", "payer", "régler", "facture", "virement", "pago", "pagar", "factura", "transferencia",
	"支払", "振込", "振り込", "請求",
	// pay as salary: the payroll diversion's payment
	"salary", "salaire", "gehalt", "nómina", "nomina", "sueldo", "給与"}

// mentionsPayment reports whether subject or text speaks of a payment.
func mentionsPayment(subject, text string) bool {
	_, ok := containsAnyOf(strings.ToLower(subject+"\n"+text), paymentWords)
	return ok
}

// foreignDue returns the deadline a foreignDeadlines marker w opens in
// raw (rawLow lower-cased): the marker and the word after it, as written
// ("bis Freitag", "avant vendredi", "antes del lunes"); the marker alone
// when no word follows or the lower-casing moved the offsets.
func foreignDue(raw, rawLow, w string) string {
	i := strings.Index(rawLow, w)
	if i < 0 || len(raw) != len(rawLow) {
		return strings.TrimSpace(w)
	}
	rest := raw[i+len(w):]
	if !isASCII(w) || !strings.HasSuffix(w, " ") && !strings.HasPrefix(rest, " ") {
		// a Japanese marker ("までに") or one inside a word stands alone
		return strings.TrimSpace(raw[i : i+len(w)])
	}
	// Marker words that take an article ("antes del lunes", "avant le 4")
	// keep it and the word after it.
	end := 0
	for range 2 {
		start := end + len(rest[end:]) - len(strings.TrimLeft(rest[end:], " \t\n"))
		stop := start + strings.IndexAny(rest[start:]+" ", " \t\n")
		if stop == start {
			break
		}
		end = stop
		if !articles[strings.ToLower(rest[start:stop])] {
			break
		}
	}
	if end == 0 {
		return strings.TrimSpace(w)
	}
	return strings.TrimRight(strings.TrimSpace(raw[i:i+len(w)])+" "+strings.TrimSpace(rest[:end]), ".,;:!?")
}

// articles may stand between a deadline marker and its day.
var articles = map[string]bool{"le": true, "la": true, "les": true, "el": true, "del": true, "las": true, "los": true,
	"zum": true, "am": true, "den": true}

// needWords state a need of the writer ("I need", "wir brauchen", "j'ai
// besoin", "necesitamos"); with a deadline, for today or said of the
// reader (fromYou) they ask the reader for it.
var needWords = []string{"i need ", "we need ", "just need ", "i'll need", "we'll need", "i will need", "we will need", "still need ",
	"i'd need", "we'd need", "i would need", "we would need",
	"need it by", "need them by", "need this by", "need that by",
	"ich brauche", "wir brauchen", "brauche ich", "brauchen wir", "ich benötige", "wir benötigen", "benötige ich", "benötigen wir",
	"j'ai besoin", "j’ai besoin", "nous avons besoin", "j'aurai besoin", "j’aurai besoin", "il me faut", "il nous faut",
	"necesito", "necesitamos", "necesitaré", "necesitaremos", "me hace falta", "nos hace falta"}

// fromYou name the reader as the one a need is to be met by.
var fromYou = []string{"from you", "von dir", "von ihnen", "von euch", "de vous", "de toi", "de votre part", "de ta part",
	"de usted", "de ti", "de su parte", "de tu parte",
	// a thing of the reader's is what is needed: "I need your approval",
	// "il me faut ton accord", "necesito tu firma"
	"need your", "brauche deine", "brauche dein", "brauchen deine", "brauchen dein", "brauche ihre", "brauchen ihre",
	"benötige deine", "benötige ihre", "benötigen deine", "benötigen ihre",
	"faut ton", "faut ta", "faut tes", "faut votre", "faut vos", "besoin de ton", "besoin de ta", "besoin de tes",
	"besoin de votre", "besoin de vos", "necesito tu", "necesito su", "necesitamos tu", "necesitamos su"}

// vocativeGreetings may precede a name that opens a sentence ("Hi Alex,").
var vocativeGreetings = []string{"hi ", "hello ", "hey ", "dear ", "hallo ", "liebe ", "lieber ", "bonjour ", "salut ", "hola ", "querido ", "querida "}

// vocative reports whether sentence opens by turning to first by name:
// the name (after a greeting word, if any) followed by a comma, colon,
// dash or exclamation mark, or by a Japanese honorific ("Alex, can
// you…", "Alex: …", "Hola Alex:", "Alex さん"). A name inside a sentence
// ("as Alex said") is not one.
func vocative(sentence, first string) bool {
	if first == "" || len(sentence) < len(first) {
		return false
	}
	// The name closing the sentence after a comma: "you're the only
	// admin there, Alex."
	if end := strings.TrimRight(sentence, " .!?"); len(end) > len(first)+2 &&
		strings.EqualFold(end[len(end)-len(first):], first) && strings.HasSuffix(end[:len(end)-len(first)], ", ") {
		return true
	}
	s := strings.TrimPrefix(sentence, "@") // "@Alex, could you add…"
	for _, g := range vocativeGreetings {
		if len(s) > len(g) && strings.EqualFold(s[:len(g)], g) {
			s = strings.TrimLeft(s[len(g):], " ")
			break
		}
	}
	if len(s) < len(first) || !strings.EqualFold(s[:len(first)], first) {
		return false
	}
	rest := strings.TrimLeft(s[len(first):], " ")
	if rest == "" {
		return true
	}
	if strings.HasPrefix(rest, "さん") || strings.HasPrefix(rest, "様") {
		return true
	}
	switch rest[0] {
	case ',', ':', ';', '!', '-':
		return true
	}
	if strings.HasPrefix(rest, "—") || strings.HasPrefix(rest, "–") {
		return true
	}
	// The comma left out before an ask or a "we"/"I" that turns to the
	// reader: "Alex we need a decision", "Alex can you take it".
	_, ok := hasAnyPrefix(strings.ToLower(rest), vocativeNext)
	return ok
}

// namedAskLeads are the words before the reader's name in an English
// ask that names them in the third person ("I'd like Alex to look at
// section 5"), followed by " to " after the name; namedAskLeadsOther the
// other languages' ("me gustaría que Alex revise…"), lower case.
var (
	namedAskLeads      = []string{"like ", "want ", "need ", "ask ", "asking "}
	namedAskLeadsOther = []string{"me gustaría que ", "nos gustaría que ", "j'aimerais qu'", "j’aimerais qu'",
		"j'aimerais que ", "möchte, dass ", "möchten, dass "}
)

// asksOfNamed reports whether low, a lower-cased sentence, asks something
// of the reader named in the third person (see namedAskLeads); first is
// the reader's first name.
func asksOfNamed(low, first string) bool {
	if first == "" {
		return false
	}
	name := strings.ToLower(first)
	if !strings.Contains(low, name) {
		return false
	}
	for _, lead := range namedAskLeads {
		if strings.Contains(low, lead+name+" to ") {
			return true
		}
	}
	for _, lead := range namedAskLeadsOther {
		if i := strings.Index(low, lead+name); i >= 0 {
			if rest := low[i+len(lead)+len(name):]; rest == "" || rest[0] == ' ' || rest[0] == ',' {
				return true
			}
		}
	}
	return false
}

// vocativeNext are the words that, right after a name opening a sentence
// without a comma, show the name is the one spoken to (lower case).
var vocativeNext = []string{"we need", "i need", "we'll need", "can you", "could you", "would you", "will you", "please ",
	"do you", "are you", "did you", "have you"}

// assignedToYou reports whether low (lower-cased) says something was
// assigned to the reader with the item between ("assigned NW-4412 to
// you", "hat dir NW-4412 zugewiesen", "vous a assigné le ticket",
// "te ha asignado la tarea", "あなたに割り当て").
func assignedToYou(low string) bool {
	for _, p := range [][2]string{{"assigned ", " to you"}, {"hat dir ", "zugewiesen"}, {"hat ihnen ", "zugewiesen"},
		{"vous a assigné", ""}, {"t'a assigné", ""}, {"t’a assigné", ""}, {"te ha asignado", ""}, {"le ha asignado", ""}, {"あなたに割り当て", ""}} {
		for i := 0; ; {
			j := strings.Index(low[i:], p[0])
			if j < 0 {
				break
			}
			i += j + len(p[0])
			if p[1] == "" || strings.Contains(low[i:min(i+48, len(low))], p[1]) {
				return true
			}
		}
	}
	return false
}

// yoursToDo in a request say that the task is the reader's, as review
// and issue trackers write it ("requested your review", "assigned to you").
var yoursToDo = []string{"requested your review", "requested a review from you", "requested review from you",
	"added you as a reviewer", "assigned you", "assigned to you",
	// a review of the reader's own work waits for them
	"requested changes", "changes requested", "you are the author", "you're the author"}

var (
	// minutesRe finds "in 40 min", "within 2 hours" in a subject.
	minutesRe = regexp.MustCompile(`(?i)\b(?:in|within)\s+\d{1,3}\s*(?:min|mins|minutes|h|hrs?|hours?)\b`)
	// expiresInDaysRe finds in a subject something expiring within two
	// days ("Certificate expires in 2 days", "Zertifikat läuft in 2 Tagen
	// ab", "expire dans 2 jours", "caduca en 2 días"): as near as tomorrow.
	expiresInDaysRe = regexp.MustCompile(`(?i)\b(?:expires?|expiring|expiry|runs out|läuft|expire|expirera|caduca|vence)\b.{0,40}?\b(?:in|within|dans|en|sous)\s+(?:(?:1|2|one|two|zwei|deux|dos)\s+(?:days?|tagen|jours?|días?)\b|` + withinHours + `)`)
	// expiryWords are the words expiresInDaysRe needs (lower-case).
	expiryWords = []string{"expir", "runs out", "läuft", "caduca", "vence",
		// a cut-off of the day: "need all approvals before the CAB
		// cut-off at 18:00" makes the ask of the day
		"cut-off", "cutoff", "annahmeschluss", "date limite", "fecha límite", "締め切り", "締切"}
	// priorityRe finds an incident or alert's top priority in a subject:
	// P0/P1, SEV0/SEV1, [CRITICAL].
	priorityRe = regexp.MustCompile(`(?i)\bP[01]\b|\bSEV[- ]?[01]\b|\[critical\]`)
)

// expiresWithinTwoDays reports whether a lower-cased subject says that
// something expires within two days (see expiresInDaysRe).
func expiresWithinTwoDays(low string) bool {
	if _, ok := containsAnyOf(low, expiryWords); !ok {
		return false
	}
	return expiresInDaysRe.MatchString(low)
}

var requestPrefixRe = regexp.MustCompile(`(?i)^(?:(?:so|and|also|but),?\s+)?(?:please|kindly|pls|can you|could you|would you mind|would you|will you|i need you to|we need you to|i'd like you to)\s+(?:please\s+)?`)

// actionText turns a request or question into an imperative description.
func actionText(s, sender string, question bool) string {
	if question && !requestPrefixRe.MatchString(s) {
		return truncateRunes("Answer "+sender+": "+s, 160)
	}
	t := requestPrefixRe.ReplaceAllString(s, "")
	t = strings.TrimRight(t, "?.! ")
	if t == "" {
		t = s
	}
	r := []rune(t)
	r[0] = []rune(strings.ToUpper(string(r[0])))[0]
	return truncateRunes(string(r), 160)
}

// minCoverage is the share of a message's words the spam model must know
// for its score to count as evidence. The model learned from English mail
// of 2002: on a message in another language, or of a kind it never saw,
// it scores the few words it knows (numbers, amounts, a link) and that
// verdict says more about the training data than about the message. At
// 0.5 the own labeled set's spam false positives fall from 14.6 % to 6.5 %,
// but spam-2 recall falls below its 0.95 target (0.949): 0.2 keeps the
// target (0.951).
const minCoverage = 0.2

// maxUnscorableKnown: a message whose known words number this many or more
// is scored whatever its coverage (long mail gives the model enough to go
// on even where most of its words are new to it).
const maxUnscorableKnown = 30

// unscorable reports whether the spam model knows too little of the latest
// message for its score to be evidence: few of its words (minCoverage),
// and few in number (maxUnscorableKnown).
func (an *analysis) unscorable() bool {
	return (an.coverage < minCoverage || an.accented && an.coverage < minAccentedCoverage) && an.known < maxUnscorableKnown
}

// minAccentedCoverage is minCoverage for a message written with letters
// outside ASCII (see accentedLetters): German, French or Spanish mail,
// which the English model reads only by its numbers, names and loanwords.
// Mail in English is scored from minCoverage up (raising that for all mail
// cost spam-2 recall); mail in another language needs half its words
// known. Spam in those languages is still caught by its wording (the raw
// score with independent support, see Deterministic).
const minAccentedCoverage = 0.5

// minAccented is how many letters outside ASCII make a message's text one
// in another language than English (see accentedLetters): an accented
// name in English mail has one or two.
const minAccented = 3

// accentedLetters counts the letters outside ASCII in subject and text
// (accented Latin letters, other scripts), up to minAccented: typographic
// quotes, dashes and currency signs are not letters and do not count.
func accentedLetters(subject, text string) int {
	n := 0
	for _, s := range [2]string{subject, text} {
		if isASCII(s) {
			continue
		}
		for _, r := range s {
			if r >= utf8.RuneSelf && unicode.IsLetter(r) {
				if n++; n >= minAccented {
					return n
				}
			}
		}
	}
	return n
}

// coverage is known/tokens, 1 for a message with no words (nothing is
// unknown about it).
func coverage(known, tokens int) float64 {
	if tokens == 0 {
		return 1
	}
	return float64(known) / float64(tokens)
}

// withoutInjection drops the sentences of body that contain injection phrases.
func (a *Analyzer) withoutInjection(body string) string {
	var sb strings.Builder
	for _, s := range sentences(body, 1<<20) {
		if !a.phrases.containsInjection(s) {
			sb.WriteString(s)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// denseLinkSites is how many different sites (registrable domains) a
// message's links must reach for it to count as a newsletter or digest.
const denseLinkSites = 10

// linkDense reports whether links reach at least denseLinkSites
// different registrable domains.
func linkDense(a *Analyzer, links []link) bool {
	sites := map[string]bool{}
	for _, l := range links {
		if r := a.regDomain(l.Host); r != "" {
			sites[r] = true
		}
	}
	return len(sites) >= denseLinkSites
}

// subjectQuestion reports whether subject is a question: it ends with a
// question mark or opens with "¿". A reply's subject is not: it repeats
// the question of the message it answers.
func subjectQuestion(subject string) bool {
	s := strings.TrimSpace(subject)
	if isReplySubject(s) {
		return false
	}
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasPrefix(s, "¿")
}

// groupWords open a sentence with a comma without naming one person
// ("Team, please…", "All: …", "Also, can you…"), lower case.
var groupWords = []string{"team", "all", "everyone", "everybody", "folks", "guys", "hi", "hello", "hey", "thanks", "also",
	"so", "ok", "okay", "fyi", "note", "ps", "update", "reminder", "again", "then", "and", "but", "please", "yes", "no",
	"well", "sorry", "alle", "zusammen", "bitte", "danke", "tous", "merci", "todos", "gracias", "equipo", "hola"}

// turnsToSomeone reports whether an ask sentence opens by turning to a
// person by name: a capitalised word followed by a comma or a colon
// ("Sofia, can you approve…", "Kenji: bitte…").
func turnsToSomeone(sentence string) bool {
	end := strings.IndexAny(sentence, ",:")
	if end < 2 || end > 20 {
		return false
	}
	w := sentence[:end]
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) || strings.ContainsAny(w, " \t") {
		return false
	}
	return !slices.Contains(groupWords, strings.ToLower(w))
}

// notUrgentWords say that something is not urgent ("Rien d'urgent, mais…",
// "no rush", "eilt nicht"), in the five languages (lower case): the
// urgency word in them does not press.
var notUrgentWords = []string{"not urgent", "nothing urgent", "isn't urgent", "is not urgent", "no rush", "no hurry",
	"not in a hurry", "not a rush", "non-urgent", "not time-sensitive", "not time sensitive",
	"nicht dringend", "nichts dringendes", "keine eile", "eilt nicht", "hat zeit",
	"pas urgent", "rien d'urgent", "rien d’urgent", "pas d'urgence", "pas d’urgence", "sans urgence", "rien de pressé",
	"no es urgente", "nada urgente", "sin prisa", "no hay prisa", "no corre prisa",
	"急ぎません", "急ぎではありません", "急ぎではない", "お急ぎでない", "急ぎの件ではありません"}

// saysNotUrgent reports whether text says, near its top (where the asks
// are read), that it is not urgent (see notUrgentWords).
func saysNotUrgent(text string) bool {
	if len(text) > 1500 {
		text = text[:1500]
	}
	low := ascii.LowerString(text) // the non-ASCII phrases have no capitals to fold
	_, ok := containsAnyOf(low, notUrgentWords)
	return ok
}

// giftCards name gift cards and codes names what is on their back, in the
// five languages (lower case).
var (
	giftCards = []string{"gift card", "giftcard", "itunes card", "google play card", "steam card", "geschenkkarte", "gutscheinkarte",
		"carte cadeau", "cartes cadeaux", "carte-cadeau", "tarjeta regalo", "tarjetas regalo", "tarjeta de regalo", "ギフトカード", "ギフト券"}
	giftCodes = []string{"code", "scratch", "rubbel", "gratter", "código", "codigo", "raspa", "コード", "番号"}
)

// giftCardCodes returns the gift-card words of text when it also asks for
// their codes ("pick up 8 gift cards, scratch the back and email me photos
// of the codes"), "" otherwise. payment says the phrase scan found a
// payment phrase (the gift cards of the four languages with spaces are
// among them): without one, only Japanese text is searched.
func giftCardCodes(text string, payment bool) string {
	if !payment && !strings.Contains(text, "ギフト") {
		return ""
	}
	if len(text) > maxAnalyzed {
		text = text[:maxAnalyzed]
	}
	low := strings.ToLower(text)
	w, ok := containsAnyOf(low, giftCards)
	if !ok {
		return ""
	}
	if _, ok := containsAnyOf(low, giftCodes); !ok {
		return ""
	}
	return strings.TrimSpace(w)
}

// tasksWaitingRe finds a subject counting the reader's tasks waiting for
// them ("You have 4 manager reviews to write", "You have 2 expense
// reports to approve").
// dueDateSubjectRe is a subject naming the date something is due ("annual
// security training due Dec 15", "manager inputs due Fri Dec 4", "due
// 4 December"): a task of the reader's falling due.
var dueDateSubjectRe = regexp.MustCompile(`(?i)\bdue\s+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)`)

var tasksWaitingRe = regexp.MustCompile(`(?i)^you have \d+ [^:]{0,60}? to (?:write|complete|submit|review|approve|sign|fill in|answer)\b`)

// expiresWithinHoursRe finds a subject saying something expires or runs
// out within hours ("expires in 17h 40m", "läuft in 6 Stunden ab").
var expiresWithinHoursRe = regexp.MustCompile(expiresLead + withinHours)

// expiresWithinDaysRe finds a subject saying something expires within two
// weeks ("expires in 7 days", "läuft in 10 Tagen ab", "expire dans 5
// jours").
var expiresWithinDaysRe = regexp.MustCompile(expiresLead + `(?:[1-9]|1[0-4])\s+(?:days?|tagen|jours?|días?)\b`)

// expiresLead is the start the expiry expressions share: an expiry verb,
// then "in"/"within" (five languages) and white space; withinHours is a
// number of hours or minutes after it ("9h", "17 hours", "30 Minuten").
const (
	expiresLead = `(?i)\b(?:expires?|expiring|runs out|läuft|expire|expirera|caduca|vence)\b.{0,40}?\b(?:in|within|dans|en|sous)\s+`
	withinHours = `\d{1,2}\s*(?:h\b|hours?\b|hrs?\b|stunden\b|heures?\b|horas?\b|minutes?\b|min\b|minuten\b|minutos\b)`
)

// subjectHourRe finds an hour of the day in a subject: "at 17:00", "um 14
// Uhr", "à 15h30", "a las 10:00", 14時.
var subjectHourRe = regexp.MustCompile(`(?i)\b(?:at|by|before|cutoff|cut-off|deadline|um|bis|vor|à|avant|a las|antes de las)\s+(?:the\s+)?(?:\pL+\s+)?\d{1,2}(?::\d\d|\s*(?:uhr|h\d{0,2}|[ap]\.?m\.?))\b|\d{1,2}時(?:\d{1,2}分)?(?:から|まで|に)`)

// solicitationMark returns the phrase that says the payment a text asks
// is an offer's, not a bill's ("" if none): one of pkSolicitation, or
// "this is not a bill" with the word solicitation.
func solicitationMark(counts [numPhraseKinds]int, first [numPhraseKinds]string) string {
	switch {
	case counts[pkSolicitation] > 0:
		return first[pkSolicitation]
	case counts[pkNotBill] > 0 && counts[pkSolicitWord] > 0:
		return first[pkNotBill]
	}
	return ""
}

// thenWords point back to a time named before ("before then", "bis
// dahin"), lower case.
var thenWords = []string{"before then", "by then", "until then", "bis dahin", "d'ici là", "d’ici là", "avant cela", "avant ça",
	"para entonces", "antes de eso", "antes de esa hora", "それまでに",
	"beforehand", "before that", "vorher", "zuvor", "au préalable", "auparavant", "de antemano", "con antelación", "事前に"}

// namesOtherDay reports whether s names a day other than the one a
// message was sent on (see otherDayRe): "avant mardi 19h" written on a
// Tuesday is today.
func namesOtherDay(s string, sent time.Time) bool {
	for _, loc := range otherDayRe.FindAllStringIndex(s, -1) {
		d := s[loc[0]:loc[1]]
		if wd, ok := weekdayNames[strings.ToLower(d)]; ok && !sent.IsZero() && wd == sent.Weekday() {
			continue
		}
		if eventDay(s[:loc[0]], d) {
			continue
		}
		return true
	}
	return false
}

// eventDay reports whether the weekday d, written after before, names a
// shopping event rather than a day ("Black Friday peak", "Cyber Monday
// traffic").
func eventDay(before, d string) bool {
	word := ""
	switch strings.ToLower(d) {
	case "friday":
		word = "black"
	case "monday":
		word = "cyber"
	default:
		return false
	}
	// (only the word before is read, not the whole text before it)
	before = strings.TrimRight(before, " ")
	return len(before) >= len(word) && strings.EqualFold(before[len(before)-len(word):], word)
}

// monthAbbrevs are the months' abbreviations (the first three letters,
// which all the longer forms begin with) in English, German, French and
// Spanish, January first.
var monthAbbrevs = [12][]string{{"jan", "ene"}, {"feb", "fév", "fev"}, {"mar", "mär"}, {"apr", "avr", "abr"}, {"may", "mai"},
	{"jun", "juin"}, {"jul", "juil"}, {"aug", "aoû", "ago"}, {"sep"}, {"oct", "okt"}, {"nov"}, {"dec", "dez", "déc", "dic"}}

// namesSendDay reports whether subject names the day the message was
// sent on by its date ("24 Nov", "Nov 24", "24.11.", "24 de nov",
// "11月24日").
func namesSendDay(subject string, sent time.Time) bool {
	if sent.IsZero() || !strings.ContainsAny(subject, "0123456789") {
		return false
	}
	low := strings.ToLower(subject)
	day, month := sent.Day(), int(sent.Month())
	if strings.Contains(low, fmt.Sprintf("%d.%d.", day, month)) || strings.Contains(low, fmt.Sprintf("%02d.%02d.", day, month)) ||
		strings.Contains(low, fmt.Sprintf("%d月%d日", month, day)) {
		return true
	}
	for _, mon := range monthAbbrevs[month-1] {
		for _, f := range []string{"%d %s", "%d de %s", "%d. %s"} {
			if i := strings.Index(low, fmt.Sprintf(f, day, mon)); i >= 0 && (i == 0 || !isDigitByte(low[i-1])) {
				return true
			}
		}
		if i := strings.Index(low, fmt.Sprintf("%s %d", mon, day)); i >= 0 {
			rest := low[i+len(mon)+1+len(fmt.Sprint(day)):]
			if rest == "" || !isDigitByte(rest[0]) {
				return true
			}
		}
	}
	return false
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// fraudWords say a message warns of a fraud rather than commits one
// (lower case).
var fraudWords = []string{"fake", "fraud", "scam", "phishing", "impersonat", "do not pay", "don't pay", "nothing paid",
	// the sender's own word that nothing changed: "that domain isn't
	// ours and our bank details haven't changed"
	"isn't ours", "is not ours", "haven't changed", "have not changed", "remain unchanged",
	"nicht von uns", "haben sich nicht geändert", "unverändert", "n'ont pas changé", "restent inchangé",
	"no han cambiado", "no es nuestro", "変更はありません", "変更しておりません",
	"betrug", "gefälscht", "nicht überweisen", "fraude", "frauduleu", "usurp", "estafa", "suplantación", "no pague",
	"詐欺", "不審", "装った", "なりすまし", "注意喚起",
	// "偽の請求書を装うメール", "異なる送信元のため支払いを保留"
	"偽の", "を装う", "支払いを保留", "異なる送信元"}

// callBackWords ask the reader to check a change of bank details by
// calling a number they already have, not one in the message (lower
// case, five languages).
var callBackWords = []string{"based on this email alone", "based on this e-mail alone", "verify the change by calling",
	"verify this change by phone", "verify the change by phone", "number in our master agreement", "number in our contract",
	"number you have on file", "the number you already have", "through your existing contact", "via your usual contact",
	"nicht allein aufgrund dieser", "telefonisch über ihren bekannten", "telefonisch verifizieren", "telefonisch bestätigen",
	"bekannten ansprechpartner", "sur la seule base de ce", "par téléphone au numéro", "vérifier ce changement par téléphone",
	"votre interlocuteur habituel", "únicamente por este correo", "por teléfono al número", "verifique el cambio por teléfono",
	"su contacto habitual", "お電話にてご確認", "電話で確認", "既存のご担当者"}

// invitesCallBack reports whether own asks the reader to verify a change
// by calling a known number or contact (see callBackWords).
func invitesCallBack(own string) bool {
	return namesAny(own, callBackWords)
}

// warnsOfFraud reports whether subject or text warns of a fraud (see
// fraudWords).
func warnsOfFraud(subject, text string) bool {
	if _, ok := containsAnyOf(strings.ToLower(subject), fraudWords); ok {
		return true
	}
	_, ok := containsAnyOf(strings.ToLower(text), fraudWords)
	return ok
}
