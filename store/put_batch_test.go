package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"mailsift/model"
)

// TestThreadingLongReferences threads messages whose parent is found only
// through a reference far down a long References list (the candidates are
// looked up in groups of up to 8 Message-IDs), in both arrival orders.
func TestThreadingLongReferences(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8, 9, 12, 17} {
		t.Run(fmt.Sprintf("refs=%d", n), func(t *testing.T) {
			s := openTest(t)
			refs := make([]string, n)
			for i := range refs {
				refs[i] = fmt.Sprintf("missing-%d@x", i)
			}
			refs[n-1] = "root@x" // only the last reference is stored
			root := mkMsg("root@x", "Root", at(0))
			reply := mkMsg("reply@x", "Re: Root", at(time.Hour))
			reply.References = refs
			unrelated := mkMsg("other@x", "Other", at(2*time.Hour))
			put(t, s, root)
			put(t, s, reply, unrelated)
			if a, b := threadOf(t, s, "root@x"), threadOf(t, s, "reply@x"); a != b {
				t.Errorf("reply with %d references: thread %d, root in %d", n, b, a)
			}
			if a, b := threadOf(t, s, "root@x"), threadOf(t, s, "other@x"); a == b {
				t.Errorf("unrelated message joined the root's thread %d", a)
			}
			// A sibling arriving later that shares only the first missing
			// reference joins the thread through message_refs.
			sib := mkMsg("sib@x", "Sibling", at(3*time.Hour))
			sib.References = []string{refs[0]}
			put(t, s, sib)
			if a, b := threadOf(t, s, "root@x"), threadOf(t, s, "sib@x"); a != b {
				t.Errorf("sibling sharing reference %q: thread %d, root in %d", refs[0], b, a)
			}
			checkSectionCounts(t, s)
		})
	}
}

// TestThreadingHostileReferences threads by Message-IDs that are not valid
// UTF-8 or contain NUL: they must match byte for byte.
func TestThreadingHostileReferences(t *testing.T) {
	s := openTest(t)
	bad := "bad-\xff\xfe\x00id@x"
	parent := mkMsg(bad, "Hostile", at(0))
	child := mkMsg("child@x", "Re: Hostile", at(time.Hour), inReplyTo(bad))
	grand := mkMsg("grand@x", "Re: Re: Hostile", at(2*time.Hour), inReplyTo(bad, "child@x"))
	put(t, s, child, grand) // children first: joined through their shared reference
	put(t, s, parent)
	tp := threadOf(t, s, bad)
	if tc, tg := threadOf(t, s, "child@x"), threadOf(t, s, "grand@x"); tc != tp || tg != tp {
		t.Errorf("threads: parent %d, child %d, grandchild %d; want one", tp, tc, tg)
	}
	if n := countRows(t, s, `SELECT count(*) FROM message_refs WHERE ref = ?`, bad); n != 2 {
		t.Errorf("message_refs rows for the hostile id = %d, want 2", n)
	}
}

// TestPutBatchIndexesEveryMessage puts, in one batch, new messages, a copy
// of one in a second folder, an envelope and then its body, and checks
// that each stored message is found by search exactly once (the search
// index is written at the end of the batch) and that a message deleted in
// a later batch leaves the index.
func TestPutBatchIndexesEveryMessage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := mkMsg("a@x", "Alpha", body("zebracorn alpha"), at(0))
	aCopy := mkMsg("a@x", "Alpha", body("zebracorn alpha"), at(0), inMailbox("Archive"))
	env := mkMsg("e@x", "Echo", envelopeOnly(), at(time.Hour))
	full := mkMsg("e@x", "Echo", body("zebracorn echo"), at(time.Hour))
	b := mkMsg("b@x", "Bravo", body("zebracorn bravo"), at(2*time.Hour), inReplyTo("a@x"))
	put(t, s, a, aCopy, env, full, b)

	hits, err := s.Search(ctx, "zebracorn", 50)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, h := range hits {
		got[h.MessageID]++
	}
	want := map[string]int{"a@x": 1, "e@x": 1, "b@x": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Search(zebracorn) hits per message = %v, want %v", got, want)
	}
	if n := countRows(t, s, "SELECT count(*) FROM messages"); n != 3 {
		t.Errorf("%d message rows, want 3", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'zebracorn'`); n != 3 {
		t.Errorf("%d search rows, want 3", n)
	}
	if a, b := threadOf(t, s, "a@x"), threadOf(t, s, "b@x"); a != b {
		t.Errorf("reply in thread %d, parent in %d", b, a)
	}
	checkSectionCounts(t, s)

	// Remove both locations of a@x: its message and search entry go.
	if err := s.RemoveLocations(ctx, []model.Location{a.Loc, aCopy.Loc}); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if n := countRows(t, s, `SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'alpha'`); n != 0 {
		t.Errorf("%d search rows for a deleted message, want 0", n)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)`); err != nil {
		t.Errorf("search index integrity check: %v", err)
	}
	checkSectionCounts(t, s)
}

// TestEnvelopeIndexedWhenBodyArrives: an envelope is not in the search
// index (its body's arrival is then an insert, not a delete and an
// insert); once the body is stored it is found by subject and by body
// text. An envelope indexed by an older version (with a search rowid)
// has its entry replaced. FTS5's integrity check passes throughout.
func TestEnvelopeIndexedWhenBodyArrives(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	check := func(stage string) {
		t.Helper()
		if _, err := s.w.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts, rank) VALUES('integrity-check', 1)`); err != nil {
			t.Fatalf("%s: search index integrity: %v", stage, err)
		}
	}
	found := func(q string) bool {
		t.Helper()
		hits, err := s.Search(ctx, q, 10)
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		return len(hits) > 0
	}
	put(t, s, mkMsg("env@x", "Quarterly zebra report", envelopeOnly()))
	check("envelope")
	if n := countRows(t, s, `SELECT count(*) FROM messages WHERE fts_rowid IS NOT NULL`); n != 0 {
		t.Errorf("%d envelope rows have a search rowid", n)
	}
	if found("zebra") {
		t.Error("envelope found by search before its body arrived")
	}
	put(t, s, mkMsg("env@x", "Quarterly zebra report", body("the giraffe numbers are in")))
	check("body")
	if !found("zebra") || !found("giraffe") {
		t.Error("message not found by subject or body after its body arrived")
	}
	if n := countRows(t, s, `SELECT count(*) FROM messages`); n != 1 {
		t.Errorf("%d message rows, want 1 (the envelope's row filled in)", n)
	}

	// An envelope indexed the old way: its stale entry must go.
	put(t, s, mkMsg("old@x", "Okapi sighting", envelopeOnly()))
	if _, err := s.w.ExecContext(ctx, `UPDATE messages SET fts_rowid = date * 1048576 + id WHERE message_id = 'old@x'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO messages_fts(rowid, from_text, to_text, subject, body)
		SELECT fts_rowid, from_text, to_text, subject, body FROM messages_fts_src
		WHERE id = (SELECT id FROM messages WHERE message_id = 'old@x')`); err != nil {
		t.Fatal(err)
	}
	check("old envelope")
	put(t, s, mkMsg("old@x", "Okapi sighting", body("seen near the river")))
	check("old envelope's body")
	if !found("okapi") || !found("river") {
		t.Error("old-style envelope not searchable after its body arrived")
	}
}
