package ui

import (
	"context"
	"sort"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"mailsift/internal/app/event"
	"mailsift/internal/termsafe"
	"mailsift/store"
)

// AccountBackend is what the account view needs beyond Backend: the
// sections limited to one account and the accounts of listed threads.
// *store.Store satisfies it; without it the inbox shows all accounts and
// no markers.
type AccountBackend interface {
	SectionCountsIn(ctx context.Context, account string) (map[store.Section]int, error)
	ListThreadsIn(ctx context.Context, sec store.Section, account string, offset, limit int) ([]store.ThreadSummary, error)
	ThreadAccounts(ctx context.Context, ids []int64) (map[int64][]string, error)
}

// accountView is the Backend the inbox reads through when several
// accounts are configured: every account's threads together, each row
// marked with its account, or (A cycles) one account's only. It also holds
// each account's connection state for the status bar.
//
// Commands read the filter and record markers from their goroutines, so
// those sit behind mu; the states are touched by Update and View only.
type accountView struct {
	Backend
	ab    AccountBackend // nil: no per-account reads
	names []string       // configured accounts, in config order

	mu     sync.Mutex
	filter string             // "" = all accounts
	marks  map[int64][]string // thread id → its accounts, from the listed pages

	states  map[string]event.ConnState
	syncing map[string]bool
}

// newAccountView wraps b for the configured accounts names.
func newAccountView(b Backend, names []string) *accountView {
	v := &accountView{Backend: b, names: names, marks: map[int64][]string{},
		states: map[string]event.ConnState{}, syncing: map[string]bool{}}
	v.ab, _ = b.(AccountBackend)
	return v
}

// multi reports whether there is more than one account to tell apart.
func (v *accountView) multi() bool { return v != nil && len(v.names) > 1 }

func (v *accountView) current() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.filter
}

// cycle moves the view to the next account after "all", then back to
// "all", and returns the new filter ("" = all).
func (v *accountView) cycle() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	next := ""
	if v.filter == "" {
		next = v.names[0]
	} else {
		for i, n := range v.names {
			if n == v.filter && i+1 < len(v.names) {
				next = v.names[i+1]
			}
		}
	}
	v.filter = next
	return next
}

// SectionCounts counts the current view's threads.
func (v *accountView) SectionCounts(ctx context.Context) (map[store.Section]int, error) {
	if f := v.current(); f != "" && v.ab != nil {
		return v.ab.SectionCountsIn(ctx, f)
	}
	return v.Backend.SectionCounts(ctx)
}

// ListThreads lists the current view's threads and records their
// accounts for the row markers.
func (v *accountView) ListThreads(ctx context.Context, sec store.Section, offset, limit int) ([]store.ThreadSummary, error) {
	var rows []store.ThreadSummary
	var err error
	if f := v.current(); f != "" && v.ab != nil {
		rows, err = v.ab.ListThreadsIn(ctx, sec, f, offset, limit)
	} else {
		rows, err = v.Backend.ListThreads(ctx, sec, offset, limit)
	}
	if err != nil || v.ab == nil || !v.multi() || len(rows) == 0 {
		return rows, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	accts, aerr := v.ab.ThreadAccounts(ctx, ids)
	if aerr == nil {
		v.mu.Lock()
		for id, a := range accts {
			v.marks[id] = a
		}
		v.mu.Unlock()
	}
	return rows, nil
}

// markerWidth is the width of the account column.
const markerWidth = 6

// marker is a row's account column: the account's short name in its
// colour, "+" after it when the thread is in several accounts.
func (v *accountView) marker(c *common, id int64) string {
	v.mu.Lock()
	accts := v.marks[id]
	v.mu.Unlock()
	if len(accts) == 0 {
		return strings.Repeat(" ", markerWidth+1)
	}
	label := shortName(accts[0], markerWidth)
	if len(accts) > 1 {
		label = shortName(accts[0], markerWidth-1) + "+"
	}
	return v.style(accts[0]).Render(fit(label, markerWidth)) + " "
}

// shortName cuts a sanitised account name to w cells.
func shortName(name string, w int) string {
	return ansi.Truncate(termsafe.SanitizeLine(name), w, "")
}

// accountColours tell the accounts apart where the terminal has colour.
var accountColours = []lipgloss.AdaptiveColor{
	{Light: "#005F87", Dark: "#5FD7FF"},
	{Light: "#875F00", Dark: "#FFD75F"},
	{Light: "#5F8700", Dark: "#AFFF5F"},
	{Light: "#870087", Dark: "#FF87FF"},
	{Light: "#AF0000", Dark: "#FF8787"},
}

func (v *accountView) style(name string) lipgloss.Style {
	for i, n := range v.names {
		if n == name {
			return lipgloss.NewStyle().Foreground(accountColours[i%len(accountColours)])
		}
	}
	return lipgloss.NewStyle()
}

// row draws an inbox row, with the account column when there are several
// accounts.
func (v *accountView) row(c *common, ts store.ThreadSummary, ok, sel bool, width int, picked, back bool) string {
	if !v.multi() {
		return renderRow(c, ts, ok, sel, width, picked, back)
	}
	m := strings.Repeat(" ", markerWidth+1)
	if ok {
		m = v.marker(c, ts.ID)
	}
	return m + renderRow(c, ts, ok, sel, max(1, width-markerWidth-1), picked, back)
}

// noteEvent records what an event says about an account's state.
func (v *accountView) noteEvent(ev event.Event) {
	if v == nil {
		return
	}
	switch ev := ev.(type) {
	case event.Conn:
		if ev.Account != "" {
			v.states[ev.Account] = ev.State
		}
	case event.SyncProgress:
		if ev.Account != "" {
			v.syncing[ev.Account] = ev.Phase != "done"
		}
	}
}

// status is the status bar's account part: each account's state when
// there are several ("work: IDLE · home: auth failed"), with the view
// ("showing home") when it is limited to one.
func (v *accountView) status() string {
	names := append([]string(nil), v.names...)
	for n := range v.states {
		if !hasName(names, n) {
			names = append(names, n)
		}
	}
	sort.SliceStable(names, func(i, j int) bool { return index(v.names, names[i]) < index(v.names, names[j]) })
	parts := make([]string, 0, len(names)+1)
	for _, n := range names {
		st := string(v.states[n])
		if v.syncing[n] {
			st = "syncing"
		}
		if st == "" {
			st = "connecting"
		}
		parts = append(parts, termsafe.SanitizeLine(n)+": "+st)
	}
	if f := v.current(); f != "" {
		parts = append(parts, "showing "+termsafe.SanitizeLine(f)+" (A: next)")
	}
	return strings.Join(parts, " · ")
}

func hasName(list []string, s string) bool { return index(list, s) < len(list) }

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

// cycleAccounts moves the inbox to the next account view and reloads it.
func (m *Model) cycleAccounts() tea.Cmd {
	v := m.accounts
	if !v.multi() {
		return nil
	}
	f := v.cycle()
	if f == "" {
		m.c.note = "showing all accounts"
	} else {
		m.c.note = "showing " + termsafe.SanitizeLine(f) + " only"
	}
	m.inbox.cursorID = 0
	return m.startReload()
}

// row draws an inbox row through the account view, if there is one.
func (in *inbox) row(ts store.ThreadSummary, ok, sel bool, width int, picked, back bool) string {
	if v, isView := in.b.(*accountView); isView {
		return v.row(in.c, ts, ok, sel, width, picked, back)
	}
	return renderRow(in.c, ts, ok, sel, width, picked, back)
}
