package drafts

import (
	"context"
	"strings"
	"testing"
)

// TestSMTPCheck covers what `mailsift doctor` relies on: a good login
// passes without sending anything, a wrong password fails naming the
// rejection.
func TestSMTPCheck(t *testing.T) {
	be := &smtpBackend{user: "alex", pass: "secret"}
	ts := startSMTP(t, be, "starttls")
	tr := ts.transport("starttls")
	if err := tr.Check(context.Background()); err != nil {
		t.Fatalf("Check with the right password = %v, want nil", err)
	}
	if n := len(be.messages()); n != 0 {
		t.Fatalf("Check delivered %d messages, want none", n)
	}
	tr.Password = func(context.Context) (string, error) { return "wrong", nil }
	err := tr.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "535") {
		t.Fatalf("Check with a wrong password = %v, want the server's 535 rejection", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Fatalf("error leaks the password: %v", err)
	}
}
