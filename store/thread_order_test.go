package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mailsift/mailsrc/maildir"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// grouping returns the store's threads as sorted lists of Message-IDs,
// one line each, sorted: two stores group alike when their groupings are
// equal, whatever their thread ids.
func grouping(t testing.TB, s *Store) []string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), `SELECT thread_id, message_id FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	by := map[int64][]string{}
	for rows.Next() {
		var th int64
		var mid string
		if err := rows.Scan(&th, &mid); err != nil {
			t.Fatal(err)
		}
		by[th] = append(by[th], mid)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(by))
	for _, ms := range by {
		slices.Sort(ms)
		out = append(out, strings.Join(ms, " "))
	}
	slices.Sort(out)
	return out
}

// diffGroupings describes how grouping b differs from grouping a.
func diffGroupings(a, b []string) string {
	var sb strings.Builder
	for _, g := range a {
		if !slices.Contains(b, g) {
			fmt.Fprintf(&sb, "\n  only in first:  %s", g)
		}
	}
	for _, g := range b {
		if !slices.Contains(a, g) {
			fmt.Fprintf(&sb, "\n  only in second: %s", g)
		}
	}
	return sb.String()
}

// orderSet is a small mailbox whose grouping depends on nothing but its
// messages: replies stored before their parents, siblings of a missing
// parent, a message linking two threads, subject joins (a reply without
// references by a participant, a stranger's look-alike, a parent with a
// child that joins by subject, a subject join into a thread started
// under another subject, one far apart in time, a newest thread the
// sender does not take part in).
func orderSet() (msgs []*model.Message, want [][]string) {
	day := 24 * time.Hour
	boss := from("Boss", "boss@corp.example")
	toBoss := func(m *model.Message) { m.To = []model.Address{{Email: "boss@corp.example"}} }
	toList := func(m *model.Message) { m.To = []model.Address{{Email: "list@lists.example"}} }
	cc := func(as ...model.Address) msgOpt { return func(m *model.Message) { m.Cc = as } }
	me := from("Me", "me@example.com")
	msgs = []*model.Message{
		// A reply chain.
		mkMsg("r1@x", "Plan", at(0)),
		mkMsg("r2@x", "Re: Plan", inReplyTo("r1@x"), from("Bob", "bob@x.example"), at(time.Hour)),
		mkMsg("r3@x", "Re: Plan", inReplyTo("r1@x", "r2@x"), from("Carol", "carol@x.example"), at(2*time.Hour)),
		// Siblings of a parent never seen.
		mkMsg("s1@x", "Re: Lost", inReplyTo("gone@x"), at(3*time.Hour)),
		mkMsg("s2@x", "Re: Lost words", inReplyTo("gone@x"), at(4*time.Hour)),
		// Two threads, and a message referring to both.
		mkMsg("l1@x", "One", from("Dave", "dave@x.example"), at(5*time.Hour)),
		mkMsg("l2@x", "Two", from("Erin", "erin@x.example"), at(6*time.Hour)),
		mkMsg("l3@x", "Re: both", func(m *model.Message) { m.References = []string{"l1@x", "l2@x"} }, at(7*time.Hour)),
		// Subject joins: the boss's follow-up without references joins;
		// a stranger copying the subject (and the boss in Cc) does not;
		// the boss's later message without references, with a reply,
		// joins the thread whatever arrives first.
		mkMsg("q1@corp", "Q3 payroll numbers", boss, at(day)),
		mkMsg("q2@corp", "Re: Q3 payroll numbers", boss, at(2*day)),
		mkMsg("q3@corp", "Re: Q3 payroll numbers", me, toBoss, inReplyTo("q2@corp"), at(3*day)),
		mkMsg("x1@evil", "RE: Q3 payroll numbers", from("", "x@evil.example"), cc(model.Address{Email: "boss@corp.example"}), at(2*day+time.Hour)),
		mkMsg("q4@corp", "Q3 payroll numbers", boss, at(4*day)),
		mkMsg("q5@corp", "Re: Q3 payroll numbers", me, toBoss, inReplyTo("q4@corp"), at(5*day)),
		// Far apart in time: its own thread.
		mkMsg("q6@corp", "Q3 payroll numbers", boss, at(200*day)),
		// A thread renamed by its second message: a reply without
		// references to the new subject joins, its sender having written
		// the first message.
		mkMsg("h1@x", "Fantasy ideology", from("Harley", "harley@x.example"), toList, at(10*day)),
		mkMsg("h2@x", "Infectious disease (was Re: Fantasy ideology)", from("James", "james@x.example"), toList, inReplyTo("h1@x"), at(10*day+time.Hour)),
		mkMsg("h3@x", "Re: Infectious disease (was Re: Fantasy ideology)", from("Harley", "harley@x.example"), toList, at(10*day+2*time.Hour)),
		// The newest thread with the subject is someone else's.
		mkMsg("st1@corp", "Status", boss, at(20*day)),
		mkMsg("st2@other", "Status", from("Olga", "olga@other.example"), at(21*day)),
		mkMsg("st3@corp", "Re: Status", boss, at(22*day)),
		// The same offer sent twice in the same second: the thread's
		// first (root) message is the lower Message-ID, whatever the
		// order they were stored in.
		mkMsg("dup-b@shop", "Weekend offer", from("Shop", "news@shop.example"), at(30*day)),
		mkMsg("dup-a@shop", "Weekend offer", from("Shop", "news@shop.example"), at(30*day)),
	}
	want = [][]string{
		{"r1@x", "r2@x", "r3@x"},
		{"s1@x", "s2@x"},
		{"l1@x", "l2@x", "l3@x"},
		{"q1@corp", "q2@corp", "q3@corp", "q4@corp", "q5@corp"},
		{"x1@evil"},
		{"q6@corp"},
		{"h1@x", "h2@x", "h3@x"},
		{"st1@corp", "st3@corp"},
		{"st2@other"},
		{"dup-a@shop", "dup-b@shop"},
	}
	return msgs, want
}

// TestThreadingOrderIndependent stores the same messages in 20 seeded
// orders, in batches of random sizes (one message per batch included),
// and checks that every order groups them the same way, as wanted.
func TestThreadingOrderIndependent(t *testing.T) {
	_, wantGroups := orderSet()
	var want []string
	for _, g := range wantGroups {
		slices.Sort(g)
		want = append(want, strings.Join(g, " "))
	}
	slices.Sort(want)
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			msgs, _ := orderSet()
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			rng.Shuffle(len(msgs), func(i, j int) { msgs[i], msgs[j] = msgs[j], msgs[i] })
			maxBatch := 1 + int(seed%5)*3 // 1, 4, 7, 10, 13
			s := openTest(t)
			var order []string
			for i := 0; i < len(msgs); {
				n := min(len(msgs)-i, 1+rng.IntN(maxBatch))
				put(t, s, msgs[i:i+n]...)
				for _, m := range msgs[i : i+n] {
					order = append(order, m.MessageID)
				}
				order = append(order, "|")
				i += n
			}
			if got := grouping(t, s); !slices.Equal(got, want) {
				t.Errorf("order %v grouped differently:%s", order, diffGroupings(want, got))
			}
			checkSectionCounts(t, s)
			// A thread's messages come oldest first, equal dates in
			// Message-ID order: its root does not depend on the order
			// the messages were stored in.
			for _, g := range wantGroups {
				id, err := s.ThreadIDForMessage(context.Background(), g[0])
				if err != nil {
					t.Fatal(err)
				}
				th, err := s.Thread(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.IsSortedFunc(th.Messages, func(a, b *model.Message) int {
					if c := a.Date.Compare(b.Date); c != 0 {
						return c
					}
					return strings.Compare(a.MessageID, b.MessageID)
				}) {
					var ids []string
					for _, m := range th.Messages {
						ids = append(ids, m.MessageID)
					}
					t.Errorf("thread %v not in (date, Message-ID) order", ids)
				}
			}
			if n := countRows(t, s, "SELECT count(*) FROM threads WHERE count = 0"); n != 0 {
				t.Errorf("%d empty threads", n)
			}
			if n := countRows(t, s, "SELECT count(*) FROM threads"); n != len(want) {
				t.Errorf("%d threads, want %d", n, len(want))
			}
		})
	}
}

// TestThreadingOrderIndependentCorpus syncs the SpamAssassin group
// easy-ham-2 (scripts/fetch-corpus.sh) twice: once with the Maildir
// source, once storing its messages in a seeded shuffled order in small
// batches; both must group the messages the same way.
func TestThreadingOrderIndependentCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	src := filepath.Join("..", "testdata", "corpus", "maildir", "easy-ham-2")
	if _, err := os.Stat(src); err != nil {
		t.Skip("testdata/corpus/maildir/easy-ham-2 absent: run scripts/fetch-corpus.sh")
	}
	ctx := context.Background()
	root := t.TempDir()
	copyTree(t, src, filepath.Join(root, "easy-ham-2"))
	a := openTest(t)
	if err := maildir.New("corpus", root, nil).Sync(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	ga := grouping(t, a)

	// The same files, read in a fixed shuffled order.
	msgs := corpusMessagesIn(t, root)
	rng := rand.New(rand.NewPCG(7, 11))
	rng.Shuffle(len(msgs), func(i, j int) { msgs[i], msgs[j] = msgs[j], msgs[i] })
	b := openTest(t)
	for i := 0; i < len(msgs); i += 37 {
		put(t, b, msgs[i:min(i+37, len(msgs))]...)
	}
	gb := grouping(t, b)
	if len(ga) != len(gb) || !slices.Equal(ga, gb) {
		t.Errorf("maildir sync: %d threads, shuffled: %d threads; differences:%s", len(ga), len(gb), diffGroupings(ga, gb))
	}
	t.Logf("%d messages, %d threads", len(msgs), len(ga))
}

// corpusMessagesIn parses every file under dir, each at a location in
// its folder (the first path element under dir).
func corpusMessagesIn(t testing.TB, dir string) []*model.Message {
	t.Helper()
	var msgs []*model.Message
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m, err := rfc822.Parse(raw)
		if err != nil {
			return nil // the source skips unparseable files too
		}
		rel, _ := filepath.Rel(dir, p)
		folder := strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]
		m.Loc = model.Location{Account: "corpus", Mailbox: folder, Key: filepath.Base(p)}
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestSubjectJoinLaterMatch checks that a message without references
// follows its latest match when a later match arrives after it: it
// leaves the thread it was drawn into (splitting it) for the new one.
func TestSubjectJoinLaterMatch(t *testing.T) {
	day := 24 * time.Hour
	boss := from("Boss", "boss@corp.example")
	s := openTest(t)
	x1 := mkMsg("x1@evil", "RE: Q3 payroll numbers", from("", "x@evil.example"), at(2*day),
		func(m *model.Message) { m.Cc = []model.Address{{Email: "boss@corp.example"}} })
	put(t, s, mkMsg("q1@corp", "Q3 payroll numbers", boss, at(day)), x1,
		mkMsg("q4@corp", "Q3 payroll numbers", boss, at(4*day)),
		mkMsg("q5@corp", "Re: Q3 payroll numbers", inReplyTo("q4@corp"), at(5*day)))
	// The boss is in the stranger's Cc, and its message is the latest
	// before q4.
	if a, b := threadOf(t, s, "x1@evil"), threadOf(t, s, "q4@corp"); a != b {
		t.Fatalf("q4 not drawn into the latest matching thread (x1 %d, q4 %d)", a, b)
	}
	// A reply to q1, later than the stranger's message: now q4's latest match.
	put(t, s, mkMsg("q3@corp", "Re: Q3 payroll numbers", boss, inReplyTo("q1@corp"), at(3*day)))
	want := []string{"q1@corp q3@corp q4@corp q5@corp", "x1@evil"}
	if got := grouping(t, s); !slices.Equal(got, want) {
		t.Errorf("grouping = %q, want %q", got, want)
	}
	checkSectionCounts(t, s)
	if n := countRows(t, s, "SELECT count(*) FROM threads WHERE count = 0"); n != 0 {
		t.Errorf("%d empty threads", n)
	}
	ts, err := s.ThreadSummaryByID(context.Background(), threadOf(t, s, "x1@evil"))
	if err != nil {
		t.Fatal(err)
	}
	if ts.Count != 1 || !ts.Latest.Equal(t0.Add(2*day)) {
		t.Errorf("split thread summary = count %d latest %v, want 1, %v", ts.Count, ts.Latest, t0.Add(2*day))
	}
}

// TestSubjectJoinSameSecond checks that messages without references sent
// in the same second join an earlier thread of their sender: of two
// messages of the same second, the one whose Message-ID sorts first
// comes first, so they chain instead of only pairing with each other.
func TestSubjectJoinSameSecond(t *testing.T) {
	spam := from("", "mr@spam.example")
	s := openTest(t)
	put(t, s, mkMsg("c@x", "Offer", spam, at(time.Hour)), mkMsg("a@x", "Offer", spam, at(time.Hour)),
		mkMsg("first@x", "Offer", spam), mkMsg("b@x", "Offer", spam, at(time.Hour)))
	if got, want := grouping(t, s), []string{"a@x b@x c@x first@x"}; !slices.Equal(got, want) {
		t.Errorf("grouping = %q, want %q", got, want)
	}
}
