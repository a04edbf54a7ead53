package triage

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// Sources of a triage outcome.
const (
	SourceOllama        = "ollama"
	SourceDeterministic = "deterministic"
)

// Extras are the beyond-contract fields stored with a triage (and served
// by the MCP triage_message tool).
type Extras struct {
	// Intent is what the sender wants: "phishing", "spam", "newsletter",
	// "notification", "meeting", "request", "question", "fyi" or "conversation".
	Intent string `json:"intent"`
	// Urgency is "low", "medium" or "high".
	Urgency string `json:"urgency"`
	// Sentiment is "negative", "neutral" or "positive".
	Sentiment string `json:"sentiment"`
	// Confidence in the category, in [0,1].
	Confidence float64 `json:"confidence"`
	// Route suggests where the thread goes: "quarantine", "respond-now",
	// "reply", "calendar", "read", "read-later".
	Route string `json:"route"`
}

// Outcome is one triage: the contract result plus what mailsift keeps
// beside it.
type Outcome struct {
	Result contract.Result
	// Source is SourceOllama or SourceDeterministic.
	Source string
	// Model is the Ollama model ("" for deterministic).
	Model string
	// FallbackReason says why a deterministic result replaced the model's
	// ("" when the model answered or deterministic was asked for).
	FallbackReason string
	Extras         Extras
	// SpamReasons and PhishingReasons back the flags, for the UI.
	SpamReasons, PhishingReasons []string
	Signals                      []Signal
	// Disagreement is "model: B1 · signals: B2" when the model's bucket
	// (quarantine for spam or phishing, else its category) differs from
	// the deterministic signals' ("" when they agree, or no model answered).
	Disagreement string `json:",omitempty"`
	// Decided says why the signals alone decide this thread with high
	// confidence ("" when they do not): the model is not asked unless the
	// user asks (Input.Force). See decisive.
	Decided string `json:",omitempty"`
	// ModelSkipped is true when a model triager returned the signals'
	// outcome without asking the model because of Decided.
	ModelSkipped bool `json:",omitempty"`
	// Learned are the reasons the user's corrections changed this
	// outcome ("you moved 3 threads from this list to low priority").
	Learned []string `json:",omitempty"`
	// PromptTokens is Ollama's prompt_eval_count of the accepted answer
	// (the tokens it evaluated: those after the prefix its KV cache held),
	// PromptEvalDuration its prompt_eval_duration; Attempts counts chat
	// calls made.
	PromptTokens, Attempts int
	PromptEvalDuration     time.Duration
}

// Deterministic triages a thread (messages oldest first) for principal
// with the shipped spam model and no model call.
func Deterministic(msgs []*model.Message, principal model.Address) *Outcome {
	return NewAnalyzer(nil).Deterministic(msgs, principal)
}

// Deterministic triages a thread (messages oldest first) from signals alone.
func (a *Analyzer) Deterministic(msgs []*model.Message, principal model.Address) *Outcome {
	o, _ := a.deterministic(msgs, principal, nil)
	return o
}

// deterministic is Deterministic with what the mailbox says of the
// senders (nil: nothing), that also returns the analysis.
func (a *Analyzer) deterministic(msgs []*model.Message, principal model.Address, senders Senders) (*Outcome, *analysis) {
	an := a.analyze(msgs, principal, senders)
	o := &Outcome{Source: SourceDeterministic, Signals: an.signals}
	r := &o.Result
	r.ActionItems = []contract.ActionItem{}

	// Your own organisation's authenticated warning about phishing
	// quotes the lures it warns of ("emails saying your password
	// expires today"): a compromised colleague's account sending
	// phishing does not call it phishing.
	phishing := an.phishScore >= 3.5 && an.lure && !(an.internal && an.authAligned && an.latest >= 0 && warnsOfPhishing(msgs[an.latest].Subject, an.latestOwn)) &&
		!colleagueAnswers(an, msgs)
	// The learned score alone does not condemn mail from the principal's own
	// domain (spoofing shows up as an authentication failure instead).
	// Nor mail that greets the principal by name: bulk spam does not know
	// it, and the training corpus knows no modern personal business mail.
	// Nor mail that says it was generated automatically (Auto-Submitted,
	// RFC 3834: receipts, alerts, reminders), unless an independent
	// indicator backs the score. List headers alone do not vouch for a
	// message: spam carries List-Unsubscribe and comes through lists too
	// (a spam-2 recall of 0.89 when they did); list mail needs an aligned
	// DKIM/DMARC pass (authAligned), or to come from a list in the
	// sender's own domain (ownList): spam posted to a discussion list
	// carries that list's headers, not its own domain's.
	learned := an.spamProb >= a.threshold() && (!an.vouched() || an.suspicious > 0)
	// A score that only leans to spam counts when the envelope agrees
	// (see structure): the two stages, words and build, are independent.
	learned = learned || an.structure != 0 && !an.vouched()
	// An unscorable message's score (see minCoverage) still counts with
	// independent support: an indicator or spam wording.
	learned = learned || an.rawSpamProb >= a.threshold() && !an.internal && (an.suspicious > 0 || an.spamPhrases > 0)
	spam := !an.replied && (learned || an.spoofed || an.outreach.reason != "" || (an.spamPhrases >= 2 && an.spamProb >= 0.5) ||
		an.suspicious+min(an.spamPhrases, 1) >= 2)
	if phishing {
		spam = true // phishing is unsolicited mail too
	}
	r.IsPhishing, r.IsSpam = phishing, spam
	for _, s := range an.signals {
		switch {
		case phishing && phishingKinds[s.Kind]:
			o.PhishingReasons = append(o.PhishingReasons, s.Reason)
		case spam && (s.Kind == SigSpamScore || s.Kind == SigSpamPhrase || s.Kind == SigSpamStructure || s.Kind == SigOutreach || s.Kind == SigObfuscatedSender || s.Kind == SigIPLink || s.Kind == SigAuthFail):
			o.SpamReasons = append(o.SpamReasons, s.Reason)
		}
	}
	if spam && len(o.SpamReasons) == 0 {
		if phishing {
			o.SpamReasons = append(o.SpamReasons, "phishing attempt")
		} else {
			o.SpamReasons = append(o.SpamReasons, fmt.Sprintf("content resembles known spam (score %.2f)", an.spamProb))
		}
	}

	// The questions and requests of an automated message are a
	// service's instructions ("If you need to reschedule, please call
	// us", "Something wrong with this email?"), not an ask of the reader,
	// also when it greets the reader by name; unless an ask turns to the
	// reader by name or assigns them something (taskNamed), sets a
	// deadline or asks a decision (asksDecision; a booking's confirmation
	// names the hours of its stay, "check-out until 11:00", not a
	// deadline), or the subject asks or names a decision.
	subject := msgs[max(an.latest, 0)].Subject
	instructions := (autoSubmitted(msgs[max(an.latest, 0)]) || an.notifier || confirmationAddress(msgs[max(an.latest, 0)].From.Email)) && !an.taskNamed && !an.subjectAsks &&
		(!asksDecision(an.items) || bookingConfirmed(subject)) && !namesDecision(subject)
	// Bulk mail from outside the organisation and from no one the reader
	// knows asks everyone on its list, not the reader, unless it turns to
	// the reader by name ("Alex, can you…", "requested your review"): a
	// mail merge's "Hi Alex," greets every reader by their name.
	massAsk := an.bulk && !an.internal && !an.familiar && !an.taskNamed
	direct := (an.addressed || an.named) && (an.questions > 0 || an.requests > 0) && !instructions && !massAsk
	// ownRun: a code host's notice of a workflow run the reader
	// triggered (GitHub's ci_activity reason) on their own branch
	// ("alex/eta-cache-ttl") or deploying to production: its failure is
	// theirs. (The reason alone is not enough: it also comes with runs of
	// others' branches the reader re-ran or approved.)
	ownRun := an.latest >= 0 && (ownBranch(subject, an.firstName) || ciActivity(msgs[an.latest]) && productionRun(subject))
	// ownerCopied: your own organisation's automated notice to a team,
	// with you in Cc (a monitor copying the owner of what it watches).
	ownerCopied := an.internal && (an.ccOnly || an.teamAddressed) && (an.automated || an.bulk)
	recruiter := ""
	if !phishing && !spam {
		recruiter = recruiterPitch(msgs, an)
	}
	switch {
	case phishing || spam:
		r.Category = contract.CategoryLowPriority
	case an.latest < 0:
		// Only the principal wrote in the thread (a sent message waiting
		// for its answer): nobody asks them anything.
		r.Category = contract.CategoryInformational
	case fromPrincipal(msgs[len(msgs)-1], principal):
		// The principal wrote the newest message: what the others asked
		// is answered, the thread waits on them. (Also when the answer
		// promises something, "put it in Personio and I'll approve it":
		// the labeled sets file those as informational too.)
		r.Category = contract.CategoryInformational
	case (an.automated || an.notifier || an.internal) && (an.addressed || an.teamAddressed || an.internal) && !passedNotice(subject) &&
		expiresWithinHoursRe.MatchString(subject):
		// A service saying something of the reader's runs out within
		// hours ("certificate expires in 17h 40m") needs them today.
		r.Category = contract.CategoryUrgent
	case an.addressed && !an.bulk && travelCancelled(subject) && (an.subjectSoon || namesSendDay(subject, msgs[an.latest].Date) ||
		namesSendDay(subject, msgs[an.latest].Date.AddDate(0, 0, 1))):
		// The reader's own flight or train of today or tomorrow was
		// cancelled ("your flight BA478 on 25 November has been
		// cancelled", sent on the 24th): the rebooking cannot wait.
		r.Category = contract.CategoryUrgent
	case (an.automated || an.notifier || monitorAddress(msgs[an.latest].From.Email) && !isListMail(msgs[an.latest])) &&
		(an.addressed || an.teamAddressed || an.ccOnly) && (alertNotice(subject) || stillAlerting(msgs, an.latest)) &&
		!(an.bulk && statusNotice(subject) && !monitorTriggered(subject)):
		// A service's alert to the reader that a problem is live (a page
		// fired or escalated, a monitor down, a secret exposed) needs
		// them now: urgent words or not, that is what the alert is for
		// (also through the service's own list headers: sent to them).
		r.Category = contract.CategoryUrgent
	case recruiter != "":
		o.Signals = append(o.Signals, Signal{Kind: SigOutreach, Reason: recruiter, Message: an.latest})
		r.Category = contract.CategoryLowPriority
	case (an.bulk || an.automated || an.notifier) && ownRun && failureNotice(subject) && productionRun(subject):
		// A run the reader triggered that failed to deploy to
		// production ("Run failed: Deploy production - main") is a live
		// problem of theirs.
		r.Category = contract.CategoryUrgent
	case (an.bulk || an.automated || an.notifier) && (an.addressed || an.teamAddressed || ownRun || ownerCopied) && failureNotice(subject) &&
		(!an.bulk || ownRun || ownerCopied || mentions(msgs[an.latest].Body(), principal)):
		// A notification to the principal that something failed (a build,
		// a renewal, a service) asks for action; through a list (a
		// repository's notifications go to everyone watching it) only
		// when it names the principal (the author of the failing commit,
		// who triggered the run).
		r.Category = contract.CategoryActionable
		if an.subjectSoon || an.urgency > 0 || expiresWithinTwoDays(strings.ToLower(subject)) || ownerCopied && productionRun(subject) {
			// … and that it runs out within the day ("Renewal failed:
			// example.com expires today", "expires in 9h") is urgent, as
			// is your own organisation's monitor copying you on a
			// production failure ("FAILED: nightly backup orders-db-prod").
			r.Category = contract.CategoryUrgent
		}
	case (an.bulk || an.automated || an.notifier) && !direct && ownBranch(subject, an.firstName) && passedNotice(subject):
		// The run of the reader's own branch passed or was fixed
		// ("Run succeeded: CI - alex/eta-cache-ttl"): the result they
		// wait for, worth knowing (others' passing runs are read later).
		r.Category = contract.CategoryInformational
	case (an.bulk || an.teamAddressed) && an.internal && len(msgs) == 1 && !an.otherNamed && !isReplySubject(msgs[0].Subject) &&
		!passedNotice(msgs[0].Subject) && !failureNotice(msgs[0].Subject) && !isDigest(msgs[0].Subject):
		// An announcement of the principal's own organisation to a list
		// (a platform change, a published postmortem, an office closure
		// with what to do about it) is worth knowing; its discussions,
		// digests and the robots' "passed" notices are read later. It is
		// a task when it asks the reader directly, or asks everyone for
		// something by a date ("please fill in the template by
		// Wednesday").
		r.Category = contract.CategoryInformational
		if direct || an.questions+an.requests > 0 && an.hasDeadline() {
			r.Category = contract.CategoryActionable
			if an.subjectSoon && an.soonDeadline {
				// … and the subject says it is due within the day
				// ("Rotate staging credentials by 18:00 today").
				r.Category = contract.CategoryUrgent
			}
		}
	case an.bulk && !direct && (autoSubmitted(msgs[an.latest]) || an.notifier) &&
		(statusNotice(msgs[an.latest].Subject) || incidentResolved(msgs[an.latest].Subject)):
		// A provider's automatic notice of an incident or maintenance (a
		// status page's mailing, resolved or not: "[Resolved] Delayed
		// outbound processing") is worth knowing; a newsletter that talks
		// about incidents is not one.
		r.Category = contract.CategoryInformational
	case (an.bulk || an.automated || an.notifier) && !direct && serviceChangeNotice(subject):
		// A service telling its customer that its prices, terms or
		// features change ("Upcoming changes to Mapbox pricing") is
		// worth knowing, unlike its marketing.
		r.Category = contract.CategoryInformational
	case (an.bulk || an.automated || an.notifier) && !direct && an.latest >= 0 &&
		(slices.Contains(codeHostReasons(msgs[an.latest]), "author") || reportedBy(an.latestOwn, an.firstName)):
		// A code host's notice about the reader's own pull request or
		// issue (GitHub's reason "author": a review, a comment, a merge),
		// or a tracker's about an issue the reader reported ("Reporter:
		// Alex Morgan"), is worth knowing, unlike the project's other
		// traffic; a question in it is put to its author.
		r.Category = contract.CategoryInformational
		if an.questions > 0 {
			r.Category = contract.CategoryActionable
		}
	case an.bulk && !direct && !(an.taskNamed && an.addressed):
		r.Category = contract.CategoryLowPriority
	case (an.automated || an.notifier) && !direct && !an.taskNamed && an.questions+an.requests == 0 && !an.soonDeadline &&
		toolNotice(msgs[an.latest]) && !failureNotice(subject) && !alertNotice(subject):
		// A collaboration tool's notice that asks nothing (an issue
		// updated, a recording ready, a page edited) is read later, like
		// its digests.
		r.Category = contract.CategoryLowPriority
	case (an.automated || an.notifier || toolNotice(msgs[an.latest])) && !direct && isDigest(subject):
		// A digest of updates (a tracker's daily digest, a weekly
		// summary) is read later, like list mail.
		r.Category = contract.CategoryLowPriority
	case (an.automated || an.notifier) && !direct && passedNotice(subject) &&
		!statusNotice(subject) && !incidentResolved(subject):
		// A monitor or a pipeline saying something passed or recovered
		// asks nothing of anyone (a provider's incident notice, resolved
		// or not, stays worth knowing).
		r.Category = contract.CategoryLowPriority
	case !an.bulk && !an.notifier && (an.addressed && (direct || an.internal || an.familiar || an.replied) ||
		an.ccOnly && (an.soonDeadline || an.taskNamed) && an.questions+an.requests > 0) &&
		(!autoSubmitted(msgs[an.latest]) || an.internal) && liveIncident(msgs):
		// A person asking the reader something about a live problem (an
		// alert that fired, an outage, a suspended account, a suspicious
		// sign-in) needs them now: calm words or not, the problem is
		// running while the question waits. So does a report of one from
		// a known correspondent or a colleague ("Tráfico saliente anómalo
		// desde platform-prod – nodo aislado"), and, with the reader in
		// Cc, an ask of the day about it ("Ich brauche bis 10 Uhr eine
		// Einschätzung") or one turned to them by name ("Alex, we need a
		// decision on failing over"). Your own organisation's automated
		// notice of one (its security monitoring revoking your sessions)
		// counts as a colleague's; a vendor's automated incident notice
		// does not.
		r.Category = contract.CategoryUrgent
	case an.addressed && !an.bulk && (an.soonDeadline && (direct || an.urgency > 0) || an.urgency > 0 && (direct || an.automated) && !lookedBack(subject) && !plannedWork(subject) ||
		an.subjectSoon && !deliveryNotice(subject) && !absenceNotice(subject)) ||
		an.named && !an.bulk && direct && an.soonDeadline:
		// (In Cc, an ask that turns to the reader by name with a deadline
		// within the day is theirs as much.)
		r.Category = contract.CategoryUrgent
	case (an.automated || an.notifier) && (an.addressed || an.teamAddressed) && !an.bulk && expiresWithinDaysRe.MatchString(subject):
		// "Your personal access token expires in 7 days": something of
		// the reader's runs out soon unless they renew it.
		r.Category = contract.CategoryActionable
	case an.calendar && isCalendarNotice(subject):
		// A response to an invitation or a cancellation: nothing to answer.
		r.Category = contract.CategoryInformational
	case an.calendar && !direct && an.latest >= 0 && noResponseNeeded(subject+"\n"+an.latestOwn):
		// An invitation sent for information ("Booth duty - Alex (FYI,
		// no response needed)", "[HOLD - FYI only]"): a date to know,
		// nothing to answer.
		r.Category = contract.CategoryInformational
	case an.calendar || direct || (an.addressed && len(an.items) > 0 && !instructions) ||
		an.taskNamed && an.addressed:
		// (A task said to be the reader's, "Lena assigned ROUTE-4412 to
		// you", is theirs to do whether or not the notice asks.)
		r.Category = contract.CategoryActionable
	case an.replied && an.addressed && !an.bulk && !an.automated &&
		an.hasDeadline():
		// In a conversation the principal takes part in, a due date the
		// other side names ("the earliest one is due December 5") is
		// theirs to keep.
		r.Category = contract.CategoryActionable
	default:
		r.Category = contract.CategoryInformational
	}
	if (r.Category == contract.CategoryUrgent || r.Category == contract.CategoryActionable) &&
		!an.bulk && !an.automated && !an.notifier && !an.calendar && an.questions+an.requests == 0 && !an.taskNamed &&
		!(an.replied && an.hasDeadline()) && thankedClosure(an.latestOwn) {
		// A person thanking the reader for something done and asking
		// nothing ("Je vous confirme que le correctif fonctionne…
		// Merci", "Thanks Alex for taking my shift") closes the thread:
		// the urgent subject it answers is the first message's state. (A
		// due date named in a conversation the reader is in stays theirs
		// to keep.)
		r.Category = contract.CategoryInformational
	}
	// What the others asked before the principal's own newest message is
	// answered: not an action item any more.
	answered := fromPrincipal(msgs[len(msgs)-1], principal)
	if !phishing && !spam && r.Category != contract.CategoryLowPriority && !instructions && !answered {
		r.ActionItems = append(r.ActionItems, an.items...)
		if an.calendar && len(r.ActionItems) == 0 && r.Category == contract.CategoryActionable {
			r.ActionItems = append(r.ActionItems, contract.ActionItem{Description: "Respond to the meeting invitation"})
		}
	}
	var ask string
	var asker model.Address
	r.Summary, ask, asker = a.summary(msgs, an, phishing || spam)
	if ask != "" && r.Category != contract.CategoryLowPriority && !instructions && !answered {
		r.ActionItems = withAsk(r.ActionItems, ask, asker)
	}
	o.Extras = extras(r, an)
	o.Decided = decisive(r, an, msgs)
	if why := marksMoved(an, a.threshold(), r.IsSpam); why != "" {
		o.Learned = append(o.Learned, why)
		if r.IsSpam {
			o.SpamReasons = append(o.SpamReasons, why)
		}
	}
	a.learner.apply(o, msgs, principal)
	if len(o.Learned) > 0 {
		// What the user taught is a preference the model should see.
		o.Decided = ""
	}
	return o, an
}

// stillAlerting reports whether the latest message is a service's
// follow-up of an alert it raised earlier in the thread ("REMINDER: …
// is still open" after "ESCALATED: …") that does not say the problem is
// over.
func stillAlerting(msgs []*model.Message, latest int) bool {
	if latest <= 0 {
		return false
	}
	m := msgs[latest]
	if passedNotice(m.Subject) || incidentResolved(m.Subject) {
		return false
	}
	for _, o := range msgs[:latest] {
		if strings.EqualFold(o.From.Email, m.From.Email) && alertNotice(o.Subject) {
			return true
		}
	}
	return false
}

// marksMoved says how the words of the user's spam and not-spam marks
// moved the learned score across the threshold thr, when the verdict
// (spam) is the side the marks moved it to: "your not-spam marks of
// similar mail lowered the spam score (0.998 → 0.310)". "" when the marks
// did not change which side the score is on, or the verdict was decided
// by something else.
func marksMoved(an *analysis, thr float64, spam bool) string {
	if an.shippedProb < 0 || an.unscorable() || an.vouched() && an.suspicious == 0 {
		// (vouched mail is not condemned by the score either way)
		return ""
	}
	before, after := an.shippedProb >= thr, an.spamProb >= thr
	switch {
	case before && !after && !spam:
		return fmt.Sprintf("your not-spam marks of similar mail lowered the spam score (%.3f → %.3f)", an.shippedProb, an.spamProb)
	case !before && after && spam:
		return fmt.Sprintf("your spam marks of similar mail raised the spam score (%.3f → %.3f)", an.shippedProb, an.spamProb)
	}
	return ""
}

// decisionWords in an ask make it the reader's decision or sign-off
// (lower-case substrings, five languages): an automated message asking
// one (a workflow tool's "Please approve the two pending requests") asks
// the reader, unlike a service's instructions.
var decisionWords = []string{"approve", "approval", "review", "sign ", "docusign", "decide", "accept the", "accept your",
	"resubmit", "re-submit", "erneut einreichen", "soumettre à nouveau", "volver a enviar",
	"choose", "select", "assigned",
	"genehmig", "freigeb", "freigabe", "prüfen", "unterschreib", "entscheid", "wählen", "zugewiesen",
	"approuv", "valider", "validation", "signer", "décid", "choisi", "sélectionn", "assigné",
	"aprob", "revis", "firmar", "decid", "elegir", "elija", "seleccion", "asignad",
	"承認", "署名", "決裁", "選択", "選んで", "割り当て"}

// namesDecision reports whether s names a decision or a sign-off (see
// decisionWords).
func namesDecision(s string) bool {
	low := strings.ToLower(s)
	if _, done := containsAnyOf(low, decisionsMade); done {
		return false
	}
	_, ok := containsAnyOf(low, decisionWords)
	return ok
}

// decisionsMade say a decision or a sign-off was made already ("Expense
// report approved", 経費精算が承認されました): it names no decision to
// make.
var decisionsMade = []string{"approved", "has been signed", "was signed", "were signed", "completed:", "genehmigt wurde",
	"wurde genehmigt", "wurde freigegeben", "a été approuvé", "a été validé", "ha sido aprobad", "fue aprobad",
	"承認されました", "承認済", "承認が完了"}

// asksDecision reports whether one of items asks for a decision or a
// sign-off (see decisionWords), or sets a deadline (a date or an hour,
// not just "today": "your parcel arrives today, not home?" is a
// service's instruction): a service's instructions name none.
func asksDecision(items []contract.ActionItem) bool {
	for _, it := range items {
		if it.DueHint != nil && strings.ContainsAny(*it.DueHint, "0123456789") {
			return true
		}
		if namesDecision(it.Description) {
			return true
		}
	}
	return false
}

// mentions reports whether text names p: the address, the display name,
// or the address's local part as user names write it ("alex.morgan",
// "alex-morgan", "alex_morgan", "alexmorgan"), ignoring case.
func mentions(text string, p model.Address) bool {
	if len(text) > maxAnalyzed {
		text = text[:maxAnalyzed]
	}
	low := strings.ToLower(text)
	var names []string
	if n := strings.ToLower(strings.TrimSpace(p.Name)); strings.Contains(n, " ") {
		names = append(names, n)
	}
	if at := strings.IndexByte(p.Email, '@'); at > 0 {
		local := strings.ToLower(p.Email[:at])
		names = append(names, strings.ToLower(p.Email), local)
		for _, sep := range []string{"-", "_", ""} {
			names = append(names, strings.NewReplacer(".", sep, "-", sep, "_", sep).Replace(local))
		}
	}
	for _, n := range names {
		if len(n) >= 4 && strings.Contains(low, n) {
			return true
		}
	}
	return false
}

// decisive says why the signals decide a thread with high confidence, so
// that asking the model adds nothing worth its time ("" when they do not):
//   - phishing, or spam on evidence beyond the learned score (an
//     authentication failure, obfuscation, raw-IP links, spam wording):
//     the model cannot release it (its verdict only joins theirs);
//   - bulk mail that asks the principal nothing (newsletters, list
//     traffic), which goes to Low priority;
//   - a notification that something passed or recovered (CI passes,
//     resolved incidents);
//   - automated mail with no question, request, deadline, urgency or
//     failure in it (receipts, shipping notices, statements).
//
// A thread the principal has written in is never decided: it is a
// conversation.
func decisive(r *contract.Result, an *analysis, msgs []*model.Message) string {
	if an.replied || an.latest < 0 || an.injection {
		return ""
	}
	subject := msgs[an.latest].Subject
	low := strings.ToLower(subject)
	_, passed := containsAnyOf(low, resolvedWords)
	ask := an.questions+an.requests > 0 || an.calendar || an.soonDeadline || an.urgency > 0 ||
		an.hasDeadline()
	switch {
	case r.IsPhishing || r.IsSpam && (an.suspicious > 0 || an.spoofed || an.spamPhrases >= 2):
		return "quarantined by the signals on independent evidence"
	case r.IsSpam:
		return "" // the learned score alone: the model's summary may help the user judge it
	case (an.bulk || an.automated) && passed && !failureNotice(subject):
		return "a notification that something passed or recovered"
	case an.bulk && r.Category == contract.CategoryLowPriority && !ask:
		return "bulk mail that asks you nothing"
	case an.automated && !an.bulk && !ask && !failureNotice(subject) &&
		(r.Category == contract.CategoryInformational || r.Category == contract.CategoryLowPriority):
		return "an automated notification with no question, request or failure"
	}
	return ""
}

func (a *Analyzer) threshold() float64 {
	if a.spam == nil {
		return 2 // never
	}
	return a.spam.Threshold()
}

// summary is extractive: subject, sender, message count and, from the
// latest message from others, the sentences that carry its ask and its
// deadline (see askSentences), else its first meaningful sentence. Spam
// and phishing keep the first sentence: their ask is the lure. It also
// returns the sentence that asks ("" when none does, or quarantined) and
// who asked it: when the latest message asks nothing, the ask it leaves
// open (see carryOpenAsks) is the thread's.
func (a *Analyzer) summary(msgs []*model.Message, an *analysis, quarantined bool) (string, string, model.Address) {
	if len(msgs) == 0 {
		return "Empty thread.", "", model.Address{}
	}
	subject := strings.TrimSpace(msgs[0].Subject)
	for _, m := range msgs {
		if s := strings.TrimSpace(m.Subject); s != "" {
			subject = s
			break
		}
	}
	if subject == "" {
		subject = "(no subject)"
	}
	latest := msgs[len(msgs)-1]
	if an.latest >= 0 {
		latest = msgs[an.latest]
	}
	sender := latest.From.Name
	if sender == "" {
		sender = latest.From.Email
	}
	var sb strings.Builder
	sb.WriteString(truncateRunes(subject, 100))
	if sender != "" {
		sb.WriteString(" — from ")
		sb.WriteString(truncateRunes(sender, 60))
	}
	if n := len(msgs); n > 1 {
		fmt.Fprintf(&sb, " (%d messages)", n)
	}
	var quote []string
	var ask string
	asker := latest.From
	if !quarantined && an.latest >= 0 {
		var skip func(string) bool
		if an.injection {
			skip = a.phrases.containsInjection
		}
		// an.latestOwn is ownText(latest.Body()): bodySignals cut the body
		// at maxAnalyzed bytes, as ownText does.
		quote, ask = askSentences(an.latestOwn, skip)
		if len(quote) == 0 && an.openAsk >= 0 {
			// A follow-up that asks nothing itself: the ask it leaves
			// open is the thread's (see carryOpenAsks).
			body := msgs[an.openAsk].Body()
			if len(body) > maxAnalyzed {
				body = body[:maxAnalyzed]
			}
			quote, ask = askSentences(ownText(body), skip)
			asker = msgs[an.openAsk].From
		}
	}
	switch {
	case len(quote) > 0:
		sb.WriteString(": ")
		for i, q := range quote {
			if i > 0 {
				sb.WriteString(" ")
			}
			sb.WriteString(truncateRunes(q, 200))
		}
	case an.firstLine != "":
		sb.WriteString(": ")
		sb.WriteString(truncateRunes(an.firstLine, 200))
	default:
		sb.WriteString(".")
	}
	return sb.String(), ask, asker
}

// extras derives intent, urgency, sentiment, confidence and route.
func extras(r *contract.Result, an *analysis) Extras {
	e := Extras{Urgency: "low", Sentiment: "neutral"}
	switch {
	case r.IsPhishing:
		e.Intent = "phishing"
	case r.IsSpam:
		e.Intent = "spam"
	case an.bulk:
		e.Intent = "newsletter"
	case an.automated:
		e.Intent = "notification"
	case an.calendar || an.meeting && an.questions > 0:
		e.Intent = "meeting"
	case an.requests > 0:
		e.Intent = "request"
	case an.questions > 0:
		e.Intent = "question"
	case an.replied:
		e.Intent = "conversation"
	default:
		e.Intent = "fyi"
	}
	switch r.Category {
	case contract.CategoryUrgent:
		e.Urgency = "high"
	case contract.CategoryActionable:
		e.Urgency = "medium"
	}
	switch {
	case an.negative > an.positive:
		e.Sentiment = "negative"
	case an.positive > an.negative:
		e.Sentiment = "positive"
	}
	switch {
	case r.IsPhishing || r.IsSpam:
		e.Route = "quarantine"
	case r.Category == contract.CategoryUrgent:
		e.Route = "respond-now"
	case r.Category == contract.CategoryActionable && (an.calendar || e.Intent == "meeting"):
		e.Route = "calendar"
	case r.Category == contract.CategoryActionable:
		e.Route = "reply"
	case r.Category == contract.CategoryInformational:
		e.Route = "read"
	default:
		e.Route = "read-later"
	}
	// Confidence: how many independent signals back the decision.
	c := 0.45
	switch {
	case r.IsPhishing:
		c = 0.6 + 0.05*min(an.phishScore, 7)
	case r.IsSpam:
		c = 0.5 + 0.4*an.spamProb
	case an.bulk:
		c = 0.75
	case an.calendar || an.soonDeadline && an.requests+an.questions > 0:
		c = 0.7
	case an.requests+an.questions > 0:
		c = 0.6
	}
	e.Confidence = min(max(c, 0), 0.95)
	return e
}

// MaxAnalyzedMessages bounds the work of deterministic triage on a giant
// thread: only the newest messages are scanned for content and header
// signals (each body is already capped at maxAnalyzed bytes). Who wrote
// which message is still checked over the whole thread, which is cheap.
const MaxAnalyzedMessages = 100

// hasDeadline reports whether the analysis found a deadline (SigDeadline).
func (an *analysis) hasDeadline() bool {
	return slices.ContainsFunc(an.signals, func(s Signal) bool { return s.Kind == SigDeadline })
}

// colleagueAnswers reports whether the thread's latest message is a
// colleague's (the principal's own domain) that carries no phishing
// evidence of its own, below earlier messages that do: a colleague
// writing in the thread ("I've updated the card, no need to pay twice")
// vouches that the service's notice above is real, or talks about it;
// either way the thread is theirs, not a lure.
//
// (A reply's subject repeats the notice's: its words are the notice's,
// not the colleague's.)
func colleagueAnswers(an *analysis, msgs []*model.Message) bool {
	if !an.internal || an.latest <= 0 {
		return false
	}
	subject := msgs[an.latest].Subject
	reply := isReplySubject(subject)
	subject = strings.ToLower(subject)
	earlier := false
	for _, s := range an.signals {
		if !phishingKinds[s.Kind] {
			continue
		}
		if s.Message == an.latest && !(reply && s.Value != "" && strings.Contains(subject, s.Value)) {
			return false
		}
		earlier = true
	}
	return earlier
}
