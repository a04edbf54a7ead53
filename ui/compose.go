package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/compose"
	"mailsift/internal/termsafe"
	"mailsift/model"
	"mailsift/store"
)

// Composer is the part of the send engine the compose screen uses: new
// messages and forwards, their attachments, and saving them. The confirm
// screen and the outbox are the same as for replies. *drafts.Engine
// satisfies it; the UI finds it on Options.Drafts.
type Composer interface {
	// NewMessage creates an empty new message.
	NewMessage(ctx context.Context, account string) (*store.Draft, error)
	// ResumeNewMessage returns the latest unsent new message or an empty one.
	ResumeNewMessage(ctx context.Context, account string) (*store.Draft, bool, error)
	// Forward drafts a forward of a raw message (inline or attached whole).
	// problems name what could not be carried over.
	Forward(ctx context.Context, raw []byte, asAttachment bool, account string) (d *store.Draft, problems []string, err error)
	// SaveNewMessage stores the edited message and recomputes its risk flags.
	SaveNewMessage(ctx context.Context, d *store.Draft) error
	// AttachFile copies a file into the draft.
	AttachFile(ctx context.Context, draftID, path string) (*store.DraftAttachment, error)
	// Attachments lists the draft's attachments.
	Attachments(ctx context.Context, draftID string) ([]store.DraftAttachment, error)
	// RemoveAttachment removes one attachment.
	RemoveAttachment(ctx context.Context, draftID string, id int64) error
	// Discard discards an open draft.
	Discard(ctx context.Context, draftID string) error
	// AccountFrom is the From address of the named account's messages.
	AccountFrom(account string) model.Address
}

// AddressBook ranks the people the user writes to, for completion.
// *store.Store (and the app layer's Mail) satisfies it.
type AddressBook interface {
	Correspondents(ctx context.Context, now time.Time) ([]store.Correspondent, error)
}

// Fields of the compose screen, in tab order.
const (
	fieldTo = iota
	fieldCc
	fieldBcc
	fieldSubject
	fieldAttach
	fieldBody
	fieldCount
	// fieldFrom is the sending account, first in tab order when there are
	// several accounts; it is chosen, not typed, so it has no input.
	fieldFrom = fieldCount
)

var fieldNames = [fieldCount]string{"To:", "Cc:", "Bcc:", "Subject:", "Attach:", ""}

// maxSuggestions is how many address completions show under a field.
const maxSuggestions = 5

// sender is an account a new message may be sent from, as the compose
// screen offers it.
type sender struct {
	name   string
	from   model.Address
	cannot string // why the account cannot send ("" when it can)
}

// composeModel is the compose screen: a new message or a forward, the
// account it goes out through (when there are several), its recipients
// (with completion from the address book), subject, attached files (paths
// with completion) and body.
type composeModel struct {
	c       *common
	cp      Composer
	b       Backend
	book    AddressBook
	senders []sender // the configured accounts when there are several, else nil

	returnTo state
	loadSeq  int
	loading  bool
	loadErr  error
	title    string
	resumed  bool

	d        *store.Draft
	atts     []store.DraftAttachment
	problems []string
	people   []store.Correspondent

	inputs  [fieldAttach + 1]textinput.Model
	body    textarea.Model
	focus   int
	fldErr  [fieldBcc + 1]string // an address field that does not parse
	sugg    []store.Correspondent
	suggIdx int
	matches []string // path completions

	editSeq    int
	gate       *saveGate // orders the saves of this screen's commands
	dirty      bool
	saving     bool
	askDiscard bool
	leaveAsked bool // esc once with a bad address: a second esc leaves
}

func newComposeModel(c *common, cp Composer, b Backend, book AddressBook) composeModel {
	return composeModel{c: c, cp: cp, b: b, book: book, gate: &saveGate{}}
}

// withAccounts offers the accounts names as senders when there are
// several: each with its From address and, when delivery says so, why it
// cannot send. Both lookups read the engine's configuration, not the
// network.
func (cm composeModel) withAccounts(names []string, delivery func(string) (string, bool, string)) composeModel {
	cm.senders = nil
	if len(names) < 2 || cm.cp == nil {
		return cm
	}
	for _, n := range names {
		s := sender{name: n, from: cm.cp.AccountFrom(n)}
		if delivery != nil {
			if name, ok, why := delivery(n); !ok && name == "" {
				s.cannot = why
			}
		}
		cm.senders = append(cm.senders, s)
	}
	return cm
}

// senderIndex is the position of the draft's account among the senders
// ("" is the default account, the first).
func (cm *composeModel) senderIndex() int {
	name := cm.d.Account
	if name == "" {
		return 0
	}
	for i, s := range cm.senders {
		if s.name == name {
			return i
		}
	}
	return -1
}

// cycleSender moves the draft to the next (dir 1) or previous (dir -1)
// account: its From changes with it, and the message is saved.
func (cm *composeModel) cycleSender(dir int) tea.Cmd {
	n := len(cm.senders)
	i := cm.senderIndex()
	if i < 0 {
		i = 0
	} else {
		i = (i + dir + n) % n
	}
	s := cm.senders[i]
	cm.d.Account, cm.d.From = s.name, s.from
	cm.dirty = true
	return cm.save()
}

// tabOrder is the fields in tab order: the account first when there is a
// choice.
func (cm *composeModel) tabOrder() []int {
	order := make([]int, 0, fieldCount+1)
	if len(cm.senders) > 0 {
		order = append(order, fieldFrom)
	}
	for f := fieldTo; f < fieldCount; f++ {
		order = append(order, f)
	}
	return order
}

// moveFocus focuses the next (dir 1) or previous (dir -1) field.
func (cm *composeModel) moveFocus(dir int) {
	order := cm.tabOrder()
	i := 0
	for j, f := range order {
		if f == cm.focus {
			i = j
		}
	}
	cm.focus = order[(i+dir+len(order))%len(order)]
	cm.applyFocus()
}

// saveGate orders saves that run in concurrent commands: each save takes
// a ticket when it is started (in Update, in order) and a save whose
// ticket is older than one already stored is skipped. Without it an
// autosave started before the last keystrokes could land after the
// confirm screen saved them, expiring the approval on screen.
type saveGate struct {
	mu         sync.Mutex
	next, last int64
}

// ticket numbers a save; call it in Update.
func (g *saveGate) ticket() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next++
	return g.next
}

// run runs save unless a newer save already ran.
func (g *saveGate) run(t int64, save func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t < g.last {
		return nil
	}
	g.last = t
	return save()
}

// routedMsg is a result for one of the screens of compose, links and
// unsubscribe: Model.update hands it to the screen that owns it,
// whichever is showing.
type routedMsg interface{ owner() state }

type (
	composeLoadedMsg struct {
		seq      int
		title    string
		draft    *store.Draft
		atts     []store.DraftAttachment
		people   []store.Correspondent
		problems []string
		resumed  bool
		err      error
	}
	composeSavedMsg struct {
		draft *store.Draft
		err   error
	}
	composeAttachedMsg struct {
		atts []store.DraftAttachment
		name string
		err  error
	}
	composeDiscardedMsg struct{ err error }
	composeTickMsg      struct{ seq int }
)

func (composeLoadedMsg) owner() state    { return stateCompose }
func (composeSavedMsg) owner() state     { return stateCompose }
func (composeAttachedMsg) owner() state  { return stateCompose }
func (composeDiscardedMsg) owner() state { return stateCompose }
func (composeTickMsg) owner() state      { return stateCompose }

// open shows the screen and loads (or creates) the draft in a command:
// raw nil is a new message (the latest unsent one resumed), else a
// forward of that thread's latest message.
//
// account is the account a new message starts from (a resumed one keeps
// its own) and a forward's when its original is in none of the senders;
// "" is the default account.
func (cm composeModel) open(returnTo state, forwardThread int64, asAttachment bool, account string) (composeModel, tea.Cmd) {
	cm.returnTo = returnTo
	cm.loadSeq++
	cm.loading, cm.loadErr, cm.d, cm.atts, cm.problems = true, nil, nil, nil, nil
	cm.askDiscard, cm.leaveAsked, cm.dirty, cm.saving = false, false, false, false
	cm.sugg, cm.matches = nil, nil
	cm.fldErr = [fieldBcc + 1]string{}
	ctx, cp, b, book, seq, now := cm.c.ctx, cm.cp, cm.b, cm.book, cm.loadSeq, cm.c.now()
	senders := cm.senders
	return cm, func() tea.Msg {
		msg := composeLoadedMsg{seq: seq, title: "New message"}
		if book != nil {
			// Completion is a help, not a need: a failed address book
			// leaves the fields to be typed.
			msg.people, _ = book.Correspondents(ctx, now)
		}
		var err error
		if forwardThread == 0 {
			msg.draft, msg.resumed, err = cp.ResumeNewMessage(ctx, account)
		} else {
			msg.title = "Forward"
			if asAttachment {
				msg.title = "Forward as attachment"
			}
			msg.draft, msg.problems, err = forwardLatest(ctx, cp, b, forwardThread, asAttachment, account, senders)
		}
		if err != nil {
			msg.err = err
			return msg
		}
		msg.atts, msg.err = cp.Attachments(ctx, msg.draft.ID)
		return msg
	}
}

// forwardLatest forwards the latest message of a thread (run in a
// command) from the account it arrived in when that is one of the
// senders, else from account.
func forwardLatest(ctx context.Context, cp Composer, b Backend, threadID int64, asAttachment bool, account string, senders []sender) (*store.Draft, []string, error) {
	t, err := b.Thread(ctx, threadID)
	if err != nil {
		return nil, nil, fmt.Errorf("forward: %w", err)
	}
	if len(t.Messages) == 0 {
		return nil, nil, errors.New("forward: the thread has no messages")
	}
	m := t.Messages[len(t.Messages)-1]
	raw, err := b.RawMessage(ctx, m.MessageID)
	if err != nil {
		return nil, nil, fmt.Errorf("forward: the original message's bytes are not available (%w); sync the account and try again", err)
	}
	for _, s := range senders {
		if s.name == m.Loc.Account {
			account = s.name
		}
	}
	return cp.Forward(ctx, raw, asAttachment, account)
}

// setup fills the fields from the loaded draft.
func (cm *composeModel) setup() {
	d := cm.d
	vals := [fieldAttach + 1]string{compose.FormatAddresses(d.To), compose.FormatAddresses(d.Cc), compose.FormatAddresses(d.Bcc), d.Subject, ""}
	for i := range cm.inputs {
		ti := textinput.New()
		ti.Prompt = ""
		ti.CharLimit = 4000
		ti.Cursor.SetMode(cursor.CursorStatic)
		ti.SetValue(vals[i])
		cm.inputs[i] = ti
	}
	cm.inputs[fieldAttach].Placeholder = "path of a file to attach (tab completes, enter attaches)"
	cm.body = newDraftTextarea(d.Body)
	cm.focus = fieldTo
	if len(d.To) > 0 {
		cm.focus = fieldBody
	}
	cm.applyFocus()
}

// applyFocus focuses the field cm.focus and blurs the others.
func (cm *composeModel) applyFocus() {
	for i := range cm.inputs {
		if i == cm.focus {
			cm.inputs[i].Focus()
		} else {
			cm.inputs[i].Blur()
		}
	}
	if cm.focus == fieldBody {
		cm.body.Focus()
	} else {
		cm.body.Blur()
	}
	cm.sugg, cm.suggIdx, cm.matches = nil, 0, nil
}

// update applies a message of the compose screen.
func (cm composeModel) update(msg tea.Msg) (composeModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd := cm.handleKey(msg)
		return cm, cmd
	case composeLoadedMsg:
		if msg.seq != cm.loadSeq {
			return cm, nil
		}
		cm.loading = false
		if msg.err != nil {
			cm.loadErr = msg.err
			cm.c.setError(msg.err)
			return cm, nil
		}
		cm.d, cm.atts, cm.people, cm.problems, cm.resumed, cm.title = msg.draft, msg.atts, msg.people, msg.problems, msg.resumed, msg.title
		cm.setup()
		return cm, nil
	case composeSavedMsg:
		cm.saving = false
		if msg.err != nil {
			cm.c.setError(msg.err)
			cm.dirty = true
			return cm, nil
		}
		if cm.d != nil && msg.draft != nil && msg.draft.ID == cm.d.ID {
			cm.d.RiskFlags, cm.d.UpdatedAt = msg.draft.RiskFlags, msg.draft.UpdatedAt
		}
		if cm.dirty {
			return cm, cm.save()
		}
		return cm, nil
	case composeAttachedMsg:
		if msg.err != nil {
			cm.c.setError(msg.err)
			return cm, nil
		}
		cm.atts = msg.atts
		if msg.name != "" {
			cm.c.note = "attached " + termsafe.SanitizeLine(msg.name)
			cm.inputs[fieldAttach].SetValue("")
		}
		cm.matches = nil
		cm.dirty = true
		return cm, cm.save() // risk flags depend on the attachments
	case composeDiscardedMsg:
		if msg.err != nil {
			cm.c.setError(fmt.Errorf("discard: %w", msg.err))
			return cm, nil
		}
		cm.d = nil
		cm.c.note = "message discarded"
		cm.c.show(cm.returnTo)
		return cm, storeChangedCmd()
	case composeTickMsg:
		if msg.seq == cm.editSeq && cm.dirty {
			return cm, cm.save()
		}
	}
	return cm, nil
}

// collect copies the fields into the draft. An address field that does
// not parse keeps the draft's previous addresses for it and says why.
func (cm *composeModel) collect() bool {
	d := cm.d
	ok := true
	lists := []*[]model.Address{&d.To, &d.Cc, &d.Bcc}
	for i := fieldTo; i <= fieldBcc; i++ {
		as, err := compose.ParseAddresses(strings.TrimSuffix(fieldNames[i], ":"), cm.inputs[i].Value())
		if err != nil {
			cm.fldErr[i] = termsafe.SanitizeLine(err.Error())
			ok = false
			continue
		}
		cm.fldErr[i] = ""
		*lists[i] = as
	}
	d.Subject = cm.inputs[fieldSubject].Value()
	d.Body = cm.body.Value()
	return ok
}

// save stores the draft in a command unless a save is running (it is
// started again when that one ends).
func (cm *composeModel) save() tea.Cmd {
	if cm.d == nil || cm.saving {
		return nil
	}
	cm.collect()
	cm.saving, cm.dirty = true, false
	cp, ctx, d, gate := cm.cp, cm.c.ctx, *cm.d, cm.gate
	t := gate.ticket()
	return func() tea.Msg {
		if err := gate.run(t, func() error { return cp.SaveNewMessage(ctx, &d) }); err != nil {
			return composeSavedMsg{err: fmt.Errorf("autosave: %w", err)}
		}
		return composeSavedMsg{draft: &d}
	}
}

// handOff gives the confirm screen the draft as typed; ok is false when an
// address does not parse (the screen stays, with the error).
func (cm *composeModel) handOff() (store.Draft, bool) {
	ok := cm.collect()
	cm.dirty = false
	return *cm.d, ok
}

// sent forgets the message the confirm screen queued.
func (cm *composeModel) sent() { cm.d = nil }

func (cm *composeModel) armAutosave() tea.Cmd {
	cm.editSeq++
	cm.dirty = true
	if cm.c.manualTicks {
		return nil
	}
	seq := cm.editSeq
	return tea.Tick(autosaveIdle, func(time.Time) tea.Msg { return composeTickMsg{seq: seq} })
}

// composeKeys are the compose screen's own bindings (every other key is
// typed into the focused field).
type composeKeys struct {
	next, prev, up, down, accept, toConfirm, leave, discard, yes, account, accountBack key.Binding
}

var ck = composeKeys{
	next:        key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field/complete")),
	prev:        key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
	up:          key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous suggestion")),
	down:        key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "next suggestion")),
	accept:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "accept/attach")),
	toConfirm:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "send…")),
	leave:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "save and leave")),
	discard:     key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "discard")),
	yes:         key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes, discard")),
	account:     key.NewBinding(key.WithKeys("right", " "), key.WithHelp("→/←", "sending account")),
	accountBack: key.NewBinding(key.WithKeys("left")),
}

func (cm *composeModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	if cm.d == nil {
		if key.Matches(msg, ck.leave) || cm.loadErr != nil {
			cm.loadSeq++
			cm.c.show(cm.returnTo)
		}
		return nil
	}
	if cm.askDiscard {
		cm.askDiscard = false
		if key.Matches(msg, ck.yes) {
			id, cp, ctx := cm.d.ID, cm.cp, cm.c.ctx
			return func() tea.Msg { return composeDiscardedMsg{err: cp.Discard(ctx, id)} }
		}
		cm.c.note = "message kept"
		return nil
	}
	if !key.Matches(msg, ck.leave) {
		cm.leaveAsked = false
	}
	switch {
	case key.Matches(msg, ck.toConfirm):
		if _, ok := cm.handOff(); !ok {
			cm.c.note = "fix the address first (the field says what is wrong)"
			return nil
		}
		cm.c.show(stateConfirm)
		return nil
	case key.Matches(msg, ck.leave):
		if !cm.collect() && !cm.leaveAsked {
			cm.leaveAsked = true
			cm.c.note = "an address does not parse: fix it, or esc again to leave without it"
			return nil
		}
		cm.dirty = true
		cmd := cm.save()
		cm.c.show(cm.returnTo)
		cm.loadSeq++
		cm.c.note = "message saved; c resumes it"
		return tea.Batch(cmd, storeChangedCmd())
	case key.Matches(msg, ck.discard):
		cm.askDiscard = true
		return nil
	}
	if cm.focus <= fieldBcc && len(cm.sugg) > 0 {
		switch {
		case key.Matches(msg, ck.down):
			cm.suggIdx = (cm.suggIdx + 1) % len(cm.sugg)
			return nil
		case key.Matches(msg, ck.up):
			cm.suggIdx = (cm.suggIdx + len(cm.sugg) - 1) % len(cm.sugg)
			return nil
		case key.Matches(msg, ck.accept, ck.next):
			cm.acceptSuggestion()
			return cm.armAutosave()
		}
	}
	if cm.focus == fieldFrom {
		switch {
		case key.Matches(msg, ck.account):
			return cm.cycleSender(1)
		case key.Matches(msg, ck.accountBack):
			return cm.cycleSender(-1)
		case key.Matches(msg, ck.next, ck.accept):
			cm.moveFocus(1)
		case key.Matches(msg, ck.prev):
			cm.moveFocus(-1)
		}
		return nil // nothing is typed here
	}
	if cm.focus == fieldAttach {
		in := &cm.inputs[fieldAttach]
		switch {
		case key.Matches(msg, ck.next) && strings.TrimSpace(in.Value()) != "":
			done, matches := compose.CompletePath(in.Value())
			in.SetValue(done)
			in.CursorEnd()
			cm.matches = matches
			if len(matches) == 1 {
				cm.matches = nil
			}
			return nil
		case key.Matches(msg, ck.accept) && strings.TrimSpace(in.Value()) != "":
			path, id, cp, ctx := in.Value(), cm.d.ID, cm.cp, cm.c.ctx
			return func() tea.Msg {
				a, err := cp.AttachFile(ctx, id, path)
				if err != nil {
					return composeAttachedMsg{err: err}
				}
				atts, err := cp.Attachments(ctx, id)
				return composeAttachedMsg{atts: atts, name: a.Filename, err: err}
			}
		case msg.Type == tea.KeyBackspace && in.Value() == "" && len(cm.atts) > 0:
			last := cm.atts[len(cm.atts)-1]
			id, cp, ctx := cm.d.ID, cm.cp, cm.c.ctx
			cm.c.note = "removed " + termsafe.SanitizeLine(last.Filename)
			return func() tea.Msg {
				if err := cp.RemoveAttachment(ctx, id, last.ID); err != nil {
					return composeAttachedMsg{err: err}
				}
				atts, err := cp.Attachments(ctx, id)
				return composeAttachedMsg{atts: atts, err: err}
			}
		}
	}
	switch {
	case key.Matches(msg, ck.next), key.Matches(msg, ck.accept) && cm.focus < fieldBody:
		cm.collect()
		cm.moveFocus(1)
		return cm.save()
	case key.Matches(msg, ck.prev):
		cm.collect()
		cm.moveFocus(-1)
		return cm.save()
	}
	var cmd tea.Cmd
	if cm.focus == fieldBody {
		before := cm.body.Value()
		cm.body.SetWidth(max(10, cm.c.width))
		cm.body, cmd = cm.body.Update(msg)
		if cm.body.Value() == before {
			return cmd
		}
		return tea.Batch(cmd, cm.armAutosave())
	}
	before := cm.inputs[cm.focus].Value()
	cm.inputs[cm.focus], cmd = cm.inputs[cm.focus].Update(msg)
	if cm.inputs[cm.focus].Value() == before {
		return cmd
	}
	if cm.focus <= fieldBcc {
		cm.suggest()
	}
	if cm.focus == fieldAttach {
		cm.matches = nil
		return cmd
	}
	return tea.Batch(cmd, cm.armAutosave())
}

// lastToken is the address being typed: the text after the last comma.
func lastToken(s string) (head, tok string) {
	i := strings.LastIndex(s, ",")
	if i < 0 {
		return "", strings.TrimSpace(s)
	}
	return s[:i+1], strings.TrimSpace(s[i+1:])
}

// suggest looks up the address being typed in the address book.
func (cm *composeModel) suggest() {
	_, tok := lastToken(cm.inputs[cm.focus].Value())
	cm.sugg, cm.suggIdx = nil, 0
	if tok == "" || strings.ContainsAny(tok, "<>") {
		return
	}
	for _, c := range store.MatchCorrespondents(cm.people, tok, maxSuggestions+1) {
		if strings.EqualFold(c.Address.Email, tok) {
			continue // typed out already
		}
		if len(cm.sugg) < maxSuggestions {
			cm.sugg = append(cm.sugg, c)
		}
	}
}

// acceptSuggestion replaces the address being typed by the chosen one.
func (cm *composeModel) acceptSuggestion() {
	in := &cm.inputs[cm.focus]
	head, _ := lastToken(in.Value())
	if head != "" {
		head += " "
	}
	in.SetValue(head + compose.FormatAddresses([]model.Address{cm.sugg[cm.suggIdx].Address}) + ", ")
	in.CursorEnd()
	cm.sugg, cm.suggIdx = nil, 0
}

// View draws the compose screen.
func (cm composeModel) View() string {
	c := cm.c
	h := c.height
	switch {
	case cm.loadErr != nil:
		return padLines(c.st.danger.Render(termsafe.SanitizeLine(cm.loadErr.Error()))+"\n\n"+c.st.dim.Render("any key: back"), h)
	case cm.loading || cm.d == nil:
		return padLines("preparing the message…", h)
	}
	const labelW = 10
	label := func(s string) string { return c.st.label.Render(fmt.Sprintf("%-9s ", s)) }
	indent := strings.Repeat(" ", labelW)
	fieldW := max(10, c.width-labelW-1)
	top := c.st.header.Render(cm.title)
	if cm.resumed {
		top += c.st.dim.Render(" · resumed your unsent message")
	}
	lines := []string{top, cm.fromLine(label)}
	for i := fieldTo; i <= fieldAttach; i++ {
		in := cm.inputs[i]
		in.Width = fieldW
		mark := label(fieldNames[i])
		if i == cm.focus {
			mark = c.st.prompt.Render(fmt.Sprintf("%-9s ", fieldNames[i]))
		}
		lines = append(lines, mark+in.View())
		if i <= fieldBcc && cm.fldErr[i] != "" {
			lines = append(lines, indent+c.st.danger.Render(ansi.Truncate(cm.fldErr[i], fieldW, "…")))
		}
		if i == cm.focus && i <= fieldBcc {
			for j, s := range cm.sugg {
				row := "  " + draftAddrs([]model.Address{s.Address})
				if s.Sent > 0 {
					row += c.st.dim.Render(fmt.Sprintf("  · you wrote %d×", s.Sent))
				}
				if j == cm.suggIdx {
					row = c.st.cursor.Render("▸ " + strings.TrimPrefix(row, "  "))
				}
				lines = append(lines, indent+ansi.Truncate(row, fieldW, "…"))
			}
		}
		if i == fieldAttach {
			for _, a := range cm.atts {
				lines = append(lines, indent+ansi.Truncate(fmt.Sprintf("▪ %s (%s, %s)", termsafe.SanitizeLine(a.Filename), termsafe.SanitizeLine(a.ContentType), humanSize(int64(len(a.Data)))), fieldW, "…"))
			}
			if len(cm.matches) > 0 {
				lines = append(lines, indent+c.st.dim.Render(ansi.Truncate(termsafe.SanitizeLine(strings.Join(cm.matches, "  ")), fieldW, "…")))
			}
		}
	}
	for _, p := range cm.problems {
		lines = append(lines, label("Note:")+c.st.warn.Render(ansi.Truncate(termsafe.SanitizeLine(p), fieldW, "…")))
	}
	if len(cm.d.RiskFlags) > 0 {
		var fl []string
		for _, r := range cm.d.RiskFlags {
			fl = append(fl, "! "+riskText(r))
		}
		lines = append(lines, label("Risk:")+c.st.danger.Render(ansi.Truncate(strings.Join(fl, "  "), fieldW, "…")))
	}
	rule := c.st.dim.Render(strings.Repeat("─", max(1, c.width)))
	var hint string
	switch {
	case cm.askDiscard:
		hint = c.st.danger.Render("discard this message? ") + c.help.ShortHelpView([]key.Binding{ck.yes}) + c.st.dim.Render(" · any other key keeps it")
	case cm.focus <= fieldBcc && len(cm.sugg) > 0:
		hint = c.help.ShortHelpView([]key.Binding{ck.down, ck.accept, ck.toConfirm, ck.leave})
	case cm.focus == fieldFrom:
		hint = c.help.ShortHelpView([]key.Binding{ck.account, ck.next, ck.toConfirm, ck.leave})
	case cm.focus == fieldAttach:
		hint = c.help.ShortHelpView([]key.Binding{ck.next, ck.accept, ck.toConfirm, ck.leave}) + c.st.dim.Render(" · backspace on empty removes the last")
	default:
		hint = c.help.ShortHelpView([]key.Binding{ck.next, ck.prev, ck.toConfirm, ck.leave, ck.discard})
	}
	bodyH := max(1, h-len(lines)-2)
	ta := cm.body
	ta.SetWidth(max(10, c.width))
	ta.SetHeight(bodyH)
	out := strings.Join(lines, "\n") + "\n" + rule + "\n" + padLines(ta.View(), bodyH) + "\n" + hint
	return padLines(out, h)
}

// fromLine draws the From line: the address, and with several accounts
// which account sends it (arrows around it while it is focused, a warning
// when that account cannot send).
func (cm composeModel) fromLine(label func(string) string) string {
	c := cm.c
	from := termsafe.SanitizeLine(draftAddrs([]model.Address{cm.d.From}))
	if len(cm.senders) == 0 {
		return label("From:") + from
	}
	i := cm.senderIndex()
	name := cm.d.Account
	var cannot string
	if i >= 0 {
		name, cannot = cm.senders[i].name, cm.senders[i].cannot
	}
	info := fmt.Sprintf("  account %s (%d of %d)", termsafe.SanitizeLine(name), i+1, len(cm.senders))
	if i < 0 {
		info = fmt.Sprintf("  account %s (not configured)", termsafe.SanitizeLine(name))
	}
	line := label("From:") + from + c.st.dim.Render(info)
	if cm.focus == fieldFrom {
		line = c.st.prompt.Render(fmt.Sprintf("%-9s ", "From:")) + "◂ " + from + " ▸" + c.st.dim.Render(info)
	}
	if cannot != "" {
		line += "  " + c.st.danger.Render("cannot send: "+termsafe.SanitizeLine(cannot))
	}
	return ansi.Truncate(line, max(10, c.width), "…")
}

// composerOf returns the send engine as a Composer when it is one.
func composerOf(d Drafter) Composer {
	if cp, ok := d.(Composer); ok {
		return cp
	}
	return nil
}

// addressBookOf returns the store as an AddressBook when it is one.
func addressBookOf(b Backend) AddressBook {
	if ab, ok := b.(AddressBook); ok {
		return ab
	}
	return nil
}

// openCompose shows the compose screen: a new message (forward 0) or a
// forward of the thread's latest message.
func (m *Model) openCompose(forward int64, asAttachment bool) tea.Cmd {
	if m.compose.cp == nil {
		m.c.note = "composing is not available: no send engine"
		return nil
	}
	returnTo := stateInbox
	if m.screen == stateThread {
		returnTo = stateThread
	}
	account := ""
	if len(m.compose.senders) > 0 {
		// The account the inbox shows (A), else the first; a forward
		// prefers the account its original arrived in.
		if m.accounts != nil {
			account = m.accounts.current()
		}
		if account == "" {
			account = m.compose.senders[0].name
		}
	}
	var cmd tea.Cmd
	m.compose, cmd = m.compose.open(returnTo, forward, asAttachment, account)
	m.screen = stateCompose
	return cmd
}

// composeToConfirm hands the typed message to the confirm screen, which
// saves it and asks for the approval of its exact bytes.
func (m *Model) composeToConfirm() tea.Cmd {
	d, _ := m.compose.handOff()
	cp, gate := m.compose.cp, m.compose.gate
	t := gate.ticket()
	save := func(ctx context.Context, d *store.Draft) error {
		return gate.run(t, func() error { return cp.SaveNewMessage(ctx, d) })
	}
	var cmd tea.Cmd
	m.confirm, cmd = m.confirm.openFrom(d, true, m.compose.returnTo, stateCompose, save)
	return cmd
}

// handleRouted hands a result to the screen that owns it.
func (m *Model) handleRouted(msg routedMsg) tea.Cmd {
	var cmd tea.Cmd
	switch msg.owner() {
	case stateCompose:
		m.compose, cmd = m.compose.update(msg)
	case stateLinks:
		m.links, cmd = m.links.update(msg)
	case stateUnsub:
		if u, ok := msg.(unsubDraftMsg); ok {
			return m.unsubMailto(u)
		}
		m.unsub, cmd = m.unsub.update(msg)
	default:
		return m.handleNewMail(msg)
	}
	return tea.Batch(cmd, m.follow())
}

// unsubMailto writes the message to a list's unsubscribe address (first
// call, plan set) and then shows it on the confirm screen, with the
// compose screen behind it for edits.
func (m *Model) unsubMailto(u unsubDraftMsg) tea.Cmd {
	cp := m.compose.cp
	switch {
	case u.err != nil:
		m.c.setError(fmt.Errorf("unsubscribe: %w", u.err))
		return nil
	case cp == nil:
		m.c.note = "writing to the list needs the send engine, which is not available"
		return nil
	case u.plan != nil:
		// The list knows the address its mail came to: with several
		// accounts, leave from that one.
		p, ctx, account := *u.plan, m.ctx(), ""
		for _, s := range m.compose.senders {
			if s.name == u.account {
				account = s.name
			}
		}
		return func() tea.Msg {
			d, err := cp.NewMessage(ctx, account)
			if err != nil {
				return unsubDraftMsg{err: err}
			}
			d.To = []model.Address{{Email: p.To}}
			d.Subject, d.Body = p.Subject, p.MessageBody
			if d.Body == "" {
				d.Body = "unsubscribe"
			}
			if err := cp.SaveNewMessage(ctx, d); err != nil {
				return unsubDraftMsg{err: err}
			}
			return unsubDraftMsg{draft: d}
		}
	}
	m.compose = m.compose.loadDraft(u.draft, m.unsub.returnTo, "Unsubscribe by mail")
	m.screen = stateConfirm
	return m.composeToConfirm()
}

// loadDraft shows an existing new message (made elsewhere) in the
// compose screen.
func (cm composeModel) loadDraft(d *store.Draft, returnTo state, title string) composeModel {
	cm.returnTo, cm.loadSeq = returnTo, cm.loadSeq+1
	cm.loading, cm.loadErr, cm.d, cm.atts, cm.problems, cm.resumed, cm.title = false, nil, d, nil, nil, false, title
	cm.askDiscard, cm.leaveAsked, cm.dirty, cm.saving = false, false, false, false
	cm.fldErr = [fieldBcc + 1]string{}
	cm.setup()
	return cm
}

// prefill shows a new message written elsewhere (a plain-language
// request) in the compose screen, with notes about what was left out.
func (cm composeModel) prefill(d *store.Draft, returnTo state, title string, notes []string) composeModel {
	cm = cm.loadDraft(d, returnTo, title)
	cm.problems = notes
	return cm
}

// handleRoutedKey hands a key to the compose, links or unsubscribe screen.
func (m *Model) handleRoutedKey(msg tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	switch m.screen {
	case stateCompose:
		m.compose, cmd = m.compose.update(msg)
	case stateLinks:
		m.links, cmd = m.links.update(msg)
	case stateUnsub:
		m.unsub, cmd = m.unsub.update(msg)
	}
	return tea.Batch(cmd, m.follow())
}

// handleFeatureKey handles c, f, F, L and U in the inbox and the thread
// view: ok is false for any other key.
func (m *Model) handleFeatureKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if m.screen != stateInbox && m.screen != stateThread {
		return nil, false
	}
	k := &m.c.keys
	id := m.thread.id
	if m.screen == stateInbox {
		id = 0
		if ts, ok := m.inbox.current(); ok {
			id = ts.ID
		}
	}
	switch {
	case key.Matches(msg, k.Compose):
		return m.openCompose(0, false), true
	case key.Matches(msg, k.Forward, k.ForwardAttach) && id != 0:
		return m.openCompose(id, key.Matches(msg, k.ForwardAttach)), true
	case key.Matches(msg, k.Links) && id != 0:
		var cmd tea.Cmd
		m.links, cmd = m.links.open(id, m.screen)
		m.screen = stateLinks
		return cmd, true
	case key.Matches(msg, k.Unsubscribe) && id != 0:
		var cmd tea.Cmd
		m.unsub, cmd = m.unsub.open(id, m.screen)
		m.screen = stateUnsub
		return cmd, true
	}
	return nil, false
}

// setFeatureKeys enables the bindings of the compose, links and
// unsubscribe screens (their own keys are matched by the screens).
func (m *Model) setFeatureKeys(st state) {
	k := &m.c.keys
	k.DismissError.SetEnabled(false) // keys are text or choices there
	if st == stateLinks {
		k.Up.SetEnabled(true)
		k.Down.SetEnabled(true)
		k.Back.SetEnabled(true)
	}
	if st == stateUnsub {
		k.Back.SetEnabled(true)
	}
}

// featureView draws the compose, links or unsubscribe screen.
func (m *Model) featureView() string {
	switch m.screen {
	case stateCompose:
		return m.compose.View()
	case stateLinks:
		return m.links.View()
	case stateUnsub:
		return m.unsub.View()
	}
	return ""
}
