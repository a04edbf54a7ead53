package imap

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
)

func TestBatchLen(t *testing.T) {
	s := New("acct", Config{Host: "127.0.0.1", BodyBatchSize: 3, BodyBatchBytes: 100})
	sizes := map[imap.UID]int64{1: 40, 2: 40, 3: 40, 4: 500, 5: 10, 6: 10, 7: 10, 8: 10}
	cases := []struct {
		uids []imap.UID
		want int
	}{
		{[]imap.UID{1, 2, 3}, 2},    // the third would pass 100 bytes
		{[]imap.UID{4, 5}, 1},       // larger than the bound: alone
		{[]imap.UID{5, 4}, 1},       // the large one waits for the next batch
		{[]imap.UID{5, 6, 7, 8}, 3}, // the count bound
		{[]imap.UID{9, 5}, 2},       // unknown size counts as 0
		{nil, 0},
	}
	for _, c := range cases {
		if got := s.batchLen(c.uids, sizes); got != c.want {
			t.Errorf("batchLen(%v) = %d, want %d", c.uids, got, c.want)
		}
	}
}

// fetchRecorder records, for every FETCH of whole messages, how many
// messages it asked for.
type fetchRecorder struct {
	imapserver.SessionIMAP4rev2
	mu      *sync.Mutex
	batches *[]int
}

func (f *fetchRecorder) Fetch(w *imapserver.FetchWriter, set imap.NumSet, opts *imap.FetchOptions) error {
	for _, sec := range opts.BodySection {
		if sec.Specifier == imap.PartSpecifierNone && len(sec.Part) == 0 {
			if uids, ok := set.(imap.UIDSet).Nums(); ok {
				f.mu.Lock()
				*f.batches = append(*f.batches, len(uids))
				f.mu.Unlock()
			}
		}
	}
	return f.SessionIMAP4rev2.Fetch(w, set, opts)
}

// TestLargeMessagesFetchedInSmallBatches: whole messages are fetched in
// batches bounded by bytes as well as count, in the one pass and in the
// body phase, and all arrive intact.
func TestLargeMessagesFetchedInSmallBatches(t *testing.T) {
	for _, whole := range []bool{true, false} {
		t.Run(fmt.Sprint("whole=", whole), func(t *testing.T) {
			var mu sync.Mutex
			var batches []int
			ts := serveMem(t, func(next imapserver.SessionIMAP4rev2) imapserver.Session {
				return &fetchRecorder{SessionIMAP4rev2: next, mu: &mu, batches: &batches}
			})
			a := ts.admin(t)
			big := strings.Repeat("attachment data line\r\n", 3000) // 66 KB
			for i := range 9 {
				body := "small"
				if i%3 == 0 {
					body = big
				}
				a.append("INBOX", strings.Replace(testMessage(i, "batching"), "\r\n\r\n", "\r\n\r\n"+body+"\r\n", 1))
			}
			src := ts.source(t, func(c *Config) {
				c.BodyBatchBytes = 100 << 10
				if !whole {
					c.WholeBudget = -1
				}
			})
			sink := newFakeSink()
			if err := src.Sync(context.Background(), sink, nil); err != nil {
				t.Fatal(err)
			}
			inbox := sink.inBox("acct", "INBOX")
			if len(inbox) != 9 {
				t.Fatalf("synced %d messages, want 9", len(inbox))
			}
			for uid, m := range inbox {
				if !m.HasBody || (uid%3 == 1) != strings.Contains(m.Text, "attachment data line") {
					t.Errorf("message %d: body %d bytes, has body %v", uid, len(m.Text), m.HasBody)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			total := 0
			for _, n := range batches {
				total += n
			}
			// 3 large messages of 66 KB, 100 KB per batch: no batch holds two.
			if total != 9 || len(batches) < 3 {
				t.Errorf("whole-message fetches asked for %v messages, want 9 over at least 3 batches", batches)
			}
		})
	}
}
