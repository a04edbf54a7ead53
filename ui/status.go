package ui

import (
	"fmt"
	"mailsift/internal/termsafe"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// clampWidth cuts lines wider than w (very narrow terminals), so the
// frame never wraps and scrolls the screen.
func clampWidth(s string, w int) string {
	if w <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	changed := false
	for i, l := range lines {
		if len(l) > w && ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "\n")
}

// titleLine shows where the user is.
func (m *Model) titleLine() string {
	where := "Inbox"
	switch m.screen {
	case stateThread:
		where = "Thread"
	case stateList:
		where = m.list.title
	case stateSearch:
		where = "Search"
	case stateHelp:
		where = "Help"
	case stateDraft:
		where = "Reply"
	case stateConfirm:
		where = "Confirm send"
	case stateOutbox:
		where = "Outbox"
	case stateCompose:
		where = "Compose"
	case stateLinks:
		where = "Links"
	case stateUnsub:
		where = "Unsubscribe"
	}
	total := 0
	for _, n := range m.inbox.counts {
		total += n
	}
	right := m.c.st.dim.Render(fmt.Sprintf("%d thread%s", total, plural(total)))
	left := m.c.st.title.Render("mailsift") + " · " + where
	return joinLR(left, right, m.width)
}

// statusLine shows account, connection, sync and triage progress, and
// the last error (until dismissed) or note.
func (m *Model) statusLine() string {
	parts := []string{termsafe.SanitizeLine(m.opts.Account), string(m.conn)}
	if m.accounts.multi() {
		parts = []string{m.accounts.status()}
	}
	if b := m.approvals.badge(); b != "" { // before the long notes, so a narrow line keeps it
		parts = append(parts, m.c.st.warn.Render(b))
	}
	if m.opts.ModelHost != "" {
		// Mail leaves this machine for the model: say where, always.
		parts = append(parts, "model: "+termsafe.SanitizeLine(m.opts.ModelHost)+" (remote)")
	}
	if m.syncing {
		s := "syncing"
		if m.sync.Mailbox != "" {
			s += " " + termsafe.SanitizeLine(m.sync.Mailbox)
		}
		if m.sync.Total > 0 {
			s += fmt.Sprintf(" %d/%d", m.sync.Done, m.sync.Total)
		}
		parts = append(parts, s)
	}
	if m.hasTriage {
		t := m.triage
		switch {
		case t.Offline != "":
			s := "offline triage: " + strings.TrimPrefix(termsafe.SanitizeLine(t.Offline), "offline triage: ")
			if t.Total > 0 && t.Done < t.Total {
				s += fmt.Sprintf(" (%d/%d)", t.Done, t.Total)
			}
			parts = append(parts, s)
		case t.Total > 0 && t.Done < t.Total:
			s := fmt.Sprintf("triaging %d/%d", t.Done, t.Total)
			if t.Model != "" {
				s += " · " + termsafe.SanitizeLine(t.Model)
			}
			parts = append(parts, s)
		case t.Model != "":
			parts = append(parts, "triaged · "+termsafe.SanitizeLine(t.Model))
		}
	}
	if m.queued > 0 {
		// Actions made here that the server has not got yet (offline).
		if m.queued == 1 {
			parts = append(parts, "1 change queued")
		} else {
			parts = append(parts, fmt.Sprintf("%d changes queued", m.queued))
		}
	}
	left := " " + strings.Join(parts, " · ")
	var right string
	switch {
	case m.c.errText != "":
		right = m.c.st.statusErr.Render("! "+m.c.errText+" (esc)") + m.c.st.status.Render(" ")
	case m.c.note != "":
		right = m.c.st.statusNote.Render(m.c.note) + m.c.st.status.Render(" ")
	default:
		right = m.c.st.status.Render("? help ")
	}
	return joinLRStyled(m.c.st.status, left, right, m.width)
}

// joinLR puts left and right on one line of width w.
func joinLR(left, right string, w int) string {
	lw, rw := lipWidth(left), lipWidth(right)
	if lw+rw+1 > w {
		if rw >= w {
			return fit(right, w)
		}
		left = fit(left, w-rw-1)
		lw = w - rw - 1
	}
	return left + strings.Repeat(" ", max(1, w-lw-rw)) + right
}

// joinLRStyled is joinLR with the bar style on the left part and padding.
// A left part too wide for the room is cut at a word or segment boundary
// with an ellipsis, and at least two spaces keep it apart from the right
// part (the message), so that neither reads into the other.
func joinLRStyled(bar lipgloss.Style, left, right string, w int) string {
	rw := lipWidth(right)
	room := max(0, w-rw)
	if lipWidth(left) > room {
		left = cutAtWord(left, room-2)
	}
	left = fit(left, room)
	return bar.Render(left) + right
}

// cutAtWord shortens plain text s to at most n cells ending in "…", cutting
// after the last whole word (dropping a dangling " · " separator); a first
// word longer than n is cut where it must be.
func cutAtWord(s string, n int) string {
	if n <= 0 {
		return ""
	}
	t := ansi.Truncate(s, n-1, "")
	if !strings.HasPrefix(s, t) {
		return ansi.Truncate(s, n, "…") // styled text: cut by cells only
	}
	if rest := s[len(t):]; rest != "" && rest[0] != ' ' {
		if i := strings.LastIndexByte(strings.TrimLeft(t, " "), ' '); i >= 0 {
			t = t[:len(t)-len(strings.TrimLeft(t, " "))+i]
		}
	}
	return strings.TrimRight(t, " ·") + "…"
}

func lipWidth(s string) int { return ansi.StringWidth(s) }
