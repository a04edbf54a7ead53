package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

// dumpRows renders every row of q, for comparing two stores.
func dumpRows(t *testing.T, s *Store, q string) string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if bs, ok := v.([]byte); ok {
				vals[i] = string(bs)
			}
		}
		fmt.Fprintln(&b, vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// batchFixture builds a store with five threads a..e, a triage of c and
// e, an override on b, and the records to save: thread d is removed after
// its record is built, a is saved twice (the later wins), e gets a newer
// record under a second cache key, and one record has no cache key.
func batchFixture(t *testing.T) (*Store, []TriageRecord, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	s := openTest(t)
	put(t, s,
		mkMsg("a@x", "Alpha", at(1*time.Hour)),
		mkMsg("b@x", "Bravo", at(2*time.Hour)),
		mkMsg("c@x", "Charlie", at(3*time.Hour)),
		mkMsg("d@x", "Delta", at(4*time.Hour)),
		mkMsg("e@x", "Echo", at(5*time.Hour)),
	)
	ids := map[string]int64{}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		ids[k] = threadOf(t, s, k+"@x")
	}
	rec := func(th, key, category string, spam bool, created time.Time) TriageRecord {
		r := triageRec(t, s, ids[th], key, category, spam)
		r.CreatedAt = created
		r.Model, r.Signals = "m-"+key, []string{"signal " + th}
		return r
	}
	t1 := t0.Add(24 * time.Hour)
	for _, r := range []TriageRecord{
		rec("c", "k1", contract.CategoryUrgent, false, t1),
		rec("e", "k1", contract.CategoryActionable, false, t1),
	} {
		if err := s.SaveTriage(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetOverride(ctx, ids["b"], contract.CategoryUrgent); err != nil {
		t.Fatal(err)
	}
	t2 := t1.Add(time.Hour)
	recs := []TriageRecord{
		rec("a", "k1", contract.CategoryUrgent, false, t2),
		rec("b", "k1", contract.CategoryLowPriority, true, t2), // overridden: stays urgent
		rec("c", "k1", contract.CategoryInformational, false, t2),
		rec("d", "k1", contract.CategoryActionable, false, t2), // removed below
		rec("e", "k2", contract.CategoryLowPriority, false, t2.Add(time.Hour)),
		rec("a", "", contract.CategoryActionable, false, t2), // no cache key
		rec("a", "k1", contract.CategoryLowPriority, true, t2.Add(time.Minute)),
	}
	if err := s.RemoveLocations(ctx, []model.Location{{Account: "acct", Mailbox: "INBOX", Key: "d@x"}}); err != nil {
		t.Fatal(err)
	}
	endSync(t, s)
	if n := countRows(t, s, `SELECT count(*) FROM threads WHERE id = ?`, ids["d"]); n != 0 {
		t.Fatalf("thread d still exists after its only message was removed")
	}
	return s, recs, ids
}

const (
	dumpTriage   = `SELECT rowid, * FROM triage ORDER BY thread_id, cache_key`
	dumpThreads  = `SELECT id, section, triage_key, in_inbox FROM threads ORDER BY id`
	dumpCounts   = `SELECT section, n FROM section_counts ORDER BY section`
	dumpOverride = `SELECT thread_id, category FROM overrides ORDER BY thread_id`
)

func TestSaveTriagesMatchesOneByOne(t *testing.T) {
	ctx := context.Background()
	one, recs, ids := batchFixture(t)
	batch, recs2, ids2 := batchFixture(t)
	if fmt.Sprint(ids) != fmt.Sprint(ids2) {
		t.Fatalf("fixtures differ: thread ids %v and %v", ids, ids2)
	}

	var oneErrs []error
	for _, r := range recs {
		oneErrs = append(oneErrs, one.SaveTriage(ctx, r))
	}
	err := batch.SaveTriages(ctx, recs2)
	var te *TriageErrors
	if !errors.As(err, &te) || len(te.Errs) != len(recs2) {
		t.Fatalf("SaveTriages = %v, want a *TriageErrors with %d entries", err, len(recs2))
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("SaveTriages error %v does not wrap ErrNotFound (thread d is gone)", err)
	}
	for i := range recs {
		if fmt.Sprint(te.Errs[i]) != fmt.Sprint(oneErrs[i]) {
			t.Errorf("record %d (thread %d): batch error %v, one by one %v", i, recs[i].ThreadID, te.Errs[i], oneErrs[i])
		}
	}
	if !errors.Is(oneErrs[3], ErrNotFound) || oneErrs[5] == nil {
		t.Errorf("one by one: errors %v, want not found for record 3 and empty cache key for record 5", oneErrs)
	}

	for _, q := range []string{dumpTriage, dumpThreads, dumpCounts, dumpOverride} {
		if a, b := dumpRows(t, one, q), dumpRows(t, batch, q); a != b {
			t.Errorf("%s:\none by one:\n%sbatch:\n%s", q, a, b)
		}
	}
	checkSectionCounts(t, batch)

	// The outcome itself, so that two equally wrong stores do not pass.
	want := map[int64]Section{ids["a"]: SectionQuarantine, ids["b"]: SectionUrgent,
		ids["c"]: SectionInformational, ids["e"]: SectionLowPriority}
	for id, sec := range want {
		var got string
		if err := batch.r.QueryRowContext(ctx, `SELECT section FROM threads WHERE id = ?`, id).Scan(&got); err != nil || Section(got) != sec {
			t.Errorf("thread %d: section %q, %v; want %q", id, got, err, sec)
		}
	}
	if n := countRows(t, batch, `SELECT count(*) FROM triage WHERE thread_id = ?`, ids["d"]); n != 0 {
		t.Errorf("%d triage rows for the removed thread", n)
	}
	if n := countRows(t, batch, `SELECT count(*) FROM triage`); n != 5 {
		t.Errorf("%d triage rows, want 5 (a, b, c, e under k1, e under k2)", n)
	}
}

func TestSaveTriagesAllSavedAndFailedTransaction(t *testing.T) {
	ctx := context.Background()
	s, recs, _ := batchFixture(t)
	ok := []TriageRecord{recs[0], recs[1], recs[2], recs[4]}
	before := dumpRows(t, s, dumpTriage) + dumpRows(t, s, dumpThreads)

	// A transaction that cannot run saves nothing and says so as one error.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err := s.SaveTriages(cancelled, ok)
	var te *TriageErrors
	if err == nil || errors.As(err, &te) {
		t.Fatalf("SaveTriages with a cancelled context = %v, want a plain error", err)
	}
	if after := dumpRows(t, s, dumpTriage) + dumpRows(t, s, dumpThreads); after != before {
		t.Errorf("a failed batch changed the store:\nbefore:\n%safter:\n%s", before, after)
	}

	if err := s.SaveTriages(ctx, ok); err != nil {
		t.Fatalf("SaveTriages = %v, want nil", err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM triage`); n != 5 {
		t.Errorf("%d triage rows, want 5", n)
	}
	if err := s.SaveTriages(ctx, nil); err != nil {
		t.Errorf("SaveTriages(nil) = %v", err)
	}
	// SaveTriage keeps its single error.
	if err := s.SaveTriage(ctx, recs[3]); !errors.Is(err, ErrNotFound) || errors.As(err, &te) {
		t.Errorf("SaveTriage of a removed thread = %v (%T), want a plain ErrNotFound", err, err)
	}
}
