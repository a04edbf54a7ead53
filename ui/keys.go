package ui

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds every key binding of the TUI. Bindings are enabled and
// disabled by screen (setState), so key.Matches only fires for keys that
// make sense where the user is, and the help view, generated from this
// map, lists exactly those.
type KeyMap struct {
	Up, Down         key.Binding
	Top, Bottom      key.Binding
	HalfDown, HalfUp key.Binding
	NextSection      key.Binding
	PrevSection      key.Binding
	Open             key.Binding
	Back             key.Binding
	ToggleRead       key.Binding
	Urgent           key.Binding
	Actionable       key.Binding
	Informational    key.Binding
	LowPriority      key.Binding
	Retriage         key.Binding
	Reply            key.Binding
	ReplyAll         key.Binding
	Fold             key.Binding
	Save             key.Binding
	Search           key.Binding
	Command          key.Binding
	DismissError     key.Binding
	Help             key.Binding
	Quit             key.Binding
	ForceQuit        key.Binding

	// Draft review, confirm and outbox screens (enabled by Model.setKeys
	// and the screens' own setKeys).
	Edit, EditExternal, EditDone key.Binding
	ToggleAll, ToConfirm         key.Binding
	Discard, DiscardYes          key.Binding
	Send, Undo                   key.Binding
	Outbox, CancelSend           key.Binding
	// ConfirmView switches the confirm screen between the message as
	// read and its exact bytes.
	ConfirmView key.Binding

	// New message, forward (inline / the original attached), the links
	// list and unsubscribe, in the inbox and the thread view.
	Compose, Forward, ForwardAttach key.Binding
	Links, Unsubscribe              key.Binding

	// Accounts cycles the inbox through all accounts and each one
	// (enabled with more than one account).
	Accounts key.Binding

	// The thread view's scheduling panel (ui/schedule.go): i gives the
	// panel the keys; then a/t/d/p answer the invitation and n drafts the
	// selected attendee's next action.
	SchedPanel, SchedAccept, SchedTentative key.Binding
	SchedDecline, SchedPropose, SchedNext   key.Binding

	// Inbox actions (ui/actions.go), Gmail-style, on the thread under
	// the cursor or the open thread, or on the selection.
	Archive, Delete, Spam, Star    key.Binding
	Move, Snooze, UndoAction       key.Binding
	Select, SelectRange, SelectAll key.Binding
	ArchiveOlder                   key.Binding

	// Approvals screen (ui/approvals.go).
	Approvals, DenyApproval key.Binding

	// up and down are the keys of Up and Down outside a text field
	// (nil: the defaults); the config may rebind them.
	up, down []string
}

func (k *KeyMap) upKeys() []string {
	if k.up != nil {
		return k.up
	}
	return []string{"k", "up"}
}

func (k *KeyMap) downKeys() []string {
	if k.down != nil {
		return k.down
	}
	return []string{"j", "down"}
}

// actionKeys are the inbox action bindings shared by the inbox and the
// thread view.
func (k *KeyMap) actionKeys() []*key.Binding {
	return []*key.Binding{&k.Archive, &k.Delete, &k.Spam, &k.Star, &k.Move, &k.Snooze, &k.UndoAction}
}

// DefaultKeyMap returns the vim-style bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:            key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "up")),
		Down:          key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "down")),
		Top:           key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:        key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		HalfDown:      key.NewBinding(key.WithKeys("ctrl+d", "pgdown"), key.WithHelp("ctrl+d", "half page down")),
		HalfUp:        key.NewBinding(key.WithKeys("ctrl+u", "pgup"), key.WithHelp("ctrl+u", "half page up")),
		NextSection:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next section")),
		PrevSection:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous section")),
		Open:          key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:          key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		ToggleRead:    key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "read/unread")),
		Urgent:        key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "move to urgent")),
		Actionable:    key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "move to actionable")),
		Informational: key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "move to informational")),
		LowPriority:   key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "move to low priority")),
		Retriage:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "re-triage")),
		Reply:         key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reply")),
		ReplyAll:      key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "reply all")),
		Fold:          key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "fold/unfold quotes")),
		Save:          key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "save attachment")),
		Search:        key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Command:       key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")),
		DismissError:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "dismiss error")),
		Help:          key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:          key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Edit:          key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit")),
		EditExternal:  key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "$EDITOR")),
		EditDone:      key.NewBinding(key.WithKeys("esc", "ctrl+s"), key.WithHelp("esc/ctrl+s", "done editing")),
		ToggleAll:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "reply/reply all")),
		ToConfirm:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "send…")),
		Discard:       key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "discard")),
		DiscardYes:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes, discard")),
		Send:          key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "send this message")),
		Undo:          key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo send")),
		Outbox:        key.NewBinding(key.WithKeys("O"), key.WithHelp("O", "outbox")),
		CancelSend:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cancel send")),
		ConfirmView:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "exact bytes/as read")),
		Compose:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "new message")),
		Forward:       key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "forward")),
		ForwardAttach: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "forward as attachment")),
		Links:         key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "links")),
		Unsubscribe:   key.NewBinding(key.WithKeys("U"), key.WithHelp("U", "unsubscribe")),
		Accounts:      key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "all/next account")),

		SchedPanel:     key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "scheduling panel keys")),
		SchedAccept:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "accept invitation")),
		SchedTentative: key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "tentative")),
		SchedDecline:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "decline invitation")),
		SchedPropose:   key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "propose new time")),
		SchedNext:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "draft next action")),

		Archive:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "archive")),
		Delete:       key.NewBinding(key.WithKeys("#"), key.WithHelp("#", "delete (Trash)")),
		Spam:         key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "spam / not spam")),
		Star:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "star/unstar")),
		Move:         key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "move to folder")),
		Snooze:       key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "snooze")),
		UndoAction:   key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo last action")),
		Select:       key.NewBinding(key.WithKeys("x", " "), key.WithHelp("x/space", "select")),
		SelectRange:  key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "select range")),
		SelectAll:    key.NewBinding(key.WithKeys("*"), key.WithHelp("*", "select section")),
		ArchiveOlder: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "archive older in section")),

		Approvals:    key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "approvals")),
		DenyApproval: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "deny")),
	}
}

// all lists every binding, for enabling and disabling in bulk.
func (k *KeyMap) all() []*key.Binding {
	return []*key.Binding{
		&k.Up, &k.Down, &k.Top, &k.Bottom, &k.HalfDown, &k.HalfUp, &k.NextSection,
		&k.PrevSection, &k.Open, &k.Back, &k.ToggleRead, &k.Urgent, &k.Actionable,
		&k.Informational, &k.LowPriority, &k.Retriage, &k.Reply, &k.ReplyAll, &k.Fold,
		&k.Save, &k.Search, &k.Command, &k.DismissError, &k.Help, &k.Quit, &k.ForceQuit,
		&k.ConfirmView, &k.Compose, &k.Forward, &k.ForwardAttach, &k.Links, &k.Unsubscribe,
		&k.Accounts,
		&k.SchedPanel, &k.SchedAccept, &k.SchedTentative, &k.SchedDecline, &k.SchedPropose, &k.SchedNext,
		&k.Archive, &k.Delete, &k.Spam, &k.Star, &k.Move, &k.Snooze, &k.UndoAction,
		&k.Select, &k.SelectRange, &k.SelectAll, &k.ArchiveOlder,
	}
}

// setState enables exactly the bindings that act on screen st. hasError
// enables the dismiss key; hasAttachments enables save in the thread view.
func (k *KeyMap) setState(st state, hasError, hasAttachments bool) {
	for _, b := range k.all() {
		b.SetEnabled(false)
	}
	on := func(bs ...*key.Binding) {
		for _, b := range bs {
			b.SetEnabled(true)
		}
	}
	on(&k.ForceQuit)
	switch st {
	case stateInbox:
		on(&k.Up, &k.Down, &k.Top, &k.Bottom, &k.HalfDown, &k.HalfUp, &k.NextSection,
			&k.PrevSection, &k.Open, &k.ToggleRead, &k.Urgent, &k.Actionable, &k.Informational,
			&k.LowPriority, &k.Retriage, &k.Reply, &k.ReplyAll, &k.Search, &k.Command,
			&k.Help, &k.Quit)
		on(&k.Compose, &k.Forward, &k.ForwardAttach, &k.Links, &k.Unsubscribe)
		on(k.actionKeys()...)
		on(&k.Select, &k.SelectRange, &k.SelectAll, &k.ArchiveOlder)
	case stateThread:
		on(&k.Up, &k.Down, &k.Top, &k.Bottom, &k.HalfDown, &k.HalfUp, &k.Back,
			&k.ToggleRead, &k.Urgent, &k.Actionable, &k.Informational, &k.LowPriority,
			&k.Retriage, &k.Reply, &k.ReplyAll, &k.Fold, &k.Search, &k.Command, &k.Help, &k.Quit)
		on(&k.Compose, &k.Forward, &k.ForwardAttach, &k.Links, &k.Unsubscribe)
		on(k.actionKeys()...)
		k.Save.SetEnabled(hasAttachments)
	case stateList:
		on(&k.Up, &k.Down, &k.Top, &k.Bottom, &k.Open, &k.Back, &k.Search, &k.Command,
			&k.Help, &k.Quit)
	case stateSearch:
		on(&k.Up, &k.Down, &k.Open, &k.Back, &k.NextSection)
	case stateSearchList:
		on(&k.Up, &k.Down, &k.Top, &k.Bottom, &k.HalfDown, &k.HalfUp, &k.Open, &k.Back,
			&k.NextSection, &k.ToggleRead, &k.Search, &k.Command, &k.Help, &k.Quit)
		on(k.actionKeys()...)
		on(&k.Select, &k.SelectRange, &k.SelectAll)
	case stateHelp:
		on(&k.Back, &k.Help, &k.Quit)
	case statePrompt:
		on(&k.Open, &k.Back)
	}
	k.DismissError.SetEnabled(hasError && st != stateSearch && st != statePrompt)
	// What tab, / and * do on the search screen's parts.
	help := func(b *key.Binding, desc string) { b.SetHelp(b.Help().Key, desc) }
	switch st {
	case stateSearch:
		help(&k.NextSection, "act on the results")
	case stateSearchList:
		help(&k.NextSection, "back to the query")
		help(&k.Search, "edit the query")
		help(&k.SelectAll, "select all results")
	default:
		help(&k.NextSection, "next section")
		help(&k.Search, "search")
		help(&k.SelectAll, "select section")
	}
	// j/k are typed text while an input has focus: only arrows move there.
	if st == stateSearch {
		k.Up.SetKeys("up", "ctrl+p")
		k.Down.SetKeys("down", "ctrl+n")
	} else {
		k.Up.SetKeys(k.upKeys()...)
		k.Down.SetKeys(k.downKeys()...)
	}
}

// ShortHelp implements help.KeyMap: the status-line hints.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Back, k.Reply, k.Search, k.Command, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap: every enabled binding, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.HalfDown, k.HalfUp, k.NextSection, k.PrevSection,
			k.Open, k.Back, k.ToggleRead, k.Fold, k.Save, k.Retriage, k.Reply, k.ReplyAll,
			k.Compose, k.Forward, k.ForwardAttach, k.Links, k.Unsubscribe},
		{k.Urgent, k.Actionable, k.Informational, k.LowPriority,
			k.Archive, k.Delete, k.Spam, k.Star, k.Move, k.Snooze, k.UndoAction,
			k.Select, k.SelectRange, k.SelectAll, k.ArchiveOlder},
		{k.Search, k.Command, k.Outbox, k.Approvals, k.Accounts, k.DismissError, k.Help, k.Quit, k.ForceQuit},
		{k.SchedPanel, k.SchedAccept, k.SchedTentative, k.SchedDecline, k.SchedPropose, k.SchedNext},
	}
}
