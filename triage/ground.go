package triage

// Grounding of the model's words: the addresses, amounts and links a
// model summary, action item or draft names must come from the thread.

import (
	"fmt"
	"regexp"
	"strings"

	"mailsift/model"
)

// SigUngrounded marks a model summary, action item or draft that names an
// email address, an amount or a link the thread does not hold. Value is
// the name; Reason says what was done about it.
const SigUngrounded SignalKind = "ungrounded"

var (
	emailRe = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	// amountRe is a number with a currency before or after it.
	amountRe = regexp.MustCompile(`(?i)(?:[$€£¥₹]|\b(?:usd|eur|gbp|jpy|chf|cad|aud|inr)\b)\s?\d(?:[\d.,' ]*\d)?|\d(?:[\d.,']*\d)?\s?(?:[$€£¥₹円]|\b(?:usd|eur|gbp|jpy|chf|cad|aud|inr|dollars?|euros?|yen|pounds?)\b)`)
	// numberRe is a number as written (with thousands and decimal separators).
	numberRe = regexp.MustCompile(`\d(?:[\d.,']*\d)?`)
)

// threadFacts is what a thread holds that a model may quote: its text
// (lower-cased), its numbers (normalised) and the registrable domains of
// its addresses and links.
type threadFacts struct {
	text    string
	numbers map[string]bool
	domains map[string]bool
}

// factsOf gathers the facts of msgs (every message, quotes included, each
// body capped as deterministic triage caps it) and the principal's address.
func factsOf(msgs []*model.Message, principal model.Address) *threadFacts {
	var sb strings.Builder
	addr := func(as ...model.Address) {
		for _, a := range as {
			sb.WriteString(a.Email)
			sb.WriteByte('\n')
		}
	}
	addr(principal)
	for _, m := range msgs {
		addr(m.From)
		addr(m.ReplyTo...)
		addr(m.To...)
		addr(m.Cc...)
		sb.WriteString(m.Subject)
		sb.WriteByte('\n')
		body := m.Body()
		if len(body) > maxAnalyzed {
			body = body[:maxAnalyzed]
		}
		sb.WriteString(body)
		sb.WriteByte('\n')
	}
	text := sb.String()
	f := &threadFacts{text: strings.ToLower(text), numbers: map[string]bool{}, domains: map[string]bool{}}
	for _, n := range numberRe.FindAllString(text, -1) {
		f.numbers[normNumber(n)] = true
	}
	for _, e := range emailRe.FindAllString(text, -1) {
		f.domains[regDomain(domainOf(e))] = true
	}
	for _, l := range findLinks(text, 1000) {
		f.domains[regDomain(l.Host)] = true
	}
	for _, d := range domainsIn(text) {
		f.domains[regDomain(d)] = true
	}
	return f
}

// normNumber reduces a written number to its digits, a decimal part of
// zeros dropped, so that "18,420.00", "18.420,00" and "18420" agree.
func normNumber(n string) string {
	if i := strings.LastIndexAny(n, ".,"); i >= 0 && len(n)-i-1 <= 2 && strings.Trim(n[i+1:], "0") == "" {
		n = n[:i]
	}
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		if c := n[i]; c >= '0' && c <= '9' {
			b.WriteByte(c)
		}
	}
	return strings.TrimLeft(b.String(), "0")
}

// ungrounded returns the email addresses, links (by host) and, when
// amounts is set, the amounts that s names and the thread does not hold.
// A name the thread holds verbatim is grounded; an address needs its
// exact text; a link's host needs its registrable domain among the
// thread's; an amount needs its number among the thread's numbers.
func (f *threadFacts) ungrounded(s string, amounts bool) []string {
	var out []string
	low := strings.ToLower(s)
	emails := emailRe.FindAllStringIndex(s, -1)
	for _, e := range emails {
		if v := low[e[0]:e[1]]; !strings.Contains(f.text, v) {
			out = append(out, s[e[0]:e[1]])
		}
	}
	// Links and bare domains, outside the addresses just checked.
	rest := emailRe.ReplaceAllString(s, " ")
	hosts := domainsIn(rest)
	for _, w := range strings.Fields(strings.ToLower(rest)) {
		// domainsIn takes ICANN suffixes only; "www." says host whatever
		// the suffix.
		if w = strings.Trim(w, "()[]<>\"'.,;:!?"); strings.HasPrefix(w, "www.") {
			if i := strings.IndexAny(w, "/?#"); i >= 0 {
				w = w[:i]
			}
			hosts = append(hosts, w)
		}
	}
	for _, l := range findLinks(rest, 20) {
		hosts = append(hosts, l.Host)
	}
	seen := map[string]bool{}
	for _, h := range hosts {
		if seen[h] {
			continue
		}
		seen[h] = true
		if !strings.Contains(f.text, h) && !f.domains[regDomain(h)] {
			out = append(out, h)
		}
	}
	if amounts {
		for _, a := range amountRe.FindAllString(s, -1) {
			n := normNumber(numberRe.FindString(a))
			if n != "" && !f.numbers[n] {
				out = append(out, strings.TrimSpace(a))
			}
		}
	}
	return out
}

// ungroundedSignal is the signal for names the model used that the thread
// does not hold; what says where ("action item"), done what was done, msg
// is the thread's latest message (the answer is about the whole thread).
func ungroundedSignal(names []string, what, done string, msg int) Signal {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return Signal{Kind: SigUngrounded, Message: msg, Value: strings.Join(names, " "),
		Reason: fmt.Sprintf("the model's %s names %s, not in the thread: %s", what, strings.Join(q, ", "), done)}
}
