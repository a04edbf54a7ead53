package triage

import (
	"strings"

	"mailsift/drafts"
	"mailsift/model"
	"mailsift/model/contract"
)

// outcome combines a validated model answer with the deterministic
// triage of the same thread (msgs, oldest first).
//
// The model never erases evidence: is_spam and is_phishing are the union
// of the model's verdict and the signals' verdicts, with the signals'
// reasons. The signals' verdicts are the deterministic rules, which
// already ask for corroboration (phishing: a lure plus a weighted
// phishing score of 3.5; spam: the learned score outside the principal's
// domain, or two independent indicators), not single signals, so they are
// the high-confidence ones. When the signals flag a thread the model took
// for legitimate, the signals' bucket and no action items are kept: the
// model's reading of a mail it did not see through is not acted on. A
// bucket the two disagree on is recorded in Disagreement. The model's
// draft is grounded in the thread (see groundDraft), and so are its
// summary and action items: one that names an email address, a link or an
// amount the thread does not hold is flagged with an SigUngrounded signal
// (a reason shown like the others); such an action item is dropped and
// such a summary replaced by the deterministic one, so the contract answer
// never passes on a name the model made up (or was fed by an injection).
func (o *Ollama) outcome(res *contract.Result, an *analysis, det *Outcome, msgs []*model.Message, principal model.Address) *Outcome {
	// Signals is a copy: grounding adds to it, and an.signals is shared.
	out := &Outcome{Result: *res, Source: SourceOllama, Model: o.opts.Model, Signals: append([]Signal(nil), an.signals...)}
	r := &out.Result
	if r.ActionItems == nil {
		r.ActionItems = []contract.ActionItem{}
	}
	if mb, sb := bucket(res), bucket(&det.Result); mb != sb {
		out.Disagreement = "model: " + mb + " · signals: " + sb
	}
	added := det.Result.IsPhishing && !res.IsPhishing || det.Result.IsSpam && !res.IsSpam
	r.IsPhishing = res.IsPhishing || det.Result.IsPhishing
	r.IsSpam = res.IsSpam || det.Result.IsSpam
	if added {
		r.Category = det.Result.Category
		r.ActionItems = []contract.ActionItem{}
	}
	switch {
	case det.Result.IsPhishing:
		out.PhishingReasons = append([]string(nil), det.PhishingReasons...)
	case r.IsPhishing:
		for _, s := range an.signals {
			if phishingKinds[s.Kind] {
				out.PhishingReasons = append(out.PhishingReasons, s.Reason)
			}
		}
		if len(out.PhishingReasons) == 0 {
			out.PhishingReasons = []string{"the model judged this phishing"}
		}
	}
	switch {
	case det.Result.IsSpam:
		out.SpamReasons = append([]string(nil), det.SpamReasons...)
	case r.IsSpam:
		for _, s := range an.signals {
			if s.Kind == SigSpamScore || s.Kind == SigSpamPhrase {
				out.SpamReasons = append(out.SpamReasons, s.Reason)
			}
		}
		if len(out.SpamReasons) == 0 {
			out.SpamReasons = []string{"the model judged this spam"}
		}
	}
	facts := factsOf(msgs, principal)
	last := max(len(msgs)-1, 0)
	if bad := facts.ungrounded(r.Summary, true); len(bad) > 0 {
		o.log.Warn("triage: model summary names what the thread does not hold", "names", bad)
		out.Signals = append(out.Signals, ungroundedSignal(bad, "summary", "the thread's own summary is shown instead", last))
		r.Summary = det.Result.Summary
	}
	kept := r.ActionItems[:0:0]
	for _, it := range r.ActionItems {
		due := ""
		if it.DueHint != nil {
			due = *it.DueHint
		}
		if bad := facts.ungrounded(it.Description+"\n"+due, true); len(bad) > 0 {
			o.log.Warn("triage: model action item names what the thread does not hold: dropped", "names", bad)
			out.Signals = append(out.Signals, ungroundedSignal(bad, "action item", "dropped", last))
			continue
		}
		kept = append(kept, it)
	}
	r.ActionItems = kept
	var sig *Signal
	r.Draft, sig = o.groundDraft(res.Draft, r, an, msgs, principal, facts)
	if sig != nil {
		sig.Message = last
		out.Signals = append(out.Signals, *sig)
	}
	out.Extras = extras(r, an)
	if r.Category == det.Result.Category {
		out.Extras.Confidence = 0.85
	} else {
		out.Extras.Confidence = 0.6
	}
	return out
}

// bucket is where a result puts a thread: "quarantine" for spam or
// phishing (as the inbox sections do), else its category.
func bucket(r *contract.Result) string {
	if r.IsSpam || r.IsPhishing {
		return "quarantine"
	}
	return r.Category
}

// groundDraft rebuilds the model's draft from the thread, as the drafts
// package addresses a reply: to the sender of the latest message not from
// the principal (its Reply-To when set), under that message's "Re:"
// subject; only the body is the model's. A draft the model addressed to
// anyone else is dropped (and logged), and so is any draft for spam,
// phishing, bulk mail or a no-reply sender: the contract answer that
// scripts and agents read never proposes mailing an address the thread
// did not give. The draft has no cc: a second address in To is checked
// like the first. A body that names an email address or a link the thread
// does not hold ("please send it to x@elsewhere") is dropped too, rather
// than kept with a warning, because a draft is one confirmation away from
// being sent and the body is what the recipient acts on. A draft dropped
// for naming an address outside the thread comes back with the
// SigUngrounded signal that says so (nil otherwise).
func (o *Ollama) groundDraft(d *contract.DraftReply, r *contract.Result, an *analysis, msgs []*model.Message, principal model.Address, facts *threadFacts) (*contract.DraftReply, *Signal) {
	if d == nil || len(msgs) == 0 {
		return nil, nil
	}
	rcpt := drafts.ComputeRecipients(&model.Thread{Messages: msgs}, principal, false).To
	drop := ""
	switch {
	case r.IsSpam || r.IsPhishing:
		drop = "spam or phishing"
	case an.bulk:
		drop = "bulk mail"
	case len(rcpt) == 0:
		drop = "no one to reply to"
	}
	for _, a := range rcpt {
		if drop == "" && noReplyAddress(a.Email) {
			drop = "no-reply sender"
		}
	}
	if drop != "" {
		o.log.Info("triage: model draft dropped", "why", drop)
		return nil, nil
	}
	want := make(map[string]bool, len(rcpt))
	for _, a := range rcpt {
		want[strings.ToLower(strings.TrimSpace(a.Email))] = true
	}
	var outside []string
	for _, a := range d.To {
		if !want[strings.ToLower(strings.TrimSpace(a.Email))] {
			outside = append(outside, a.Email)
		}
	}
	if len(outside) > 0 {
		o.log.Warn("triage: model draft addressed outside the thread's reply recipients dropped", "to", outside)
		s := ungroundedSignal(outside, "draft reply", "addressed outside the reply's recipients, dropped", 0)
		return nil, &s
	}
	if bad := facts.ungrounded(d.Body, false); len(bad) > 0 {
		o.log.Warn("triage: model draft whose body names what the thread does not hold dropped", "names", bad)
		s := ungroundedSignal(bad, "draft reply", "dropped", 0)
		return nil, &s
	}
	out := &contract.DraftReply{Subject: drafts.ReplySubject(msgs[len(msgs)-1].Subject), Body: d.Body}
	for _, a := range rcpt {
		ca := contract.Address{Email: a.Email}
		if a.Name != "" {
			name := a.Name
			ca.Name = &name
		}
		out.To = append(out.To, ca)
	}
	return out, nil
}

// noReplyAddress reports whether an address says it takes no replies:
// its local part (without a +tag, ignoring '-', '_' and '.') starts with
// "noreply" or "donotreply".
func noReplyAddress(email string) bool {
	local, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(email)), "@")
	local, _, _ = strings.Cut(local, "+")
	local = strings.NewReplacer("-", "", "_", "", ".", "").Replace(local)
	return strings.HasPrefix(local, "noreply") || strings.HasPrefix(local, "donotreply")
}
