// Package triage sorts mail threads into the contract's four buckets with
// spam and phishing flags, a summary and action items: with a local
// Ollama model (structured output against the v1.0 result schema), or
// deterministically from signals when the model is absent or misbehaves,
// and in the background with Worker.
package triage

import (
	"context"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// PromptVersion changes whenever the prompt changes meaning; it is part
// of the cache key, so a new prompt re-triages everything.
const PromptVersion = "4"

// DeterministicVersion is the deterministic triager's version, part of its
// cache key.
const DeterministicVersion = "2"

// Example is one of the user's bucket overrides, given to the model as an
// example of this user's preferences.
type Example struct {
	Subject  string
	From     string
	Category string
}

// Input is one thread to triage.
type Input struct {
	// Messages, oldest first.
	Messages  []*model.Message
	Principal model.Address
	// Examples are the user's latest overrides (newest first).
	Examples []Example
	// Force asks the model even when the signals decide the thread on
	// their own (Outcome.Decided): the user asked for it (t).
	Force bool
	// Slot, when set, paces this call's model requests against the
	// caller's others (the Worker sets it; nil means unpaced). See Slot.
	Slot *Slot
	// Senders tells what the user's mailbox says of the thread's sender
	// (nil: nothing known). See Senders.
	Senders Senders
}

// Senders is what the user's own mailbox says about the people who write
// to them: a sender the user has written to, or whose earlier mail the
// user read, is someone whose mail the user wants. Bulk mail from such a
// sender, or through a mailing list the user reads, lands in Low
// priority, not in quarantine, unless an independent spam indicator says
// otherwise or the user marks it spam.
// Colleagues is implemented by a Senders that also knows the names of
// the people writing from the principal's own domain
// (store.Familiarity): mail in a colleague's name from outside is how
// business email compromise opens.
type Colleagues interface {
	// Colleague reports whether name is a colleague's display name.
	Colleague(name string) bool
}

type Senders interface {
	// Familiar returns how many messages the user wrote to email and how
	// many of email's messages the user read (outside Junk and Trash).
	Familiar(email string) (written, read int)
	// ListRead returns how many messages of the mailing list with List-Id
	// identifier id the user read (outside Junk and Trash).
	ListRead(id string) int
}

// MinFamiliarRead is how many earlier messages of a sender the user must
// have read for the sender to count as familiar (one opened message may
// be a look at a stranger's mail; two are a habit).
const MinFamiliarRead = 2

// Triager triages one thread. Triage always returns an outcome (the
// deterministic one when the model fails); a non-nil error says why the
// model was not used (see *Error).
type Triager interface {
	Triage(ctx context.Context, in Input) (*Outcome, error)
	// CacheKey identifies the triager: schema version, model and prompt
	// version. A stored result is reused only under the same key.
	CacheKey() string
	// Model names the model ("" for deterministic).
	Model() string
}

// Offline is the deterministic triager.
type Offline struct {
	Analyzer *Analyzer
}

// NewOffline returns the deterministic triager over a (nil: shipped spam model).
func NewOffline(a *Analyzer) *Offline {
	if a == nil {
		a = NewAnalyzer(nil)
	}
	return &Offline{Analyzer: a}
}

// Triage implements Triager.
func (d *Offline) Triage(ctx context.Context, in Input) (*Outcome, error) {
	o, _ := d.Analyzer.deterministic(in.Messages, in.Principal, in.Senders)
	return o, nil
}

// CacheKey implements Triager.
func (d *Offline) CacheKey() string { return DeterministicCacheKey() }

// Model implements Triager.
func (d *Offline) Model() string { return "" }

// DeterministicCacheKey is the cache key of deterministic triage.
func DeterministicCacheKey() string {
	return "v" + contract.SchemaVersion + "|deterministic|d" + DeterministicVersion
}

// OllamaCacheKey is the cache key of triage by the named Ollama model.
func OllamaCacheKey(modelName string) string {
	return "v" + contract.SchemaVersion + "|ollama:" + modelName + "|p" + PromptVersion
}

// FromRequest converts a contract request into triage input and returns
// the request kind for the response.
func FromRequest(req *contract.Request) (Input, string) {
	var in Input
	var msgs []contract.Message
	kind := contract.KindThread
	switch {
	case req.Single != nil:
		kind = contract.KindSingle
		in.Principal = addrFrom(req.Single.Principal)
		msgs = []contract.Message{req.Single.Message}
	case req.Thread != nil:
		in.Principal = addrFrom(req.Thread.Principal)
		msgs = req.Thread.Messages
	}
	for _, em := range msgs {
		m := &model.Message{
			MessageID: em.MessageID,
			From:      addrFrom(em.From),
			To:        addrsFrom(em.To),
			Cc:        addrsFrom(em.Cc),
			Bcc:       addrsFrom(em.Bcc),
			Subject:   em.Subject,
			Text:      em.Body,
			HasBody:   true,
		}
		if em.Date != nil {
			if t, err := time.Parse(time.RFC3339, *em.Date); err == nil {
				m.Date = t
			}
		}
		in.Messages = append(in.Messages, m)
	}
	return in, kind
}

func addrFrom(a contract.Address) model.Address {
	out := model.Address{Email: a.Email}
	if a.Name != nil {
		out.Name = *a.Name
	}
	return out
}

func addrsFrom(as []contract.Address) []model.Address {
	out := make([]model.Address, 0, len(as))
	for _, a := range as {
		out = append(out, addrFrom(a))
	}
	return out
}

// Response wraps an outcome in a v1.0 response envelope.
func Response(kind string, o *Outcome) contract.Response {
	r := o.Result
	if r.ActionItems == nil {
		r.ActionItems = []contract.ActionItem{}
	}
	return contract.Response{SchemaVersion: contract.SchemaVersion, RequestKind: kind, Result: r}
}
