package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/model"
	"mailsift/store"
)

// actionBenchStore is a fresh store with n single-message inbox threads.
func actionBenchStore(b *testing.B, n int) *store.Store {
	b.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "m.db"), &store.Options{Principal: me})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	msgs := make([]*model.Message, n)
	for i := range msgs {
		msgs[i] = &model.Message{Loc: model.Location{Account: "test", Mailbox: "INBOX", Key: fmt.Sprint(i)},
			MessageID: fmt.Sprintf("b%d@x", i), From: model.Address{Name: "Sender", Email: fmt.Sprintf("s%d@x", i%50)},
			Subject: fmt.Sprintf("Subject %d", i), Text: "body", HasBody: true, Size: 10,
			Date: fixedNow.Add(-time.Duration(i) * time.Minute), ContentHash: fmt.Sprint("h", i)}
	}
	if err := s.PutMessages(ctx, msgs); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkArchiveKeyFrame measures what the user waits for after e: the
// Update that takes the row out of the inbox and the View of the next
// frame (the store write runs afterwards in a command). Target: 16 ms.
// Run with -benchtime=200x: each iteration archives one more row.
func BenchmarkArchiveKeyFrame(b *testing.B) {
	s := actionBenchStore(b, 2000)
	cfg := config.Defaults()
	d := newDriver(b, Options{Store: s, Actions: app.New(&cfg, s, app.Options{Now: clock}).Actions(nil)}, 120, 40)
	m := d.m
	b.ResetTimer()
	for range b.N {
		nm, _ := m.Update(keyMsg("e"))
		m = nm.(Model)
		_ = m.View()
	}
}

// BenchmarkArchiveOneStore measures the store write behind e on one
// thread (move queued, sections updated, undo recorded) on a 2,000-thread
// store.
func BenchmarkArchiveOneStore(b *testing.B) {
	s := actionBenchStore(b, 2000)
	cfg := config.Defaults()
	x := app.New(&cfg, s, app.Options{Now: clock}).Actions(nil)
	ctx := context.Background()
	ids, err := s.SectionThreadIDs(ctx, store.SectionUntriaged)
	if err != nil || len(ids) < b.N {
		b.Skipf("%d threads for %d iterations: run with -benchtime=200x", len(ids), b.N)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := x.Archive(ctx, ids[i:i+1]); err != nil {
			b.Fatal(err)
		}
	}
}
