package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"mailsift/model"
)

// addressbookStore is a store of n generated messages of which every
// tenth is from the principal to one to three of the generated people,
// cached under os.TempDir().
func addressbookStore(b *testing.B, n int) *Store {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mailsift-addressbook-bench-%s-%d.db", benchVersion, n))
	opts := &Options{Principal: model.Address{Email: "me@example.com"}}
	if _, err := os.Stat(path); err != nil {
		tmp := path + ".building"
		for _, suf := range []string{"", "-wal", "-shm"} {
			os.Remove(tmp + suf)
		}
		s, err := Open(ctx, tmp, opts)
		if err != nil {
			b.Fatal(err)
		}
		msgs := genCorpus(n, uint64(n)+7)
		for i, m := range msgs {
			if i%10 == 0 {
				other := msgs[(i*7919)%len(msgs)].From
				m.To = []model.Address{m.From}
				m.Cc = []model.Address{other}
				m.From = model.Address{Name: "Me", Email: "me@example.com"}
			}
		}
		for i := 0; i < len(msgs); i += 500 {
			if err := s.PutMessages(ctx, msgs[i:min(i+500, len(msgs))]); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		for _, suf := range []string{"-wal", "-shm"} {
			os.Remove(tmp + suf)
		}
		if err := os.Rename(tmp, path); err != nil {
			b.Fatal(err)
		}
	}
	s, err := Open(ctx, path, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkCorrespondents ranks the address book of a 100k-message store
// (10,000 sent messages), as the compose screen does once when it opens,
// and matches a typed prefix against it, as it does on each keystroke.
func BenchmarkCorrespondents(b *testing.B) {
	s := addressbookStore(b, 100000)
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var list []Correspondent
	b.Run("rank", func(b *testing.B) {
		for b.Loop() {
			var err error
			if list, err = s.Correspondents(ctx, now); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(list)), "people")
	})
	b.Run("match", func(b *testing.B) {
		for b.Loop() {
			if len(MatchCorrespondents(list, "ke", 5)) == 0 {
				b.Fatal("no match")
			}
		}
	})
}

// BenchmarkFamiliarity reads what a 100k-message store (10,000 sent
// messages) says about senders, as the triage worker does once per run.
func BenchmarkFamiliarity(b *testing.B) {
	s := addressbookStore(b, 100000)
	ctx := context.Background()
	var f *Familiarity
	for b.Loop() {
		var err error
		if f, err = s.Familiarity(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(f.WrittenTo)), "written-to")
	b.ReportMetric(float64(len(f.Read)), "senders-read")
}
