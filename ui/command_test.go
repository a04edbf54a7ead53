package ui

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func boolp(b bool) *bool { return &b }

func TestParseCommand(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Command
	}{
		{"list from unread", "list from:bob unread", Command{Op: OpList, Filters: Filters{From: []string{"bob"}, Unread: boolp(true)}}},
		{"list all filters", `list to:alice subject:"weekly report" budget read limit:5`, Command{Op: OpList, Filters: Filters{To: []string{"alice"}, Subject: []string{"weekly report"}, Text: []string{"budget"}, Unread: boolp(false), Limit: 5}}},
		{"list empty", "list", Command{Op: OpList}},
		{"open index", "open 3", Command{Op: OpOpen, Index: 3}},
		{"open latest spoken", "open latest from bob", Command{Op: OpOpen, Latest: true, Filters: Filters{From: []string{"bob"}}}},
		{"open filler words", "open the latest email from bob", Command{Op: OpOpen, Latest: true, Filters: Filters{From: []string{"bob"}}}},
		{"open fuzzy", "open from bob", Command{Op: OpOpen, Filters: Filters{From: []string{"bob"}}}},
		{"from colon space", "open from: bob", Command{Op: OpOpen, Filters: Filters{From: []string{"bob"}}}},
		{"reply", "reply 2", Command{Op: OpReply, Index: 2}},
		{"reply all", "reply all 2", Command{Op: OpReplyAll, Index: 2}},
		{"replyall", "replyall 1", Command{Op: OpReplyAll, Index: 1}},
		{"read", "read 4", Command{Op: OpRead, Index: 4}},
		{"unread", "unread 4", Command{Op: OpUnread, Index: 4}},
		{"case", "OPEN 1", Command{Op: OpOpen, Index: 1}},
		{"number in list is text", "list 2024", Command{Op: OpList, Filters: Filters{Text: []string{"2024"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCommand(tt.in)
			if err != nil {
				t.Fatalf("ParseCommand(%q) error: %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseCommand(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseCommandErrors(t *testing.T) {
	for _, in := range []string{"", "frobnicate", "open", "reply", "open 0", "list limit:x", "list limit:0", `list "open`, "list from:"} {
		if c, err := ParseCommand(in); err == nil {
			t.Errorf("ParseCommand(%q) = %+v, want an error", in, c)
		}
	}
}

func TestFiltersQuery(t *testing.T) {
	f := Filters{From: []string{"bob"}, To: []string{"a b"}, Subject: []string{"x"}, Text: []string{"budget"}, Unread: boolp(true)}
	if got, want := f.Query(), `from:bob to:"a b" subject:x budget is:unread`; got != want {
		t.Errorf("Query() = %q, want %q", got, want)
	}
	if got := (Filters{Unread: boolp(false)}).Query(); got != "" {
		t.Errorf("Query() for read-only filter = %q, want empty (filtered client-side)", got)
	}
}

func TestResolveIndex(t *testing.T) {
	last := []ListItem{{ThreadID: 10}, {ThreadID: 20}, {ThreadID: 30}}
	if id, err := ResolveIndex(3, last); err != nil || id != 30 {
		t.Errorf("ResolveIndex(3) = %d, %v, want 30", id, err)
	}
	if _, err := ResolveIndex(4, last); err == nil {
		t.Error("ResolveIndex(4) of 3 rows: want an error")
	}
	if _, err := ResolveIndex(1, nil); err == nil {
		t.Error("ResolveIndex with no list: want an error")
	}
}

func TestCandidatesAndPick(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	items := []ListItem{
		{ThreadID: 1, Subject: "newest", Date: t0.Add(3 * time.Hour)},
		{ThreadID: 2, Subject: "mid", Date: t0.Add(2 * time.Hour), Unread: true},
		{ThreadID: 1, Subject: "newest, older message", Date: t0.Add(time.Hour), Unread: true},
		{ThreadID: 3, Subject: "old", Date: t0},
	}
	c := Candidates(items, Filters{}, 0)
	if len(c) != 3 || c[0].ThreadID != 1 || !c[0].Unread {
		t.Fatalf("Candidates = %+v, want 3 threads, thread 1 first and unread", c)
	}
	if c := Candidates(items, Filters{Unread: boolp(false)}, 0); len(c) != 1 || c[0].ThreadID != 3 {
		t.Errorf("Candidates(read) = %+v, want only thread 3", c)
	}
	if c := Candidates(items, Filters{}, 2); len(c) != 2 {
		t.Errorf("Candidates limit 2 = %d items", len(c))
	}

	if _, err := Pick(nil, false); !errors.Is(err, ErrNoMatch) {
		t.Errorf("Pick(none) error = %v, want ErrNoMatch", err)
	}
	if r, _ := Pick(c[:1], false); r.ThreadID != 1 || r.Candidates != nil {
		t.Errorf("Pick(one) = %+v, want thread 1", r)
	}
	r, _ := Pick(c, false)
	if r.ThreadID != 0 || len(r.Candidates) != 3 {
		t.Errorf("Pick(several) = %+v, want disambiguation with 3 candidates and no guess", r)
	}
	shuffled := []ListItem{c[2], c[0], c[1]}
	if r, _ := Pick(shuffled, true); r.ThreadID != 1 {
		t.Errorf("Pick(latest) = %+v, want newest thread 1", r)
	}
}
