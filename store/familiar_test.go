package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"mailsift/model"
)

// TestFamiliarity checks what the store says about senders: messages the
// principal wrote (each counted once per address, To, Cc and Bcc), and
// read messages per sender, one per message whatever its copies, leaving
// out mail in Junk or Trash, deleted or marked $Junk, and unread mail.
func TestFamiliarity(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for _, mb := range []model.Mailbox{{Account: "acct", Name: "Junk", Role: model.RoleJunk}, {Account: "acct", Name: "Trash", Role: model.RoleTrash}} {
		if err := s.SetMailbox(ctx, mb); err != nil {
			t.Fatal(err)
		}
	}
	me := from("Me", "ME@example.com") // the principal, in another case
	news := from("News", "News@shop.example")
	bob := model.Address{Name: "Bob", Email: "Bob@example.org"}
	cc := func(as ...model.Address) msgOpt { return func(m *model.Message) { m.Cc = as } }
	flagged := func(f func(*model.Flags)) msgOpt { return func(m *model.Message) { f(&m.Flags) } }
	listed := func(id string) msgOpt {
		return func(m *model.Message) { m.Headers = map[string][]string{"List-Id": {id}} }
	}
	copyOf := mkMsg("n2", "news 2", news, seen(), inMailbox("Archive"))
	put(t, s,
		mkMsg("w1", "hi", me, to(bob), cc(bob), at(0)), // one message, Bob twice: counts once
		mkMsg("w2", "hi", me, to(model.Address{Email: "carol@example.org"}), cc(bob), at(time.Hour)),
		mkMsg("n1", "news 1", news, seen()),
		mkMsg("n2", "news 2", news, seen()),
		copyOf,                                                  // the same message read in a second folder
		mkMsg("n3", "news 3", news),                             // unread
		mkMsg("n4", "news 4", news, seen(), inMailbox("Junk")),  // read, then junked
		mkMsg("n5", "news 5", news, seen(), inMailbox("Trash")), // read, then deleted
		mkMsg("n6", "news 6", news, seen(), flagged(func(f *model.Flags) { f.Keywords = []string{"$Junk"} })),
		mkMsg("n7", "news 7", news, seen(), flagged(func(f *model.Flags) { f.Deleted = true })),
		mkMsg("m1", "mine", me, seen()), // the principal's own read mail is not a sender to trust
		mkMsg("l1", "post 1", from("Ann", "ann@example.net"), seen(), listed("Talk <talk.lists.example.org>")),
		mkMsg("l2", "post 2", from("Ben", "ben@example.net"), seen(), listed("<TALK.lists.example.org>")),
		mkMsg("l3", "post 3", from("Cy", "cy@example.net"), listed("Talk <talk.lists.example.org>")), // unread
		mkMsg("l4", "post 4", from("Di", "di@example.net"), seen(), inMailbox("Junk"), listed("Talk <talk.lists.example.org>")),
	)
	f, err := s.Familiarity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		email         string
		written, read int
	}{
		{"bob@EXAMPLE.org", 2, 0},
		{"carol@example.org", 1, 0},
		{"news@shop.example", 0, 2},
		{"me@example.com", 0, 0},
		{"stranger@example.net", 0, 0},
	} {
		w, r := f.Familiar(tc.email)
		if w != tc.written || r != tc.read {
			t.Errorf("Familiar(%s) = written %d, read %d; want %d, %d", tc.email, w, r, tc.written, tc.read)
		}
	}
	for _, id := range []string{"talk.lists.example.org", "Talk list <talk.lists.EXAMPLE.org>"} {
		if n := f.ListRead(id); n != 2 {
			t.Errorf("ListRead(%q) = %d, want 2 (two read posts, one unread, one in Junk)", id, n)
		}
	}
	if n := f.ListRead("other.lists.example.org"); n != 0 {
		t.Errorf("ListRead(other) = %d", n)
	}
	// the domains written to: Bob's and Carol's, once
	if d := f.WrittenDomains(); !slices.Equal(d, []string{"example.org"}) {
		t.Errorf("WrittenDomains() = %v, want [example.org]", d)
	}
	var none *Familiarity
	if w, r := none.Familiar("bob@example.org"); w != 0 || r != 0 || none.ListRead("talk.lists.example.org") != 0 || none.WrittenDomains() != nil {
		t.Error("a nil Familiarity must know nobody")
	}
}

// TestFamiliarityColleagues checks that the names of the people writing
// from the principal's domain are known in either order of their words,
// and that outsiders, one-word names and the principal are not.
func TestFamiliarityColleagues(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	put(t, s,
		mkMsg("c1", "rollout", from("Priya Raman", "priya.raman@EXAMPLE.com")),
		mkMsg("c2", "lunch", from("Solo", "solo@example.com")),
		mkMsg("o1", "offer", from("Sam Lee", "sam@other.example")),
		mkMsg("o2", "lookalike", from("Kim Park", "kim@example.com.evil.example")),
		mkMsg("m1", "mine", from("Me Myself", "me@example.com")),
	)
	f, err := s.Familiarity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"Priya Raman": true, "raman, priya": true, `"Priya  RAMAN"`: true,
		"Solo": false, "Sam Lee": false, "Kim Park": false, "Me Myself": false, "": false,
	} {
		if got := f.Colleague(name); got != want {
			t.Errorf("Colleague(%q) = %v, want %v", name, got, want)
		}
	}
}
