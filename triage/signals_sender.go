package triage

// Sender and authentication signals: who sent a message and whether the
// headers back it (authentication results, Reply-To and Return-Path,
// lookalike and punycode domains, display names, bulk and automated mail,
// calendar invitations).

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"mailsift/model"
)

// authFailRe finds a failed SPF, DKIM or DMARC check in a lower-cased
// Authentication-Results value.
var authFailRe = regexp.MustCompile(`\b(spf|dkim|dmarc)=(fail|softfail|permerror)\b`)

// authPassRe finds a DMARC pass for a header.from domain or a DKIM pass
// for a signing domain, in a lower-cased Authentication-Results value.
var authPassRe = regexp.MustCompile(`\b(?:dmarc=pass[^;]*?header\.from=|dkim=pass[^;]*?header\.d=)([a-z0-9.-]+)`)

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
				if !isListMail(m) {
					// The sender's own domain says this mail is not
					// from it (a list that rewrites mail may break
					// DMARC; a direct sender cannot): spoofed mail is
					// unsolicited whatever it says.
					an.spoofed = true
				}
			}
		}
		if len(fails) > 1 {
			w = 2
		}
		add(Signal{Kind: SigAuthFail, Reason: "sender authentication failed (" + strings.Join(fails, ", ") + ")", Message: i, Value: strings.Join(fails, ","), Weight: w})
	}
	// Reply-To to another domain. Not to the principal's own: a service
	// sending on a colleague's behalf (a signature request, a form, an
	// invitation) points replies at them, and replies that reach the
	// principal's own organisation divert nothing to anyone else.
	pReg := a.regDomain(pDomain)
	for _, rt := range m.ReplyTo {
		d := domainOf(rt.Email)
		if d != "" && fromReg != "" && a.regDomain(d) != fromReg && (pReg == "" || a.regDomain(d) != pReg) &&
			!sameBrand(a.regDomain(d), fromReg) {
			add(Signal{Kind: SigReplyToMismatch, Reason: fmt.Sprintf("replies go to %s, not the sender's domain %s", d, from), Message: i, Value: d, Weight: 1.5})
			if freeMail(fromReg) && freeMail(a.regDomain(d)) {
				// A personal mailbox whose replies go to another
				// provider's: the answer is kept from the address shown.
				an.freeRelay = true
			}
			if imitated, ok := a.lookalike(d, pDomain); ok {
				// Replies diverted to a domain imitating your own
				// organisation or a brand (northwind-exec.com): where the
				// answer to a spoofed colleague goes.
				add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("replies go to %s, which imitates %s", d, imitated), Message: i, Value: d, Weight: 3})
			} else if imitatesLabel(firstLabel(a.regDomain(d)), firstLabel(fromReg)) {
				// Replies diverted to a domain imitating the sender's own
				// (toyo-denso-co for toyo-denso): a hijacked conversation
				// continued where the real sender cannot read it.
				add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("replies go to %s, which imitates the sender's own domain %s", d, fromReg), Message: i, Value: d, Weight: 3})
			}
			if !isListMail(m) && !(an.authAligned && autoSubmitted(m)) &&
				!(an.authAligned && realBrandDomain(fromReg) && !freeMail(fromReg) && !freeMail(a.regDomain(d))) {
				// Outside a mailing list (which points replies at itself),
				// replies diverted from the sender are a spam indicator
				// too: one of the independent ones spam needs two of.
				// Not from a service that authenticated as itself and says
				// it sends automatically: a signing or form service
				// points replies at the person it writes for. Nor from a
				// known brand's own authenticated domain pointing replies
				// at a business's (a signing or invoicing service writing
				// for its customer); replies to free mail still count.
				an.suspicious++
			}
			break
		}
	}
	// A mailing list or bulk sender rewrites the envelope sender so that
	// bounces come back to it, not to the author: a Return-Path elsewhere
	// is how list mail looks, not evidence against it.
	if list := isListMail(m); list {
		an.list = true
		if fromReg != "" && a.listOwnedBy(m, fromReg) {
			an.ownList = true
		}
	} else if rp := strings.Trim(m.Header("Return-Path"), "<> "); rp != "" && fromReg != "" {
		if d := domainOf(rp); d != "" && a.regDomain(d) != fromReg {
			add(Signal{Kind: SigReturnPathMismatch, Reason: fmt.Sprintf("bounces go to %s, not the sender's domain %s", d, from), Message: i, Value: d, Weight: 0.5})
		}
	}
	if from != "" && !seen[from] {
		seen[from] = true
		a.domainSignals(an, from, senderWhat, i, pDomain, 1, add)
		if freeMail(from) {
			a.freeMailImpersonation(m, i, from, pReg, add)
		}
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
	// A display name presenting the sender as a mail or IT service
	// ("IT-Service Postmaster", "Mail Administrator") from outside your
	// organisation: your mailbox's keepers write from your own domain.
	name := strings.ToLower(m.From.Name)
	if name != "" && fromReg != "" {
		if w, ok := itRoleCues.first(name); ok && hasWord(name, w) {
			if pReg := a.regDomain(pDomain); pReg != "" && fromReg != pReg && !realBrandDomain(fromReg) && !isListMail(m) {
				add(Signal{Kind: SigDisplayNameSpoof, Reason: fmt.Sprintf("the sender calls itself %q (%s) but writes from %s, outside your organisation", m.From.Name, w, from), Message: i, Value: from, Weight: 2.5})
			}
		}
	}
	// Display name naming a brand while the address is elsewhere.
	if name != "" && from != "" {
		for _, k := range brandsNamedIn(name) {
			b := brands[k]
			// (a short brand name, "Zoom", "DHL", or one that is a common
			// word, "Slack", only as a word of its own: not inside
			// "Zoomer" or "uncle_slacky")
			if (len(b.name) < 5 || wordBrands[b.name]) && !hasWord(name, b.name) {
				continue
			}
			if !isRealBrandDomain(fromReg, b.real) {
				// (the name is the brand's, "Microsoft Teams", not a
				// newsletter's about it, "Lockergnome Apple Core")
				an.displaySpoof = an.displaySpoof || strings.HasPrefix(name, b.name)
				if an.spoofedBrand == "" && i == an.latest {
					an.spoofedBrand = b.name
				}
				add(Signal{Kind: SigDisplayNameSpoof, Reason: fmt.Sprintf("the sender calls itself %q but writes from %s", m.From.Name, from), Message: i, Value: from, Weight: 2.5})
				break
			}
		}
	}
	// A sender named after its domain's first word, whose other words
	// make it a notice address: "CircleCI Security" from
	// circleci-incident.com, "Scaleway" from scaleway-alerts.com (see
	// selfNamedNoticeDomain).
	if i == an.latest && an.brandLookalike == "" && !an.ownLookalike && fromReg != "" && !realBrandDomain(fromReg) && !isListMail(m) {
		if w := selfNamedNoticeDomain(name, fromReg); w != "" {
			an.brandLookalike, an.selfNamed = fromReg, true
			add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("the sender's domain %s dresses the name %q as a service's notice address", fromReg, w), Message: i, Value: from, Weight: 3})
		}
	}
	// Bulk and automated mail. Bulk is what the latest message from others
	// is: a person's reply to a list or robot message (a release manager
	// answering a failed-pipeline notice) is a conversation, not bulk.
	prec := strings.ToLower(m.Header("Precedence"))
	switch {
	case m.Header("List-Id") != "" || m.Header("List-Unsubscribe") != "" || prec == "bulk" || prec == "list" || prec == "junk":
		if i != an.latest {
			break
		}
		if !an.bulk {
			add(Signal{Kind: SigBulk, Reason: "sent to a mailing list or in bulk (List-Id/List-Unsubscribe/Precedence)", Message: i})
		}
		an.bulk = true
	case autoSubmitted(m):
		if !an.automated {
			add(Signal{Kind: SigAutomated, Reason: "sent automatically (Auto-Submitted)", Message: i})
		}
		an.automated = true
	}
	// Reports a mail system makes (RFC 6522 multipart/report: delivery
	// status and read receipts) are generated automatically, also when a
	// list carries them.
	if !an.automated && isMailSystemReport(m) {
		add(Signal{Kind: SigAutomated, Reason: "a report from a mail system (delivery status)", Message: i})
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

// isMailSystemReport reports whether m is a report a mail system
// generated: a multipart/report (RFC 6522: delivery status notifications,
// read receipts). A From of MAILER-DAEMON or postmaster alone is not
// enough: spam forges it.
func isMailSystemReport(m *model.Message) bool {
	ct := strings.ToLower(m.Header("Content-Type"))
	return strings.HasPrefix(strings.TrimSpace(ct), "multipart/report")
}

// isListMail reports whether m says it was sent through a mailing list or
// a bulk sender that offers unsubscribing (List-Id, List-Unsubscribe,
// Precedence: list).
func isListMail(m *model.Message) bool {
	return m.Header("List-Id") != "" || m.Header("List-Unsubscribe") != "" || strings.EqualFold(strings.TrimSpace(m.Header("Precedence")), "list")
}

// listOwnedBy reports whether m's List-Id or one of its List-Unsubscribe
// addresses (a mailto: address or a link's host) lies in the registrable
// domain fromReg: the sender runs the list it writes to, as a newsletter
// or a shop does. Spam of any era reaches people through lists too, but
// through someone else's: a discussion list's List-Id, a mass mailer's
// unsubscribe address, never one in the domain the spam claims to be from.
func (a *Analyzer) listOwnedBy(m *model.Message, fromReg string) bool {
	var hosts []string
	if id := m.Header("List-Id"); id != "" {
		if i := strings.LastIndexByte(id, '<'); i >= 0 {
			id = id[i+1:]
		}
		hosts = append(hosts, strings.TrimRight(strings.TrimSpace(id), ">"))
	}
	for _, u := range strings.Split(m.Header("List-Unsubscribe"), ",") {
		u = strings.Trim(strings.TrimSpace(u), "<>")
		low := strings.ToLower(u)
		switch {
		case strings.HasPrefix(low, "mailto:"):
			addr, _, _ := strings.Cut(u[len("mailto:"):], "?")
			hosts = append(hosts, domainOf(addr))
		case strings.HasPrefix(low, "https://"), strings.HasPrefix(low, "http://"):
			_, rest, _ := strings.Cut(u, "//")
			host, _, _ := strings.Cut(rest, "/")
			host, _, _ = strings.Cut(host, "?")
			if i := strings.LastIndexByte(host, '@'); i >= 0 {
				host = host[i+1:]
			}
			if h, _, ok := strings.Cut(host, ":"); ok {
				host = h
			}
			hosts = append(hosts, host)
		}
	}
	for _, h := range hosts {
		if h = strings.ToLower(strings.TrimSuffix(h, ".")); h != "" && a.regDomain(h) == fromReg {
			return true
		}
	}
	return false
}

// containsAny2 is strings.ContainsAny(a+b, chars) without building a+b
// (when a is valid UTF-8, a+b decodes to the runes of a, then of b).
func containsAny2(a, b, chars string) bool {
	if !utf8.ValidString(a) {
		return strings.ContainsAny(a+b, chars)
	}
	return strings.ContainsAny(a, chars) || strings.ContainsAny(b, chars)
}

// senderWhat names the sender's domain in domainSignals' reasons.
const senderWhat = "the sender's domain"

// domainSignals flags punycode and lookalike domains; w scales their
// weights.
func (a *Analyzer) domainSignals(an *analysis, host, what string, i int, pDomain string, w float64, add func(Signal)) {
	if strings.Contains(host, "xn--") {
		add(Signal{Kind: SigPunycodeDomain, Reason: fmt.Sprintf("%s %s is an internationalised (punycode) name shown as %s", what, host, unicodeHost(host)), Message: i, Value: host, Weight: 1.5 * w})
	}
	if imitated, ok := a.lookalike(host, pDomain); ok {
		pReg := a.regDomain(pDomain)
		switch {
		case what != senderWhat:
			an.lookalikeLink = true
			if b := firstLabel(imitated); an.shareImitated == "" && shareBrands[b] && i == an.latest {
				an.shareImitated = b
			}
			if an.lookalikeOf == "" && userContentHost(host) {
				an.lookalikeOf = imitated
			}
		case pReg != "" && imitated == pReg && firstLabel(a.regDomain(host)) != firstLabel(pReg):
			// (the same name under another top-level domain is as often
			// the organisation's own country domain)
			an.ownLookalike = true
		case imitated != pReg:
			an.brandLookalike = a.regDomain(host)
		}
		add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("%s %s imitates %s", what, host, imitated), Message: i, Value: host, Weight: 3 * w})
	}
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

// familiarSignal marks the thread familiar when senders says the user
// wrote to the latest outside sender, or read at least MinFamiliarRead of
// their messages, or of the messages of the mailing list it came through,
// outside this thread (the thread's own read messages are not earlier
// evidence).
func (an *analysis) familiarSignal(msgs []*model.Message, senders Senders, add func(Signal)) {
	from := msgs[an.latest].From.Email
	if from == "" {
		return
	}
	written, read := senders.Familiar(from)
	for _, m := range msgs {
		if m.Flags.Seen && sameAddr(m.From.Email, from) {
			read--
		}
	}
	switch {
	case written > 0:
		an.familiar = true
		n := "messages"
		if written == 1 {
			n = "message"
		}
		add(Signal{Kind: SigFamiliarSender, Reason: fmt.Sprintf("you have written to %s (%d %s)", from, written, n), Message: an.latest})
	case read >= MinFamiliarRead:
		an.familiar = true
		add(Signal{Kind: SigFamiliarSender, Reason: fmt.Sprintf("you have read %d earlier messages from %s", read, from), Message: an.latest})
	default:
		id := listID(msgs[an.latest])
		if id == "" {
			return
		}
		n := senders.ListRead(id)
		for _, m := range msgs {
			if m.Flags.Seen && listID(m) == id {
				n--
			}
		}
		if n >= MinFamiliarRead {
			an.familiar = true
			add(Signal{Kind: SigFamiliarSender, Reason: fmt.Sprintf("you have read %d earlier messages of the list %s", n, id), Message: an.latest})
		}
	}
}

// vouched reports whether something other than the words of the latest
// message speaks for it, so that the learned score (or a leaning score
// with a bulk-spam build) does not condemn it alone: it comes from the
// principal's own domain, its domain's authentication passed, it came
// through its own domain's list, it greets the principal by name, it was
// generated automatically, the user wrote to or reads its sender, or it
// answers someone else's message the mailbox holds (inConversation), or
// its sender signed it (signedMessage).
func (an *analysis) vouched() bool {
	return an.internal || an.authAligned || an.ownList || an.greeted || an.automated || an.familiar || an.notifier || an.conversation ||
		an.signed
}

// signedMessage reports whether m carries a cryptographic signature: an
// inline PGP block (RFC 4880 cleartext signature) or a PGP/MIME or
// S/MIME signature part (RFC 3156, RFC 8551). Signing takes a key the
// sender keeps and publishes: people sign their mail to lists and
// colleagues, bulk senders of unsolicited mail do not, and the signed
// text (a long post, a patch, an announcement) is the kind of prose the
// learned score, trained on one mailbox's lists, can mistake for spam.
func signedMessage(m *model.Message) bool {
	for _, a := range m.Attachments {
		switch strings.ToLower(a.ContentType) {
		case "application/pgp-signature", "application/pkcs7-signature", "application/x-pkcs7-signature":
			return true
		}
	}
	// A cleartext signature opens with its header and ends with its
	// block: the body's first maxAnalyzed bytes and its last
	// pgpTailBytes are read, whatever the body's length.
	body := m.Body()
	head, tail := body, ""
	if len(body) > maxAnalyzed {
		head, tail = body[:maxAnalyzed], body[max(maxAnalyzed, len(body)-pgpTailBytes):]
	}
	return strings.Contains(head, pgpBegin) || strings.Contains(tail, pgpBegin)
}

// pgpBegin starts both a cleartext-signed message's header ("-----BEGIN
// PGP SIGNED MESSAGE-----") and its signature block ("-----BEGIN PGP
// SIGNATURE-----").
const pgpBegin = "-----BEGIN PGP SIGN"

// pgpTailBytes is how much of a long body's end signedMessage reads for
// the signature block (an ASCII-armoured signature is under 1 KiB).
const pgpTailBytes = 2 << 10

// inConversation reports whether msgs[latest] replies (In-Reply-To or
// References) to an earlier message of the thread from another sender:
// a discussion the mailbox holds both sides of. Spam is written to
// strangers and cannot cite the Message-ID of mail its target received
// from someone else, while a reply on a discussion list quotes and
// discusses whatever the thread is about (prices, offers, a forwarded
// article) in the words the spam score weighs.
func inConversation(msgs []*model.Message, latest int) bool {
	last := msgs[latest]
	if len(last.InReplyTo) == 0 && len(last.References) == 0 {
		return false
	}
	for _, m := range msgs[:latest] {
		if m.MessageID == "" || sameAddr(m.From.Email, last.From.Email) {
			continue
		}
		if slices.Contains(last.InReplyTo, m.MessageID) || slices.Contains(last.References, m.MessageID) {
			return true
		}
	}
	return false
}

// notifierLocals are the local parts services send their automated
// notices from (order and shipping status, approvals, alerts): nobody
// writes to them, and a notice is written like a 2002 advertisement.
var notifierLocals = []string{"noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply",
	"notifications", "notification", "notify", "orderstatus", "order-status", "order-update", "order-updates",
	"shipping-notification", "shipment-tracking"}

// notifierAddress reports whether email is a service's notification
// address (see notifierLocals).
func notifierAddress(email string) bool {
	at := strings.LastIndexByte(email, '@')
	if at <= 0 {
		return false
	}
	local := strings.ToLower(email[:at])
	if i := strings.IndexByte(local, '+'); i >= 0 {
		local = local[:i]
	}
	if slices.Contains(notifierLocals, local) {
		return true
	}
	// "account-security-noreply", "noreply-billing": a no-reply word among
	// the local part's hyphenated words (not "jane.noreply": a dot
	// separates a person's names).
	if strings.Contains(local, ".") {
		return false
	}
	for w := range strings.FieldsFuncSeq(local, func(r rune) bool { return r == '-' || r == '_' }) {
		if w == "noreply" || w == "donotreply" {
			return true
		}
	}
	return strings.Contains(local, "no-reply") || strings.Contains(local, "do-not-reply")
}

// autoSubmitted reports whether m says it was sent automatically
// (Auto-Submitted other than "no", RFC 3834).
func autoSubmitted(m *model.Message) bool {
	v := strings.TrimSpace(m.Header("Auto-Submitted"))
	return v != "" && !strings.EqualFold(v, "no")
}

// orgName is the name of the organisation a registrable domain belongs
// to, as people write it in addresses and names ("northwind" for
// northwind.example), when it is long enough to mean it (five letters or
// more; "" otherwise).
func orgName(reg string) string {
	name, _, _ := strings.Cut(reg, ".")
	if len(name) < 5 || freeMail(reg) {
		return ""
	}
	return strings.ToLower(name)
}

// confirmationWords name what a service's confirmation address sends
// (a booking, an order, a ticket, a receipt), in its local part.
var confirmationWords = []string{"confirm", "bestaetigung", "bestätigung", "booking", "buchung", "reservation",
	"reservierung", "receipt", "order", "ticket", "billet", "reserva", "billing", "invoice", "statement", "rechnung",
	"facturation", "facturacion", "reminder", "appointments"}

// confirmationAddress reports whether email's local part names what a
// service's confirmation address sends (buchungsbestaetigung@,
// booking-confirmation@, orders@): what such mail asks is its
// instructions. It vouches for nothing else (spam uses such addresses too).
func confirmationAddress(email string) bool {
	at := strings.LastIndexByte(email, '@')
	if at <= 0 {
		return false
	}
	_, ok := containsAnyOf(strings.ToLower(email[:at]), confirmationWords)
	return ok
}

// sameBrand reports whether two registrable domains are both real domains
// of one brand (amazon.com and amazonaws.com, google.com and gmail.com):
// replies to the brand's other domain divert nothing.
func sameBrand(a, b string) bool {
	for _, br := range brands {
		if slices.Contains(br.real, a) && slices.Contains(br.real, b) {
			return true
		}
	}
	return false
}

// availabilityOpeners are how payment fraud in a colleague's name opens
// (lower case): whether the reader is free or at their desk.
var availabilityOpeners = []string{"are you at your desk", "are you available", "are you free", "are you in the office", "are you around",
	"bist du am platz", "bist du erreichbar", "sind sie erreichbar", "es-tu disponible", "êtes-vous disponible",
	"es-tu au bureau", "¿estás en la oficina", "estás en la oficina", "¿estás disponible", "estás disponible",
	"今お時間", "席にいますか"}

// execTitles are executives' titles as CEO fraud writes them into a
// free-mail address or its display name (lower case, whole words).
var execTitles = []string{"ceo", "cfo", "coo", "cto", "president", "chairman", "managing director", "geschäftsführer",
	"geschaeftsfuehrer", "vorstand", "pdg", "directeur général", "director general", "director ejecutivo", "社長"}

// signedAsExec returns the executive's title the last lines of own (the
// signature) sign with ("Martin\nCEO", "代表取締役"), "" when none.
func signedAsExec(own string) string {
	tail := strings.ToLower(own[max(0, len(own)-300):])
	for _, t := range append(execTitles[:len(execTitles):len(execTitles)], "代表取締役", "取締役") {
		for off := 0; ; {
			k := strings.Index(tail[off:], t)
			if k < 0 {
				break
			}
			at := off + k
			off = at + len(t)
			if (at == 0 || !isAlnumByte(tail[at-1])) && (off == len(tail) || !isAlnumByte(tail[off])) {
				return t
			}
		}
	}
	return ""
}

// execTitle returns the executive's title m's sender address (its local
// part's words) or display name claims, "" when none.
func execTitle(m *model.Message) string {
	local := strings.ToLower(m.From.Email)
	if at := strings.LastIndexByte(local, '@'); at >= 0 {
		local = local[:at]
	}
	words := strings.FieldsFunc(local, func(r rune) bool { return r == '.' || r == '-' || r == '_' || r == '+' })
	name := " " + strings.ToLower(m.From.Name) + " "
	for _, t := range execTitles {
		if slices.Contains(words, t) {
			return t
		}
		if strings.Contains(name, " "+t+" ") || strings.Contains(name, "("+t+")") || strings.Contains(name, " "+t+",") {
			return t
		}
	}
	return ""
}

// freeMailImpersonation flags a free-mail sender (domain from) claiming an
// executive's title ("greg.holm.ceo@gmail.com", the signature of CEO
// fraud) or presenting itself as the principal's organisation (registrable
// domain pReg: "farah.nadeem.northwind@gmail.com", "Farah (Northwind)",
// whose people write from its own domain), and then the "are you at your
// desk?" that opens gift-card and payment fraud.
func (a *Analyzer) freeMailImpersonation(m *model.Message, i int, from, pReg string, add func(Signal)) {
	if title := execTitle(m); title != "" {
		add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("a free-mail address (%s) claims an executive's title (%s)", from, title), Message: i, Value: from, Weight: 2})
		return
	}
	org := orgName(pReg)
	if org == "" {
		return
	}
	local := m.From.Email[:max(strings.LastIndexByte(m.From.Email, '@'), 0)]
	if !strings.Contains(strings.ToLower(local), org) && !strings.Contains(strings.ToLower(m.From.Name), org) {
		return
	}
	add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("a free-mail address (%s) presents itself as %s, whose people write from %s", from, org, pReg), Message: i, Value: from, Weight: 2})
	if w, ok := containsAnyOf(strings.ToLower(m.Subject+" "+m.Body()), availabilityOpeners); ok {
		// The ask follows once the reader answers.
		add(Signal{Kind: SigPaymentRequest, Reason: fmt.Sprintf("asks whether you are free, the opening of payment fraud (%q)", w), Message: i, Value: w, Weight: 1.5})
	}
}

// colleagueImpersonation flags a free-mail sender calling itself by the
// name of a colleague, someone who writes from the principal's own
// domain (senders implementing Colleagues knows them): "Priya Raman
// <priya.raman.nw@outlook.com>" next to priya.raman@northwind.example.
// A colleague's private address is possible, which is why it weighs as
// the other free-mail impersonations do and needs a lure beside it; an
// opening asking whether the reader is free is that lure.
func (a *Analyzer) colleagueImpersonation(m *model.Message, i int, pDomain string, senders Senders, add func(Signal)) {
	c, ok := senders.(Colleagues)
	from := domainOf(m.From.Email)
	if !ok || from == "" || !freeMail(from) || !c.Colleague(m.From.Name) {
		return
	}
	add(Signal{Kind: SigLookalikeDomain, Reason: fmt.Sprintf("a free-mail address (%s) carries the name of a colleague who writes from %s", m.From.Email, a.regDomain(pDomain)), Message: i, Value: from, Weight: 2})
	if w, ok := containsAnyOf(strings.ToLower(m.Subject+" "+m.Body()), availabilityOpeners); ok {
		add(Signal{Kind: SigPaymentRequest, Reason: fmt.Sprintf("asks whether you are free, the opening of payment fraud (%q)", w), Message: i, Value: w, Weight: 1.5})
	}
}

// readerReasons are the reasons a code host gives for notifying the
// reader that make the notice theirs to act on: a review requested of
// them, a mention, an assignment. GitHub puts the reason in the
// X-GitHub-Reason header and as an address in Cc ("Review requested
// <review_requested@noreply.github.com>"); GitLab in
// X-GitLab-NotificationReason.
var readerReasons = []string{"review_requested", "mention", "assign", "mentioned", "assigned", "directly_addressed"}

// codeHostReasons returns the reasons a code host gives for sending m to
// the reader, lower-cased: GitHub's X-GitHub-Reason header and the
// reason addresses it puts in Cc (review_requested@noreply.github.com),
// GitLab's X-GitLab-NotificationReason.
func codeHostReasons(m *model.Message) []string {
	var reasons []string
	for _, h := range []string{"X-Github-Reason", "X-Gitlab-Notificationreason"} {
		if v := strings.ToLower(strings.TrimSpace(m.Header(h))); v != "" {
			reasons = append(reasons, v)
		}
	}
	for _, a := range m.Cc {
		if local, domain, ok := strings.Cut(strings.ToLower(a.Email), "@"); ok && domain == "noreply.github.com" {
			reasons = append(reasons, local)
		}
	}
	return reasons
}

// notifiedAsReader reports whether m is a code host's notice sent to the
// reader for a reason that names them (see readerReasons).
func notifiedAsReader(m *model.Message) bool {
	return slices.ContainsFunc(codeHostReasons(m), func(r string) bool { return slices.Contains(readerReasons, r) })
}

// monitorLocals are the local parts monitoring services send alerts from
// (alert@dtdg.eu, alerts@grafana.…, alertmanager@…).
var monitorLocals = []string{"alert", "alerts", "alerting", "alertmanager"}

// monitorAddress reports whether email is a monitoring service's alert
// address (see monitorLocals). Only the alert rule reads it: spam sends
// "account alerts" from such addresses too.
func monitorAddress(email string) bool {
	local, _, ok := strings.Cut(strings.ToLower(email), "@")
	return ok && slices.Contains(monitorLocals, local)
}

// ciActivity reports whether m is a code host's notice of a workflow run
// the reader triggered: GitHub's ci_activity reason (see
// codeHostReasons).
func ciActivity(m *model.Message) bool {
	return slices.Contains(codeHostReasons(m), "ci_activity")
}

// ownBranch reports whether subject names a branch of the reader's, by
// the common convention of their first name as its prefix
// ("alex/eta-cache-ttl").
func ownBranch(subject, first string) bool {
	if first == "" {
		return false
	}
	low, name := strings.ToLower(subject), strings.ToLower(first)+"/"
	for i := strings.Index(low, name); i >= 0; {
		if i == 0 || !isWordByte(low[i-1]) {
			return true
		}
		j := strings.Index(low[i+1:], name)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// hasWord reports whether word stands in s as a word of its own (between
// non-letters and non-digits).
func hasWord(s, word string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(word)
		if (i == 0 || !isWordByte(s[i-1])) && (j == len(s) || !isWordByte(s[j])) {
			return true
		}
		off = i + 1
	}
}

// itRoleCues is itRoleNames indexed (one pass over a name).
var itRoleCues = newCueSet(itRoleNames)

// itRoleNames in a display name present the sender as the keeper of a
// mailbox or of accounts (lower case).
var itRoleNames = []string{"postmaster", "mail administrator", "email administrator", "mailbox administrator",
	"it-service", "it service", "it support", "it-support", "it helpdesk", "it-helpdesk", "it help desk", "helpdesk", "help desk",
	"service desk", "servicedesk", "system administrator", "systemadministrator", "administrateur", "administrador",
	"soporte técnico", "support informatique", "messagerie", "postfach-service", "システム管理者", "情報システム部"}

// brandsByPair lists, by the first two bytes of their name, the indexes
// of the brands (in brands' order within each pair).
var brandsByPair = func() map[uint16][]int {
	m := map[uint16][]int{}
	for k, b := range brands {
		p := uint16(b.name[0]) | uint16(b.name[1])<<8
		m[p] = append(m[p], k)
	}
	return m
}()

// brandPairs holds the first two bytes of every brand's name.
var brandPairs = func() *pairFilter {
	f := &pairFilter{}
	for _, b := range brands {
		f.add(b.name)
	}
	return f
}()

// brandsNamedIn returns the indexes of the brands whose name stands in
// name (lower case), in brands' order: one pass over name, most of whose
// positions begin no brand's name.
func brandsNamedIn(name string) []int {
	var out []int
	for i := 0; i+1 < len(name); i++ {
		if !brandPairs.has(name[i], name[i+1]) {
			continue
		}
		for _, k := range brandsByPair[uint16(name[i])|uint16(name[i+1])<<8] {
			if strings.HasPrefix(name[i:], brands[k].name) && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// selfNamedNoticeDomain returns the name a sender goes by (name is its
// lower-cased display name: a leading run of its words written together,
// or the service after "via") when its registrable domain reg is that
// name joined by hyphens to notice words only ("scaleway-alerts.com",
// "circleci-incident.com", "pagerbell-billing-notices.net"), "" otherwise.
// A service writes its notices from its own domain (scaleway.com); a
// domain that is its name plus "alerts" is registered to look like one.
func selfNamedNoticeDomain(name, reg string) string {
	label, _, _ := strings.Cut(reg, ".")
	// The name a sender goes by: its first word ("Scaleway Security"),
	// all its words run together ("Air France", "Miles & More"), or the
	// service a person writes through ("Kenji Mori via WeTransfer").
	if _, via, ok := strings.Cut(name, " via "); ok {
		name = via
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '&') })
	if len(words) == 0 {
		return ""
	}
	// (each leading run of the words: "Port of Rotterdam Authority -
	// Procurement" is portofrotterdam as much as its first word)
	names := make([]string, 0, len(words))
	for k := range words {
		names = append(names, strings.ReplaceAll(strings.Join(words[:k+1], ""), "&", "and"))
	}
	names[0] = strings.Trim(names[0], "&")
	for _, first := range names {
		rest, ok := strings.CutPrefix(label, first+"-")
		if len(first) < 4 || !ok {
			continue
		}
		notice := true
		for w := range strings.SplitSeq(rest, "-") {
			notice = notice && noticeWords[w]
		}
		if notice {
			return first
		}
	}
	return ""
}

// noticeWords name what a service's notice address is for (see
// selfNamedNoticeDomain); not the words products are named with
// ("EuroToll Connect", "Acme Online", "Acme Portal", "Acme ID").
var noticeWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"notification", "notifications", "notify", "notice", "notices", "alert", "alerts",
		"trust", "security", "secure", "safety", "verify", "verification", "incident", "incidents", "mail", "mailer",
		"email", "invoice", "invoices", "billing", "payment", "payments", "support", "account", "accounts", "login",
		"signin", "auth", "helpdesk", "update", "updates", "noreply", "compliance", "status", "review", "policy",
		// the office a business or an event writes from: procurement
		// and tenders, housing and reservations, members
		"procurement", "tender", "tenders", "housing", "reservation", "reservations", "booking", "bookings",
		"member", "members", "recruiting", "recruitment", "careers", "jobs", "talent", "hiring",
		// refunds, which travel and ticketing phishing promises
		"refund", "refunds", "erstattung", "rueckerstattung", "remboursement", "remboursements", "reembolso",
		"reembolsos", "rimborso",
		// the name's own domain spelled out: "Sentry" from sentry-io.app
		"io"} {
		m[w] = true
	}
	return m
}()
