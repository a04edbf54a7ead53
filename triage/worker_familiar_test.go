package triage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/store"
)

// TestWorkerUsesFamiliarSenders runs the worker on a real store: a
// newsletter whose words the learned score calls spam is quarantined
// while its sender is a stranger, and lands in Low priority in a mailbox
// where the user read two of the sender's earlier issues.
func TestWorkerUsesFamiliarSenders(t *testing.T) {
	receipt := demoReceipt(t)
	p := model.Address{Name: "Alex Morgan", Email: "alex.morgan@northwind.example"}
	// The list is run by a mail service elsewhere (a list in the sender's
	// own domain would vouch for it already).
	sender := model.Address{Name: "Shop News", Email: "news@shop-mailer.example"}
	issue := func(id string, day int, read bool) *model.Message {
		m := *receipt
		m.Loc = model.Location{Account: "acct", Mailbox: "INBOX", Key: id}
		m.MessageID, m.InReplyTo, m.References = id, nil, nil
		m.From, m.To = sender, []model.Address{p}
		m.Subject = receipt.Subject + " #" + id
		m.Date = time.Date(2026, 10, day, 9, 0, 0, 0, time.UTC)
		m.Headers = map[string][]string{"List-Unsubscribe": {"<https://esp.example/u/x>"}}
		m.Flags = model.Flags{Seen: read}
		m.ContentHash = "hash-" + id
		return &m
	}
	for _, tc := range []struct {
		name     string
		readPast bool
		wantSpam bool
	}{
		{"stranger", false, true},
		{"read before", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), &store.Options{Principal: p})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.PutMessages(ctx, []*model.Message{issue("i1@shop", 1, tc.readPast), issue("i2@shop", 8, tc.readPast), issue("i3@shop", 15, false)}); err != nil {
				t.Fatal(err)
			}
			w := NewWorker(st, WorkerOptions{Triager: NewOffline(nil), Principal: p, Parallel: 1})
			runPass(t, w)
			ids, err := st.SectionThreadIDs(ctx, store.SectionLowPriority)
			if err != nil {
				t.Fatal(err)
			}
			var latest *store.ThreadSummary
			all, err := st.SectionThreadIDs(ctx, store.SectionQuarantine)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range append(ids, all...) {
				s, err := st.ThreadSummaryByID(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(s.Subject, "#i3@shop") {
					latest = &s
				}
			}
			if latest == nil || latest.Triage == nil {
				t.Fatal("the newest issue is in neither Low priority nor the spam section")
			}
			if got := latest.Triage.Result.IsSpam; got != tc.wantSpam {
				t.Errorf("newest issue: is_spam %t, want %t (signals %v)", got, tc.wantSpam, latest.Triage.Signals)
			}
			if !tc.wantSpam && !strings.Contains(strings.Join(latest.Triage.Signals, "\n"), "you have read 2 earlier messages from news@shop-mailer.example") {
				t.Errorf("no reason naming the read issues in %v", latest.Triage.Signals)
			}
		})
	}
}
