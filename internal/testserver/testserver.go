// Package testserver holds what the private Dovecot and Postfix test
// harnesses share: finding a server binary, skipping or failing when it is
// missing, and picking a free loopback port.
package testserver

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

// RequireEnv is the environment variable that turns a missing server into
// a test failure instead of a skip (CI sets it).
const RequireEnv = "MAILSIFT_REQUIRE_SERVERS"

// FindBinary returns the path of name on PATH or at one of the fallback
// paths (sbin directories are often not on a user's PATH), or "".
func FindBinary(name string, fallbacks ...string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range fallbacks {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Unavailable skips the test with msg and the install hint, or fails it
// when RequireEnv=1.
func Unavailable(t testing.TB, msg, install string) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s (%s=1, so this is a failure)", msg, RequireEnv)
	}
	t.Skipf("%s; install it to run this test (%s), or set %s=1 to make this a failure", msg, install, RequireEnv)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
