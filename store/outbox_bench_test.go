package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"mailsift/model"
)

// BenchmarkOutboxConfirmToSent measures the store's part of one send: the
// draft, its approval, confirm and enqueue, begin send, committed and
// sent (each outbox change its own transaction, as in a real send).
func BenchmarkOutboxConfirmToSent(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "outbox.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for i := range b.N {
		d := &Draft{From: model.Address{Email: "me@example.com"}, To: []model.Address{{Email: "bob@example.com"}},
			Subject: "Re: x", Body: "hello there", NeedsApproval: true, Source: "template"}
		if err := s.SaveDraft(ctx, d); err != nil {
			b.Fatal(err)
		}
		id := fmt.Sprintf("bench-%d@example.com", i)
		a := &Approval{DraftID: d.ID, ExpiresAt: time.Now().Add(time.Minute), What: ApprovalWhat{Action: "send_mail",
			EnvelopeFrom: "me@example.com", Recipients: []string{"bob@example.com"}, MessageID: id,
			Message: "Message-ID: <" + id + ">\r\nSubject: x\r\n\r\nhi\r\n"}}
		if err := s.CreateApproval(ctx, a); err != nil {
			b.Fatal(err)
		}
		item, err := s.ConfirmAndEnqueue(ctx, ConfirmRequest{ApprovalID: a.ID, By: "operator", NotBefore: time.Now(), ToolName: "send_mail"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.BeginSend(ctx, item.ID, time.Now()); err != nil {
			b.Fatal(err)
		}
		if err := s.MarkCommitted(ctx, item.ID); err != nil {
			b.Fatal(err)
		}
		if err := s.MarkSent(ctx, item.ID, SentOptions{How: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
