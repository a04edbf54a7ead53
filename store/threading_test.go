package store

import (
	"testing"
	"time"

	"mailsift/model"
)

// TestSubjectJoinNeedsParticipant checks that a message without
// references joins a thread by subject only when its sender already
// takes part in that thread (From, To or Cc of one of its messages).
func TestSubjectJoinNeedsParticipant(t *testing.T) {
	day := 24 * time.Hour
	boss := from("Boss", "boss@corp.example")
	toMe := func(m *model.Message) { m.To = []model.Address{{Name: "Me", Email: "me@corp.example"}} }
	cc := func(as ...model.Address) msgOpt { return func(m *model.Message) { m.Cc = as } }
	tests := []struct {
		name  string
		steps [][]*model.Message
		same  [][2]string
		apart [][2]string
	}{
		{
			name: "stranger's Re: forms its own thread",
			steps: [][]*model.Message{
				{mkMsg("p1@corp", "Q3 payroll numbers", boss, toMe)},
				{mkMsg("s1@evil", "Re: Q3 payroll numbers", from("Boss", "boss@evil.example"), toMe, at(day))},
			},
			apart: [][2]string{{"p1@corp", "s1@evil"}},
		},
		{
			name: "stranger in the same batch forms its own thread",
			steps: [][]*model.Message{{
				mkMsg("p1@corp", "Q3 payroll numbers", boss, toMe),
				mkMsg("s1@evil", "RE: Q3 payroll numbers", from("", "x@evil.example"), toMe, cc(model.Address{Email: "boss@corp.example"}), at(day)),
			}},
			apart: [][2]string{{"p1@corp", "s1@evil"}},
		},
		{
			name: "sender's reply without references joins",
			steps: [][]*model.Message{
				{mkMsg("p1@corp", "Q3 payroll numbers", boss, toMe)},
				{mkMsg("p2@corp", "Re: Q3 payroll numbers", boss, toMe, at(day))},
			},
			same: [][2]string{{"p1@corp", "p2@corp"}},
		},
		{
			name: "recipient's reply joins, address compared case-insensitively",
			steps: [][]*model.Message{
				{mkMsg("p1@corp", "Q3 payroll numbers", boss, toMe, cc(model.Address{Name: "Carol", Email: "Carol@Corp.example"}))},
				{mkMsg("c1@corp", "Re: Q3 payroll numbers", from("Carol", " carol@corp.EXAMPLE "), at(day))},
			},
			same: [][2]string{{"p1@corp", "c1@corp"}},
		},
		{
			name: "participant joins a thread created in the same batch",
			steps: [][]*model.Message{{
				mkMsg("p1@corp", "Q3 payroll numbers", boss, toMe),
				mkMsg("m1@corp", "Re: Q3 payroll numbers", from("Me", "me@corp.example"), at(day)),
			}},
			same: [][2]string{{"p1@corp", "m1@corp"}},
		},
		{
			name: "Reply-To does not make an address a participant",
			steps: [][]*model.Message{
				{mkMsg("p1@corp", "Q3 payroll numbers", boss, toMe, func(m *model.Message) {
					m.ReplyTo = []model.Address{{Email: "x@evil.example"}}
				})},
				{mkMsg("s1@evil", "Re: Q3 payroll numbers", from("", "x@evil.example"), toMe, at(day))},
			},
			apart: [][2]string{{"p1@corp", "s1@evil"}},
		},
		{
			name: "participant's reply joins the newest thread it takes part in",
			steps: [][]*model.Message{
				{mkMsg("p1@corp", "Status", boss, toMe)},
				{mkMsg("o1@other", "Status", from("Olga", "olga@other.example"), toMe, at(day))},
				{mkMsg("p2@corp", "Re: Status", boss, toMe, at(2*day))},
			},
			same:  [][2]string{{"p1@corp", "p2@corp"}},
			apart: [][2]string{{"o1@other", "p2@corp"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			for _, st := range tc.steps {
				put(t, s, st...)
			}
			for _, p := range tc.same {
				if a, b := threadOf(t, s, p[0]), threadOf(t, s, p[1]); a != b {
					t.Errorf("thread(%s) = %d, thread(%s) = %d, want same", p[0], a, p[1], b)
				}
			}
			for _, p := range tc.apart {
				if a, b := threadOf(t, s, p[0]), threadOf(t, s, p[1]); a == b {
					t.Errorf("%s and %s share thread %d, want separate", p[0], p[1], a)
				}
			}
			checkSectionCounts(t, s)
		})
	}
}
