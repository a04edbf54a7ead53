package triage

// Lookalikes of the reader's correspondents: the business-email-compromise
// pattern of a supplier's or customer's domain registered with one letter
// changed (simfleet.com → simfieet.com), from which "our bank details have
// changed" arrives as a reply to a real conversation.

import (
	"fmt"
	"strings"

	"mailsift/model"
)

// Correspondents is implemented by Senders that also know the domains the
// user has written to (store.Familiarity).
type Correspondents interface {
	WrittenDomains() []string
}

// minCorrespondentLabel is the shortest domain label compared: shorter
// names differ by one letter from too many real ones (acme, acne).
const minCorrespondentLabel = 5

// correspondentIndex finds, for a domain, a correspondent's domain whose
// first label is one edit away: each label and its one-letter deletions
// map to the domains that have them (two strings are one edit apart only
// if they share one of these keys).
type correspondentIndex struct {
	src  *string // the first element of the domains indexed (identity)
	n    int
	keys map[string][]string
}

// firstLabel is a registrable domain's first label ("simfleet" of
// "simfleet.com").
func firstLabel(reg string) string {
	label, _, _ := strings.Cut(reg, ".")
	return label
}

// deletions calls f with s and each string s makes with one byte deleted.
func deletions(s string, f func(string)) {
	f(s)
	for i := range len(s) {
		f(s[:i] + s[i+1:])
	}
}

func (a *Analyzer) newCorrespondentIndex(domains []string) *correspondentIndex {
	ix := &correspondentIndex{src: &domains[0], n: len(domains), keys: map[string][]string{}}
	seen := map[string]bool{}
	for _, d := range domains {
		reg := a.regDomain(d)
		if reg == "" || seen[reg] || freeMail(reg) || len(firstLabel(reg)) < minCorrespondentLabel {
			continue
		}
		seen[reg] = true
		deletions(firstLabel(reg), func(k string) { ix.keys[k] = append(ix.keys[k], reg) })
	}
	return ix
}

// correspondents returns the index of the domains written to (cached per
// Familiarity: the slice is the same until the store is read again).
func (a *Analyzer) correspondents(domains []string) *correspondentIndex {
	if len(domains) == 0 {
		return nil
	}
	a.mu.RLock()
	ix := a.corrIndex
	a.mu.RUnlock()
	if ix != nil && ix.src == &domains[0] && ix.n == len(domains) {
		return ix
	}
	ix = a.newCorrespondentIndex(domains)
	a.mu.Lock()
	a.corrIndex = ix
	a.mu.Unlock()
	return ix
}

// imitated returns a domain of ix whose first label is one edit (or a
// homoglyph) away from reg's, with reg itself not among them.
func (ix *correspondentIndex) imitated(reg string) string {
	label := firstLabel(reg)
	if ix == nil || len(label) < minCorrespondentLabel {
		return ""
	}
	found := ""
	deletions(label, func(k string) {
		for _, d := range ix.keys[k] {
			if found == "" && d != reg && firstLabel(d) != label && oneEditOrGlyph(firstLabel(d), label) {
				found = d
			}
		}
	})
	if found == "" && strings.Contains(label, "-") {
		// a correspondent's name as a word of a hyphenated one, or one
		// edit off it once the hyphens are dropped
		// (runs of words too: brightline-assurance in
		// brightline-assurance-docs)
		parts := strings.Split(label, "-")
		for i := range parts {
			for j := i + 1; j <= len(parts) && j-i < len(parts); j++ {
				run := strings.Join(parts[i:j], "-")
				for _, d := range ix.keys[run] {
					if found == "" && d != reg && firstLabel(d) == run {
						found = d
					}
				}
			}
		}
		joined := strings.ReplaceAll(label, "-", "")
		deletions(joined, func(k string) {
			for _, d := range ix.keys[k] {
				if found == "" && d != reg && levenshtein(firstLabel(d), joined) == 1 {
					found = d
				}
			}
		})
	}
	if found != "" {
		for _, d := range ix.keys[label] {
			if d == reg {
				return "" // the user writes to this domain itself
			}
		}
	}
	return found
}

// imitatesLabel reports whether label, a sender domain's first label,
// imitates c, a correspondent's: one letter off or two neighbours
// swapped, or c's name as a word of
// a hyphenated label (haulmark-logistics for haulmark, kestrelcloud-io
// for kestrelcloud.io: the business's name with a word or its own
// country code added), or one letter off c once its hyphens are dropped
// (brightlane-lt for brightlaneit).
func imitatesLabel(label, c string) bool {
	if label == c || len(c) < minCorrespondentLabel {
		return false
	}
	if levenshtein(c, label) == 1 || swapped(c, label) || skeleton(c) == skeleton(label) {
		return true
	}
	if !strings.Contains(label, "-") {
		return false
	}
	// (c as words of label, c holding hyphens itself included:
	// toyo-denso-co for toyo-denso)
	return strings.Contains("-"+label+"-", "-"+c+"-") || levenshtein(strings.ReplaceAll(label, "-", ""), c) == 1
}

// oneEditOrGlyph reports whether b is a one-letter edit of a or spells it
// with homoglyphs.
func oneEditOrGlyph(a, b string) bool {
	return levenshtein(a, b) == 1 || swapped(a, b) || skeleton(a) == skeleton(b)
}

// swapped reports whether b is a with two neighbouring letters swapped
// ("greatlakesfreigth" for "greatlakesfreight"), the typing slip a
// lookalike registers as often as a letter off. (Both share a one-letter
// deletion, so the correspondent index finds the pair.)
func swapped(a, b string) bool {
	if len(a) != len(b) || a == b {
		return false
	}
	i := 0
	for a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// corrWeight is a correspondent lookalike's phishing weight: alone as
// much as phishing needs. A brand's lookalike may be a reseller's or a
// fan's domain; one letter off the domain of someone the reader deals
// with exists to be mistaken for it.
const corrWeight = 3.5

// correspondentLookalike flags the latest message's sender domain when it
// imitates the domain of someone the reader writes to, or of a sender or
// recipient of an earlier message of the thread, while being neither.
func (a *Analyzer) correspondentLookalike(an *analysis, msgs []*model.Message, principal model.Address, senders Senders, add func(Signal)) {
	c, known := senders.(Correspondents)
	m := msgs[an.latest]
	var thread []string
	if an.latest == 0 {
		// The first message the mailbox holds of a thread may quote the
		// earlier one it answers ("> De: Raúl <admin@sumtelev.es>"): its
		// sender is a correspondent of the thread too.
		thread = quotedSenders(m.Text, nil)
		if len(thread) == 0 && !known {
			return // nothing to compare with: no earlier message, none quoted, no domains written to
		}
	}
	host := domainOf(m.From.Email)
	reg := a.regDomain(host)
	pReg := a.regDomain(domainOf(principal.Email))
	if reg == "" || reg == pReg || freeMail(reg) || len(firstLabel(reg)) < minCorrespondentLabel {
		return
	}
	// (the newest messages only: the cost per thread is bounded, see
	// MaxAnalyzedMessages)
	for _, o := range msgs[max(0, an.latest-MaxAnalyzedMessages):an.latest] {
		for _, as := range [][]model.Address{{o.From}, o.To, o.Cc} {
			for _, x := range as {
				if d := domainOf(x.Email); d != "" {
					thread = append(thread, d)
				}
			}
		}
	}
	if len(thread) > 0 {
		// (an imitation of the reader's own domain is judged as one: see
		// domainSignals)
		if d := a.threadImitated(reg, thread); d != "" && d != pReg {
			an.corrLookalike = true
			add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("the sender's domain %s imitates %s, of an earlier message of this thread", reg, d), Message: an.latest, Value: host, Weight: corrWeight})
			return
		}
	}
	if known {
		if d := a.correspondents(c.WrittenDomains()).imitated(reg); d != "" && d != pReg {
			an.corrLookalike = true
			add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("the sender's domain %s imitates %s, a domain you write to", reg, d), Message: an.latest, Value: host, Weight: corrWeight})
		}
	}
}

// threadImitated is correspondentIndex.imitated over the few domains of a
// thread's earlier messages, compared one by one instead of indexed.
func (a *Analyzer) threadImitated(reg string, domains []string) string {
	label := firstLabel(reg)
	found := ""
	for _, d := range domains {
		r := a.regDomain(d)
		if r == reg {
			return "" // the sender's own domain wrote in the thread before
		}
		if found == "" && r != "" && !freeMail(r) && imitatesLabel(label, firstLabel(r)) {
			found = r
		}
	}
	return found
}

// quotedSenders appends to out the domains of the addresses on the
// sender lines of the messages quoted in body ("> From: …", "De : …",
// "Von: …", "差出人: …"). It looks only at the lines holding an "@".
func quotedSenders(body string, out []string) []string {
	for off := 0; ; {
		k := strings.IndexByte(body[off:], '@')
		if k < 0 {
			return out
		}
		at := off + k
		start := strings.LastIndexByte(body[:at], '\n') + 1
		end := at + 1
		for end < len(body) && isDomainByte(body[end]) {
			end++
		}
		off = end
		line := strings.TrimLeft(body[start:at], "> \t")
		low := strings.ToLower(line[:min(len(line), 12)])
		if strings.HasPrefix(low, "from:") || strings.HasPrefix(low, "de:") || strings.HasPrefix(low, "de :") ||
			strings.HasPrefix(low, "von:") || strings.HasPrefix(line, "差出人") {
			if d := strings.ToLower(strings.TrimRight(body[at+1:end], ".-")); strings.Contains(d, ".") {
				out = append(out, d)
			}
		}
	}
}

func isDomainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-'
}
