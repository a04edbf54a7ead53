package drafts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"

	"mailsift/model"
	"mailsift/model/contract"
)

// Policy is the drafting policy (config [drafts]).
type Policy struct {
	// Tone is "neutral", "friendly", "formal" or "concise".
	Tone string
	// Length is "short", "medium" or "long".
	Length string
	// Signature is appended to every draft (by mailsift, not the model).
	Signature string
	// Language is a language tag, or "auto"/"" to match the thread.
	Language string
	// NeverPromise lists things a draft must never commit to.
	NeverPromise []string
}

// GenerateRequest is what a Generator gets: the thread (untrusted), the
// principal and the policy.
type GenerateRequest struct {
	// Thread is the thread, oldest first. From Engine.NewDraft only its
	// newest MaxPromptMessages messages carry bodies (store.ThreadHeaders).
	Thread    *model.Thread
	Principal model.Address
	Policy    Policy
	// ReplyTo is the message being answered.
	ReplyTo *model.Message
	// StyleExamples are bodies of the principal's own earlier replies
	// (from the Sent mailbox, other threads) most like this thread: the
	// prompt shows them, fenced as data, for the principal's voice.
	StyleExamples []string
	// Goal is the requester's instruction for the reply (an agent's
	// goal, from MCP draft_reply_with_policy; "" for none). It is not
	// mail: the prompt shows it after the fence, labelled as the
	// requester's, cleaned and bounded (CleanGoal). It never changes the
	// recipients, which Generate computes.
	Goal string
}

// GeneratedReply is a model's answer (contract: body, risk_flags,
// cited_message_ids, needs_human_approval).
type GeneratedReply struct {
	Body               string   `json:"body"`
	RiskFlags          []string `json:"risk_flags"`
	CitedMessageIDs    []string `json:"cited_message_ids"`
	NeedsHumanApproval bool     `json:"needs_human_approval"`
}

// Generator writes a reply body; recipients and headers are never its job.
type Generator interface {
	GenerateReply(ctx context.Context, req GenerateRequest) (*GeneratedReply, error)
	// Name identifies the generator in the draft's Source ("ollama").
	Name() string
}

// GenerateOptions tune Generate; nil means a template reply to the sender.
type GenerateOptions struct {
	// ReplyAll replies to the sender plus the To and Cc of the message.
	ReplyAll bool
	// Generator writes the body; nil (or a failing generator) gives the
	// offline template draft.
	Generator Generator
	// Triage is the stored triage of the thread (for phishing/spam flags).
	Triage *contract.Result
	// From is the sending identity; zero means the principal.
	From model.Address
	// Account is the sending account name ("" = default).
	Account string
	// Logger receives warnings (model failures); nil discards.
	Logger *slog.Logger
	// StyleExamples are passed to the generator (GenerateRequest).
	StyleExamples []string
	// Goal is the requester's instruction, passed to the generator
	// (GenerateRequest.Goal).
	Goal string
}

// Risk flag codes. Model-reported flags are added as "model: <text>".
const (
	RiskRecipientOutsideThread = "recipient_outside_thread"
	// RiskReplyToMismatch: the message answered asks for replies to go
	// to an address other than its sender (Reply-To differs from From).
	RiskReplyToMismatch   = "reply_to_differs_from_sender"
	RiskPhishingThread    = "phishing_thread"
	RiskSpamThread        = "spam_thread"
	RiskMoney             = "money_mentioned"
	RiskCredentials       = "credentials_mentioned"
	RiskAttachmentMissing = "attachment_mentioned_but_none_attached"
	RiskEmptyBody         = "empty_body"
	RiskShortBody         = "very_short_body"
	RiskModelFallback     = "model_unavailable_template_used"
)

// Generate drafts a reply to the thread under the policy. Recipients,
// subject and threading headers are computed, never generated. Without a
// generator, or when it fails, the draft is the offline template. The
// draft is not stored (see Engine.NewDraft / SaveDraft).
func Generate(ctx context.Context, thread *model.Thread, principal model.Address, policy Policy, opts *GenerateOptions) (*Draft, error) {
	if thread == nil || len(thread.Messages) == 0 {
		return nil, errors.New("drafts: cannot reply to an empty thread")
	}
	if opts == nil {
		opts = &GenerateOptions{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	last := thread.Messages[len(thread.Messages)-1]
	rcpt := ComputeRecipients(thread, principal, opts.ReplyAll)
	irt, refs := Threading(last)
	from := opts.From
	if from.Email == "" {
		from = principal
	}
	d := &Draft{
		ThreadID:      thread.ID,
		Account:       opts.Account,
		From:          from,
		To:            rcpt.To,
		Cc:            rcpt.Cc,
		Subject:       ReplySubject(last.Subject),
		InReplyTo:     irt,
		References:    refs,
		ReplyAll:      opts.ReplyAll,
		NeedsApproval: true,
		Source:        "template",
	}
	var modelFlags []string
	if opts.Generator != nil {
		rep, err := opts.Generator.GenerateReply(ctx, GenerateRequest{Thread: thread, Principal: principal, Policy: policy, ReplyTo: replyTarget(thread, principal),
			StyleExamples: opts.StyleExamples, Goal: opts.Goal})
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("drafts: generate reply: %w", ctx.Err())
			}
			log.Warn("drafts: model draft failed; using the template", "err", err)
			modelFlags = append(modelFlags, RiskModelFallback)
		} else {
			d.Source = opts.Generator.Name()
			d.Body = withSignature(strings.TrimSpace(rep.Body), policy.Signature)
			d.CitedMessageIDs = knownIDs(thread, rep.CitedMessageIDs)
			for _, f := range rep.RiskFlags {
				if f = strings.TrimSpace(cleanLine(f)); f != "" && len(modelFlags) < 8 {
					if len(f) > 120 {
						f = f[:120]
					}
					modelFlags = append(modelFlags, "model: "+f)
				}
			}
		}
	}
	if d.Source == "template" {
		d.Body = TemplateBody(thread, principal, policy)
		d.CitedMessageIDs = []string{irt}
	}
	d.RiskFlags = append(RiskFlags(d, thread, opts.Triage), modelFlags...)
	return d, nil
}

// knownIDs keeps only the cited ids that are messages of the thread.
func knownIDs(t *model.Thread, ids []string) []string {
	in := map[string]bool{}
	for _, m := range t.Messages {
		in[m.MessageID] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		id = strings.Trim(strings.TrimSpace(id), "<>")
		if in[id] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func withSignature(body, sig string) string {
	sig = strings.TrimSpace(sig)
	if sig == "" || strings.Contains(body, sig) {
		return body
	}
	return body + "\n\n" + sig
}

// TemplateBody is the offline draft: a greeting with the sender's first
// name, a short acknowledgement that names the latest message's subject,
// and the signature.
func TemplateBody(t *model.Thread, principal model.Address, p Policy) string {
	m := replyTarget(t, principal)
	name := FirstName(m.From)
	if lowerEmail(m.From) == lowerEmail(principal) && len(m.To) > 0 {
		name = FirstName(m.To[0])
	}
	subj := strings.TrimSpace(cleanLine(t.Messages[len(t.Messages)-1].Subject))
	subj = strings.TrimSpace(rePrefix.ReplaceAllString(subj, ""))
	if subj == "" {
		subj = "your message"
	} else {
		subj = "“" + subj + "”"
	}
	var greet, body string
	switch p.Tone {
	case "formal":
		greet = "Dear " + name + ","
		if name == "" {
			greet = "Hello,"
		}
		body = "Thank you for your message regarding " + subj + ". I have received it and will reply in full as soon as I can."
	case "concise":
		greet = "Hi " + name + ","
		body = "Thanks for " + subj + " — received; I'll follow up."
	default:
		greet = "Hi " + name + ","
		body = "Thanks for your message about " + subj + ". I've read it and will get back to you with a proper answer."
	}
	if name == "" && p.Tone != "formal" {
		greet = "Hi,"
	}
	return withSignature(greet+"\n\n"+body, p.Signature)
}

var (
	reMoney  = regexp.MustCompile(`(?i)([$€£¥]\s?\d|\d[\d,.]*\s?(usd|eur|gbp|dollars?|euros?|pounds)\b|\b(wire transfer|bank transfer|bank account|iban|swift|routing number|gift cards?|bitcoin|btc|crypto|invoice|payment|refund|pay (you|me|us)|money)\b)`)
	reCreds  = regexp.MustCompile(`(?i)\b(passwords?|passcodes?|passphrase|credentials?|log-?in details|username and password|pin( code)?|2fa|mfa|one[- ]time (code|password)|otp|verification code|security code|api key|access token|secret key)\b`)
	reAttach = regexp.MustCompile(`(?i)\b(attached|attachments?|enclosed|i('ve| have)? attach|see the attach|find attached|attaching)\b`)
)

// RiskFlags computes the risk flags of a draft against its thread and the
// thread's triage: a recipient who is not a participant of the thread
// (see participants), a message answered whose Reply-To differs from its
// From, a phishing or spam thread, money or credentials mentioned (in the
// draft or the message answered), an attachment mentioned but none
// attached (drafts carry none), a very short or empty body. Call it again
// after edits.
func RiskFlags(d *Draft, t *model.Thread, tri *contract.Result) []string {
	var flags []string
	if t != nil {
		in := participants(t)
		for _, a := range append(append(append([]model.Address{}, d.To...), d.Cc...), d.Bcc...) {
			if !in[lowerEmail(a)] {
				flags = append(flags, RiskRecipientOutsideThread)
				break
			}
		}
		if m := answered(d, t); m != nil && lowerEmail(m.From) != lowerEmail(d.From) && replyToDiffers(m) {
			flags = append(flags, RiskReplyToMismatch)
		}
	}
	if tri != nil && tri.IsPhishing {
		flags = append(flags, RiskPhishingThread)
	}
	if tri != nil && tri.IsSpam {
		flags = append(flags, RiskSpamThread)
	}
	text := d.Subject + "\n" + d.Body
	if t != nil && len(t.Messages) > 0 {
		text += "\n" + t.Messages[len(t.Messages)-1].Body()
	}
	if reMoney.MatchString(text) {
		flags = append(flags, RiskMoney)
	}
	if reCreds.MatchString(text) {
		flags = append(flags, RiskCredentials)
	}
	if reAttach.MatchString(d.Body) {
		flags = append(flags, RiskAttachmentMissing)
	}
	words := len(strings.Fields(d.Body))
	switch {
	case words == 0:
		flags = append(flags, RiskEmptyBody)
	case words < 5:
		flags = append(flags, RiskShortBody)
	}
	return flags
}

// participants returns the participants of a thread, as lower-cased
// trimmed addresses: everyone in the From, To or Cc of one of its
// messages. Sender, Reply-To and Bcc are left out: they are what one
// message claims, not parties the conversation was held with, so a
// Reply-To pointing elsewhere does not make its address a participant.
func participants(t *model.Thread) map[string]bool {
	in := map[string]bool{}
	for _, m := range t.Messages {
		for _, a := range append(append([]model.Address{m.From}, m.To...), m.Cc...) {
			if e := lowerEmail(a); e != "" {
				in[e] = true
			}
		}
	}
	return in
}

// answered returns the thread message a draft answers: the one its
// In-Reply-To names, else the latest.
func answered(d *Draft, t *model.Thread) *model.Message {
	if len(t.Messages) == 0 {
		return nil
	}
	irt := strings.Trim(strings.TrimSpace(d.InReplyTo), "<>")
	for _, m := range t.Messages {
		if irt != "" && strings.Trim(strings.TrimSpace(m.MessageID), "<>") == irt {
			return m
		}
	}
	return t.Messages[len(t.Messages)-1]
}

// replyToDiffers reports whether m has a Reply-To address other than its
// From address.
func replyToDiffers(m *model.Message) bool {
	from := lowerEmail(m.From)
	for _, a := range m.ReplyTo {
		if e := lowerEmail(a); e != "" && e != from {
			return true
		}
	}
	return false
}
