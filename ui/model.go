package ui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/app/event"
)

// state is the screen the root model routes keys to.
type state int

const (
	// stateStay is no screen: what common.next holds when no child asked
	// for another screen.
	stateStay state = iota - 1
	stateInbox
	stateThread
	stateList   // a numbered :list result or a disambiguation
	stateSearch // search as you type
	stateHelp
	statePrompt // the : command line or the save prompt (an overlay)

	// The draft review (ui/draft.go) and the confirm screen (ui/confirm.go),
	// child models with their own update and View.
	stateDraft
	stateConfirm
	stateOutbox // the outbox and audit trail (ui/outboxview.go)

	// New messages and forwards (ui/compose.go), a message's links
	// (ui/links.go) and unsubscribing (ui/unsubscribe.go).
	stateCompose
	stateLinks
	stateUnsub
	// stateApprovals lists the sends agents asked for (ui/approvals.go).
	stateApprovals
	// stateSearchList is a key state, not a screen (like statePrompt):
	// the search screen with the keys on its result list.
	stateSearchList
)

// Model is the root Bubble Tea model of the TUI.
type Model struct {
	opts   Options
	c      *common // shared with the children
	width  int
	height int

	screen     state
	helpReturn state        // screen to go back to from help
	inbox      inbox        // the inbox screen
	thread     threadModel  // the thread view
	list       listView     // a :list result or a disambiguation
	search     searchModel  // search as you type
	lastList   []ListItem   // the last :list result, for :open N (selectionIndex)
	draft      draftModel   // the draft review
	confirm    confirmModel // the confirm screen
	outbox     outboxModel  // the outbox screen
	undo       sendWindow   // the undo window of the last confirmed send
	// autoConfirm is the draft load (draftModel.loadSeq) that goes on to
	// the confirm screen when it is ready: a plain-language replyConfirm
	// (nlcommand.go); 0 for none.
	autoConfirm int
	// replyBody is the text a plain-language reply asked for, put in the
	// draft of load replyBodySeq when it is ready (nlcommand.go).
	replyBody    string
	replyBodySeq int
	compose      composeModel   // new message or forward
	links        linksModel     // a message's links
	unsub        unsubModel     // unsubscribe from a list
	newMail      newMailState   // new urgent mail: notification and title count
	approvals    approvalsModel // the approvals screen and badge

	prompt     textinput.Model
	promptKind promptKind

	// status bar
	conn    event.ConnState
	sync    event.SyncProgress
	syncing bool
	// syncShown is when sync progress last reloaded the inbox.
	syncShown  time.Time
	triage     event.TriageProgress
	hasTriage  bool
	queued     int  // changes waiting for the server (Actioner.Queued)
	reloading  bool // a reload is in flight
	reloadMore bool // another change arrived while it was
	// accounts is the account view over Options.Store (nil with one
	// account).
	accounts *accountView
}

// New returns the root model. It does no IO: the first load starts in Init.
func New(opts Options) Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c := &common{
		ctx:    opts.Context,
		st:     newStyles(),
		keys:   DefaultKeyMap(),
		help:   help.New(),
		now:    opts.Now,
		logger: opts.Logger,
		note:   opts.Hint,
		next:   nav{to: stateStay},
	}
	var accounts *accountView
	if len(opts.Accounts) > 1 && opts.Store != nil {
		accounts = newAccountView(opts.Store, opts.Accounts)
		opts.Store = accounts
	}
	if err := c.keys.Rebind(opts.Keys); err != nil {
		panic("ui: " + err.Error()) // ValidateKeys runs before New
	}
	acts := actions{c: c, b: opts.Store, svc: opts.Actions, retriage: opts.Retriage, canReply: opts.Drafts != nil}
	m := Model{
		opts:      opts,
		c:         c,
		screen:    stateInbox,
		inbox:     newInbox(c, opts.Store, acts),
		thread:    newThreadModel(c, opts.Store, acts, opts.Scheduling),
		search:    newSearchModel(c, opts.Store, opts.Searcher, acts),
		draft:     newDraftModel(c, opts.Drafts, opts.Store),
		confirm:   newConfirmModel(c, opts.Drafts),
		outbox:    newOutboxModel(c, opts.Drafts, opts.Store),
		links:     newLinksModel(c, opts.Store, opts.OpenURL),
		unsub:     newUnsubModel(c, opts.Store, opts.Unsubscribe, opts.OpenURL, opts.ArchiveSender),
		conn:      event.ConnOffline,
		width:     80,
		height:    24,
		approvals: newApprovalsModel(c, opts.Approvals),
	}
	m.compose = newComposeModel(c, composerOf(opts.Drafts), opts.Store, addressBookOf(opts.Store))
	if opts.Drafts != nil {
		m.compose = m.compose.withAccounts(opts.Accounts, opts.Drafts.Delivery)
	}
	m.accounts = accounts
	m.prompt = textinput.New()
	m.prompt.Prompt = ":"
	m.prompt.CharLimit = 512
	m.layout()
	m.setKeys()
	return m
}

// Init starts the first load and the event stream.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.startReload(), m.approvals.count()}
	if m.opts.Events != nil {
		cmds = append(cmds, waitForEvent(m.opts.Events))
	}
	return tea.Batch(cmds...)
}

// ctx is the context IO commands run under. The program's own context
// (tea.WithContext) cancels the program itself; per-request contexts
// (search) derive from this one.
func (m *Model) ctx() context.Context { return m.c.ctx }

// eventMsg wraps one item from Options.Events.
type eventMsg struct{ ev event.Event }

// eventsClosedMsg says the host closed Options.Events.
type eventsClosedMsg struct{}

// waitForEvent waits for the next host event; Update re-arms it after
// each one (a stream is a channel plus a wait command).
func waitForEvent(ch <-chan event.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsClosedMsg{}
		}
		return eventMsg{ev}
	}
}

// startReload requests a fresh inbox snapshot, or marks one as wanted
// when a reload is already in flight.
func (m *Model) startReload() tea.Cmd {
	if m.reloading {
		m.reloadMore = true
		return nil
	}
	m.reloading = true
	in := &m.inbox
	return tea.Batch(reloadCmd(m.ctx(), m.opts.Store, reloadReq{
		navSeq: in.navSeq, cursorID: in.cursorID, cursorSec: in.cursorSec, cursorIdx: in.cursorIdx,
		screenOff: in.cursorRow() - in.top, height: in.height, hideSeq: in.hideSeq,
	}), m.loadReturned())
}

// syncReloadEvery is how often sync progress reloads the inbox at most.
const syncReloadEvery = 250 * time.Millisecond

// bodyHeight is the number of rows between the title and status lines.
func (m *Model) bodyHeight() int { return max(1, m.height-2) }

// layout sizes the children after a resize.
func (m *Model) layout() {
	h := m.bodyHeight()
	m.c.width, m.c.height = m.width, h
	m.inbox.height = h
	m.inbox.scroll()
	m.thread.setSize(m.width, h)
	m.list.height = h
	m.search.setSize(m.width, h)
	m.prompt.Width = max(10, m.width-4)
	m.c.help.Width = m.width
}

// keyState is the key state of screen st: the search screen has two,
// one per focused part.
func (m *Model) keyState(st state) state {
	if st == stateSearch && m.search.listFocused() {
		return stateSearchList
	}
	return st
}

// setKeys enables the bindings of the current screen.
func (m *Model) setKeys() {
	st := m.keyState(m.screen)
	if m.promptKind != promptNone {
		st = statePrompt
	}
	k := &m.c.keys
	k.setState(st, m.c.errText != "", len(m.thread.attachments) > 0)
	for _, b := range draftKeys(k) {
		b.SetEnabled(false)
	}
	k.Approvals.SetEnabled(false)
	k.DenyApproval.SetEnabled(false)
	undo := m.undo.open(m.c.now())
	switch st {
	case stateInbox, stateThread, stateSearchList:
		k.Accounts.SetEnabled(st == stateInbox && m.accounts.multi())
		k.Undo.SetEnabled(undo)
		for _, b := range k.actionKeys() {
			b.SetEnabled(b.Enabled() && m.opts.Actions != nil)
		}
		k.UndoAction.SetEnabled(k.UndoAction.Enabled() && !undo) // u undoes the send first
		k.Outbox.SetEnabled(m.opts.Drafts != nil && st != stateSearchList)
		if st == stateThread {
			m.thread.sched.setKeys(k)
			if m.thread.sched.typing() {
				k.Undo.SetEnabled(false)
				k.Outbox.SetEnabled(false)
			}
		}
	case stateDraft:
		m.draft.setKeys(undo)
	case stateConfirm:
		m.confirm.setKeys()
	case stateOutbox:
		m.outbox.setKeys(undo)
	case stateCompose, stateLinks, stateUnsub:
		m.setFeatureKeys(st)
	case stateApprovals:
		m.approvals.setKeys()
	}
	if (st == stateInbox || st == stateThread) && m.opts.Approvals != nil {
		k.Approvals.SetEnabled(true)
	}
}

// Update routes messages: host events and IO results first, then keys to
// the active screen.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := tea.Batch(m.update(msg), m.applyHidden())
	m.setKeys()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m.loadMissing()
	case eventMsg:
		return tea.Batch(m.handleEvent(msg.ev), waitForEvent(m.opts.Events))
	case eventsClosedMsg:
		return nil
	case event.Event: // sent directly (tea.Program.Send) rather than on Options.Events
		return m.handleEvent(msg)
	case routedMsg:
		return m.handleRouted(msg)
	case draftMsg:
		return m.handleDraftMsg(msg)
	case approvalsTickMsg:
		return m.approvals.count()
	case approvalsCountMsg:
		if msg.n >= 0 {
			m.approvals.pending = msg.n
		}
		return m.approvals.tick()
	case approvalsLoadedMsg, approvalDeniedMsg:
		return m.handleApprovals(msg)
	case openApprovalMsg:
		m.confirm = m.confirm.openApproval(msg.a, stateApprovals)
		m.screen = stateConfirm
		return nil
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case tea.KeyMsg:
		if m.c.overlay != nil && !key.Matches(msg, m.c.keys.ForceQuit) {
			return m.handleOverlay(msg)
		}
		return m.handleKey(msg)
	case foldersMsg, olderCountedMsg:
		if m.c.overlay != nil {
			return m.handleOverlay(msg)
		}
		return nil
	}
	return m.handleResult(msg)
}

// handleResult applies the result of an inbox, thread, search or command
// IO command.
func (m *Model) handleResult(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case inboxReloadedMsg:
		m.reloading = false
		if err := quiet(msg.err); err != nil {
			m.c.setError(err)
		}
		if m.c.acting > 0 || msg.hideSeq != m.inbox.hideSeq {
			// Read before an action's store write: it would show the
			// threads the action just took out. The action's own reload
			// follows; a stale one with no action left asks again.
			if m.c.acting == 0 {
				return m.startReload()
			}
			return nil
		}
		if msg.counts != nil {
			m.inbox.applyReload(msg)
		}
		var cmds []tea.Cmd
		if m.reloadMore {
			m.reloadMore = false
			cmds = append(cmds, m.startReload())
		}
		cmds = append(cmds, m.loadMissing(), m.checkNewMail(msg.counts))
		return tea.Batch(cmds...)
	case pagesLoadedMsg:
		return m.handleInbox(msg)
	case schedDraftedMsg:
		if m.screen != stateThread {
			// Left the thread meanwhile: the draft is saved (r resumes it).
			m.thread.sched.busy = false
			if msg.err != nil {
				m.c.setError(msg.err)
			}
			return nil
		}
		return m.handleThread(msg)
	case threadLoadedMsg, summaryRefreshedMsg, schedPanelMsg:
		if m.screen != stateThread {
			return nil
		}
		return m.handleThread(msg)
	case storeChangedMsg:
		if err := quiet(msg.err); err != nil {
			m.c.setError(err)
		} else if msg.note != "" {
			m.c.note = msg.note
		}
		cmds := []tea.Cmd{m.startReload()}
		if m.screen == stateThread && m.thread.id != 0 && msg.threadID == m.thread.id {
			cmds = append(cmds, m.thread.reload())
		}
		return tea.Batch(cmds...)
	case attachmentSavedMsg:
		if msg.err != nil {
			m.c.setError(msg.err)
		} else {
			m.c.note = fmt.Sprintf("saved %s (%s)", msg.path, humanSize(int64(msg.size)))
		}
		return nil
	case searchTickMsg, searchResultsMsg:
		return m.handleSearch(msg)
	case commandResultMsg:
		return m.handleCommandResult(msg)
	case interpretedMsg:
		return m.handleInterpreted(msg)
	case sendBookMsg, personChosenMsg, sendDraftMsg:
		return m.handleSendFlow(msg) // nlsend.go
	case actionDoneMsg, askForeverMsg, selectedMsg, returnedMsg:
		return m.handleActionResult(msg)
	case noteMsg:
		m.c.note = string(msg)
		return nil
	case errMsg:
		if err := quiet(msg.err); err != nil {
			m.c.setError(err)
		}
		return nil
	}
	return nil
}

// handleDraftMsg hands a message of the send flow to its owner, whichever
// screen is showing: a save or a late approval still lands.
func (m *Model) handleDraftMsg(msg draftMsg) tea.Cmd {
	switch msg.(type) {
	case approvalMsg, confirmSpinMsg:
		return m.handleConfirm(msg)
	case confirmedMsg, undoneMsg:
		// A queued or undone invitation answer changes the open thread's
		// scheduling panel.
		var reload tea.Cmd
		if m.screen == stateThread {
			reload = m.thread.sched.load(m.thread.id)
		}
		// The inbox row's meeting badge follows the answer too.
		return tea.Batch(m.handleSendMsg(msg), reload, m.startReload())
	case undoTickMsg:
		return m.handleSendMsg(msg)
	case outboxLoadedMsg, auditLoadedMsg, outboxCancelledMsg:
		return m.handleOutbox(msg)
	}
	return m.handleDraft(msg)
}

// handleDraft hands a message to the draft review.
func (m *Model) handleDraft(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.draft, cmd = m.draft.update(msg)
	return tea.Batch(cmd, m.afterDraftLoad(), m.follow())
}

// handleConfirm hands a message to the confirm screen.
func (m *Model) handleConfirm(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.confirm, cmd = m.confirm.update(msg)
	return tea.Batch(cmd, m.follow())
}

// handleOutbox hands a message to the outbox screen.
func (m *Model) handleOutbox(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.outbox, cmd = m.outbox.update(msg)
	return tea.Batch(cmd, m.follow())
}

// handleInbox hands a message to the inbox screen.
func (m *Model) handleInbox(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.inbox, cmd = m.inbox.update(msg)
	return tea.Batch(cmd, m.follow())
}

// handleSearch hands a message to the search screen.
func (m *Model) handleSearch(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.search, cmd = m.search.update(msg)
	return tea.Batch(cmd, m.follow())
}

// follow applies the screen change a child asked for in its update.
func (m *Model) follow() tea.Cmd {
	n := m.c.next
	m.c.next = nav{to: stateStay}
	if n.to == stateStay {
		return nil
	}
	prev := m.screen
	if m.screen == stateConfirm {
		m.confirm.leave()
		if n.to != stateDraft && n.to != stateCompose && !m.confirm.agent { // y queued the draft
			m.draft.sent()
			m.compose.sent()
		}
	}
	switch {
	case n.to == stateThread && n.thread != 0:
		return m.openThread(n.thread)
	case n.to == stateDraft && n.thread != 0:
		return m.openDraft(n.thread, n.all)
	}
	m.screen = n.to
	switch n.to {
	case stateConfirm:
		if prev == stateCompose {
			return m.composeToConfirm()
		}
		d, save := m.draft.handOff()
		var cmd tea.Cmd
		m.confirm, cmd = m.confirm.open(d, save, m.draft.returnTo)
		return cmd
	case stateSearch:
		return m.search.resume()
	case stateInbox:
		return m.loadMissing()
	case stateThread:
		// Back from a draft or the confirm screen: an answer queued there
		// changes the scheduling panel.
		return m.thread.sched.load(m.thread.id)
	case stateApprovals:
		return m.approvals.load()
	}
	return nil
}

// handleApprovals hands a message to the approvals screen.
func (m *Model) handleApprovals(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.approvals, cmd = m.approvals.update(msg)
	return tea.Batch(cmd, m.follow())
}

// openDraft shows the review for a thread and starts drafting (or
// resuming) its reply.
func (m *Model) openDraft(threadID int64, all bool) tea.Cmd {
	returnTo := stateInbox
	if m.screen == stateThread {
		returnTo = stateThread
	}
	var cmd tea.Cmd
	m.draft, cmd = m.draft.open(threadID, all, returnTo)
	m.screen = stateDraft
	return cmd
}

// openOutbox shows the outbox screen (or reloads it).
func (m *Model) openOutbox() tea.Cmd {
	if m.screen == stateOutbox {
		return m.outbox.load()
	}
	var cmd tea.Cmd
	m.outbox, cmd = m.outbox.open(m.screen)
	m.screen = stateOutbox
	return cmd
}

// noteMsg sets the status line's note.
type noteMsg string

// errMsg is the one error message type of IO commands.
type errMsg struct{ err error }

// storeChangedMsg follows a write (override, read state, re-triage).
type storeChangedMsg struct {
	threadID int64
	note     string
	err      error
}

// handleEvent applies one host event.
func (m *Model) handleEvent(ev event.Event) tea.Cmd {
	m.accounts.noteEvent(ev)
	switch ev := ev.(type) {
	case event.SyncProgress:
		m.sync = ev
		m.syncing = ev.Phase != "done"
		// Stored mail shows as it arrives: a reload at most every
		// syncReloadEvery while syncing (progress comes per stored batch,
		// of any size), and at the end of a phase or the sync.
		now := m.c.now()
		if ev.Phase == "done" || (ev.Total > 0 && ev.Done == ev.Total) || now.Sub(m.syncShown) >= syncReloadEvery {
			m.syncShown = now
			return m.startReload()
		}
	case event.TriageProgress:
		m.triage, m.hasTriage = ev, true
		return tea.Batch(m.startReload(), m.refreshOpenThread())
	case event.Conn:
		m.conn = ev.State
	case event.ThreadsChanged:
		return tea.Batch(m.startReload(), m.refreshOpenThread())
	case event.Failure:
		if ev.Err != nil {
			m.c.setError(ev.Err)
		}
	case event.Outbox:
		return m.handleOutboxEvent(ev)
	}
	return nil
}

// loadMissing requests the inbox pages the window needs.
func (m *Model) loadMissing() tea.Cmd { return m.inbox.loadMissing() }

// refreshOpenThread re-reads the open thread's row (triage results).
func (m *Model) refreshOpenThread() tea.Cmd {
	if m.screen != stateThread {
		return nil
	}
	return m.thread.refresh()
}

func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action != tea.MouseActionPress {
		return nil
	}
	delta := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		delta = -3
	case tea.MouseButtonWheelDown:
		delta = 3
	default:
		return nil
	}
	switch m.screen {
	case stateInbox:
		m.inbox.move(delta)
		return m.loadMissing()
	case stateThread:
		m.thread.scroll(delta)
	case stateList:
		m.list.move(delta)
	case stateSearch:
		m.search.move(delta)
	}
	return nil
}

// acceptsText reports whether keys currently go into a text field (the
// command line, the save prompt, the search box or the inline editor).
func (m *Model) acceptsText() bool {
	return m.promptKind != promptNone || m.c.overlay != nil || (m.screen == stateSearch && !m.search.listFocused()) ||
		(m.screen == stateDraft && m.draft.editing) || m.screen == stateCompose ||
		(m.screen == stateThread && m.thread.sched.typing())
}

// handleKey dispatches a key to the prompt or the active screen.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.c.keys
	if key.Matches(msg, k.ForceQuit) {
		return tea.Quit
	}
	// Keys typed faster than the terminal is read arrive as one message
	// ("gj"); outside a text field each rune is its own command, in order.
	// Never on the confirm screen: there "yy" or a paste is not the
	// deliberate single y that sends, so it counts as any other key.
	// The same holds where y opens a link or unsubscribes.
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.acceptsText() && m.screen != stateConfirm &&
		m.screen != stateLinks && m.screen != stateUnsub {
		cmds := make([]tea.Cmd, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}), m.applyHidden())
			m.setKeys() // the next rune sees the bindings this one turned on
		}
		return tea.Batch(cmds...)
	}
	if m.promptKind != promptNone {
		return m.handlePrompt(msg)
	}
	if key.Matches(msg, k.DismissError) {
		m.c.errText = ""
		return nil
	}
	switch {
	case key.Matches(msg, k.Undo):
		return m.undoSend()
	case key.Matches(msg, k.Outbox):
		return m.openOutbox()
	case key.Matches(msg, k.Approvals) && m.screen != stateApprovals:
		var cmd tea.Cmd
		m.approvals, cmd = m.approvals.open(m.screen)
		m.screen = stateApprovals
		return cmd
	}
	switch m.screen {
	case stateDraft:
		return m.handleDraft(msg)
	case stateConfirm:
		return m.handleConfirm(msg)
	case stateOutbox:
		return m.handleOutbox(msg)
	case stateCompose, stateLinks, stateUnsub:
		return m.handleRoutedKey(msg)
	case stateApprovals:
		return m.handleApprovals(msg)
	case stateSearch:
		// On the result list, q ? and : do what they do in the inbox.
		if !m.search.listFocused() || !key.Matches(msg, k.Quit, k.Help, k.Command) {
			return m.handleSearch(msg)
		}
	case stateHelp:
		return m.handleHelpKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.helpReturn, m.screen = m.screen, stateHelp
		return nil
	case key.Matches(msg, k.Search):
		m.screen = stateSearch
		return m.search.open()
	case key.Matches(msg, k.Command):
		return m.openPrompt(promptCommand, ":", "")
	}
	if cmd, ok := m.handleFeatureKey(msg); ok {
		return cmd
	}
	switch m.screen {
	case stateInbox:
		if key.Matches(msg, k.Accounts) {
			return m.cycleAccounts()
		}
		return m.handleInbox(msg)
	case stateThread:
		return m.handleThread(msg)
	case stateList:
		return m.handleListKey(msg)
	}
	return nil
}

func (m *Model) handleHelpKey(msg tea.KeyMsg) tea.Cmd {
	k := &m.c.keys
	if key.Matches(msg, k.Back, k.Help) {
		m.screen = m.helpReturn
		return nil
	}
	if key.Matches(msg, k.Quit) {
		return tea.Quit
	}
	return nil
}

// reply hands a thread to the draft review.
func (m *Model) reply(id int64, all bool) tea.Cmd {
	if m.opts.Drafts == nil {
		m.c.note = "replies are not available yet"
		return nil
	}
	return m.openDraft(id, all)
}

// openThread switches to the thread view and loads the thread.
func (m *Model) openThread(id int64) tea.Cmd {
	returnTo := stateInbox
	if m.screen == stateList || m.screen == stateSearch {
		returnTo = m.screen
	}
	var cmd tea.Cmd
	m.thread, cmd = m.thread.open(id, returnTo)
	m.screen = stateThread
	return tea.Batch(cmd, m.seenReturned(id))
}

// handleThread hands a message to the thread view; the save key opens
// the root's prompt over it.
func (m *Model) handleThread(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, m.c.keys.Save) && len(m.thread.attachments) > 0 {
		m.thread.saveIdx = 0
		return m.openSavePrompt()
	}
	var cmd tea.Cmd
	m.thread, cmd = m.thread.update(msg)
	return tea.Batch(cmd, m.follow())
}

// View draws the title line, the active screen and the status bar.
func (m Model) View() string {
	var body string
	switch m.screen {
	case stateInbox:
		body = m.inbox.View()
	case stateThread:
		body = m.thread.View()
	case stateList:
		body = m.list.view(m.c, m.width)
	case stateSearch:
		body = m.search.View()
	case stateHelp:
		keys := m.c.keys
		keys.setState(m.keyState(m.helpReturn), m.c.errText != "", len(m.thread.attachments) > 0)
		keys.Accounts.SetEnabled(m.helpReturn == stateInbox && m.accounts.multi())
		if m.helpReturn == stateThread {
			m.thread.sched.setKeys(&keys)
		}
		body = padLines(m.c.st.header.Render("Keys")+"\n\n"+m.c.help.FullHelpView(keys.FullHelp()), m.bodyHeight())
	case stateDraft:
		body = m.draft.View()
	case stateConfirm:
		body = m.confirm.View()
	case stateOutbox:
		body = m.outbox.View()
	case stateCompose, stateLinks, stateUnsub:
		body = m.featureView()
	case stateApprovals:
		body = m.approvals.View()
	}
	if m.c.overlay != nil {
		body = drawOverlay(m.c, m.c.overlay, body, m.width)
	}
	if m.promptKind != promptNone {
		lines := strings.Split(body, "\n")
		lines[len(lines)-1] = m.prompt.View()
		body = strings.Join(lines, "\n")
	}
	return clampWidth(m.titleLine()+"\n"+body+"\n"+m.statusLine(), m.width)
}
