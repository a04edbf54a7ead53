package triage

// Structural spam evidence: how a message is built rather than what it
// says. The learned score reads words; these read the envelope, which
// bulk mailers get wrong in ways a person's mail client or a vendor's
// mail service rarely does. They only corroborate a learned score that
// leans to spam (see minStructureProb): alone, each is too common in
// legitimate mail to mean much.

import (
	"strings"
	"unicode"

	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// Structural spam indicators of one message, as bits (see structure).
const (
	stNoMessageID = 1 << iota // no Message-ID: the parser made one up
	stShouted                 // the subject is mostly capitals, or shouts with "!!" or "$$"
	stHighPrio                // X-Priority or Importance set to high
	stDigitsLocal             // the sender's local part carries a run of three or more digits
)

// structureNames name the stXxx bits in a reason, in bit order.
var structureNames = [...]string{"no Message-ID", "a shouted subject", "marked high priority", "a numbered sender address"}

// minStructureProb is the learned score from which a structural indicator
// makes a message spam (with none of the exemptions of the learned score,
// see Deterministic): the model leans to spam and the envelope agrees. On
// the training groups no ham message at or above it carries one.
const minStructureProb = 0.5

// structure returns the structural spam indicators of m as stXxx bits.
func structure(m *model.Message) int {
	var s int
	// Only the parser's own id says the header was missing: a message
	// built without one (by a test, or a source that does not say) is
	// not evidence. A missing Date is not counted for the same reason
	// (the parser leaves it zero, like any source that does not know it).
	if strings.HasSuffix(m.MessageID, rfc822.SynthesisedIDSuffix) {
		s |= stNoMessageID
	}
	if shouted(m.Subject) {
		s |= stShouted
	}
	p := strings.ToLower(strings.TrimSpace(m.Header("X-Priority")))
	if strings.HasPrefix(p, "1") || strings.HasPrefix(p, "2") || strings.Contains(p, "high") ||
		strings.EqualFold(strings.TrimSpace(m.Header("Importance")), "high") {
		s |= stHighPrio
	}
	local, _, _ := strings.Cut(m.From.Email, "@")
	run := 0
	for i := 0; i < len(local) && run < 3; i++ {
		if local[i] >= '0' && local[i] <= '9' {
			run++
		} else {
			run = 0
		}
	}
	if run >= 3 {
		s |= stDigitsLocal
	}
	return s
}

// structureReason lists the indicators of s for a reason ("a shouted
// subject, marked high priority").
func structureReason(s int) string {
	var names []string
	for i, n := range structureNames {
		if s&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// shouted reports whether a subject shouts: at least 8 letters of which
// at least 70 % are capitals, or "!!" or "$$" in it.
func shouted(subject string) bool {
	if strings.Contains(subject, "!!") || strings.Contains(subject, "$$") {
		return true
	}
	var letters, upper int
	for _, r := range subject {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return letters >= 8 && upper*10 >= letters*7
}
