package dovecot

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStartLoginAndLMTP starts an instance, logs in over IMAP, delivers
// one message over LMTP and finds it in the user's Maildir.
func TestStartLoginAndLMTP(t *testing.T) {
	s := Start(t, &Options{LMTP: true, Users: map[string]string{"bob": "bob-pw"}})
	c, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	expect := func(prefix string) string {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("read: %v (want %q)\n%s", err, prefix, s.Log())
			}
			if strings.HasPrefix(line, prefix) {
				return line
			}
			if !strings.HasPrefix(line, "*") && !strings.HasPrefix(line, "2") && !strings.HasPrefix(line, "3") {
				t.Fatalf("got %q, want %q\n%s", line, prefix, s.Log())
			}
		}
	}
	expect("* OK")
	c.Write([]byte("a1 LOGIN bob wrong\r\n"))
	if line := expect("a1 "); !strings.HasPrefix(line, "a1 NO") {
		t.Errorf("login with wrong password = %q, want NO", line)
	}
	c.Write([]byte("a2 LOGIN bob bob-pw\r\n"))
	if line := expect("a2 "); !strings.HasPrefix(line, "a2 OK") {
		t.Fatalf("login = %q, want OK", line)
	}

	l, err := net.DialTimeout("tcp", s.LMTPAddr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.SetDeadline(time.Now().Add(10 * time.Second))
	r = bufio.NewReader(l)
	expect("220")
	for _, cmd := range []string{"LHLO test", "MAIL FROM:<alice@example.com>", "RCPT TO:<bob>", "DATA"} {
		l.Write([]byte(cmd + "\r\n"))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("LMTP %s: %v\n%s", cmd, err, s.Log())
			}
			if line[0] != '2' && line[0] != '3' {
				t.Fatalf("LMTP %s: %q\n%s", cmd, line, s.Log())
			}
			if len(line) > 3 && line[3] == ' ' {
				break
			}
		}
	}
	l.Write([]byte("Subject: hello\r\nMessage-ID: <lmtp-1@example.com>\r\n\r\nhi\r\n.\r\n"))
	if line, _ := r.ReadString('\n'); !strings.HasPrefix(line, "250") {
		t.Fatalf("LMTP delivery = %q\n%s", line, s.Log())
	}
	files, _ := filepath.Glob(filepath.Join(s.Maildir("bob"), "new", "*"))
	if len(files) != 1 {
		t.Fatalf("Maildir %s/new has %d files, want 1", s.Maildir("bob"), len(files))
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), "lmtp-1@example.com") {
		t.Errorf("delivered file lacks the message: %q", b)
	}
}
