package ui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

// uiBenchVersion keys the cached benchmark stores; bump it when the
// generator or the store schema changes.
const uiBenchVersion = "ui-v2"

var benchSubjectWords = strings.Fields(`meeting project budget review deadline report quarter invoice
payment customer release deploy server outage incident ticket contract proposal schedule agenda
notes draft feedback design roadmap milestone hiring interview offer team lunch travel flight`)

// benchStore returns a store with n single-message threads, 80% of them
// triaged across the four buckets and quarantine, cached in os.TempDir()
// (MAILSIFT_UI_BENCH_DB_DIR overrides) by version and n. It also serves
// the RSS measurement in BENCHMARKS.md.
func benchStore(b *testing.B, n int) *store.Store {
	b.Helper()
	ctx := context.Background()
	dir := os.Getenv("MAILSIFT_UI_BENCH_DB_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("mailsift-%s-%d", uiBenchVersion, n), "mailsift.db")
	if _, err := os.Stat(path); err != nil {
		if err := buildBenchStore(ctx, path, n); err != nil {
			b.Fatal(err)
		}
	}
	s, err := store.Open(ctx, path, &store.Options{Principal: me})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func buildBenchStore(ctx context.Context, path string, n int) error {
	tmp := filepath.Join(filepath.Dir(path)+".building", "mailsift.db")
	os.RemoveAll(filepath.Dir(tmp))
	s, err := store.Open(ctx, tmp, &store.Options{Principal: me})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	word := func() string { return benchSubjectWords[rng.IntN(len(benchSubjectWords))] }
	start := fixedNow.Add(-2 * 365 * 24 * time.Hour)
	step := 2 * 365 * 24 * time.Hour / time.Duration(n)
	const batch = 1000
	var mids []string
	for i := 0; i < n; i += batch {
		var msgs []*model.Message
		for j := i; j < min(i+batch, n); j++ {
			f := fx{
				id:      fmt.Sprintf("%d@bench.example", j),
				subject: fmt.Sprintf("%s %s %s #%d", word(), word(), word(), j),
				body:    strings.Repeat(word()+" ", 40),
				from:    model.Address{Name: fmt.Sprintf("Sender %d", j%500), Email: fmt.Sprintf("s%d@example.com", j%500)},
				ago:     fixedNow.Sub(start.Add(time.Duration(j) * step)),
				seen:    rng.IntN(10) < 7,
			}
			m := f.message()
			m.Loc.Account = "bench"
			msgs = append(msgs, m)
			mids = append(mids, f.id)
		}
		if err := s.PutMessages(ctx, msgs); err != nil {
			s.Close()
			return err
		}
	}
	cats := contract.Categories
	for i, mid := range mids {
		if i%5 == 4 {
			continue // stays "not yet triaged"
		}
		id, err := s.ThreadIDForMessage(ctx, mid)
		if err != nil {
			s.Close()
			return err
		}
		rec := store.TriageRecord{ThreadID: id, CacheKey: "bench", Source: "deterministic", CreatedAt: fixedNow,
			Result: contract.Result{Category: cats[rng.IntN(len(cats))], IsSpam: rng.IntN(20) == 0, Summary: "summary",
				ActionItems: []contract.ActionItem{{Description: "do it"}}}}
		if err := s.SaveTriage(ctx, rec); err != nil {
			s.Close()
			return err
		}
	}
	if err := s.Close(); err != nil {
		return err
	}
	os.RemoveAll(filepath.Dir(path))
	return os.Rename(filepath.Dir(tmp), filepath.Dir(path))
}

// settle runs cmd and feeds its messages back synchronously (no timers).
func settle(b *testing.B, m Model, cmd tea.Cmd) Model {
	if cmd == nil {
		return m
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			m = settle(b, m, c)
		}
	default:
		if !ownMsg(msg) {
			return m
		}
		nm, next := m.Update(msg)
		m = settle(b, nm.(Model), next)
	}
	return m
}

// firstScreen builds the model and draws the first screen with data.
func firstScreen(b *testing.B, s *store.Store) (Model, string) {
	m := New(Options{Store: s, Account: "bench", Now: clock})
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = settle(b, nm.(Model), m.Init())
	return m, m.View()
}

func benchFirstScreen(b *testing.B, n int) {
	s := benchStore(b, n)
	// Warm the store (the page cache of a store opened at startup).
	if _, v := firstScreen(b, s); !strings.Contains(v, "Urgent (") || !strings.Contains(v, "> ") {
		b.Fatalf("first screen has no data:\n%s", v)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		firstScreen(b, s)
	}
}

// BenchmarkFirstScreen6k is model init + first View with data at 6k threads.
func BenchmarkFirstScreen6k(b *testing.B) { benchFirstScreen(b, 6_000) }

// BenchmarkFirstScreen100k is the same at 100k threads.
func BenchmarkFirstScreen100k(b *testing.B) { benchFirstScreen(b, 100_000) }

// BenchmarkNavKey100k is one navigation key (Update + View) at 100k
// threads. Page loads the key triggers run in a tea.Cmd off the UI
// goroutine in the program; here they run with the timer stopped.
func BenchmarkNavKey100k(b *testing.B) {
	s := benchStore(b, 100_000)
	m, _ := firstScreen(b, s)
	down, top := keyMsg("j"), keyMsg("g")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		k := down
		if m.inbox.cursorSec == len(allSections)-1 && m.inbox.cursorIdx == m.inbox.counts[len(allSections)-1]-1 {
			k = top
		}
		nm, cmd := m.Update(k)
		m = nm.(Model)
		_ = m.View()
		if cmd != nil {
			b.StopTimer()
			m = settle(b, m, cmd)
			b.StartTimer()
		}
	}
}

// BenchmarkJumpKey100k is G and g (far jumps: placeholders until the
// page arrives) at 100k threads, Update + View.
func BenchmarkJumpKey100k(b *testing.B) {
	s := benchStore(b, 100_000)
	m, _ := firstScreen(b, s)
	keys := []tea.KeyMsg{keyMsg("G"), keyMsg("g"), keyMsg("tab"), keyMsg("ctrl+d")}
	i := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		nm, cmd := m.Update(keys[i%len(keys)])
		i++
		m = nm.(Model)
		_ = m.View()
		if cmd != nil {
			b.StopTimer()
			m = settle(b, m, cmd)
			b.StartTimer()
		}
	}
}

// BenchmarkReloadMovedThread100k is the background reload after triage
// moved the cursor's thread into another section at 100k threads: counts,
// locating the thread (binary search on the section order) and loading the
// window around it. It runs in a tea.Cmd, off the UI goroutine.
func BenchmarkReloadMovedThread100k(b *testing.B) {
	s := benchStore(b, 100_000)
	ctx := context.Background()
	rows, err := s.ListThreads(ctx, store.SectionInformational, 9_000, 1)
	if err != nil || len(rows) != 1 {
		b.Fatalf("no thread deep in Informational: %v", err)
	}
	want := rows[0].ID
	req := reloadReq{cursorID: want, cursorSec: sectionIndex(store.SectionUntriaged), cursorIdx: 5, screenOff: 10, height: 38}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		msg := reloadCmd(ctx, s, req)().(inboxReloadedMsg)
		if msg.err != nil || msg.cursorIdx != 9_000 || allSections[msg.cursorSec] != store.SectionInformational {
			b.Fatalf("reload: sec %d idx %d err %v", msg.cursorSec, msg.cursorIdx, msg.err)
		}
	}
}
