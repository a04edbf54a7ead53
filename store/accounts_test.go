package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"mailsift/model"
)

func TestPerAccountInbox(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for _, a := range []string{"work", "home"} {
		if err := s.SetMailbox(ctx, model.Mailbox{Account: a, Name: "INBOX", Role: model.RoleInbox}); err != nil {
			t.Fatal(err)
		}
	}
	put(t, s,
		mkMsg("w1@x", "work only", account("work")),
		mkMsg("h1@x", "home only", account("home"), at(time.Hour)),
		// One thread with a message in each account.
		mkMsg("both1@x", "shared", account("work"), at(2*time.Hour)),
		mkMsg("both2@x", "Re: shared", account("home"), inReplyTo("both1@x"), at(3*time.Hour)),
	)
	w, h, both := threadOf(t, s, "w1@x"), threadOf(t, s, "h1@x"), threadOf(t, s, "both1@x")
	accts, err := s.ThreadAccounts(ctx, []int64{w, h, both})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(accts[w], []string{"work"}) || !slices.Equal(accts[h], []string{"home"}) || !slices.Equal(accts[both], []string{"home", "work"}) {
		t.Errorf("ThreadAccounts = %v", accts)
	}
	ids := func(rows []ThreadSummary) []int64 {
		var out []int64
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tt := range []struct {
		account string
		want    []int64
	}{{"work", []int64{both, w}}, {"home", []int64{both, h}}, {"nobody", nil}} {
		rows, err := s.ListThreadsIn(ctx, SectionUntriaged, tt.account, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(rows), tt.want) {
			t.Errorf("ListThreadsIn(%s) = %v, want %v", tt.account, ids(rows), tt.want)
		}
		counts, err := s.SectionCountsIn(ctx, tt.account)
		if err != nil {
			t.Fatal(err)
		}
		if counts[SectionUntriaged] != len(tt.want) {
			t.Errorf("SectionCountsIn(%s) = %v, want %d untriaged", tt.account, counts, len(tt.want))
		}
	}
	if all, _ := s.ListThreads(ctx, SectionUntriaged, 0, 0); len(all) != 3 {
		t.Errorf("ListThreads (all accounts) = %d threads, want 3", len(all))
	}
}
