package drafts

import (
	"context"
	"testing"
	"time"

	"mailsift/model"
)

func BenchmarkBuildMessage(b *testing.B) {
	d := &Draft{From: alice, To: []model.Address{bob}, Cc: []model.Address{carol}, Subject: "Re: Grüße aus Köln",
		Body: "Hallo Bob,\n\nschöne Grüße und danke für den Bericht.\n\nAlice", InReplyTo: "m2@example.com", References: []string{"m1@example.com", "m2@example.com"}}
	for b.Loop() {
		if _, err := BuildMessage(d, time.Now(), "id@example.com"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConfirmToDelivered measures draft → approval → confirm → SMTP
// delivery (local go-smtp server) → recorded, per reply.
func BenchmarkConfirmToDelivered(b *testing.B) {
	ctx := context.Background()
	st, _ := newStore(b)
	tid, _ := seedThread(b, st)
	srv := startSMTP(b, &smtpBackend{}, "plain")
	e := newEngine(st, srv.transport("plain"), nil, nil)
	for b.Loop() {
		newConfirmed(b, e, tid)
		if _, err := e.ProcessDue(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(srv.be.messages()); n != b.N {
		b.Fatalf("delivered %d, want %d", n, b.N)
	}
}
