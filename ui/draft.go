package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mailsift/config"
	"mailsift/internal/termsafe"
	"mailsift/model"
	"mailsift/store"
)

// Drafter is the send engine the draft review and confirm screens use.
// *drafts.Engine satisfies it. Every call runs in a tea.Cmd.
type Drafter interface {
	// ResumeOrNewDraft returns the thread's latest open draft (resumed)
	// or drafts a new reply ("" = the thread's account).
	ResumeOrNewDraft(ctx context.Context, threadID int64, replyAll bool, account string) (*store.Draft, bool, error)
	// SetReplyAll recomputes To/Cc for reply or reply-all and saves.
	SetReplyAll(ctx context.Context, d *store.Draft, all bool) error
	// SaveDraft stores an edited draft and recomputes its risk flags.
	SaveDraft(ctx context.Context, d *store.Draft) error
	// PushServerDraft copies the stored draft to the server's Drafts folder.
	PushServerDraft(ctx context.Context, draftID string) error
	// Discard discards an open draft.
	Discard(ctx context.Context, draftID string) error
	// Approve builds the exact message and a pending approval for it.
	Approve(ctx context.Context, draftID string, ttl time.Duration) (*store.Approval, error)
	// Confirm approves a pending approval and queues its message.
	Confirm(ctx context.Context, approvalID string) (*store.OutboxItem, error)
	// Deny records that the operator did not confirm.
	Deny(ctx context.Context, approvalID, reason string) error
	// Cancel cancels a queued send (the undo).
	Cancel(ctx context.Context, outboxID int64) error
	// Outbox lists outbox items (all states when none given).
	Outbox(ctx context.Context, states ...store.OutboxState) ([]store.OutboxItem, error)
	// UndoWindow is the delay between confirmation and sending.
	UndoWindow() time.Duration
	// Delivery names the account's transport and says whether it
	// delivers at all (the demo mailbox does not; reason says why).
	Delivery(account string) (name string, delivers bool, reason string)
}

// Autosave: after autosaveIdle without typing, or on the next tick once
// autosaveEvery keystrokes are unsaved.
const (
	autosaveIdle  = 2 * time.Second
	autosaveEvery = 40
)

// draftModel is the draft review: the reply being written, its
// recipients and risk flags, the inline editor and the autosave.
type draftModel struct {
	c  *common
	dr Drafter
	b  Backend

	returnTo state // where esc leaves the review for
	threadID int64
	replyAll bool // what r/R asked for

	loading bool
	loadSeq int
	spin    spinner.Model
	loadErr error

	d       *store.Draft
	thread  *model.Thread
	resumed bool
	vp      viewport.Model

	editing    bool
	ta         textarea.Model
	editSeq    int  // bumped on every edit keystroke
	dirty      bool // local changes not yet handed to a save
	unsaved    int  // keystrokes since the last save started
	saving     bool
	tickArmed  bool // an autosave tick is on its way
	pushAfter  bool // push to the server's Drafts folder after the next save
	askDiscard bool
}

func newDraftModel(c *common, dr Drafter, b Backend) draftModel {
	return draftModel{c: c, dr: dr, b: b}
}

// draftMsg marks the messages of the draft review, the confirm screen,
// the undo window and the outbox; Model.update hands each to its owner,
// whichever screen is showing.
type draftMsg interface{ isDraftMsg() }

type (
	draftLoadedMsg struct {
		seq     int
		draft   *store.Draft
		thread  *model.Thread
		resumed bool
		err     error
	}
	draftSavedMsg struct {
		draft      *store.Draft
		recipients bool // To/Cc changed (reply-all toggle)
		pushErr    error
		err        error
	}
	draftDiscardedMsg struct{ err error }
	autosaveTickMsg   struct{ seq int }
	draftSpinMsg      struct{ inner tea.Msg }
	editorReadyMsg    struct {
		path string
		argv []string
		err  error
	}
	editorDoneMsg struct {
		body string
		err  error
	}
)

func (draftLoadedMsg) isDraftMsg()    {}
func (draftSavedMsg) isDraftMsg()     {}
func (draftDiscardedMsg) isDraftMsg() {}
func (autosaveTickMsg) isDraftMsg()   {}
func (draftSpinMsg) isDraftMsg()      {}
func (editorReadyMsg) isDraftMsg()    {}
func (editorDoneMsg) isDraftMsg()     {}

// draftKeys are the bindings only the draft screens and the outbox turn on.
func draftKeys(k *KeyMap) []*key.Binding {
	return []*key.Binding{&k.Edit, &k.EditExternal, &k.EditDone, &k.ToggleAll, &k.ToConfirm,
		&k.Discard, &k.DiscardYes, &k.Send, &k.Undo, &k.Outbox, &k.CancelSend}
}

// setKeys enables the review's bindings; it runs after KeyMap.setState,
// which leaves every other binding off on this screen. undo says whether
// a send can still be undone.
func (f *draftModel) setKeys(undo bool) {
	k := &f.c.keys
	ready := f.d != nil && !f.loading
	switch {
	case f.editing:
		k.EditDone.SetEnabled(true)
		k.DismissError.SetEnabled(false) // x is text here
	case f.askDiscard:
		k.DiscardYes.SetEnabled(true)
		k.DismissError.SetEnabled(false)
	case ready:
		for _, b := range []*key.Binding{&k.Edit, &k.EditExternal, &k.ToggleAll, &k.ToConfirm, &k.Discard, &k.Back,
			&k.Up, &k.Down, &k.HalfDown, &k.HalfUp} {
			b.SetEnabled(true)
		}
		k.Undo.SetEnabled(undo)
	default:
		k.Back.SetEnabled(true)
	}
}

// open shows the review for a thread and starts drafting (or resuming)
// its reply in a command.
func (f draftModel) open(threadID int64, all bool, returnTo state) (draftModel, tea.Cmd) {
	f.returnTo = returnTo
	f.threadID, f.replyAll = threadID, all
	f.loading, f.loadErr, f.d, f.thread, f.resumed = true, nil, nil, nil, false
	f.editing, f.askDiscard, f.dirty, f.saving, f.unsaved, f.tickArmed = false, false, false, false, 0, false
	f.loadSeq++
	f.spin = spinner.New(spinner.WithSpinner(spinner.Line))
	return f, tea.Batch(loadDraftCmd(f.c.ctx, f.dr, f.b, f.loadSeq, threadID, all), f.spinTick())
}

// spinTick wraps the spinner's tick so it reaches the review.
func (f *draftModel) spinTick() tea.Cmd {
	tick := f.spin.Tick
	return func() tea.Msg { return draftSpinMsg{inner: tick()} }
}

// handOff gives the confirm screen the draft as it is now, and whether it
// must be saved first (edits not yet saved, or a save still running).
func (f *draftModel) handOff() (store.Draft, bool) {
	save := f.dirty || f.saving
	f.dirty = false
	return *f.d, save
}

// sent forgets the draft the confirm screen queued.
func (f *draftModel) sent() { f.d = nil }

// loadDraftCmd drafts or resumes the reply and loads the thread (for
// the cited messages).
func loadDraftCmd(ctx context.Context, dr Drafter, b Backend, seq int, threadID int64, all bool) tea.Cmd {
	return func() tea.Msg {
		d, resumed, err := dr.ResumeOrNewDraft(ctx, threadID, all, "")
		if err != nil {
			return draftLoadedMsg{seq: seq, err: fmt.Errorf("draft reply: %w", err)}
		}
		if resumed && d.ReplyAll != all {
			if err := dr.SetReplyAll(ctx, d, all); err != nil {
				return draftLoadedMsg{seq: seq, err: fmt.Errorf("draft reply: %w", err)}
			}
		}
		t, _ := b.Thread(ctx, threadID) // only for the cited messages
		return draftLoadedMsg{seq: seq, draft: d, thread: t, resumed: resumed}
	}
}

// saveDraftCmd saves a copy of the draft, then (push) updates the
// server's Drafts folder.
func saveDraftCmd(ctx context.Context, dr Drafter, d store.Draft, push bool) tea.Cmd {
	return func() tea.Msg {
		if err := dr.SaveDraft(ctx, &d); err != nil {
			return draftSavedMsg{err: fmt.Errorf("autosave: %w", err)}
		}
		var pushErr error
		if push {
			pushErr = dr.PushServerDraft(ctx, d.ID)
		}
		return draftSavedMsg{draft: &d, pushErr: pushErr}
	}
}

// startSave hands the current draft to a save, unless one is running (it
// is started again when that one ends).
func (f *draftModel) startSave(push bool) tea.Cmd {
	if push {
		f.pushAfter = true
	}
	if f.d == nil || f.saving || (!f.dirty && !f.pushAfter) {
		return nil
	}
	f.saving, f.dirty, f.unsaved = true, false, 0
	push, f.pushAfter = f.pushAfter, false
	return saveDraftCmd(f.c.ctx, f.dr, *f.d, push)
}

// update applies a message of the review (a key while it shows).
func (f draftModel) update(msg tea.Msg) (draftModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd := f.handleKey(msg)
		return f, cmd
	case tea.WindowSizeMsg:
		f.setSize()
		return f, nil
	case draftSpinMsg:
		if !f.loading {
			return f, nil
		}
		var cmd tea.Cmd
		f.spin, cmd = f.spin.Update(msg.inner)
		if cmd == nil {
			return f, nil
		}
		return f, func() tea.Msg { return draftSpinMsg{inner: cmd()} }
	case draftLoadedMsg:
		if msg.seq != f.loadSeq {
			return f, nil // the user left meanwhile; the draft stays saved
		}
		f.loading = false
		if msg.err != nil {
			f.loadErr = msg.err
			f.c.setError(msg.err)
			return f, nil
		}
		f.d, f.thread, f.resumed = msg.draft, msg.thread, msg.resumed
		f.vp = viewport.New(f.c.width, 1)
		return f, nil
	case draftSavedMsg:
		f.saving = false
		if msg.err != nil {
			f.c.setError(msg.err)
			f.dirty = true
			return f, nil
		}
		if f.d != nil && msg.draft != nil && msg.draft.ID == f.d.ID {
			// The server-side fields; text typed since stays.
			f.d.RiskFlags, f.d.UpdatedAt, f.d.State = msg.draft.RiskFlags, msg.draft.UpdatedAt, msg.draft.State
			f.d.ServerMailbox, f.d.ServerUID = msg.draft.ServerMailbox, msg.draft.ServerUID
			if msg.recipients {
				f.d.To, f.d.Cc, f.d.ReplyAll = msg.draft.To, msg.draft.Cc, msg.draft.ReplyAll
			}
		}
		if msg.pushErr != nil {
			f.c.note = termsafe.SanitizeLine("saved here; Drafts folder not updated: " + msg.pushErr.Error())
		}
		if f.dirty || f.pushAfter {
			return f, f.startSave(false)
		}
		return f, nil
	case autosaveTickMsg:
		f.tickArmed = false
		if !f.dirty {
			return f, nil
		}
		if !f.saving && (msg.seq == f.editSeq || f.unsaved >= autosaveEvery) {
			return f, f.startSave(false)
		}
		return f, f.armAutosave() // still typing (or saving): look again later
	case draftDiscardedMsg:
		if msg.err != nil {
			f.c.setError(fmt.Errorf("discard: %w", msg.err))
			return f, nil
		}
		f.c.note = "draft discarded"
		f.c.show(f.returnTo)
		f.d = nil
		return f, storeChangedCmd()
	case editorReadyMsg:
		if msg.err != nil {
			f.c.setError(msg.err)
			return f, nil
		}
		return f, tea.ExecProcess(editorCmd(msg.argv, msg.path), editorDone(msg.path, msg.argv[0]))
	case editorDoneMsg:
		if msg.err != nil {
			f.c.setError(msg.err)
			return f, nil
		}
		if f.d == nil {
			return f, nil
		}
		body := strings.TrimSuffix(strings.ReplaceAll(msg.body, "\r\n", "\n"), "\n")
		if body != f.d.Body {
			f.d.Body = body
			f.dirty = true
		}
		return f, f.startSave(true)
	}
	return f, nil
}

// armAutosave schedules the autosave debounce tick: it saves when no key
// was typed since it was armed, or once autosaveEvery keys are unsaved.
func (f *draftModel) armAutosave() tea.Cmd {
	f.tickArmed = true
	seq := f.editSeq
	if f.c.manualTicks {
		return nil
	}
	return tea.Tick(autosaveIdle, func(time.Time) tea.Msg { return autosaveTickMsg{seq: seq} })
}

// storeChangedCmd reloads the inbox after a draft change.
func storeChangedCmd() tea.Cmd {
	return func() tea.Msg { return storeChangedMsg{} }
}

// editorCmd is the user's $EDITOR (argv) opening path. It runs without
// MAILSIFT_PASSWORD in its environment: an editor, its plugins and any shell
// it spawns have no use for the mail password.
func editorCmd(argv []string, path string) *exec.Cmd {
	c := exec.Command(argv[0], append(argv[1:], path)...) //nolint:gosec // the user's own $EDITOR
	c.Env = config.ChildEnv()
	return c
}

// editorDone reads the edited body back and removes the temp file.
func editorDone(path, editor string) tea.ExecCallback {
	return func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorDoneMsg{err: fmt.Errorf("editor %s: %w (the draft is unchanged)", editor, err)}
		}
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return editorDoneMsg{err: fmt.Errorf("read back the edited draft: %w", rerr)}
		}
		return editorDoneMsg{body: string(b)}
	}
}

// writeEditorFileCmd writes the body to a private temp file for $EDITOR.
func writeEditorFileCmd(body string) tea.Cmd {
	return func() tea.Msg {
		ed := strings.Fields(os.Getenv("EDITOR"))
		if len(ed) == 0 {
			ed = []string{"vi"}
		}
		fh, err := os.CreateTemp("", "mailsift-draft-*.txt") // mode 0600
		if err != nil {
			return editorReadyMsg{err: fmt.Errorf("editor: temp file: %w", err)}
		}
		if err := fh.Chmod(0o600); err == nil {
			_, err = fh.WriteString(body + "\n")
		}
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(fh.Name())
			return editorReadyMsg{err: fmt.Errorf("editor: write %s: %w", fh.Name(), err)}
		}
		return editorReadyMsg{path: fh.Name(), argv: ed}
	}
}

func (f *draftModel) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := &f.c.keys
	if f.editing {
		f.setSize() // the terminal may have been resized
		if key.Matches(msg, k.EditDone) {
			f.editing = false
			f.ta.Blur()
			return f.startSave(true)
		}
		var cmd tea.Cmd
		f.ta, cmd = f.ta.Update(msg)
		if v := f.ta.Value(); v != f.d.Body {
			f.d.Body = v
			f.dirty = true
			f.unsaved++
			f.editSeq++
			if !f.tickArmed {
				return tea.Batch(cmd, f.armAutosave())
			}
		}
		return cmd
	}
	if f.askDiscard {
		f.askDiscard = false
		if key.Matches(msg, k.DiscardYes) {
			id, dr, ctx := f.d.ID, f.dr, f.c.ctx
			return func() tea.Msg { return draftDiscardedMsg{err: dr.Discard(ctx, id)} }
		}
		f.c.note = "draft kept"
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		f.c.show(f.returnTo)
		f.loadSeq++ // a draft still being made is ignored when it arrives
		if f.d != nil {
			f.c.note = "draft saved; r resumes it"
		}
		return tea.Batch(f.startSave(false), storeChangedCmd())
	case key.Matches(msg, k.Edit):
		f.ta = newDraftTextarea(f.d.Body)
		f.editing = true
		f.setSize()
		return f.ta.Focus()
	case key.Matches(msg, k.EditExternal):
		return writeEditorFileCmd(f.d.Body)
	case key.Matches(msg, k.ToggleAll):
		if f.saving {
			f.c.note = "saving…; press a again"
			return nil
		}
		f.saving = true
		cp, dr, ctx := *f.d, f.dr, f.c.ctx
		return func() tea.Msg {
			if err := dr.SetReplyAll(ctx, &cp, !cp.ReplyAll); err != nil {
				return draftSavedMsg{err: fmt.Errorf("recipients: %w", err)}
			}
			return draftSavedMsg{draft: &cp, recipients: true}
		}
	case key.Matches(msg, k.Discard):
		f.askDiscard = true
		return nil
	case key.Matches(msg, k.ToConfirm):
		f.c.show(stateConfirm)
		return nil
	}
	f.setSize()
	f.vp.SetContent(f.body())
	switch {
	case key.Matches(msg, k.Down):
		f.vp.ScrollDown(1)
	case key.Matches(msg, k.Up):
		f.vp.ScrollUp(1)
	case key.Matches(msg, k.HalfDown):
		f.vp.HalfPageDown()
	case key.Matches(msg, k.HalfUp):
		f.vp.HalfPageUp()
	}
	return nil
}

func newDraftTextarea(body string) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "┃ "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.SetValue(body)
	return ta
}

// draftHeader renders the review's fixed lines above the body.
func (f *draftModel) header() []string {
	c := f.c
	d := f.d
	label := func(s string) string { return c.st.label.Render(fmt.Sprintf("%-8s ", s)) }
	mode := "reply to sender"
	if d.ReplyAll {
		mode = "reply to all"
	}
	top := c.st.header.Render("Draft reply") + c.st.dim.Render(" · "+mode+" · "+termsafe.SanitizeLine(d.Source))
	if f.resumed {
		top += c.st.dim.Render(" · resumed your unsent draft")
	}
	lines := []string{top}
	from := draftAddrs([]model.Address{d.From})
	if name, delivers, reason := f.dr.Delivery(d.Account); name != "" || !delivers {
		via := name
		if !delivers {
			via = reason
		}
		from += c.st.dim.Render("  via " + termsafe.SanitizeLine(via))
	}
	lines = append(lines, label("From:")+from, label("To:")+draftAddrs(d.To))
	if len(d.Cc) > 0 || d.ReplyAll {
		lines = append(lines, label("Cc:")+draftAddrs(d.Cc))
	}
	if len(d.Bcc) > 0 {
		lines = append(lines, label("Bcc:")+draftAddrs(d.Bcc))
	}
	lines = append(lines, label("Subject:")+termsafe.SanitizeLine(d.Subject))
	if len(d.RiskFlags) > 0 {
		var fl []string
		for _, r := range d.RiskFlags {
			fl = append(fl, c.st.danger.Render("! "+riskText(r)))
		}
		lines = append(lines, label("Risk:")+strings.Join(fl, "  "))
	} else {
		lines = append(lines, label("Risk:")+c.st.dim.Render("none found"))
	}
	if cites := f.citedLines(); len(cites) > 0 {
		for i, cl := range cites {
			l := label("")
			if i == 0 {
				l = label("Cites:")
			}
			lines = append(lines, l+cl)
		}
	}
	return lines
}

// citedLines describes the cited messages (sender, subject) from the thread.
func (f *draftModel) citedLines() []string {
	var out []string
	for _, id := range f.d.CitedMessageIDs {
		desc := "<" + termsafe.SanitizeLine(id) + ">"
		if f.thread != nil {
			for _, msg := range f.thread.Messages {
				if strings.Trim(msg.MessageID, "<>") == id {
					desc = termsafe.SanitizeLine(displayName(msg.From)) + " · " + termsafe.SanitizeLine(msg.Subject) + " · " + f.c.st.dim.Render(desc)
				}
			}
		}
		out = append(out, desc)
		if len(out) == 3 && len(f.d.CitedMessageIDs) > 3 {
			out = append(out, f.c.st.dim.Render(fmt.Sprintf("… and %d more", len(f.d.CitedMessageIDs)-3)))
			break
		}
	}
	return out
}

func displayName(a model.Address) string {
	if a.Name != "" {
		return a.Name
	}
	return a.Email
}

// draftAddrs renders addresses as "Name <email>, …" for display.
func draftAddrs(as []model.Address) string {
	if len(as) == 0 {
		return "(none)"
	}
	var out []string
	for _, a := range as {
		if a.Name != "" {
			out = append(out, termsafe.SanitizeLine(a.Name)+" <"+termsafe.SanitizeLine(a.Email)+">")
		} else {
			out = append(out, termsafe.SanitizeLine(a.Email))
		}
	}
	return strings.Join(out, ", ")
}

// riskText explains a risk flag code.
func riskText(code string) string {
	switch code {
	case "recipient_outside_thread":
		return "a recipient is not in the thread"
	case "reply_to_differs_from_sender":
		return "Reply-To differs from the sender: check who gets this"
	case "phishing_thread":
		return "replying to a PHISHING thread"
	case "spam_thread":
		return "replying to a spam thread"
	case "money_mentioned":
		return "money is mentioned"
	case "credentials_mentioned":
		return "credentials are mentioned"
	case "attachment_mentioned_but_none_attached":
		return "mentions an attachment, none attached"
	case "empty_body":
		return "empty body"
	case "very_short_body":
		return "very short body"
	case "model_unavailable_template_used":
		return "model unavailable: template draft"
	}
	return termsafe.SanitizeLine(code)
}

// setSize sizes the body viewport and the editor to the room left under
// the header.
func (f *draftModel) setSize() {
	if f.d == nil {
		return
	}
	h := max(1, f.c.height-len(f.header())-2)
	f.vp.Width, f.vp.Height = f.c.width, h
	if f.editing {
		f.ta.SetWidth(max(10, f.c.width))
		f.ta.SetHeight(h)
	}
}

// View draws the review screen.
func (f draftModel) View() string {
	c := f.c
	h := c.height
	switch {
	case f.loadErr != nil:
		return padLines(c.st.danger.Render(termsafe.SanitizeLine(f.loadErr.Error()))+"\n\n"+c.st.dim.Render("esc back"), h)
	case f.loading || f.d == nil:
		return padLines(f.spin.View()+" drafting a reply…", h)
	}
	f.setSize()
	head := f.header()
	var body string
	if f.editing {
		body = f.ta.View()
	} else {
		f.vp.SetContent(f.body())
		body = f.vp.View()
	}
	rule := c.st.dim.Render(strings.Repeat("─", max(1, c.width)))
	var hints string
	switch {
	case f.askDiscard:
		hints = c.st.danger.Render("discard this draft? ") + c.help.ShortHelpView([]key.Binding{c.keys.DiscardYes}) + c.st.dim.Render(" · any other key keeps it")
	case f.editing:
		hints = c.help.ShortHelpView([]key.Binding{c.keys.EditDone}) + c.st.dim.Render(" · autosaved")
	default:
		k := c.keys
		hints = c.help.ShortHelpView([]key.Binding{k.Edit, k.EditExternal, k.ToConfirm, k.ToggleAll, k.Discard, k.Back, k.Undo})
	}
	out := strings.Join(head, "\n") + "\n" + rule + "\n" + padLines(body, f.vp.Height) + "\n" + hints
	return padLines(out, h)
}

// body is the body as drawn: sanitized and wrapped to the width.
func (f *draftModel) body() string {
	return ansi.Wrap(strings.ReplaceAll(termsafe.Sanitize(f.d.Body), "\t", "    "), max(10, f.c.width), "")
}
