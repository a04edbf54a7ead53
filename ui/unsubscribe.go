package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/termsafe"
	"mailsift/internal/unsubscribe"
	"mailsift/model"
	"mailsift/store"
)

// ArchiveSenderFunc archives the threads whose messages come from sender
// (the bulk archive action) and says how many it archived.
type ArchiveSenderFunc func(ctx context.Context, sender string) (int, error)

// unsubModel shows what unsubscribing from a thread's list will do (the
// one-click POST and its exact URL, the message to the list's address, or
// the list's web page) and does it only after y; then it offers to archive
// the sender's threads.
type unsubModel struct {
	c       *common
	b       Backend
	post    func(ctx context.Context, u string) error
	openURL func(ctx context.Context, u string) error
	archive ArchiveSenderFunc

	returnTo state
	seq      int
	loading  bool
	err      error
	plan     unsubscribe.Plan
	subject  string
	list     string
	sender   model.Address
	account  string // the account the list mail arrived in
	phase    unsubPhase
}

type unsubPhase int

const (
	unsubAsk unsubPhase = iota
	unsubWorking
	unsubDone // unsubscribed: offer the archive
	unsubArchived
)

func newUnsubModel(c *common, b Backend, post, open func(ctx context.Context, u string) error, archive ArchiveSenderFunc) unsubModel {
	if post == nil {
		post = func(ctx context.Context, u string) error { return unsubscribe.Post(ctx, nil, u) }
	}
	return unsubModel{c: c, b: b, post: post, openURL: open, archive: archive}
}

type (
	unsubLoadedMsg struct {
		seq           int
		plan          unsubscribe.Plan
		subject, list string
		sender        model.Address
		account       string
		err           error
	}
	unsubPostedMsg   struct{ err error }
	unsubArchivedMsg struct {
		n   int
		err error
	}
	// unsubDraftMsg asks the root for the message to the list's address
	// (plan), then carries it (draft) to the compose and confirm screens.
	unsubDraftMsg struct {
		plan    *unsubscribe.Plan
		account string // the account the list mail arrived in
		draft   *store.Draft
		err     error
	}
)

func (unsubLoadedMsg) owner() state   { return stateUnsub }
func (unsubPostedMsg) owner() state   { return stateUnsub }
func (unsubArchivedMsg) owner() state { return stateUnsub }
func (unsubDraftMsg) owner() state    { return stateUnsub }

var uk = struct{ yes, archive key.Binding }{
	yes:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes, unsubscribe")),
	archive: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "archive this sender's threads")),
}

// open loads the thread's newest message that has List-Unsubscribe (else
// its newest) and plans the unsubscribe.
func (um unsubModel) open(threadID int64, returnTo state) (unsubModel, tea.Cmd) {
	um.returnTo, um.seq, um.loading, um.err, um.phase = returnTo, um.seq+1, true, nil, unsubAsk
	ctx, b, seq := um.c.ctx, um.b, um.seq
	return um, func() tea.Msg {
		t, err := b.Thread(ctx, threadID)
		if err != nil {
			return unsubLoadedMsg{seq: seq, err: fmt.Errorf("unsubscribe: %w", err)}
		}
		if len(t.Messages) == 0 {
			return unsubLoadedMsg{seq: seq, err: errors.New("unsubscribe: the thread has no messages")}
		}
		m := t.Messages[len(t.Messages)-1]
		for i := len(t.Messages) - 1; i >= 0; i-- {
			if len(t.Messages[i].Headers["List-Unsubscribe"]) > 0 {
				m = t.Messages[i]
				break
			}
		}
		list := ""
		if ids := m.Headers["List-Id"]; len(ids) > 0 {
			list = ids[0]
		}
		return unsubLoadedMsg{seq: seq, plan: unsubscribe.PlanFor(m.Headers), subject: m.Subject, list: list, sender: m.From, account: m.Loc.Account}
	}
}

func (um unsubModel) update(msg tea.Msg) (unsubModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return um, um.handleKey(msg)
	case unsubLoadedMsg:
		if msg.seq != um.seq {
			return um, nil
		}
		um.loading, um.err = false, msg.err
		um.plan, um.subject, um.list, um.sender, um.account = msg.plan, msg.subject, msg.list, msg.sender, msg.account
	case unsubPostedMsg:
		if msg.err != nil {
			um.phase = unsubAsk
			um.c.setError(msg.err)
			return um, nil
		}
		um.phase = unsubDone
		um.c.note = "unsubscribed: the list confirmed the one-click request"
	case unsubArchivedMsg:
		if msg.err != nil {
			um.phase = unsubDone
			um.c.setError(fmt.Errorf("archive: %w", msg.err))
			return um, nil
		}
		um.phase = unsubArchived
		um.c.note = fmt.Sprintf("archived %d thread%s from %s", msg.n, plural(msg.n), termsafe.SanitizeLine(um.sender.Email))
		return um, storeChangedCmd()
	}
	return um, nil
}

func (um *unsubModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	if um.loading || um.phase == unsubWorking {
		if key.Matches(msg, um.c.keys.Back) {
			um.seq++
			um.c.show(um.returnTo)
		}
		return nil
	}
	switch {
	case um.phase == unsubAsk && um.err == nil && um.plan.Method != unsubscribe.None && key.Matches(msg, uk.yes):
		return um.perform()
	case um.phase == unsubDone && um.archive != nil && key.Matches(msg, uk.archive):
		um.phase = unsubWorking
		ctx, archive, sender := um.c.ctx, um.archive, um.sender.Email
		return func() tea.Msg {
			n, err := archive(ctx, sender)
			return unsubArchivedMsg{n: n, err: err}
		}
	}
	// Any other key leaves; nothing was done unless y was pressed.
	if um.phase == unsubAsk {
		um.c.note = "not unsubscribed"
	}
	um.seq++
	um.c.show(um.returnTo)
	return nil
}

// perform does what the screen showed.
func (um *unsubModel) perform() tea.Cmd {
	p := um.plan
	switch p.Method {
	case unsubscribe.OneClick:
		um.phase = unsubWorking
		ctx, post := um.c.ctx, um.post
		return func() tea.Msg { return unsubPostedMsg{err: post(ctx, p.URL)} }
	case unsubscribe.Web:
		// The links screen's opener: the URL is one argument, no shell.
		lm := linksModel{c: um.c, openURL: um.openURL}
		um.phase = unsubDone
		return lm.openLink(p.URL)
	case unsubscribe.Mailto:
		um.phase = unsubDone
		acct := um.account
		return func() tea.Msg { return unsubDraftMsg{plan: &p, account: acct} } // the root writes the message
	}
	return nil
}

// View draws the plan and, after it was carried out, the archive offer.
func (um unsubModel) View() string {
	c := um.c
	h := c.height
	switch {
	case um.loading:
		return padLines("reading the list headers…", h)
	case um.err != nil:
		return padLines(c.st.danger.Render(termsafe.SanitizeLine(um.err.Error()))+"\n\n"+c.st.dim.Render("any key: back"), h)
	}
	w := max(10, c.width)
	wrap := func(s string) []string { return wrapRows(textUnits(termsafe.SanitizeLine(s)), w) }
	indent := func(s string) []string {
		var out []string
		for _, r := range wrapRows(textUnits(termsafe.SanitizeLine(s)), max(10, w-4)) {
			out = append(out, "    "+r)
		}
		return out
	}
	who := um.list
	if who == "" {
		who = draftAddrs([]model.Address{um.sender})
	}
	lines := []string{c.st.header.Render("Unsubscribe") + c.st.dim.Render(" · "+termsafe.SanitizeLine(who))}
	lines = append(lines, wrap("from the list that sent “"+um.subject+"”")...)
	lines = append(lines, "")
	p := um.plan
	switch p.Method {
	case unsubscribe.OneClick:
		lines = append(lines, wrap("y sends a one-click unsubscribe request (RFC 8058): an HTTP POST with the body "+unsubscribe.Body+" to")...)
		lines = append(lines, indent(p.URL)...)
		lines = append(lines, wrap(fmt.Sprintf("No cookies or credentials are sent; it gives up after %s.", unsubscribe.Timeout))...)
	case unsubscribe.Mailto:
		lines = append(lines, wrap("y writes a message to the list's unsubscribe address and shows it on the confirm screen; nothing is sent before you press y there:")...)
		lines = append(lines, indent("To:      "+p.To)...)
		lines = append(lines, indent("Subject: "+p.Subject)...)
		if p.MessageBody != "" {
			lines = append(lines, indent("Body:    "+p.MessageBody)...)
		}
	case unsubscribe.Web:
		lines = append(lines, wrap("This list offers no one-click unsubscribe. y opens its unsubscribe page in the browser:")...)
		lines = append(lines, indent(p.URL)...)
	default:
		lines = append(lines, c.st.warn.Render(strings.Join(wrap(p.Why), "\n")))
	}
	lines = append(lines, "")
	var hint string
	switch um.phase {
	case unsubAsk:
		if p.Method == unsubscribe.None {
			hint = c.st.dim.Render("any key: back")
		} else {
			hint = c.help.ShortHelpView([]key.Binding{uk.yes}) + c.st.dim.Render(" · any other key: back (nothing is done)")
		}
	case unsubWorking:
		hint = c.st.dim.Render("working…")
	case unsubDone:
		lines = append(lines, c.st.header.Render("Done."))
		if um.archive != nil {
			hint = c.help.ShortHelpView([]key.Binding{uk.archive}) + c.st.dim.Render(" ("+termsafe.SanitizeLine(um.sender.Email)+") · any other key: back")
		} else {
			lines = append(lines, wrap("Archiving this sender's threads in bulk needs the archive action, which this build does not have.")...)
			hint = c.st.dim.Render("any key: back")
		}
	case unsubArchived:
		hint = c.st.dim.Render("any key: back")
	}
	return padLines(strings.Join(lines, "\n")+"\n"+hint, h)
}
