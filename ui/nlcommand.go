package ui

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/termsafe"
	"mailsift/mailops"
	"mailsift/store"
)

// This file is plain language on the `:` line: a sentence that is not a
// structured command goes to the local model, which answers with one
// operation of the mail-operations contract (mailops validates it); the
// answer then runs exactly like the structured command it maps to, so a
// target that matches several threads asks which one (the same
// disambiguation list), and a reply opens the draft review or, for
// replyConfirm, the confirm screen, where only y sends. A new message
// (sendPreview, sendConfirm) opens the compose screen or the confirm
// screen: nlsend.go.

// Interpreter turns a plain-language request into the contract's
// operation and args. *mailops.Interpreter satisfies it.
type Interpreter interface {
	Interpret(ctx context.Context, request string) (mailops.Args, error)
}

// commandPlaceholder is shown in the empty `:` line.
const commandPlaceholder = "list from:bob · open 3 · or plain language: reply to the latest mail from Dana"

// needsModel is the answer to plain language without a model.
const needsModel = "plain language needs the local model"

// interpretedMsg carries the model's reading of a request.
type interpretedMsg struct {
	line string
	args mailops.Args
	err  error
}

// plainLanguage sends a plain-language line to the model; ok is false for
// a structured command, which runs as before.
func (m *Model) plainLanguage(line string) (tea.Cmd, bool) {
	if !IsPlainLanguage(line) {
		return nil, false
	}
	in := m.opts.Interpreter
	if in == nil {
		m.c.setError(fmt.Errorf("%s, which is off (triage.offline, or no model configured); the commands work: %s", needsModel, commandHelp))
		return nil, true
	}
	m.c.note = "asking the model what you mean…"
	ctx := m.ctx()
	return func() tea.Msg {
		a, err := in.Interpret(ctx, line)
		return interpretedMsg{line: line, args: a, err: err}
	}, true
}

// handleInterpreted runs the operation the model read, or says why not;
// nothing is done for an answer off the contract or an operation the
// product does not have.
func (m *Model) handleInterpreted(msg interpretedMsg) tea.Cmd {
	m.c.note = ""
	var me *mailops.ModelError
	var oce *mailops.OffContractError
	switch {
	case msg.err == nil:
	case errors.As(msg.err, &me):
		m.c.setError(fmt.Errorf("%s; the commands work (list, open, reply, read, unread; ? for help) — the model did not answer: %w", needsModel, msg.err))
		return nil
	case errors.As(msg.err, &oce):
		m.c.setError(fmt.Errorf("the model's answer was off the contract, so nothing was done (%w); try other words or a command", msg.err))
		return nil
	default:
		if err := quiet(msg.err); err != nil {
			m.c.setError(err)
		}
		return nil
	}
	understood := "understood: " + termsafe.SanitizeLine(msg.args.Describe())
	if msg.args.Operation.IsSend() {
		return m.startSend(msg.line, msg.args, understood) // nlsend.go
	}
	c, err := CommandFromArgs(msg.args)
	if err != nil {
		if msg.args.Operation == mailops.Unsupported {
			m.c.setError(fmt.Errorf("%w; nothing was done", err))
		} else {
			m.c.setError(fmt.Errorf("%s — %w; nothing was done", understood, err))
		}
		return nil
	}
	m.c.note = understood
	return m.runResolved(c)
}

// runResolved runs a parsed command: a row of the last list at once, a
// Message-ID through the store, filters through a search (several
// matches ask).
func (m *Model) runResolved(c Command) tea.Cmd {
	if c.Index > 0 {
		id, err := ResolveIndex(c.Index, m.lastList)
		if err != nil {
			m.c.setError(err)
			return nil
		}
		return m.apply(c, id)
	}
	b, ctx := m.opts.Store, m.ctx()
	if mid := c.MessageID; mid != "" {
		return func() tea.Msg {
			id, err := b.ThreadIDForMessage(ctx, mid)
			if errors.Is(err, store.ErrNotFound) || (err == nil && id == 0) {
				return commandResultMsg{cmd: c, err: fmt.Errorf("no message has the Message-ID <%s>", mid)}
			}
			if err != nil {
				return commandResultMsg{cmd: c, err: err}
			}
			return commandResultMsg{cmd: c, items: []ListItem{{ThreadID: id}}}
		}
	}
	return func() tea.Msg {
		items, err := findThreads(ctx, b, c.Filters)
		return commandResultMsg{cmd: c, items: items, err: err}
	}
}

// replyCommand opens the draft review of a reply; for replyConfirm it
// remembers this draft load, which goes on to the confirm screen once the
// draft is ready.
func (m *Model) replyCommand(c Command, id int64) tea.Cmd {
	cmd := m.reply(id, c.Op == OpReplyAll)
	m.autoConfirm, m.replyBody, m.replyBodySeq = 0, "", 0
	if m.screen == stateDraft {
		if c.Confirm {
			m.autoConfirm = m.draft.loadSeq
		}
		if c.Body != "" {
			m.replyBody, m.replyBodySeq = c.Body, m.draft.loadSeq
		}
	}
	return cmd
}

// afterDraftLoad finishes a plain-language reply once its draft is
// loaded: the body it asked for goes into the draft (saved like an edit),
// then a replyConfirm moves on to the confirm screen, which waits for that
// save.
func (m *Model) afterDraftLoad() tea.Cmd {
	cmd := m.putReplyBody()
	m.confirmWhenReady()
	return cmd
}

// putReplyBody replaces the new draft's body with the words the request
// gave. A resumed draft holds the user's own text, which is never
// overwritten: the note says the words were not used.
func (m *Model) putReplyBody() tea.Cmd {
	if m.replyBodySeq == 0 {
		return nil
	}
	f := &m.draft
	if m.screen != stateDraft || f.loadSeq != m.replyBodySeq || f.loadErr != nil {
		m.replyBody, m.replyBodySeq = "", 0
		return nil
	}
	if f.loading || f.d == nil {
		return nil
	}
	body := m.replyBody
	m.replyBody, m.replyBodySeq = "", 0
	if f.resumed {
		m.c.note = "an open draft of this reply was resumed; what you asked to say was not put in it"
		return nil
	}
	f.d.Body = body
	f.dirty = true
	return f.startSave(true)
}

// confirmWhenReady moves a replyConfirm from the draft review to the
// confirm screen once its own draft is loaded. Leaving the review, a
// failed load or another draft opened meanwhile (r on another thread)
// cancels it.
func (m *Model) confirmWhenReady() {
	if m.autoConfirm == 0 {
		return
	}
	if m.screen != stateDraft || m.draft.loadSeq != m.autoConfirm || m.draft.loadErr != nil {
		m.autoConfirm = 0
		return
	}
	if m.draft.loading || m.draft.d == nil {
		return
	}
	m.autoConfirm = 0
	m.c.show(stateConfirm)
}
