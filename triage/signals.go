package triage

import (
	"fmt"
	"slices"
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
	// SigPaymentDiversion: the message asks that money go to changed bank
	// details ("our bank details have changed", "neue Bankverbindung").
	SigPaymentDiversion SignalKind = "payment-diversion"
	// SigSecrecy: the author asks for discretion or checks the reader is
	// at hand ("strictly confidential", "are you available?"): the
	// opening of a fraud that impersonates someone.
	SigSecrecy SignalKind = "secrecy"
	// SigNoticeLure: a lure dressed as a service's notice: a share of a
	// money document from a stranger's free mail, a voicemail or fax
	// notice linking to the message, a renewal notice for your own
	// domain, a callback bill (see lures.go).
	SigNoticeLure SignalKind = "notice-lure"
	// SigRiskyAttachment: a file that runs when opened (a program, a
	// script, a shortcut, a disk image), a web page sent as a file, or a
	// name hiding its real type behind a document's ("statement.pdf.html").
	SigRiskyAttachment SignalKind = "risky-attachment"
	SigUrgency         SignalKind = "urgency"
	SigSpamScore       SignalKind = "spam-score"
	SigSpamPhrase      SignalKind = "spam-phrase"
	// SigSpamStructure: the envelope is built like bulk spam (see
	// structure) and the learned score leans to spam.
	SigSpamStructure SignalKind = "spam-structure"
	// SigOutreach: a stranger's unsolicited sales pitch (see coldOutreach).
	SigOutreach         SignalKind = "cold-outreach"
	SigBulk             SignalKind = "bulk"
	SigAutomated        SignalKind = "automated"
	SigCalendar         SignalKind = "calendar"
	SigMeeting          SignalKind = "meeting"
	SigPrincipalTo      SignalKind = "principal-to"
	SigPrincipalCc      SignalKind = "principal-cc"
	SigPrincipalReplied SignalKind = "principal-replied"
	SigFamiliarSender   SignalKind = "familiar-sender"
	SigDeadline         SignalKind = "deadline"
	SigQuestion         SignalKind = "question"
	SigRequest          SignalKind = "request"
	SigInjection        SignalKind = "prompt-injection"
	SigObfuscatedSender SignalKind = "obfuscated-sender"
	SigInternalSender   SignalKind = "internal-sender"
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
	SigCredentialRequest: true, SigPaymentRequest: true, SigPaymentDiversion: true, SigSecrecy: true, SigNoticeLure: true,
	SigRiskyAttachment: true,
}

// phishingOrder lists phishingKinds in a fixed order (the score adds
// their weights in this order).
var phishingOrder = [...]SignalKind{SigAuthFail, SigReplyToMismatch, SigReturnPathMismatch, SigLookalikeDomain,
	SigPunycodeDomain, SigDisplayNameSpoof, SigLinkMismatch, SigIPLink, SigCredentialRequest, SigPaymentRequest, SigPaymentDiversion, SigSecrecy, SigNoticeLure, SigRiskyAttachment}

// lureKinds are phishing kinds that ask the reader to do something risky or
// disguise where a link goes; is_phishing needs at least one.
var lureKinds = map[SignalKind]bool{
	SigLookalikeDomain: true, SigDisplayNameSpoof: true, SigLinkMismatch: true, SigIPLink: true,
	SigCredentialRequest: true, SigPaymentRequest: true, SigPaymentDiversion: true, SigNoticeLure: true,
	SigRiskyAttachment: true,
}

// Analyzer computes deterministic signals and the offline triage. It is
// safe for concurrent use; build one and share it.
type Analyzer struct {
	phrases *phraseIndex
	spam    *bayes.Classifier
	// learner applies the user's corrections (nil: none); see SetLearner.
	learner *Learner

	// lookalikes caches lookalike() per host (senders and link hosts
	// repeat); bounded by maxCachedHosts.
	mu         sync.RWMutex
	lookalikes map[hostPair]string
	// corrIndex indexes the domains the user writes to (see correspondents).
	corrIndex *correspondentIndex
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

// shipped holds classifiers over each base model without user marks.
var shipped sync.Map // *bayes.Model -> *bayes.Classifier

// shippedClassifier returns a classifier over c's base model without the
// user's marks (shared, read-only).
func shippedClassifier(c *bayes.Classifier) *bayes.Classifier {
	if v, ok := shipped.Load(c.Base()); ok {
		return v.(*bayes.Classifier)
	}
	v, _ := shipped.LoadOrStore(c.Base(), bayes.NewClassifier(c.Base(), nil))
	return v.(*bayes.Classifier)
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

// SetLearner makes the analyzer (and the triagers built on it) apply
// the user's corrections; call it before sharing the analyzer.
//
// An analyzer scoring spam with the shipped model then scores with the
// learner's classifier, which also learns the words of the user's marks.
func (a *Analyzer) SetLearner(l *Learner) {
	a.learner = l
	if c := l.Classifier(); c != nil && a.spam != nil {
		if m, err := bayes.Default(); err == nil && a.spam.Base() == m {
			a.spam = c
		}
	}
}

// Learner returns the learner set with SetLearner (nil if none).
func (a *Analyzer) Learner() *Learner { return a.learner }

// Classifier returns the spam classifier (nil if none), e.g. to learn
// from the user's marks.
func (a *Analyzer) Classifier() *bayes.Classifier { return a.spam }

// ownLower returns latestOwn lower-cased, lowering it once per thread.
func (an *analysis) ownLower() string {
	if !an.latestLowSet {
		an.latestLow, an.latestLowSet = strings.ToLower(an.latestOwn), true
	}
	return an.latestLow
}

// analysis is everything the deterministic triage derives from a thread.
type analysis struct {
	signals []Signal
	// latestOwn is ownText of the latest message from others' body (set
	// by bodySignals; the summary reads it again).
	latestOwn string
	// latestLow is latestOwn lower-cased, computed once by ownLower for
	// the checks that read it (latestLowSet says whether it is).
	latestLow    string
	latestLowSet bool
	phishScore   float64
	// runCode: the latest message's words telling to run fetched code
	// (pkRunCode), "" for none.
	runCode string
	// idCompanion: the latest message's first words of what identity
	// theft asks beside a document (pkIdentity), "" for none.
	idCompanion string
	// fileLink: a link of the latest message downloading a file that
	// runs when opened (see runsFromLink).
	fileLink string
	// freeRelay: a free-mail sender's replies go to another free-mail
	// provider (see headerSignals).
	freeRelay     bool
	lure          bool
	spamProb      float64
	spamPhrases   int
	bulk          bool
	automated     bool
	list          bool // a message came through a mailing list (see isListMail)
	calendar      bool
	meeting       bool
	addressed     bool // principal in To (or no recipients known) of the latest message from others
	teamAddressed bool // the latest message from others went to an address of the principal's domain, not a list
	ccOnly        bool
	replied       bool // the principal wrote in the thread
	urgency       int
	soonDeadline  bool
	injection     bool
	positive      int
	negative      int
	items         []contract.ActionItem
	questions     int
	requests      int
	latest        int    // index of the latest message not from the principal (-1 none)
	suspicious    int    // independent spam indicators (obfuscation, raw IP links, auth failures)
	internal      bool   // the latest message from others comes from the principal's domain
	spoofed       bool   // DMARC failed for the sender's domain outside list mail
	greeted       bool   // the latest message from others opens with the principal's first name
	firstName     string // the principal's (see firstName)
	handle        string // "@" and the principal's address's local part, lower case ("@alex.morgan")
	surname       string // the principal's (see surname)
	subjectSoon   bool   // its subject names today, tonight, tomorrow or minutes
	subjectAsks   bool   // its subject asks for action (see subjectAsks)
	taskNamed     bool   // an ask says the task is the reader's (see yoursToDo)
	otherNamed    bool   // an ask turns to someone else by name ("Sofia, can you…")
	expiresSoon   bool   // a sentence says something runs out within the day ("expires tonight")
	// named: the latest message from others turns to the principal by
	// name ("Alex, can you…") or tells them a review or task is theirs
	// ("requested your review"): its asks are the principal's even when
	// it is addressed to a group or a list, or Cc's them.
	named   bool
	foreign bool // its text may hold cues in another language (see sentenceSignals)
	links   int  // links found in the messages scanned
	// authAligned: a DMARC or DKIM pass for the sender's own domain, and no
	// authentication failure: the learned score alone does not make it spam
	// (the 2002 training corpus knows no modern receipts or shipping mail).
	authAligned bool
	// familiar: the user wrote to the latest sender before, or read
	// their earlier mail (see Senders).
	familiar bool
	// ownList: a message came through a list its sender's own domain runs
	// (see listOwnedBy): a newsletter or a shop's mailing, legitimate bulk
	// mail like authAligned list mail.
	ownList bool
	// structure are the latest message's structural spam indicators
	// (stXxx bits), kept only when its learned score is at least
	// minStructureProb and is evidence (not unscorable).
	structure int

	latestScore  float64 // spam log-odds of the latest message from others
	latestScored bool
	// coverage is the share of the latest message's words the spam
	// model knows (see minCoverage).
	coverage float64
	known    int // how many of its words the spam model knows
	// accented: its subject and text hold letters outside ASCII (another
	// language than the model's English, see minAccentedCoverage).
	accented bool
	// shippedProb is the latest message's spam probability by the
	// shipped model alone, computed when the user's marks taught the
	// classifier (else -1): the two tell whether the marks changed the
	// score's verdict.
	shippedProb float64
	// shippedScore is the shipped model's log-odds of the latest message,
	// summed with the learned score when shippedScored.
	shippedScore  float64
	shippedScored bool
	// rawSpamProb is the score of an unscorable message before it was
	// set aside: it counts only with independent support.
	rawSpamProb float64
	firstLine   string
	// notifier: the latest message comes from a service's notification
	// address (see notifierAddress).
	notifier bool
	// conversation: the latest message answers an earlier message of the
	// thread from someone else (see inConversation).
	conversation bool
	// signed: the latest message carries a PGP or S/MIME signature (see
	// signedMessage).
	signed bool
	// outreach: the latest message is a stranger's unsolicited pitch
	// (see coldOutreach): spam whatever its learned score.
	outreach outreach
	// openAsk is the index of the earlier message whose asks the latest
	// one leaves open (see carryOpenAsks), or -1.
	openAsk int
	// windfall: a message offers a prize, a lottery win, an inheritance
	// or funds to release (the advance-fee scam): spam, whose fee to
	// release the funds is its own offer's, not a payment asked in
	// someone else's name; phishing only with another lure (credentials,
	// a lookalike, a diverted payment).
	windfall bool
	// displaySpoof: a sender's display name is a brand's its domain is
	// not; ownLookalike: a sender's domain imitates the principal's own;
	// brandLookalike is a sender's domain imitating a brand's;
	// lookalikeLink: a link's domain imitates either; linkToSender: a
	// link of the latest message goes to its sender's domain.
	displaySpoof bool
	// spoofedBrand is the brand the latest message's display name claims
	// while writing from another domain ("" for none).
	spoofedBrand   string
	ownLookalike   bool
	brandLookalike string
	lookalikeLink  bool
	// lookalikeOf is the domain the first lookalike link on a host
	// anyone can publish on imitates (see userContentHost).
	lookalikeOf string
	// shareImitated is the file-sharing service (see shareBrands) a
	// lookalike link imitates ("" for none).
	shareImitated string
	linkToSender  bool
	// corrLookalike: the latest sender's domain imitates a
	// correspondent's (see correspondentLookalike).
	corrLookalike bool
	// selfNamed: brandLookalike comes from selfNamedNoticeDomain, a
	// sender dressing its own name as a service's notice address.
	selfNamed bool
	// userContentLink: a link of the latest message goes to a page anyone
	// can publish on a hosting or form service (see userContentLink).
	userContentLink bool
}

// Signals returns the deterministic signals of a thread (messages oldest
// first) for principal, using the shipped spam model.
func Signals(msgs []*model.Message, principal model.Address) []Signal {
	return NewAnalyzer(nil).Signals(msgs, principal)
}

// Signals returns the deterministic signals of a thread (oldest first).
func (a *Analyzer) Signals(msgs []*model.Message, principal model.Address) []Signal {
	return a.analyze(msgs, principal, nil).signals
}

// firstName is the principal's first name: the display name's first word,
// else the address's local part up to a dot, dash or underscore ("" when
// shorter than three letters: too common a word to mean anything).
func firstName(p model.Address) string {
	n := ""
	if f := strings.Fields(p.Name); len(f) > 0 {
		n = f[0]
	} else if at := strings.IndexByte(p.Email, '@'); at > 0 {
		n = p.Email[:at]
		if i := strings.IndexAny(n, "._-+"); i >= 0 {
			n = n[:i]
		}
	}
	n = strings.Trim(n, ",.\"'")
	if utf8.RuneCountInString(n) < 3 || strings.ContainsAny(n, "0123456789") {
		return ""
	}
	return n
}

// surname is the principal's last name: the display name's last word
// when it has two or more, else the address's local part after its last
// dot, dash or underscore when it has one ("" when shorter than two
// letters or holding digits).
func surname(p model.Address) string {
	n := ""
	if f := strings.Fields(p.Name); len(f) > 1 {
		n = f[len(f)-1]
	} else if at := strings.IndexByte(p.Email, '@'); at > 0 && len(f) == 0 {
		local := p.Email[:at]
		if i := strings.LastIndexAny(local, "._-"); i >= 0 {
			n = local[i+1:]
		}
	}
	n = strings.Trim(n, ",.\"'")
	if utf8.RuneCountInString(n) < 2 || strings.ContainsAny(n, "0123456789") {
		return ""
	}
	return n
}

// honorifics come before a surname in a formal greeting ("Dear Mr
// Morgan", "Sehr geehrter Herr Morgan", "Bonjour Monsieur Morgan",
// "Estimado Sr. Morgan").
var honorifics = []string{"mr", "mrs", "ms", "miss", "dr", "prof", "herr", "frau", "monsieur", "madame", "mme", "m",
	"mademoiselle", "sr", "sra", "srta", "señor", "señora", "don", "doña"}

// greetsByTitle reports whether text's first line names the principal by
// title and surname ("Dear Mr Morgan,", "Sehr geehrte Frau Morgan",
// "Morgan様"): as personal a greeting as a first name.
func greetsByTitle(text, last string) bool {
	if last == "" {
		return false
	}
	low := greetingLine(text)
	return eachAt(low, strings.ToLower(last), func(j, end int) bool {
		start := j == 0 || !isWordByte(low[j-1])
		rest := strings.TrimLeft(low[end:], " ")
		if strings.HasPrefix(rest, "様") || strings.HasPrefix(rest, "さん") || strings.HasPrefix(rest, "殿") {
			return start
		}
		if !start || end < len(low) && isWordByte(low[end]) {
			return false
		}
		before := strings.Fields(strings.TrimRight(low[:j], " "))
		return len(before) > 0 && slices.Contains(honorifics, strings.TrimRight(before[len(before)-1], "."))
	})
}

// eachAt reports whether ok holds for one occurrence of name in low,
// given its start and end, trying them from the left.
func eachAt(low, name string, ok func(j, end int) bool) bool {
	for i := 0; ; {
		j := strings.Index(low[i:], name)
		if j < 0 {
			return false
		}
		j += i
		i = j + len(name)
		if ok(j, i) {
			return true
		}
	}
}

// greetingLine returns the first line of text lower-cased, at most 80
// bytes: where a greeting stands.
func greetingLine(text string) string {
	text = strings.TrimLeft(text, " \t\r\n")
	line, _, _ := strings.Cut(text, "\n")
	if len(line) > 80 {
		line = line[:80]
	}
	return strings.ToLower(line)
}

// greetsByName reports whether text's first line names first as a word
// ("Hi Alex,", "Bonjour Alex", "Alex —"): mail written to the principal
// personally. Bulk spam rarely knows the name (phishing may, which is why
// this only keeps the learned score from condemning a message alone).
func greetsByName(text, first string) bool {
	if first == "" {
		return false
	}
	low := greetingLine(text)
	return eachAt(low, strings.ToLower(first), func(j, end int) bool {
		return (j == 0 || !isWordByte(low[j-1])) && (end == len(low) || !isWordByte(low[end]))
	})
}

func sameAddr(a, b string) bool { return a != "" && strings.EqualFold(a, b) }

func addrIn(list []model.Address, email string) bool {
	for _, x := range list {
		if sameAddr(x.Email, email) {
			return true
		}
	}
	return false
}

func (a *Analyzer) analyze(msgs []*model.Message, principal model.Address, senders Senders) *analysis {
	an := &analysis{latest: -1, openAsk: -1, shippedProb: -1, firstName: firstName(principal), surname: surname(principal)}
	if at := strings.IndexByte(principal.Email, '@'); at > 2 {
		an.handle = "@" + strings.ToLower(principal.Email[:at])
	}
	pDomain := domainOf(principal.Email)
	add := func(s Signal) {
		an.signals = append(an.signals, s)
	}
	for i, m := range msgs {
		if fromPrincipal(m, principal) {
			an.replied = true
			continue
		}
		an.latest = i
	}
	if an.replied {
		add(Signal{Kind: SigPrincipalReplied, Reason: "you have written in this thread", Message: -1})
	}
	if senders != nil && an.latest >= 0 {
		an.familiarSignal(msgs, senders, add)
	}
	if an.latest >= 0 {
		// Known before the messages are read: a notification's asks are
		// read even when its words score like spam (see bodySignals).
		an.notifier = notifierAddress(msgs[an.latest].From.Email)
		an.conversation = inConversation(msgs, an.latest)
		an.signed = signedMessage(msgs[an.latest])
	}
	if an.latest >= 0 {
		a.colleagueImpersonation(msgs[an.latest], an.latest, pDomain, senders, add)
	}
	seenDomain := map[string]bool{}
	// Only the newest messages are scanned: the cost per thread is bounded
	// (see MaxAnalyzedMessages); indexes stay those of the whole thread.
	for i := max(0, len(msgs)-MaxAnalyzedMessages); i < len(msgs); i++ {
		m := msgs[i]
		if fromPrincipal(m, principal) {
			continue
		}
		a.headerSignals(an, i, m, pDomain, seenDomain, add)
		a.bodySignals(an, i, m, pDomain, seenDomain, add, i == an.latest)
	}
	if an.latest >= 0 {
		a.correspondentLookalike(an, msgs, principal, senders, add)
		shareLure(an, msgs[an.latest], senders, add)
		a.noticeLure(an, msgs[an.latest], add)
		a.domainRenewalLure(an, msgs[an.latest], pDomain, add)
		a.callbackLure(an, msgs[an.latest], add)
		a.legalNoticeLure(an, msgs[an.latest], pDomain, add)
		a.authorityLure(an, msgs[an.latest], add)
		deviceCodeLure(an, msgs[an.latest].Subject, add)
		riskyAttachment(an, msgs[an.latest], add)
		a.consentLure(an, msgs[an.latest], add)
		codeRunLure(an, msgs[an.latest], add)
		fakeShareLure(an, msgs[an.latest], add)
		identityLure(an, add)
		secretPaymentLure(an, add)
	}
	if an.latest > 0 && !an.taskNamed && (an.automated || an.notifier) {
		// A tracker's later notice (a comment) on an issue an earlier
		// notice of the same tracker assigned to the reader: the issue is
		// still theirs.
		from := msgs[an.latest].From.Email
		for _, m := range msgs[max(0, an.latest-MaxAnalyzedMessages):an.latest] {
			if m.From.Email != from {
				continue
			}
			body := m.Body()
			if len(body) > maxAnalyzed {
				body = body[:maxAnalyzed] // (as bodySignals reads a body)
			}
			if assignedToYou(strings.ToLower(body)) || namedInField(body, an.firstName, assigneeFields) {
				an.taskNamed = true
				add(Signal{Kind: SigRequest, Reason: "an earlier notice of this thread assigned it to you", Message: an.latest})
				break
			}
		}
	}
	if an.latest >= 0 && !an.taskNamed && an.questions > 0 && (an.automated || an.notifier) && namesAny(msgs[an.latest].Subject, mentionWords) {
		// A tool relaying a mention of the reader with a question in it:
		// a colleague's ask put to them by name (a mention in notes that
		// asks nothing is for reading; the tool's own "Open in Notion" is
		// no ask).
		an.taskNamed, an.named = true, true
		add(Signal{Kind: SigRequest, Reason: "a tool relays a mention of you that asks something", Message: an.latest})
	}
	if an.latest >= 0 && !an.taskNamed && notifiedAsReader(msgs[an.latest]) {
		// The code host says why the reader got it: their review was
		// requested, they were mentioned or assigned.
		an.taskNamed, an.named = true, true
		add(Signal{Kind: SigRequest, Reason: "the code host notified you as a reviewer, assignee or by mention", Message: an.latest})
	}
	if an.latest > 0 && an.questions+an.requests == 0 && !an.bulk && !an.automated && !an.notifier {
		if j := openAskMessage(msgs, an.latest, principal); j >= 0 {
			a.carryOpenAsks(an, j, msgs[j], msgs[an.latest].From.Email, principal, add)
		}
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
		default:
			// To a team's address of the principal's own organisation
			// (platform-oncall@; not a person's first.last@), not through
			// a list: the alias the principal received it through. (Also
			// the organisation's own monitor posting to a team list of
			// the organisation's: the list is the team's alias.)
			pReg := a.regDomain(pDomain)
			if pDomain != "" && (!isListMail(m) || an.internal && autoSubmitted(m) && a.listOwnedBy(m, pReg)) {
				for _, t := range m.To {
					local, d, _ := strings.Cut(t.Email, "@")
					if d != "" && !strings.Contains(local, ".") && a.regDomain(d) == pReg {
						an.teamAddressed = true
						break
					}
				}
			}
		}
		// Spam score on the latest message from others, as trained.
		if a.spam != nil && !an.replied {
			if an.injection || !an.latestScored {
				// injected instructions must not move the score either way
				body := m.Body()
				if an.injection {
					body = a.withoutInjection(body)
				}
				toks := bayes.Tokenize(m.Subject, body, domainOf(m.From.Email))
				an.spamProb = a.spam.SpamProbability(toks)
				an.coverage = a.spam.Coverage(toks)
				an.known = int(an.coverage*float64(len(toks)) + 0.5)
			} else {
				an.spamProb = bayes.Probability(an.latestScore)
			}
			if !an.injection && an.shippedScored {
				an.shippedProb = bayes.Probability(an.shippedScore)
			}
			if an.unscorable() {
				// Too few known words for the score to mean anything:
				// it is neither evidence nor shown as one.
				an.rawSpamProb = an.spamProb
				an.spamProb = min(an.spamProb, 0.5)
			}
			if an.spamProb >= a.spam.Threshold() {
				add(Signal{Kind: SigSpamScore, Reason: fmt.Sprintf("content resembles known spam (score %.2f)", an.spamProb), Message: an.latest, Weight: an.spamProb})
			}
			if st := structure(m); st != 0 && an.spamProb >= minStructureProb && !an.unscorable() {
				an.structure = st
				add(Signal{Kind: SigSpamStructure, Reason: "built like bulk spam (" + structureReason(st) + ")", Message: an.latest})
			}
		}
	}
	if an.outreach = coldOutreach(msgs, an, principal); an.outreach.reason != "" {
		add(Signal{Kind: SigOutreach, Reason: "unsolicited outreach: " + an.outreach.reason, Message: an.latest})
	}
	// Legitimate bulk mail: list mail (List-Unsubscribe, List-Id) whose
	// sender's own domain passed DKIM or DMARC or runs the list, with no independent spam
	// indicator, is not quarantined for its marketing wording either (the
	// learned score alone already does not condemn it, see Deterministic):
	// it lands in Low priority unless the user marks it spam.
	if an.list && (an.authAligned || an.ownList || an.familiar) && an.suspicious == 0 {
		an.spamPhrases = 0
	}
	// Each phishing kind counts once, at its strongest: the same finding
	// repeated over the messages of a thread (or over many links) is one
	// piece of evidence, not several.
	var strongest [len(phishingOrder)]float64
	// A brand's own authenticated mail (DMARC or DKIM aligned with one of
	// the brand's real domains: okta.com, github.com) is the brand: its
	// account wording ("report suspicious activity", "security alert") is
	// its notice's, not a lure in its name. Lookalike links, diverted
	// payments and the like still count.
	// (Not a free-mail provider's domain: anyone writes from gmail.com.)
	senderReg := ""
	if an.latest >= 0 {
		senderReg = a.regDomain(domainOf(msgs[an.latest].From.Email))
	}
	brandOwn := an.authAligned && realBrandDomain(senderReg) && !freeMail(senderReg)
	if an.shareImitated != "" && !brandOwn && !an.internal && !an.list {
		// A link imitating a file-sharing service's ("a quote sent
		// through WeTransfer": wetransfer-download.shop-files.com) in mail
		// that is not the service's: the download page is the lure.
		an.signals = append(an.signals, Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("a link imitates the file-sharing service %s", an.shareImitated),
			Message: an.latest, Value: an.shareImitated, Weight: 3.5})
	}
	if brandOwn && an.lookalikeOf != "" && sameBrand(an.lookalikeOf, senderReg) {
		// A service's own notice relaying what a user wrote (an issue
		// opened, a comment, a shared note) that links to an imitation of
		// the service itself ("github-session-reset.vercel.app" in a
		// GitHub issue "from the GitHub Security Team"), published where
		// anyone can publish: the service never links to a copy of itself
		// there; the user's text is the lure.
		an.signals = append(an.signals, Signal{Kind: SigNoticeLure, Reason: fmt.Sprintf("a notice of the service's own relays a link imitating it (%s)", an.lookalikeOf),
			Message: an.latest, Value: an.lookalikeOf, Weight: 3.5})
	}
	if an.selfNamed && an.windfall {
		// An investment or prize scam under a made-up firm's name
		// ("Elite Capital Desk" from elitecapital-alerts.com) imitates
		// no one: it is spam, as windfalls are.
		an.brandLookalike = ""
	}
	impersonated := false
	for _, s := range an.signals {
		if an.selfNamed && an.windfall && s.Kind == SigLookalikeDomain && s.Message == an.latest {
			continue
		}
		switch s.Kind {
		case SigLookalikeDomain, SigDisplayNameSpoof, SigPunycodeDomain:
			impersonated = true
		case SigCredentialRequest, SigPaymentRequest:
			if brandOwn || s.Kind == SigCredentialRequest && an.internal && an.authAligned && an.automated {
				// (your own organisation's authenticated notice, sent
				// automatically: "your password expires today" is its
				// reminder, as a brand's own notice is the brand's)
				continue
			}
		case SigPaymentDiversion:
			if an.internal && an.authAligned {
				// A colleague's authenticated mail about changed bank
				// details relays a supplier's request or the fraud
				// itself for checking ("AP received an email asking us to
				// pay into a new account"): the diversion is asked of the
				// organisation by someone else, not by the colleague.
				continue
			}
		}
		if k := slices.Index(phishingOrder[:], s.Kind); k >= 0 {
			strongest[k] = max(strongest[k], s.Weight)
		}
		if lureKinds[s.Kind] && !(an.windfall && s.Kind == SigPaymentRequest) {
			an.lure = true
		}
	}
	if an.internal && an.spoofed {
		// Mail in a colleague's name that your own domain disowns
		// (DMARC failed) impersonates them; with its replies diverted
		// elsewhere ("are you available?" answered to a free-mail
		// address), the diversion is the lure: the answer goes to the
		// fraud.
		impersonated = true
		if strongest[slices.Index(phishingOrder[:], SigReplyToMismatch)] > 0 {
			an.lure = true
		}
	}
	if impersonated && an.userContentLink && !an.list {
		// Mail in a brand's or service's name whose link leads to a page
		// anyone can publish (sites.google.com/view/..., *.web.app, a
		// form): a service's notice links to its own site.
		an.lure = true
		an.phishScore += 1
	}
	if an.latest >= 0 && !an.freeRelay && freeMail(senderReg) && execTitle(msgs[an.latest]) == "" &&
		signedAsExec(an.latestOwn) != "" && strongest[slices.Index(phishingOrder[:], SigSecrecy)] > 0 && !an.windfall {
		// A free-mail address signing as an executive ("高橋 健一 /
		// 代表取締役" from gmail.com) and asking for discretion: CEO
		// fraud, the title weighing as it does in the address.
		impersonated, an.lure = true, true
		an.phishScore += 2
	}
	if an.freeRelay && !an.windfall {
		// A free-mail sender whose replies go to a mailbox at another
		// provider ("Martin <m.holloway.office@gmail.com>", replies to
		// martin.holloway.ceo@outlook.com) hides who answers: with
		// discretion asked, the opening of gift-card and CEO fraud.
		impersonated = true
		if strongest[slices.Index(phishingOrder[:], SigSecrecy)] > 0 {
			// (the answer asked for goes where the sender is not: the
			// diversion is the lure)
			an.lure = true
			an.phishScore += 0.5
		}
	}
	if !impersonated {
		// Discretion asked (secrecy) tells of a fraud only in the name of
		// someone the mail pretends to be (it is no lure of its own).
		strongest[slices.Index(phishingOrder[:], SigSecrecy)] = 0
	}
	for _, w := range strongest {
		an.phishScore += w
	}
	if an.spoofed && an.links > 0 && an.latest >= 0 && (an.lure || !an.windfall && a.impersonates(msgs[an.latest], pDomain)) {
		// Mail its sender's own domain disowns (DMARC failed) that points
		// somewhere to click and names a brand or asks something risky is
		// the phishing pattern itself: the link is the lure, and it weighs
		// as much as the failure. A scammer's own domain failing its own
		// DMARC under an offer is spam (quarantined as such), not the
		// impersonation of someone.
		an.lure = true
		an.phishScore += 2
	}
	if an.displaySpoof && !an.bulk && an.brandLookalike == "" && an.questions+an.requests > 0 && an.linkToSender {
		// A sender calling itself a brand ("Microsoft Teams") from a
		// domain of its own that asks you to act through a link to that
		// domain: neither the name nor the link is the brand's.
		an.phishScore += 1
	}
	if an.brandLookalike == "" && !an.ownLookalike && an.lookalikeLink && an.questions+an.requests > 0 && !an.bulk {
		// An ask to follow a link to a domain imitating a brand's or
		// your organisation's (a "shared document" on
		// sharepoint.com.docview-secure.app): the link is the lure.
		an.phishScore += 0.5
	}
	// A sender imitating a brand or your organisation that links to its
	// own domain (or to another imitation) outside list mail: the link
	// is the lure, whatever words its button uses.
	linkLure := (an.brandLookalike != "" || an.ownLookalike) && (an.lookalikeLink || an.linkToSender) && !an.list
	if an.ownLookalike && !an.list && an.latest >= 0 && a.linksToOrgTenant(an.latestOwn, pDomain) {
		// A sender imitating your organisation linking to your
		// organisation's name on someone else's domain
		// (northwind.workday-portal.net): a tenant page copied.
		linkLure = true
	}
	if linkLure || an.corrLookalike && an.latest >= 0 && (an.questions+an.requests > 0 || an.links > 0 || mentionsPayment(msgs[an.latest].Subject, an.latestOwn)) {
		// (and one imitating a correspondent's domain that asks
		// anything, links anywhere or speaks of a payment: business
		// email compromise needs no other lure)
		an.lure = true
	}
	if an.brandLookalike != "" && (an.questions+an.requests > 0 || linkLure) && (an.lookalikeLink || an.linkToSender) {
		// A sender in a domain imitating a brand's that asks you to act
		// through a link to that domain, or to another imitation: the
		// link is the lure (a brand-like domain of a real business,
		// booking-lufthansa.com, links to the business's own site).
		an.phishScore += 0.5
	}
	if an.ownLookalike && (an.questions+an.requests > 0 || linkLure || an.latest >= 0 && imperative(msgs[an.latest].Subject)) {
		// A sender in a domain imitating your own organisation's
		// (northwind-sso.com, northvvind.example) that asks you to do or
		// answer something: the ask is the lure (the organisation's own
		// other domains send notices and confirmations, not asks).
		an.phishScore += 0.5
	}
	if an.urgency > 0 || an.subjectSoon {
		// Pressure: urgency words, or a subject naming today or
		// tonight ("will be removed today").
		an.phishScore += 0.5
	}
	return an
}

// impersonates reports whether m presents itself as a brand (its name in
// the sender's name, the subject or the sender's domain), as a bank, an
// account or a help desk (in the sender's name or domain) or as the
// principal's own organisation (its domain): what mail failing DMARC
// pretends to be when it is phishing.
func (a *Analyzer) impersonates(m *model.Message, pDomain string) bool {
	from := domainOf(m.From.Email)
	if pDomain != "" && from != "" && a.regDomain(from) == a.regDomain(pDomain) {
		return true
	}
	low := strings.ToLower(m.From.Name + " " + m.Subject + " " + from)
	for _, b := range brands {
		if len(b.name) >= 4 && strings.Contains(low, b.name) {
			return true
		}
	}
	// An institution's words count in the sender's name and domain only:
	// a subject's "your account" is as often a shop's or a scam's offer.
	_, ok := containsAnyOf(strings.ToLower(m.From.Name+" "+from), institutionWords)
	return ok
}

// institutionWords in a sender's name or a subject present mail as a
// bank's, an account's, a help desk's or an authority's (lower case).
var institutionWords = []string{"bank", "banco", "banque", "sparkasse", "銀行", "account", "cuenta", "konto", "compte",
	"アカウント", "password", "passwort", "kennwort", "contraseña", "mot de passe", "パスワード", "security", "sicherheit",
	"sécurité", "seguridad", "セキュリティ", "helpdesk", "help desk", "it support", "service desk", "servicedesk", "webmail",
	"mailbox", "postfach", "buzón", "messagerie", "aviso", "avis", "hinweis", "notice", "alert", "verif",
	// authorities: tax offices, customs, police and traffic fines
	"gouv", "gov.", ".gov", "government", "regierung", "gobierno", "ministère", "ministerio", "ministerium", "ministry",
	"finanzamt", "impots", "impôts", "hacienda", "tributaria", "tax office", "zoll", "douane", "aduana", "customs",
	"police", "polizei", "amende", "bußgeld", "multa", "税務署", "警察"}

// fromPrincipal reports whether m is the principal's own: from their
// address, and not disowned by their domain's authentication (mail
// "from your own account" that fails SPF or DMARC is a stranger's:
// sextortion and spoofing write it so).
func fromPrincipal(m *model.Message, principal model.Address) bool {
	if !sameAddr(m.From.Email, principal.Email) {
		return false
	}
	for _, v := range m.Headers["Authentication-Results"] {
		if authFailRe.MatchString(strings.ToLower(v)) {
			return false
		}
	}
	return true
}
