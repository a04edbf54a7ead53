package imap

import (
	"testing"

	"mailsift/internal/testserver/dovecot"
)

// newDovecotServer starts a private Dovecot (skipped when not installed,
// failing when MAILSIFT_REQUIRE_SERVERS=1).
func newDovecotServer(t testing.TB) *testServer {
	s := dovecot.Start(t, &dovecot.Options{Users: map[string]string{testUser: testPass}})
	return &testServer{kind: "dovecot", addr: s.Addr, user: testUser, pass: testPass, condstore: true}
}

func TestDovecotSuite(t *testing.T) { runSuite(t, newDovecotServer) }
