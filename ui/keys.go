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
	// Approvals screen (ui/approvals.go).
	Approvals, DenyApproval key.Binding
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
		Save:          key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save attachment")),
		Search:        key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		Command:       key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")),
		DismissError:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "dismiss error")),
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
		Approvals:     key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "approvals")),
		DenyApproval:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "deny")),
	}
}

// all lists every binding, for enabling and disabling in bulk.
func (k *KeyMap) all() []*key.Binding {
	return []*key.Binding{
		&k.Up, &k.Down, &k.Top, &k.Bottom, &k.HalfDown, &k.HalfUp, &k.NextSection,
		&k.PrevSection, &k.Open, &k.Back, &k.ToggleRead, &k.Urgent, &k.Actionable,
		&k.Informational, &k.LowPriority, &k.Retriage, &k.Reply, &k.ReplyAll, &k.Fold,
		&k.Save, &k.Search, &k.Command, &k.DismissError, &k.Help, &k.Quit, &k.ForceQuit,
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
	case stateThread:
		on(&k.Up, &k.Down, &k.Top, &k.Bottom, &k.HalfDown, &k.HalfUp, &k.Back,
			&k.ToggleRead, &k.Urgent, &k.Actionable, &k.Informational, &k.LowPriority,
			&k.Retriage, &k.Reply, &k.ReplyAll, &k.Fold, &k.Search, &k.Command, &k.Help, &k.Quit)
		k.Save.SetEnabled(hasAttachments)
	case stateList:
		on(&k.Up, &k.Down, &k.Top, &k.Bottom, &k.Open, &k.Back, &k.Search, &k.Command,
			&k.Help, &k.Quit)
	case stateSearch:
		on(&k.Up, &k.Down, &k.Open, &k.Back)
	case stateHelp:
		on(&k.Back, &k.Help, &k.Quit)
	case statePrompt:
		on(&k.Open, &k.Back)
	}
	k.DismissError.SetEnabled(hasError && st != stateSearch && st != statePrompt)
	// j/k are typed text while an input has focus: only arrows move there.
	if st == stateSearch {
		k.Up.SetKeys("up", "ctrl+p")
		k.Down.SetKeys("down", "ctrl+n")
	} else {
		k.Up.SetKeys("k", "up")
		k.Down.SetKeys("j", "down")
	}
}

// ShortHelp implements help.KeyMap: the status-line hints.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Back, k.Reply, k.Search, k.Command, k.Help, k.Quit}
}

// FullHelp implements help.KeyMap: every enabled binding, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.HalfDown, k.HalfUp, k.NextSection, k.PrevSection},
		{k.Open, k.Back, k.ToggleRead, k.Fold, k.Save, k.Retriage, k.Reply, k.ReplyAll},
		{k.Urgent, k.Actionable, k.Informational, k.LowPriority},
		{k.Search, k.Command, k.Outbox, k.Approvals, k.DismissError, k.Help, k.Quit, k.ForceQuit},
	}
}
