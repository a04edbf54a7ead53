package store

import (
	"context"
	"testing"
	"time"

	"mailsift/model"
)

func TestNormalizeSubject(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello", "hello"},
		{"Re: Hello", "hello"},
		{"RE: re: Fwd: Hello", "hello"},
		{"AW: SV: Hello  world", "hello world"},
		{"[golang-nuts] Re: [PATCH] fix", "fix"},
		{"Re[2]: Hello", "hello"},
		{"  Re:   Hello\tthere ", "hello there"},
		{"Reminder: pay", "reminder: pay"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := NormalizeSubject(tc.in); got != tc.want {
			t.Errorf("NormalizeSubject(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestThreading(t *testing.T) {
	day := 24 * time.Hour
	type step []*model.Message
	tests := []struct {
		name  string
		steps []step
		same  [][]string // groups of message ids that must share a thread
		apart [][2]string
	}{
		{
			name: "reply chain",
			steps: []step{{
				mkMsg("a@x", "Plan"),
				mkMsg("b@x", "Re: Plan", inReplyTo("a@x"), at(time.Hour)),
				mkMsg("c@x", "Re: Plan", inReplyTo("a@x", "b@x"), at(2*time.Hour)),
			}},
			same: [][]string{{"a@x", "b@x", "c@x"}},
		},
		{
			name: "child before parent",
			steps: []step{
				{mkMsg("b@x", "Re: Plan", inReplyTo("a@x"), at(time.Hour))},
				{mkMsg("a@x", "Plan")},
			},
			same: [][]string{{"a@x", "b@x"}},
		},
		{
			name: "siblings share a missing parent",
			steps: []step{
				{mkMsg("b@x", "Re: Plan", inReplyTo("a@x"), at(time.Hour))},
				{mkMsg("c@x", "Re: other words", inReplyTo("a@x"), at(2*time.Hour))},
			},
			same: [][]string{{"b@x", "c@x"}},
		},
		{
			name: "message linking two threads merges them",
			steps: []step{
				{mkMsg("a@x", "One"), mkMsg("z@x", "Two", at(time.Hour))},
				{mkMsg("m@x", "Re: both", func(m *model.Message) { m.References = []string{"a@x", "z@x"} }, at(2*time.Hour))},
			},
			same: [][]string{{"a@x", "z@x", "m@x"}},
		},
		{
			name: "subject fallback without references",
			steps: []step{
				{mkMsg("a@x", "Quarterly numbers")},
				{mkMsg("b@x", "RE: quarterly  numbers", at(3*day))},
			},
			same: [][]string{{"a@x", "b@x"}},
		},
		{
			name: "reply in Sent of another account joins",
			steps: []step{
				{mkMsg("a@x", "Dinner?")},
				{mkMsg("r@me", "Re: Dinner?", inReplyTo("a@x"), inMailbox("Sent"), account("work"), from("Me", "me@example.com"), at(time.Hour))},
			},
			same: [][]string{{"a@x", "r@me"}},
		},
		{
			name: "same subject far apart stays separate",
			steps: []step{
				{mkMsg("h1@x", "Hello")},
				{mkMsg("h2@x", "Hello", at(200*day))},
			},
			apart: [][2]string{{"h1@x", "h2@x"}},
		},
		{
			name: "reply with unknown references does not join by subject",
			steps: []step{
				{mkMsg("h1@x", "Hello")},
				{mkMsg("h2@x", "Re: Hello", inReplyTo("unknown@x"), at(day))},
			},
			apart: [][2]string{{"h1@x", "h2@x"}},
		},
		{
			name: "different subjects unrelated",
			steps: []step{
				{mkMsg("a@x", "Lunch"), mkMsg("b@x", "Invoice", at(time.Minute))},
			},
			apart: [][2]string{{"a@x", "b@x"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			for _, st := range tc.steps {
				put(t, s, st...)
			}
			for _, g := range tc.same {
				want := threadOf(t, s, g[0])
				for _, id := range g[1:] {
					if got := threadOf(t, s, id); got != want {
						t.Errorf("thread(%s) = %d, thread(%s) = %d, want same", id, got, g[0], want)
					}
				}
				ts, err := s.ThreadSummaryByID(context.Background(), want)
				if err != nil {
					t.Fatal(err)
				}
				if ts.Count != len(g) {
					t.Errorf("thread count = %d, want %d", ts.Count, len(g))
				}
			}
			for _, p := range tc.apart {
				if a, b := threadOf(t, s, p[0]), threadOf(t, s, p[1]); a == b {
					t.Errorf("%s and %s share thread %d, want separate", p[0], p[1], a)
				}
			}
			checkSectionCounts(t, s)
			// No empty threads left behind by merges.
			if n := countRows(t, s, "SELECT count(*) FROM threads WHERE count = 0"); n != 0 {
				t.Errorf("%d empty threads", n)
			}
		})
	}
}

func TestThreadSummaryAggregates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := mkMsg("a@x", "Trip", from("Alice", "alice@example.com"), seen())
	b := mkMsg("b@x", "Re: Trip", inReplyTo("a@x"), from("Bob", "bob@example.com"), at(time.Hour))
	b.Attachments = []model.Attachment{{Filename: "map.pdf", ContentType: "application/pdf", Size: 10}}
	c := mkMsg("c@me", "Re: Trip", inReplyTo("a@x", "b@x"), from("Me", "me@example.com"), inMailbox("Sent"), seen(), at(2*time.Hour))
	put(t, s, a, b, c)
	ts, err := s.ThreadSummaryByID(ctx, threadOf(t, s, "a@x"))
	if err != nil {
		t.Fatal(err)
	}
	if ts.Subject != "Trip" || ts.Count != 3 || ts.Unread != 1 || !ts.HasAttachment {
		t.Errorf("summary = %+v", ts)
	}
	if ts.From.Email != "bob@example.com" {
		t.Errorf("From = %v, want bob (latest not from the principal)", ts.From)
	}
	if !ts.Latest.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("Latest = %v, want %v", ts.Latest, t0.Add(2*time.Hour))
	}
	if len(ts.Participants) != 3 || ts.Participants[0] != "Alice" {
		t.Errorf("Participants = %v", ts.Participants)
	}
	th, err := s.Thread(ctx, ts.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Messages) != 3 || th.Messages[0].MessageID != "a@x" || th.Messages[2].Loc.Mailbox != "Sent" {
		t.Errorf("Thread messages not oldest first with locations: %+v", th.Messages)
	}
	if len(th.Messages[1].Attachments) != 1 || th.Messages[1].Attachments[0].Filename != "map.pdf" {
		t.Errorf("attachments not round-tripped: %+v", th.Messages[1].Attachments)
	}
}
