package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"mailsift/model"
)

// BenchmarkMissingBodies50k: one call of MissingBodies(2,200), as the IMAP
// body fetch makes it every few batches, on a folder of 50,000 envelopes
// of which the newest 10,000 have their body (the first sync halfway).
func BenchmarkMissingBodies50k(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "env.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n, withBody = 50000, 10000
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for lo := 0; lo < n; lo += 1000 {
		var msgs []*model.Message
		for i := lo; i < lo+1000; i++ {
			m := &model.Message{MessageID: fmt.Sprintf("e%d@x", i), Subject: fmt.Sprintf("Envelope %d", i),
				From: model.Address{Email: "a@example.com"}, Date: t0.Add(time.Duration(i) * time.Minute),
				Loc: model.Location{Account: "acct", Mailbox: "INBOX", Key: fmt.Sprint(i + 1), UID: uint32(i + 1)}}
			if i >= n-withBody {
				m.HasBody, m.ContentHash, m.Text = true, fmt.Sprintf("h%d", i), "body"
			}
			msgs = append(msgs, m)
		}
		if err := s.PutMessages(ctx, msgs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		locs, err := s.MissingBodies(ctx, "acct", "INBOX", 2200)
		if err != nil || len(locs) != 2200 || locs[0].UID != n-withBody {
			b.Fatalf("MissingBodies = %d locations (first %v), %v", len(locs), locs[:1], err)
		}
	}
}
