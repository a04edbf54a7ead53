package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"mailsift/model"
)

// TestThreadHeadersMatchesThread: ThreadHeaders gives every message's
// envelope as Thread does, and bodies for the newest ones only.
func TestThreadHeadersMatchesThread(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	m1 := mkMsg("h1@x", "Plans", at(0), body("first body"))
	m1.Cc = []model.Address{{Name: "Dave", Email: "dave@example.com"}}
	m1.ReplyTo = []model.Address{{Email: "list@example.com"}}
	m2 := mkMsg("h2@x", "Re: Plans", at(time.Hour), inReplyTo("h1@x"), body("second body"))
	m3 := mkMsg("h3@x", "Re: Plans", at(2*time.Hour), inReplyTo("h2@x"), body("third body"))
	put(t, s, m1, m2, m3)
	id := threadOf(t, s, "h1@x")
	full, err := s.Thread(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, bodies := range []int{0, 1, 3, 10} {
		got, err := s.ThreadHeaders(ctx, id, bodies)
		if err != nil {
			t.Fatalf("ThreadHeaders(%d): %v", bodies, err)
		}
		if got.ID != id || got.Subject != full.Subject || len(got.Messages) != len(full.Messages) {
			t.Fatalf("ThreadHeaders(%d) = %d %q with %d messages, want %d %q with %d", bodies, got.ID, got.Subject, len(got.Messages), id, full.Subject, len(full.Messages))
		}
		for i, g := range got.Messages {
			w := *full.Messages[i]
			w.Loc, w.Flags = model.Location{}, model.Flags{}
			if i < len(full.Messages)-bodies {
				w.Text, w.HTMLText, w.Headers, w.Attachments, w.Problems = "", "", nil, nil, nil
			}
			if !reflect.DeepEqual(*g, w) {
				t.Errorf("ThreadHeaders(%d) message %d = %+v, want %+v", bodies, i, *g, w)
			}
		}
	}
	if _, err := s.ThreadHeaders(ctx, id+100, 1); err == nil {
		t.Error("ThreadHeaders of a missing thread: no error")
	}
}
