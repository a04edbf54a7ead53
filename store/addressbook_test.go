package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"mailsift/model"
)

func to(as ...model.Address) msgOpt { return func(m *model.Message) { m.To = as } }

func TestCorrespondentsRankByFrequencyAndRecency(t *testing.T) {
	s := openTest(t)
	me := from("Me", "ME@example.com") // the principal, in another case
	bob := model.Address{Name: "Bob Stone", Email: "bob@example.com"}
	old := model.Address{Name: "Olga Old", Email: "olga@example.com"}
	dana := model.Address{Name: "Dana", Email: "dana@example.org"}
	now := t0.Add(400 * 24 * time.Hour)
	put(t, s,
		// Olga: written to five times, a year ago.
		mkMsg("o1", "a", me, to(old), at(0)), mkMsg("o2", "a", me, to(old), at(time.Hour)),
		mkMsg("o3", "a", me, to(old), at(2*time.Hour)), mkMsg("o4", "a", me, to(old), at(3*time.Hour)),
		mkMsg("o5", "a", me, to(old), at(4*time.Hour)),
		// Bob: written to twice, this week.
		mkMsg("b1", "b", me, to(bob), at(398*24*time.Hour)), mkMsg("b2", "b", me, to(bob), at(399*24*time.Hour)),
		// Dana only ever wrote to me, many times.
		mkMsg("d1", "d", from(dana.Name, dana.Email), at(time.Hour)), mkMsg("d2", "d", from(dana.Name, dana.Email), at(2*time.Hour)),
	)
	list, err := s.Correspondents(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range list {
		order = append(order, c.Address.Email)
		if c.Address.Email == "me@example.com" || c.Address.Email == "ME@example.com" {
			t.Fatalf("the principal is offered: %+v", c)
		}
	}
	if len(order) != 3 || order[0] != "bob@example.com" || order[1] != "olga@example.com" || order[2] != "dana@example.org" {
		t.Fatalf("ranking = %v, want bob (recent), olga (often, long ago), dana (never written to)", order)
	}
	if list[1].Sent != 5 || list[0].Last.IsZero() || list[2].Sent != 0 || list[2].Received != 2 {
		t.Fatalf("counts = %+v", list)
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"st", []string{"bob@example.com"}},           // a word of the name
		{"O", []string{"olga@example.com"}},           // case-insensitive
		{"example.org", []string{"dana@example.org"}}, // the domain
		{"", nil},
		{"zz", nil},
	} {
		got := MatchCorrespondents(list, tc.prefix, 5)
		if len(got) != len(tc.want) {
			t.Fatalf("MatchCorrespondents(%q) = %+v, want %v", tc.prefix, got, tc.want)
		}
		for i := range got {
			if got[i].Address.Email != tc.want[i] {
				t.Fatalf("MatchCorrespondents(%q)[%d] = %s, want %s", tc.prefix, i, got[i].Address.Email, tc.want[i])
			}
		}
	}
	// The sender index is used, not a scan of every message.
	var plan string
	rows, err := s.r.QueryContext(context.Background(), `EXPLAIN QUERY PLAN SELECT to_json FROM messages WHERE from_email = ? COLLATE NOCASE ORDER BY date DESC LIMIT 5`, "me@example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan += detail + "\n"
	}
	if want := "messages_from_nocase"; !strings.Contains(plan, want) {
		t.Fatalf("query plan does not use %s:\n%s", want, plan)
	}
}
