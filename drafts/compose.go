// Package drafts writes reply drafts under a policy, computes their
// recipients, threading headers and risk flags, turns a confirmed draft
// into an approval for one exact RFC 5322 message, and sends approved
// messages at most once through an outbox (SMTP or a sendmail command).
//
// Nothing is sent without an approved approval: the only path to a
// transport goes through store.BeginSend, which checks the approval and the
// hash of the exact bytes in the same transaction that marks the item
// sending.
package drafts

import (
	"regexp"
	"strings"
	"unicode"

	"mailsift/model"
	"mailsift/store"
)

// Draft is a reply draft (stored by the store package).
type Draft = store.Draft

// Recipients are the computed recipients of a reply.
type Recipients struct {
	To, Cc []model.Address
}

func lowerEmail(a model.Address) string { return strings.ToLower(strings.TrimSpace(a.Email)) }

// replyTarget returns the message whose sender the reply goes to: the
// latest message not from the principal (else the latest message).
func replyTarget(t *model.Thread, principal model.Address) *model.Message {
	p := lowerEmail(principal)
	for i := len(t.Messages) - 1; i >= 0; i-- {
		if lowerEmail(t.Messages[i].From) != p {
			return t.Messages[i]
		}
	}
	return t.Messages[len(t.Messages)-1]
}

// ComputeRecipients returns the recipients of a reply to the thread: the
// sender of the latest message not from the principal (its Reply-To when
// set); with replyAll also that message's To and Cc. The principal and
// duplicates (case-insensitive) are removed. When the latest message is the
// principal's own, the reply goes to that message's recipients.
func ComputeRecipients(t *model.Thread, principal model.Address, replyAll bool) Recipients {
	if t == nil || len(t.Messages) == 0 {
		return Recipients{}
	}
	m := replyTarget(t, principal)
	p := lowerEmail(principal)
	seen := map[string]bool{p: true}
	var r Recipients
	add := func(list *[]model.Address, as ...model.Address) {
		for _, a := range as {
			e := lowerEmail(a)
			if e == "" || seen[e] {
				continue
			}
			seen[e] = true
			*list = append(*list, model.Address{Name: a.Name, Email: strings.TrimSpace(a.Email)})
		}
	}
	switch {
	case lowerEmail(m.From) == p:
		add(&r.To, m.To...)
		if replyAll {
			add(&r.Cc, m.Cc...)
		}
	case len(m.ReplyTo) > 0:
		add(&r.To, m.ReplyTo...)
	default:
		add(&r.To, m.From)
	}
	if replyAll && lowerEmail(m.From) != p {
		add(&r.To, m.To...)
		add(&r.Cc, m.Cc...)
	}
	return r
}

var rePrefix = regexp.MustCompile(`(?i)^\s*re(\[\d+\])?\s*:`)

// ReplySubject adds "Re: " once: a subject that already starts with Re:
// (any case, or Re[2]:) is kept as is.
func ReplySubject(subject string) string {
	s := strings.TrimSpace(subject)
	if rePrefix.MatchString(s) {
		return s
	}
	if s == "" {
		return "Re: (no subject)"
	}
	return "Re: " + s
}

// Threading returns the In-Reply-To and References of a reply to m:
// In-Reply-To is m's Message-ID; References are m's References (or, when
// it has none, its In-Reply-To) followed by m's Message-ID, duplicates
// removed.
func Threading(m *model.Message) (inReplyTo string, refs []string) {
	if m == nil {
		return "", nil
	}
	seen := map[string]bool{}
	base := m.References
	if len(base) == 0 {
		base = m.InReplyTo
	}
	for _, r := range append(append([]string{}, base...), m.MessageID) {
		r = strings.Trim(strings.TrimSpace(r), "<>")
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		refs = append(refs, r)
	}
	return strings.Trim(strings.TrimSpace(m.MessageID), "<>"), refs
}

// FirstName returns a greeting name for an address: the first word of the
// display name ("Smith, Bob" gives Bob), else "".
func FirstName(a model.Address) string {
	n := strings.TrimSpace(strings.Trim(a.Name, `"' `))
	if n == "" || strings.Contains(n, "@") {
		return ""
	}
	if i := strings.Index(n, ","); i > 0 {
		n = strings.TrimSpace(n[i+1:])
	}
	f := strings.Fields(n)
	if len(f) == 0 {
		return ""
	}
	return cleanLine(f[0])
}

// cleanLine removes control and format characters (terminal escapes,
// bidi overrides) from a one-line string.
func cleanLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}
