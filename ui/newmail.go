package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/internal/termsafe"
	"mailsift/store"
)

// Notifier shows a desktop notification. internal/notify's D-Bus client
// satisfies it.
type Notifier interface {
	Notify(ctx context.Context, summary, body string, urgent bool) error
}

// New-mail settings (Options.NewMail).
const (
	NewMailOff    = "off"
	NewMailUrgent = "urgent"
	NewMailAll    = "all"
)

// newMailScan is how many threads of a section are looked at for new
// unread mail: the newest, where new mail lands.
const newMailScan = 100

// newMailState remembers the unread threads already announced and the
// terminal title last set.
type newMailState struct {
	counts   []int          // section counts of the last check
	seen     map[int64]bool // unread threads already known
	started  bool           // the first check only learns what is there
	checking bool
	again    bool // counts changed while a check ran
	title    string
}

// newMailCheckedMsg is the result of one check.
type newMailCheckedMsg struct {
	urgentUnread int
	fresh        []store.ThreadSummary // unread threads not seen before
	all          []int64               // every unread thread found
	err          error
}

func (newMailCheckedMsg) owner() state { return stateStay }

type newMailNotifiedMsg struct{ err error }

func (newMailNotifiedMsg) owner() state { return stateStay }

// checkNewMail looks for new unread threads when the inbox counts changed
// (a reload after sync or triage).
func (m *Model) checkNewMail(counts []int) tea.Cmd {
	nm := &m.newMail
	if counts == nil || slices.Equal(counts, nm.counts) {
		return nil
	}
	nm.counts = slices.Clone(counts)
	if nm.checking {
		nm.again = true
		return nil
	}
	nm.checking = true
	secs := []store.Section{store.SectionUrgent}
	if m.opts.NewMail == NewMailAll {
		secs = append(secs, store.SectionActionable, store.SectionInformational, store.SectionLowPriority)
	}
	ctx, b := m.ctx(), m.opts.Store
	seen := nm.seen
	return func() tea.Msg {
		var msg newMailCheckedMsg
		for _, sec := range secs {
			rows, err := b.ListThreads(ctx, sec, 0, newMailScan)
			if err != nil {
				return newMailCheckedMsg{err: err}
			}
			for _, ts := range rows {
				if ts.Unread == 0 {
					continue
				}
				if sec == store.SectionUrgent {
					msg.urgentUnread++
				}
				msg.all = append(msg.all, ts.ID)
				if !seen[ts.ID] {
					msg.fresh = append(msg.fresh, ts)
				}
			}
		}
		return msg
	}
}

// handleNewMail applies a check: the terminal title counts the unread
// urgent threads, and threads that became unread since the last check
// are announced (a desktop notification, else the bell) unless
// Options.NewMail is off. The first check only learns what is there.
func (m *Model) handleNewMail(msg routedMsg) tea.Cmd {
	nm := &m.newMail
	switch msg := msg.(type) {
	case newMailNotifiedMsg:
		if msg.err != nil {
			m.c.logger.Warn("ui: desktop notification failed; rang the bell", "err", msg.err)
		}
		return nil
	case newMailCheckedMsg:
		nm.checking = false
		var cmds []tea.Cmd
		if nm.again {
			nm.again = false
			nm.counts = nil // look again
			cmds = append(cmds, m.checkNewMail(m.inbox.counts))
		}
		if err := quiet(msg.err); err != nil {
			m.c.logger.Warn("ui: new mail check", "err", err)
			return tea.Batch(cmds...)
		}
		if nm.seen == nil {
			nm.seen = map[int64]bool{}
		}
		for _, id := range msg.all {
			nm.seen[id] = true
		}
		title := "mailsift"
		if msg.urgentUnread > 0 {
			title = fmt.Sprintf("mailsift (%d urgent)", msg.urgentUnread)
		}
		if title != nm.title {
			nm.title = title
			// Not tea.SetWindowTitle: Bubble Tea v1 writes it without its
			// renderer's lock, racing the frame being drawn.
			if set := m.opts.SetTitle; set != nil {
				cmds = append(cmds, func() tea.Msg { set(title); return nil })
			}
		}
		first := !nm.started
		nm.started = true
		if first || len(msg.fresh) == 0 || m.opts.NewMail == NewMailOff {
			return tea.Batch(cmds...)
		}
		return tea.Batch(append(cmds, m.announce(msg.fresh))...)
	}
	return nil
}

// announce notifies about new threads in a command.
func (m *Model) announce(fresh []store.ThreadSummary) tea.Cmd {
	urgent := false
	var lines []string
	for i, ts := range fresh {
		if ts.Section == store.SectionUrgent {
			urgent = true
		}
		if i < 3 {
			lines = append(lines, termsafe.SanitizeLine(displayName(ts.From))+": "+termsafe.SanitizeLine(ts.Subject))
		}
	}
	if len(fresh) > 3 {
		lines = append(lines, fmt.Sprintf("and %d more", len(fresh)-3))
	}
	summary := fmt.Sprintf("%d new thread%s", len(fresh), plural(len(fresh)))
	if urgent {
		summary = fmt.Sprintf("%d new urgent thread%s", len(fresh), plural(len(fresh)))
	}
	n, bell, ctx := m.opts.Notifier, m.opts.Bell, m.ctx()
	body := strings.Join(lines, "\n")
	return func() tea.Msg {
		var err error
		if n != nil {
			if err = n.Notify(ctx, "mailsift: "+summary, body, urgent); err == nil {
				return newMailNotifiedMsg{}
			}
		}
		if bell != nil {
			bell()
		}
		return newMailNotifiedMsg{err: err}
	}
}
