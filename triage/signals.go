package triage

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/triage/bayes"
)

// SignalKind names one deterministic signal.
type SignalKind string

// Signal kinds. Phishing kinds back is_phishing, spam kinds back is_spam;
// the rest steer the category and the prompt.
const (
	SigAuthFail           SignalKind = "auth-fail"
	SigReplyToMismatch    SignalKind = "reply-to-mismatch"
	SigReturnPathMismatch SignalKind = "return-path-mismatch"
	SigLookalikeDomain    SignalKind = "lookalike-domain"
	SigPunycodeDomain     SignalKind = "punycode-domain"
	SigDisplayNameSpoof   SignalKind = "display-name-spoof"
	SigLinkMismatch       SignalKind = "link-mismatch"
	SigIPLink             SignalKind = "ip-link"
	SigCredentialRequest  SignalKind = "credential-request"
	SigPaymentRequest     SignalKind = "payment-request"
	SigUrgency            SignalKind = "urgency"
	SigSpamScore          SignalKind = "spam-score"
	SigSpamPhrase         SignalKind = "spam-phrase"
	SigBulk               SignalKind = "bulk"
	SigAutomated          SignalKind = "automated"
	SigCalendar           SignalKind = "calendar"
	SigMeeting            SignalKind = "meeting"
	SigPrincipalTo        SignalKind = "principal-to"
	SigPrincipalCc        SignalKind = "principal-cc"
	SigPrincipalReplied   SignalKind = "principal-replied"
	SigDeadline           SignalKind = "deadline"
	SigQuestion           SignalKind = "question"
	SigRequest            SignalKind = "request"
	SigInjection          SignalKind = "prompt-injection"
	SigObfuscatedSender   SignalKind = "obfuscated-sender"
	SigInternalSender     SignalKind = "internal-sender"
)

// Signal is one deterministic finding about a thread. Reason is a short
// sentence for the UI ("Reply-To goes to evil.example, not paypal.com").
type Signal struct {
	Kind   SignalKind `json:"kind"`
	Reason string     `json:"reason"`
	// Message is the index of the message in the thread (oldest first).
	Message int `json:"message"`
	// Value is the matched text: a domain, a phrase, a due hint as written.
	Value string `json:"value,omitempty"`
	// Weight is the signal's contribution to the phishing score (phishing
	// kinds) or its strength.
	Weight float64 `json:"weight,omitempty"`
}

// String renders "kind: reason".
func (s Signal) String() string { return string(s.Kind) + ": " + s.Reason }

// phishingKinds are the kinds that back is_phishing.
var phishingKinds = map[SignalKind]bool{
	SigAuthFail: true, SigReplyToMismatch: true, SigReturnPathMismatch: true, SigLookalikeDomain: true,
	SigPunycodeDomain: true, SigDisplayNameSpoof: true, SigLinkMismatch: true, SigIPLink: true,
	SigCredentialRequest: true, SigPaymentRequest: true,
}

// lureKinds are phishing kinds that ask the reader to do something risky or
// disguise where a link goes; is_phishing needs at least one.
var lureKinds = map[SignalKind]bool{
	SigLookalikeDomain: true, SigDisplayNameSpoof: true, SigLinkMismatch: true, SigIPLink: true,
	SigCredentialRequest: true, SigPaymentRequest: true,
}

// Analyzer computes deterministic signals and the offline triage. It is
// safe for concurrent use; build one and share it.
type Analyzer struct {
	phrases *phraseIndex
	spam    *bayes.Classifier

	// lookalikes caches lookalike() per host (senders and link hosts
	// repeat); bounded by maxCachedHosts.
	mu         sync.RWMutex
	lookalikes map[hostPair]string
	// regDomains caches regDomain() per host, bounded the same way.
	regDomains map[string]string
}

// regDomain is the cached regDomain(host).
func (a *Analyzer) regDomain(host string) string {
	a.mu.RLock()
	v, ok := a.regDomains[host]
	a.mu.RUnlock()
	if ok {
		return v
	}
	v = regDomain(host)
	a.mu.Lock()
	if a.regDomains == nil {
		a.regDomains = map[string]string{}
	}
	if len(a.regDomains) < maxCachedHosts {
		a.regDomains[host] = v
	}
	a.mu.Unlock()
	return v
}

const maxCachedHosts = 50000

// hostPair keys the lookalike cache (a struct key: no string to build).
type hostPair struct{ host, principalDomain string }

// lookalike is the cached lookalike(host, pDomain).
func (a *Analyzer) lookalike(host, pDomain string) (string, bool) {
	key := hostPair{host, pDomain}
	a.mu.RLock()
	v, ok := a.lookalikes[key]
	a.mu.RUnlock()
	if ok {
		return v, v != ""
	}
	v, _ = lookalike(host, pDomain)
	a.mu.Lock()
	if a.lookalikes == nil {
		a.lookalikes = map[hostPair]string{}
	}
	if len(a.lookalikes) < maxCachedHosts {
		a.lookalikes[key] = v
	}
	a.mu.Unlock()
	return v, v != ""
}

// NewAnalyzer returns an analyzer scoring spam with c (nil: the shipped
// model without user marks).
func NewAnalyzer(c *bayes.Classifier) *Analyzer {
	if c == nil {
		if m, err := bayes.Default(); err == nil {
			c = bayes.NewClassifier(m, nil)
		}
	}
	return &Analyzer{phrases: compilePhrases(), spam: c}
}

// Classifier returns the spam classifier (nil if none), e.g. to learn
// from the user's marks.
func (a *Analyzer) Classifier() *bayes.Classifier { return a.spam }

// analysis is everything the deterministic triage derives from a thread.
type analysis struct {
	signals      []Signal
	phishScore   float64
	lure         bool
	spamProb     float64
	spamPhrases  int
	bulk         bool
	automated    bool
	calendar     bool
	meeting      bool
	addressed    bool // principal in To (or no recipients known) of the latest message from others
	ccOnly       bool
	replied      bool // the principal wrote in the thread
	urgency      int
	soonDeadline bool
	injection    bool
	positive     int
	negative     int
	items        []contract.ActionItem
	questions    int
	requests     int
	latest       int  // index of the latest message not from the principal (-1 none)
	suspicious   int  // independent spam indicators (obfuscation, raw IP links, auth failures)
	internal     bool // the latest message from others comes from the principal's domain
	// authAligned: a DMARC or DKIM pass for the sender's own domain, and no
	// authentication failure: the learned score alone does not make it spam
	// (the 2002 training corpus knows no modern receipts or shipping mail).
	authAligned bool

	latestScore  float64 // spam log-odds of the latest message from others
	latestScored bool
	firstLine    string
}

// Signals returns the deterministic signals of a thread (messages oldest
// first) for principal, using the shipped spam model.
func Signals(msgs []*model.Message, principal model.Address) []Signal {
	return NewAnalyzer(nil).Signals(msgs, principal)
}

// Signals returns the deterministic signals of a thread (oldest first).
func (a *Analyzer) Signals(msgs []*model.Message, principal model.Address) []Signal {
	return a.analyze(msgs, principal).signals
}

var authFailRe = regexp.MustCompile(`\b(spf|dkim|dmarc)=(fail|softfail|permerror)\b`)

// authPassRe finds a DMARC pass for a header.from domain or a DKIM pass
// for a signing domain, in a lower-cased Authentication-Results value.
var authPassRe = regexp.MustCompile(`\b(?:dmarc=pass[^;]*?header\.from=|dkim=pass[^;]*?header\.d=)([a-z0-9.-]+)`)

func sameAddr(a, b string) bool { return a != "" && strings.EqualFold(a, b) }

func addrIn(list []model.Address, email string) bool {
	for _, x := range list {
		if sameAddr(x.Email, email) {
			return true
		}
	}
	return false
}

func (a *Analyzer) analyze(msgs []*model.Message, principal model.Address) *analysis {
	an := &analysis{latest: -1}
	pDomain := domainOf(principal.Email)
	add := func(s Signal) {
		an.signals = append(an.signals, s)
	}
	for i, m := range msgs {
		if sameAddr(m.From.Email, principal.Email) {
			an.replied = true
			continue
		}
		an.latest = i
	}
	if an.replied {
		add(Signal{Kind: SigPrincipalReplied, Reason: "you have written in this thread", Message: -1})
	}
	seenDomain := map[string]bool{}
	for i, m := range msgs {
		if sameAddr(m.From.Email, principal.Email) {
			continue
		}
		a.headerSignals(an, i, m, pDomain, seenDomain, add)
		a.bodySignals(an, i, m, pDomain, seenDomain, add, i == an.latest)
	}
	if an.latest >= 0 {
		m := msgs[an.latest]
		switch {
		case principal.Email == "" || addrIn(m.To, principal.Email) || (len(m.To) == 0 && len(m.Cc) == 0):
			an.addressed = true
			add(Signal{Kind: SigPrincipalTo, Reason: "you are a direct recipient (To)", Message: an.latest})
		case addrIn(m.Cc, principal.Email):
			an.ccOnly = true
			add(Signal{Kind: SigPrincipalCc, Reason: "you are only in Cc", Message: an.latest})
		}
		// Spam score on the latest message from others, as trained.
		if a.spam != nil && !an.replied {
			if an.injection || !an.latestScored {
				// injected instructions must not move the score either way
				body := m.Body()
				if an.injection {
					body = a.withoutInjection(body)
				}
				an.spamProb = a.spam.SpamProbability(bayes.Tokenize(m.Subject, body, domainOf(m.From.Email)))
			} else {
				an.spamProb = bayes.Probability(an.latestScore)
			}
			if an.spamProb >= a.spam.Threshold() {
				add(Signal{Kind: SigSpamScore, Reason: fmt.Sprintf("content resembles known spam (score %.2f)", an.spamProb), Message: an.latest, Weight: an.spamProb})
			}
		}
	}
	for _, s := range an.signals {
		if phishingKinds[s.Kind] {
			an.phishScore += s.Weight
		}
		if lureKinds[s.Kind] {
			an.lure = true
		}
	}
	if an.urgency > 0 {
		an.phishScore += 0.5
	}
	return an
}

// headerSignals checks authentication results, Reply-To/Return-Path,
// sender domains, display names and bulk headers.
func (a *Analyzer) headerSignals(an *analysis, i int, m *model.Message, pDomain string, seen map[string]bool, add func(Signal)) {
	from := domainOf(m.From.Email)
	fromReg := a.regDomain(from)
	// Authentication-Results
	var fails []string
	for _, h := range []string{"Authentication-Results", "ARC-Authentication-Results"} {
		for _, v := range m.Headers[h] {
			for _, f := range authFailRe.FindAllStringSubmatch(strings.ToLower(v), -1) {
				fails = append(fails, f[1]+"="+f[2])
			}
		}
	}
	if v := strings.ToLower(strings.TrimSpace(m.Header("Received-SPF"))); strings.HasPrefix(v, "fail") || strings.HasPrefix(v, "softfail") {
		fails = append(fails, "spf="+strings.Fields(v)[0])
	}
	if len(fails) == 0 && fromReg != "" {
		for _, v := range m.Headers["Authentication-Results"] {
			for _, p := range authPassRe.FindAllStringSubmatch(strings.ToLower(v), -1) {
				if a.regDomain(strings.TrimSuffix(p[1], ".")) == fromReg {
					an.authAligned = true
				}
			}
		}
	}
	if len(fails) > 0 {
		an.suspicious++
		fails = dedupe(fails)
		w := 1.0
		for _, f := range fails {
			if strings.HasPrefix(f, "dmarc=") {
				w = 2
			}
		}
		if len(fails) > 1 {
			w = 2
		}
		add(Signal{Kind: SigAuthFail, Reason: "sender authentication failed (" + strings.Join(fails, ", ") + ")", Message: i, Value: strings.Join(fails, ","), Weight: w})
	}
	// Reply-To to another domain
	for _, rt := range m.ReplyTo {
		d := domainOf(rt.Email)
		if d != "" && fromReg != "" && a.regDomain(d) != fromReg {
			add(Signal{Kind: SigReplyToMismatch, Reason: fmt.Sprintf("replies go to %s, not the sender's domain %s", d, from), Message: i, Value: d, Weight: 1.5})
			break
		}
	}
	if rp := strings.Trim(m.Header("Return-Path"), "<> "); rp != "" && fromReg != "" {
		if d := domainOf(rp); d != "" && a.regDomain(d) != fromReg {
			add(Signal{Kind: SigReturnPathMismatch, Reason: fmt.Sprintf("bounces go to %s, not the sender's domain %s", d, from), Message: i, Value: d, Weight: 0.5})
		}
	}
	if from != "" && !seen[from] {
		seen[from] = true
		a.domainSignals(from, "the sender's domain", i, pDomain, add)
	}
	// The parser records what it stripped (terminal escapes, bidi controls).
	for _, p := range m.Problems {
		if lp := strings.ToLower(p); strings.Contains(lp, "control") || strings.Contains(lp, "escape") {
			an.suspicious += 2 // no legitimate mail hides terminal escapes
			add(Signal{Kind: SigObfuscatedSender, Reason: "the message hid terminal escape or control sequences", Message: i})
			break
		}
	}
	// Display names hiding their text with bidi overrides or escapes.
	const hidden = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\x1b"
	if containsAny2(m.From.Name, m.Subject, hidden) {
		an.suspicious++
		add(Signal{Kind: SigObfuscatedSender, Reason: "the sender name or subject hides text with control or bidi-override characters", Message: i})
	}
	if pDomain != "" && fromReg == a.regDomain(pDomain) && i == an.latest {
		an.internal = true
		add(Signal{Kind: SigInternalSender, Reason: "sent from your own domain " + fromReg, Message: i})
	}
	// Display name naming a brand while the address is elsewhere.
	if name := strings.ToLower(m.From.Name); name != "" && from != "" {
		for _, b := range brands {
			if len(b.name) >= 5 && strings.Contains(name, b.name) && !isRealBrandDomain(fromReg, b.real) {
				add(Signal{Kind: SigDisplayNameSpoof, Reason: fmt.Sprintf("the sender calls itself %q but writes from %s", m.From.Name, from), Message: i, Value: from, Weight: 2.5})
				break
			}
		}
	}
	// Bulk and automated mail.
	prec := strings.ToLower(m.Header("Precedence"))
	switch {
	case m.Header("List-Id") != "" || m.Header("List-Unsubscribe") != "" || prec == "bulk" || prec == "list" || prec == "junk":
		if !an.bulk {
			add(Signal{Kind: SigBulk, Reason: "sent to a mailing list or in bulk (List-Id/List-Unsubscribe/Precedence)", Message: i})
		}
		an.bulk = true
	case m.Header("Auto-Submitted") != "" && !strings.EqualFold(m.Header("Auto-Submitted"), "no"):
		if !an.automated {
			add(Signal{Kind: SigAutomated, Reason: "sent automatically (Auto-Submitted)", Message: i})
		}
		an.automated = true
	}
	// Calendar invitations.
	cal := strings.Contains(strings.ToLower(m.Header("Content-Type")), "text/calendar")
	for _, at := range m.Attachments {
		if strings.HasPrefix(strings.ToLower(at.ContentType), "text/calendar") || strings.HasSuffix(strings.ToLower(at.Filename), ".ics") {
			cal = true
		}
	}
	if cal && !an.calendar {
		an.calendar = true
		add(Signal{Kind: SigCalendar, Reason: "contains a calendar invitation", Message: i})
	}
}

// containsAny2 is strings.ContainsAny(a+b, chars) without building a+b
// (when a is valid UTF-8, a+b decodes to the runes of a, then of b).
func containsAny2(a, b, chars string) bool {
	if !utf8.ValidString(a) {
		return strings.ContainsAny(a+b, chars)
	}
	return strings.ContainsAny(a, chars) || strings.ContainsAny(b, chars)
}

// domainSignals flags punycode and lookalike domains.
func (a *Analyzer) domainSignals(host, what string, i int, pDomain string, add func(Signal)) {
	if strings.Contains(host, "xn--") {
		add(Signal{Kind: SigPunycodeDomain, Reason: fmt.Sprintf("%s %s is an internationalised (punycode) name shown as %s", what, host, unicodeHost(host)), Message: i, Value: host, Weight: 1.5})
	}
	if imitated, ok := a.lookalike(host, pDomain); ok {
		add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("%s %s imitates %s", what, host, imitated), Message: i, Value: host, Weight: 3})
	}
}

// bodySignals checks links and phrases of one message.
func (a *Analyzer) bodySignals(an *analysis, i int, m *model.Message, pDomain string, seen map[string]bool, add func(Signal), latest bool) {
	body := m.Body()
	if len(body) > maxAnalyzed {
		body = body[:maxAnalyzed]
	}
	own := ownText(body)
	// Links
	var ipDone, mismatchDone bool
	for _, l := range findLinks(body, 50) {
		if !ipDone && net.ParseIP(strings.Trim(l.Host, "[]")) != nil {
			ipDone = true
			an.suspicious++
			add(Signal{Kind: SigIPLink, Reason: "a link goes to a bare IP address (" + l.Host + ")", Message: i, Value: l.Host, Weight: 2})
		}
		if !seen[l.Host] {
			seen[l.Host] = true
			a.domainSignals(l.Host, "a link's domain", i, pDomain, add)
		}
		if !mismatchDone && l.Text != "" {
			hreg := a.regDomain(l.Host)
			for _, d := range domainsIn(l.Text) {
				if a.regDomain(d) != hreg {
					mismatchDone = true
					add(Signal{Kind: SigLinkMismatch, Reason: fmt.Sprintf("a link shows %s but goes to %s", d, l.Host), Message: i, Value: l.Host, Weight: 2.5})
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
	bayes.EachToken(m.Subject, func(w bayes.Word) {
		ps.push(w)
		if weights != nil {
			t := w.String() // subjects are short: the copy is cheap
			score += weights.WeightPrefixed("s:", t, bayes.HashPrefixed("s:", t))
		}
	})
	bayes.EachToken(body, func(w bayes.Word) {
		ps.push(w)
		if weights != nil {
			score += weights.Weight(w)
		}
	})
	if weights != nil {
		if d := domainOf(m.From.Email); d != "" {
			score += weights.WeightPrefixed("d:", d, bayes.HashPrefixed("d:", d))
		}
		an.latestScore, an.latestScored = score, true
	}
	counts, first := ps.counts, ps.first
	if counts[pkInjection] > 0 {
		an.injection = true
		add(Signal{Kind: SigInjection, Reason: fmt.Sprintf("contains text aimed at an AI assistant (%q)", first[pkInjection]), Message: i, Value: first[pkInjection]})
	}
	if counts[pkCredential] > 0 {
		w := 2.0
		if counts[pkCredential] > 1 {
			w = 3
		}
		add(Signal{Kind: SigCredentialRequest, Reason: fmt.Sprintf("asks for credentials or account verification (%q)", first[pkCredential]), Message: i, Value: first[pkCredential], Weight: w})
	}
	if counts[pkPayment] > 0 {
		add(Signal{Kind: SigPaymentRequest, Reason: fmt.Sprintf("asks for an unusual payment (%q)", first[pkPayment]), Message: i, Value: first[pkPayment], Weight: 1.5})
	}
	if counts[pkSpammy] > 0 {
		an.spamPhrases += counts[pkSpammy]
		add(Signal{Kind: SigSpamPhrase, Reason: fmt.Sprintf("uses typical spam wording (%q)", first[pkSpammy]), Message: i, Value: first[pkSpammy], Weight: float64(counts[pkSpammy])})
	}
	if !latest {
		return
	}
	if counts[pkUrgency] > 0 {
		an.urgency = counts[pkUrgency]
		add(Signal{Kind: SigUrgency, Reason: fmt.Sprintf("presses for urgency (%q)", first[pkUrgency]), Message: i, Value: first[pkUrgency]})
	}
	if counts[pkMeeting] > 0 {
		an.meeting = true
		add(Signal{Kind: SigMeeting, Reason: fmt.Sprintf("talks about a meeting (%q)", first[pkMeeting]), Message: i, Value: first[pkMeeting]})
	}
	an.positive, an.negative = counts[pkPositive], counts[pkNegative]
	if an.latestScored && !an.replied && !an.internal && a.spam != nil && bayes.Probability(an.latestScore) >= a.spam.Threshold() && !an.injection {
		// Spam by the learned score alone already (see Deterministic):
		// its questions and deadlines are not worth extracting; the
		// summary still gets its first sentence.
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
	soonRe     = regexp.MustCompile(`(?i)\b(eod|asap|end of (?:the )?day|today|tonight|this morning|this afternoon|within the hour|within \d+ hours?|right away|immediately|tomorrow)\b`)
	greetingRe = regexp.MustCompile(`(?i)^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|bonjour|hallo|guten tag)\b[^,.!?\n]{0,40}[,!.]?\s*`)
)

// sentenceSignals finds questions, requests and deadlines in the latest
// message from others, and turns them into action items.
func (a *Analyzer) sentenceSignals(an *analysis, i int, m *model.Message, own string, add func(Signal)) {
	sender := m.From.Name
	if sender == "" {
		sender = m.From.Email
	}
	if f := strings.Fields(sender); len(f) > 0 {
		sender = f[0]
	}
	var deadlineDone, soonDone bool
	// Requests and deadlines sit near the top of a message.
	if len(own) > 1500 {
		own = own[:1500]
	}
	// Keywords are found once over the whole text; the regular expressions
	// then run only on sentences holding one.
	var greetHits, reqHits, dlHits, soonHits []int
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
	})
	var low string // own, ASCII lower-cased, when a request needs it
	for k, rg := range sentenceRanges(own, 40) {
		a0, b0 := rg[0], rg[1]
		has := func(h []int) bool { return len(hitsIn(h, a0, b0)) > 0 }
		raw := own[a0:b0]
		if an.injection && a.phrases.containsInjection(raw) {
			continue
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
		if an.firstLine == "" && len(raw) > 12 {
			an.firstLine = normSpace(raw)
		}
		q := strings.HasSuffix(raw, "?")
		r := false
		if has(reqHits) {
			if low == "" {
				low = asciiLower(own) // once: offsets are the same
			}
			r = isRequest(low[a0:b0])
		}
		var due *string
		// The regexps run on short windows at the trigger words.
		for _, off := range hitsIn(dlHits, a0, b0) {
			ws, we := max(off-4, a0), min(off+80, b0)
			if len(hitsIn(dlLive, ws-4, we)) == 0 {
				continue // deadlineRe cannot match in the window
			}
			win := own[ws:we]
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
			win := own[max(off-6, a0):min(off+24, b0)]
			if m := soonRe.FindString(win); m != "" {
				soon, soonText = true, m
				break
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
		if !q && !r {
			continue
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
	if an.questions > 0 {
		add(Signal{Kind: SigQuestion, Reason: fmt.Sprintf("asks %d question(s)", an.questions), Message: i})
	}
	if an.requests > 0 {
		add(Signal{Kind: SigRequest, Reason: fmt.Sprintf("makes %d request(s)", an.requests), Message: i})
	}
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

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
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

// Trigger words: the regular expressions run only on sentences holding
// one (a cheap prefilter; false positives only cost a regexp run).
const (
	trigGreet uint8 = 1 << iota
	trigRequest
	trigDeadline
	trigSoon
)

// triggerWords are the trigger words of each kind, lower-case.
var triggerWords = [...]struct {
	mask  uint8
	words []string
}{
	{trigGreet, []string{"hi", "hello", "hey", "dear", "good", "bonjour", "hallo", "guten"}},
	{trigRequest, []string{"please", "kindly", "pls", "can", "could", "would", "will", "let", "need", "like", "sure", "require", "requires", "await", "awaiting", "waiting"}},
	{trigDeadline, []string{"by", "before", "until", "till", "due", "later", "deadline", "avant"}},
	{trigSoon, []string{"eod", "asap", "end", "today", "tonight", "morning", "afternoon", "within", "away", "immediately", "tomorrow"}},
}

// triggers maps each trigger word to its mask; trigLens has, per first
// letter, a bit per length of the trigger words starting with it, so that
// most words skip the map (both read-only after init).
var triggers, trigLens = func() (map[string]uint8, [26]uint16) {
	m := map[string]uint8{}
	var lens [26]uint16
	for _, l := range triggerWords {
		for _, w := range l.words {
			m[w] |= l.mask
			lens[w[0]-'a'] |= 1 << len(w)
		}
	}
	return m, lens
}()

// trigger returns the trigger mask of a lower-cased word of ASCII letters
// (indexing the map with string(w) does not allocate).
func trigger(w []byte) uint8 {
	if len(w) >= 16 || trigLens[w[0]-'a']&(1<<len(w)) == 0 {
		return 0
	}
	return triggers[string(w)]
}

// deadlineLive reports whether deadlineRe may match at the deadline
// trigger word at off of s: a superset of where it matches, used to skip
// windows holding no such word. After "by", "before", "until", "till"
// and "due" the pattern needs white space, then a digit or a word that
// starts with one of deadlineStarts or a month's name; "later" ("no later
// than"), "deadline" and "avant" always may. A non-ASCII byte where a
// letter may follow may be a case variant ((?i) folds 'ſ' to 's' and the
// Kelvin sign to 'k'), so it may too.
func deadlineLive(s string, off int) bool {
	var buf [16]byte
	end := off
	for end < len(s) && isASCIILetter(s[end]) {
		end++
	}
	switch string(lowerInto(buf[:0], s[off:end])) {
	case "by", "before", "until", "till", "due":
	default:
		return true
	}
	i := end
	for i < len(s) && isRegexpSpace(s[i]) {
		i++
	}
	if i == end || i == len(s) {
		return false
	}
	if c := s[i]; c >= '0' && c <= '9' || c >= utf8.RuneSelf {
		return true
	} else if !isASCIILetter(c) {
		return false
	}
	j := i
	for j < len(s) && isASCIILetter(s[j]) {
		j++
	}
	if j < len(s) && s[j] >= utf8.RuneSelf {
		return true
	}
	w := lowerInto(buf[:0], s[i:min(j, i+len(buf))]) // the longest start has 9 bytes
	for _, p := range deadlineStarts {
		if len(w) >= len(p) && string(w[:len(p)]) == p {
			return true
		}
	}
	return false
}

// lowerInto appends s to b with ASCII letters lower-cased.
func lowerInto(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, lowerASCII(s[i]))
	}
	return b
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// deadlineStarts are the words (and month name prefixes) deadlineRe
// accepts first after its trigger word: "on" and "by" for "due on/by".
var deadlineStarts = []string{"next", "this", "the", "end", "monday", "tuesday", "wednesday", "thursday", "friday",
	"saturday", "sunday", "tomorrow", "today", "tonight", "noon", "midnight", "eod", "eow", "cob", "day", "week",
	"month", "quarter", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "jan", "feb", "mar", "apr", "may", "jun",
	"jul", "aug", "sep", "oct", "nov", "dec", "on", "by"}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isRegexpSpace is RE2's \s: [\t\n\f\r ].
func isRegexpSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// scanTriggers calls hit with the byte offset of every trigger word of s
// (ASCII letters, case-insensitive).
func scanTriggers(s string, hit func(off int, mask uint8)) {
	for i := 0; i < len(s); {
		if !isASCIILetter(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		// Most words are no trigger by first letter and length alone.
		if n := j - i; n >= 2 && n <= 11 && trigLens[(s[i]|0x20)-'a']&(1<<n) != 0 {
			var buf [11]byte
			if m := trigger(lowerInto(buf[:0], s[i:j])); m != 0 {
				hit(i, m)
			}
		}
		i = j
	}
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// hitsIn returns the offsets of sorted h within [a, b).
func hitsIn(h []int, a, b int) []int {
	i := sort.SearchInts(h, a)
	j := i
	for j < len(h) && h[j] < b {
		j++
	}
	return h[i:j]
}

var requestPrefixes = []string{"please", "kindly", "pls", "can you", "could you", "would you", "will you", "would you mind",
	"can we", "could we", "let me know", "i need you to", "we need you to", "i'd like you to", "make sure"}

var requestInside = []string{"please", "need your", "needs your", "require your", "requires your", "awaiting your",
	"waiting for your", "await your"}

// isRequest says whether a lower-cased sentence asks something of the reader.
func isRequest(low string) bool {
	t := low
	for _, c := range []string{"so", "and", "also", "but"} {
		if strings.HasPrefix(t, c+" ") || strings.HasPrefix(t, c+", ") {
			t = strings.TrimLeft(t[len(c):], ", ")
			break
		}
	}
	for _, p := range requestPrefixes {
		if strings.HasPrefix(t, p) && (len(t) == len(p) || !isWordByte(t[len(p)])) {
			return true
		}
	}
	for _, w := range requestInside {
		if i := strings.Index(low, w); i >= 0 && (i == 0 || !isWordByte(low[i-1])) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
