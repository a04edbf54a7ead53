package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"mailsift/model"
)

// TestSearchIndexSettings checks migration 6's FTS5 settings are in place
// and that an index written as many small segments (more than automerge's
// 16, so merges run) and then partly deleted stays consistent and finds
// every message by word, phrase and column.
func TestSearchIndexSettings(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	want := map[string]int64{"hashsize": 8 << 20, "automerge": 16, "crisismerge": 64}
	for k, v := range want {
		var got int64
		if err := s.w.QueryRowContext(ctx, `SELECT v FROM messages_fts_config WHERE k = ?`, k).Scan(&got); err != nil || got != v {
			t.Errorf("search index %s = %d (%v), want %d", k, got, err, v)
		}
	}

	const n = 40
	var locs []model.Location
	for i := range n {
		m := mkMsg(fmt.Sprintf("m%d@x", i), fmt.Sprintf("Quarterly walrus %d", i),
			body(fmt.Sprintf("the walrus report number w%d", i)), at(time.Duration(i)*time.Hour),
			from("Bob Smith", fmt.Sprintf("bob%d@example.com", i)))
		put(t, s, m) // one batch, one segment each
		locs = append(locs, m.Loc)
	}
	if err := s.RemoveLocations(ctx, locs[:n/4]); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if _, err := s.w.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)`); err != nil {
		t.Errorf("search index integrity check: %v", err)
	}
	for _, q := range []string{"walrus", `"walrus report"`, `from:"bob smith"`, "subject:quarterly"} {
		hits, err := s.Search(ctx, q, 100)
		if err != nil || len(hits) != n-n/4 {
			t.Errorf("Search(%q) = %d hits (%v), want %d", q, len(hits), err, n-n/4)
		}
	}
	if hits, err := s.Search(ctx, "w0", 10); err != nil || len(hits) != 0 {
		t.Errorf("Search(w0) for a deleted message = %d hits (%v), want 0", len(hits), err)
	}
	if hits, err := s.Search(ctx, "w39", 10); err != nil || len(hits) != 1 || hits[0].MessageID != "m39@x" {
		t.Errorf("Search(w39) = %+v (%v), want m39@x", hits, err)
	}
}
