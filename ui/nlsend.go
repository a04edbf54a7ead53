package ui

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/compose"
	"mailsift/internal/termsafe"
	"mailsift/mailops"
	"mailsift/model"
	"mailsift/store"
)

// This file is a plain-language new message on the `:` line: the
// contract's sendPreview opens the compose screen with what the request
// gave, sendConfirm goes on to the usual confirm screen (only y sends).
// The model only structures the user's own request, so every recipient
// it returns is checked against what the user typed: an address must be
// in the request, a name must be in the request and name exactly one
// person of the address book (several ask which; none leave the field to
// the user). Anything else is dropped with a note on the compose screen.

// maxPeopleAsked is how many people the "which one?" question offers
// (digits 1–9 pick them).
const maxPeopleAsked = 9

// Recipient fields of a send request, in RecipientPlan.Fields.
const (
	rcptTo = iota
	rcptCc
	rcptBcc
)

var rcptNames = [3]string{"To", "Cc", "Bcc"}

// RecipientPlan is what ResolveRecipients made of a send request's
// recipients.
type RecipientPlan struct {
	// Fields are the resolved To, Cc and Bcc addresses.
	Fields [3][]model.Address
	// Notes say, for the user, what was dropped or could not be found.
	Notes []string
	// Ask are the names that match several people, to ask about in order.
	Ask []PersonQuestion
}

// PersonQuestion is a name of the request that matches several people of
// the address book.
type PersonQuestion struct {
	// Field is the recipient field (0 To, 1 Cc, 2 Bcc).
	Field int
	// Name is the name as the request gave it.
	Name string
	// Candidates are the matching people, best ranked first, with how
	// the user knows them (Sent, Received).
	Candidates []store.Correspondent
}

// add puts an address into a field unless it is in one already.
func (p *RecipientPlan) add(field int, a model.Address) {
	for _, f := range p.Fields {
		for _, have := range f {
			if strings.EqualFold(have.Email, a.Email) {
				return
			}
		}
	}
	p.Fields[field] = append(p.Fields[field], a)
}

// typedAddress finds the mail addresses written in a request.
var typedAddress = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+`)

// ResolveRecipients checks the recipients the model returned for a send
// request against the request the user typed and their address book
// (people, as store.Correspondents ranks them):
//
//   - an address is kept when it is written in the request; an address
//     that is not, but belongs to a person of the address book whose name
//     the request says, is that name; any other address is dropped;
//   - a name is kept only when the request says it, and resolves to a
//     person when exactly one matches (store.MatchCorrespondents, as
//     completion on the compose screen); several are a question, none
//     leave the field to the user.
//
// Whatever is dropped or not found is said in Notes.
func ResolveRecipients(request string, a mailops.Args, people []store.Correspondent) RecipientPlan {
	var p RecipientPlan
	typed := map[string]bool{}
	for _, m := range typedAddress.FindAllString(request, -1) {
		typed[strings.ToLower(strings.TrimRight(m, ".-"))] = true
	}
	words := map[string]bool{}
	for _, w := range nameWords(request) {
		words[w] = true
	}
	said := func(name string) bool {
		ws := nameWords(name)
		for _, w := range ws {
			if !words[w] {
				return false
			}
		}
		return len(ws) > 0
	}
	byEmail := map[string]store.Correspondent{}
	for _, c := range people {
		byEmail[strings.ToLower(c.Address.Email)] = c
	}
	resolveName := func(field int, name string) {
		switch cands := store.MatchCorrespondents(people, name, maxPeopleAsked); {
		case !said(name):
			p.Notes = append(p.Notes, fmt.Sprintf("%s: dropped %q, which is not in your request", rcptNames[field], name))
		case len(cands) == 0:
			p.Notes = append(p.Notes, fmt.Sprintf("%s: no one in your address book matches %q; write the address", rcptNames[field], name))
		case len(cands) == 1:
			p.add(field, cands[0].Address)
		default:
			p.Ask = append(p.Ask, PersonQuestion{Field: field, Name: name, Candidates: cands})
		}
	}
	for field, list := range [3][]string{a.To, a.Cc, a.Bcc} {
		for _, raw := range list {
			raw = strings.TrimSpace(raw)
			if raw == "" {
				continue
			}
			if !strings.Contains(raw, "@") {
				for _, name := range strings.Split(raw, ",") {
					if name = strings.TrimSpace(name); name != "" {
						resolveName(field, name)
					}
				}
				continue
			}
			as, err := compose.ParseAddresses(rcptNames[field], raw)
			if err != nil {
				p.Notes = append(p.Notes, fmt.Sprintf("%s: dropped %q, which is not a mail address", rcptNames[field], raw))
				continue
			}
			for _, ad := range as {
				email := strings.ToLower(ad.Email)
				known, inBook := byEmail[email]
				switch {
				case typed[email]:
					if inBook {
						ad.Name = known.Address.Name
					} else if !said(ad.Name) {
						ad.Name = ""
					}
					p.add(field, ad)
				case inBook && said(firstNameWord(known.Address.Name, words)):
					// The model wrote out a person the request names: the
					// name decides, as if the model had returned it.
					resolveName(field, firstNameWord(known.Address.Name, words))
				default:
					p.Notes = append(p.Notes, fmt.Sprintf("%s: dropped %s, which is neither in your request nor a person it names", rcptNames[field], ad.Email))
				}
			}
		}
	}
	return p
}

// nameWords splits text into lower-case words of letters and digits.
func nameWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// firstNameWord is the first word of name that the request says, or "".
func firstNameWord(name string, words map[string]bool) string {
	for _, w := range nameWords(name) {
		if len(w) > 1 && words[w] {
			return w
		}
	}
	return ""
}

// sendRequest is a plain-language new message on its way to the compose
// screen: its text, and its recipients as resolved so far.
type sendRequest struct {
	confirm       bool
	subject, body string
	plan          RecipientPlan
	returnTo      state
	// understood is what the model read, for the status line.
	understood string
}

// The steps of a plain-language new message, each a result for Model.
type (
	// sendBookMsg carries the address book the recipients are checked
	// against.
	sendBookMsg struct {
		req    sendRequest
		line   string
		args   mailops.Args
		people []store.Correspondent
		err    error
	}
	// personChosenMsg carries the request once the user chose a person.
	personChosenMsg struct{ req sendRequest }
	// sendDraftMsg carries the saved new message.
	sendDraftMsg struct {
		req   sendRequest
		draft *store.Draft
		err   error
	}
)

// startSend begins a sendPreview or sendConfirm: the address book is read
// in a command, then the recipients are checked (handleSendFlow).
func (m *Model) startSend(line string, a mailops.Args, understood string) tea.Cmd {
	if m.compose.cp == nil {
		m.c.setError(fmt.Errorf("%s — writing a new message needs the send engine, which is not available; nothing was done", understood))
		return nil
	}
	req := sendRequest{confirm: a.Operation == mailops.SendConfirm, subject: strings.TrimSpace(a.Subject), body: strings.TrimSpace(a.Body), returnTo: stateInbox, understood: understood}
	if m.screen == stateThread {
		req.returnTo = stateThread
	}
	m.c.note = understood
	book, ctx, now := m.compose.book, m.ctx(), m.c.now()
	return func() tea.Msg {
		msg := sendBookMsg{req: req, line: line, args: a}
		if book != nil {
			msg.people, msg.err = book.Correspondents(ctx, now)
		}
		return msg
	}
}

// busyForSend reports whether the user went on to a screen that a new
// message must not take over (typing a message, a confirm screen, a
// picker) while the request was on its way.
func (m *Model) busyForSend() bool {
	return m.c.overlay != nil || m.promptKind != promptNone ||
		m.screen == stateCompose || m.screen == stateConfirm || m.screen == stateDraft
}

// handleSendFlow runs the next step of a plain-language new message.
func (m *Model) handleSendFlow(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sendBookMsg:
		req := msg.req
		req.plan = ResolveRecipients(msg.line, msg.args, msg.people)
		if err := quiet(msg.err); err != nil {
			req.plan.Notes = append(req.plan.Notes, fmt.Sprintf("the address book could not be read (%v), so no name was looked up", err))
		}
		return m.askNextPerson(req)
	case personChosenMsg:
		return m.askNextPerson(msg.req)
	case sendDraftMsg:
		return m.showSendDraft(msg)
	}
	return nil
}

// askNextPerson asks which person a name means, one name at a time, then
// writes the message.
func (m *Model) askNextPerson(req sendRequest) tea.Cmd {
	if m.busyForSend() {
		m.c.note = "the new message you asked for was not written: another screen is open; ask again"
		return nil
	}
	if len(req.plan.Ask) > 0 {
		m.c.overlay = &personPicker{req: req}
		return nil
	}
	cp, ctx := m.compose.cp, m.ctx()
	return func() tea.Msg {
		d, err := cp.NewMessage(ctx, "")
		if err != nil {
			return sendDraftMsg{req: req, err: err}
		}
		d.To, d.Cc, d.Bcc = req.plan.Fields[rcptTo], req.plan.Fields[rcptCc], req.plan.Fields[rcptBcc]
		d.Subject, d.Body = req.subject, req.body
		if err := cp.SaveNewMessage(ctx, d); err != nil {
			return sendDraftMsg{req: req, err: err}
		}
		return sendDraftMsg{req: req, draft: d}
	}
}

// showSendDraft opens the written message on the compose screen, or, for
// a sendConfirm whose every recipient was resolved, on the confirm screen
// with the compose screen behind it.
func (m *Model) showSendDraft(msg sendDraftMsg) tea.Cmd {
	if msg.err != nil {
		m.c.setError(fmt.Errorf("new message: %w", msg.err))
		return nil
	}
	if m.busyForSend() {
		m.c.note = "your new message is saved; c opens it"
		return nil
	}
	req := msg.req
	m.compose = m.compose.prefill(msg.draft, req.returnTo, "New message", req.plan.Notes)
	if req.confirm && len(req.plan.Notes) == 0 && len(msg.draft.To) > 0 {
		m.screen = stateConfirm
		return m.composeToConfirm()
	}
	m.screen = stateCompose
	switch {
	case req.confirm:
		m.c.note = req.understood + " — check the recipients first (the notes say why); ctrl+s goes on to confirm"
	case len(req.plan.Notes) > 0:
		m.c.note = req.understood + " — check the recipients (the notes say why); ctrl+s goes on to confirm"
	default:
		m.c.note = req.understood + " — check the message; ctrl+s goes on to confirm"
	}
	return nil
}

// personPicker asks which person a name of a send request means: digits
// or ↑/↓ and enter choose, esc drops the request (nothing is written).
type personPicker struct {
	req    sendRequest
	cursor int
}

func (p *personPicker) update(msg tea.Msg) (overlay, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	q := p.req.plan.Ask[0]
	n := len(q.Candidates)
	pick := -1
	switch s := k.String(); s {
	case "esc", "ctrl+c", "q":
		return nil, func() tea.Msg { return noteMsg("cancelled: no message was written") }
	case "up", "k", "shift+tab", "ctrl+p":
		p.cursor = (p.cursor + n - 1) % n
	case "down", "j", "tab", "ctrl+n":
		p.cursor = (p.cursor + 1) % n
	case "enter":
		pick = p.cursor
	default:
		if len(s) == 1 && s[0] >= '1' && s[0] <= '9' && int(s[0]-'1') < n {
			pick = int(s[0] - '1')
		}
	}
	if pick < 0 {
		return p, nil
	}
	req := p.req
	req.plan.Ask = append([]PersonQuestion(nil), req.plan.Ask[1:]...)
	for f := range req.plan.Fields {
		req.plan.Fields[f] = append([]model.Address(nil), req.plan.Fields[f]...)
	}
	req.plan.add(q.Field, q.Candidates[pick].Address)
	return nil, func() tea.Msg { return personChosenMsg{req: req} }
}

func (p *personPicker) view(c *common, width int) []string {
	q := p.req.plan.Ask[0]
	head := fmt.Sprintf("%s: %d people match %q — which one do you mean?", rcptNames[q.Field], len(q.Candidates), q.Name)
	lines := []string{c.st.warn.Render(termsafe.SanitizeLine(head))}
	for i, cand := range q.Candidates {
		row := fmt.Sprintf("%d. %s", i+1, termsafe.SanitizeLine(compose.FormatAddresses([]model.Address{cand.Address})))
		// How the user knows them: an impostor of a colleague has only
		// ever written, never been written to.
		if cand.Sent > 0 {
			row += c.st.dim.Render(fmt.Sprintf("  · you wrote %d×", cand.Sent))
		} else {
			row += c.st.dim.Render("  · never written to")
		}
		if i == p.cursor {
			row = c.st.cursor.Render("▸ " + row)
		} else {
			row = "  " + row
		}
		lines = append(lines, row)
	}
	return append(lines, c.st.dim.Render("number or ↑/↓ enter: choose · esc: cancel (nothing is written)"))
}
