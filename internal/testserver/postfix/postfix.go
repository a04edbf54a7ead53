// Package postfix starts a private Postfix instance for tests: SMTP on
// 127.0.0.1 with a random free port, accepting mail from loopback for one
// test domain and delivering it over LMTP (to a Dovecot started by
// internal/testserver/dovecot), with its own config, queue and data
// directories in a temporary directory.
//
// Postfix must run as root. Tests skip with a clear message when postfix is
// not installed or the test does not run as root, and fail instead when
// MAILSIFT_REQUIRE_SERVERS=1 (CI). CI needs the Debian/Ubuntu packages
// postfix, dovecot-imapd and dovecot-lmtpd (preseed postfix "Local only";
// the system services need not run).
package postfix

import (
	"bufio"
	"fmt"
	"mailsift/internal/testserver"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns a missing server into
// a test failure instead of a skip.
const RequireEnv = testserver.RequireEnv

// Options configure the instance.
type Options struct {
	// Domain is the test domain delivered locally (mydestination); default
	// "mailsift.test".
	Domain string
	// LMTPAddr is the host:port every local recipient is delivered to over
	// LMTP (required). The full address is the LMTP recipient; configure
	// Dovecot with auth_username_format = %n to map it to its user.
	LMTPAddr string
}

// Server is a running Postfix instance, stopped when the test ends.
type Server struct {
	// Addr is the SMTP listener host:port (plaintext, no AUTH; loopback
	// clients may send to Domain).
	Addr   string
	Host   string
	Port   int
	Domain string
	// Dir holds main.cf, master.cf, the queue, data and the log.
	Dir string

	logPath string
}

// Log returns the instance's mail log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// Binary returns the path of the postfix command, or "" if not installed.
func Binary() string {
	return testserver.FindBinary("postfix", "/usr/sbin/postfix", "/usr/local/sbin/postfix")
}

// Unavailable skips the test with msg, or fails it when RequireEnv=1.
func Unavailable(t testing.TB, msg string) {
	t.Helper()
	testserver.Unavailable(t, msg, "apt-get install postfix dovecot-imapd dovecot-lmtpd, as root")
}

// Start starts a private Postfix and stops it when t ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		Unavailable(t, "postfix is not installed")
	}
	if os.Geteuid() != 0 {
		Unavailable(t, "postfix tests must run as root (postfix -c DIR start)")
	}
	if opts.LMTPAddr == "" {
		t.Fatal("postfix: Options.LMTPAddr is required")
	}
	if opts.Domain == "" {
		opts.Domain = "mailsift.test"
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := start(t, bin, opts)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("postfix: %v", lastErr)
	return nil
}

// masterCF lists the services a loopback-only instance needs; nothing is
// chrooted, so no chroot jail has to be populated.
const masterCF = `127.0.0.1:%d inet n - n - - smtpd
pickup    unix  n - n 60   1 pickup
cleanup   unix  n - n -    0 cleanup
qmgr      unix  n - n 300  1 qmgr
rewrite   unix  - - n -    - trivial-rewrite
bounce    unix  - - n -    0 bounce
defer     unix  - - n -    0 bounce
trace     unix  - - n -    0 bounce
verify    unix  - - n -    1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -    - proxymap
smtp      unix  - - n -    - smtp
relay     unix  - - n -    - smtp
showq     unix  n - n -    - showq
error     unix  - - n -    - error
retry     unix  - - n -    - error
discard   unix  - - n -    - discard
lmtp      unix  - - n -    - lmtp
anvil     unix  - - n -    1 anvil
scache    unix  - - n -    1 scache
postlog   unix-dgram n - n - 1 postlogd
`

func start(t testing.TB, bin string, opts Options) (*Server, error) {
	dir, err := os.MkdirTemp("", "mailsift-postfix-")
	if err != nil {
		return nil, err
	}
	// Postfix daemons run as the postfix user and must traverse dir.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := testserver.FreePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "postfix.log")
	main := fmt.Sprintf(`# Private Postfix instance for mailsift tests.
compatibility_level = 3.6
queue_directory = %[1]s/queue
data_directory = %[1]s/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = loopback-only
inet_protocols = ipv4
myhostname = mx.%[2]s
mydomain = %[2]s
myorigin = $mydomain
mydestination = $mydomain
local_recipient_maps =
local_transport = lmtp:inet:%[3]s
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
relayhost =
alias_maps =
alias_database =
append_dot_mydomain = no
biff = no
smtputf8_enable = no
smtpd_banner = $myhostname ESMTP mailsift-test
maillog_file = %[4]s
maillog_file_prefixes = %[1]s
delay_warning_time = 0
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
`, dir, opts.Domain, opts.LMTPAddr, logPath)
	if err := os.WriteFile(filepath.Join(dir, "main.cf"), []byte(main), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "master.cf"), []byte(fmt.Sprintf(masterCF, port)), 0o644); err != nil {
		return nil, err
	}
	for _, d := range []string{"queue", "data"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	// data_directory must belong to the mail owner.
	if u, err := user.Lookup("postfix"); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(filepath.Join(dir, "data"), uid, gid); err != nil {
			return nil, err
		}
	} else {
		return nil, fmt.Errorf("the postfix user does not exist (is postfix installed correctly?): %w", err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"-c", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// "check" creates the queue subdirectories with the right owners.
	if out, err := run("check"); err != nil {
		log, _ := os.ReadFile(logPath)
		os.RemoveAll(dir)
		return nil, fmt.Errorf("postfix check: %v\n%s%s", err, out, log)
	}
	if out, err := run("start"); err != nil {
		log, _ := os.ReadFile(logPath)
		os.RemoveAll(dir)
		return nil, fmt.Errorf("postfix start: %v\n%s%s", err, out, log)
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Host: "127.0.0.1", Port: port,
		Domain: opts.Domain, Dir: dir, logPath: logPath}
	stop := func() {
		if out, err := run("stop"); err != nil {
			t.Logf("postfix stop: %v\n%s", err, out)
			_, _ = run("abort")
		}
		// master exits asynchronously; give it a moment before removing its files.
		for i := 0; i < 50; i++ {
			if _, err := os.Stat(filepath.Join(dir, "queue", "pid", "master.pid")); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		os.RemoveAll(dir)
	}
	deadline := time.Now().Add(15 * time.Second)
	for !greets(s.Addr) {
		if time.Now().After(deadline) {
			log := s.Log()
			stop()
			return nil, fmt.Errorf("postfix did not accept connections on %s within 15s:\n%s", s.Addr, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("postfix log:\n%s", s.Log())
		}
		stop()
	})
	return s, nil
}

func greets(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err == nil {
		c.Write([]byte("QUIT\r\n"))
	}
	return err == nil && strings.HasPrefix(line, "220")
}

// DovecotExtraConfig returns the Dovecot setting (for dovecot.Options.
// ExtraConfig) that makes LMTP recipients user@Domain match passwd-file
// users named "user", for the given `dovecot --version` output ("" = 2.3).
func DovecotExtraConfig(dovecotVersion string) string {
	if dovecotVersion == "" || strings.HasPrefix(dovecotVersion, "2.3") || strings.HasPrefix(dovecotVersion, "2.2") {
		return "auth_username_format = %n\n"
	}
	return "auth_username_format = %{user | username}\n"
}

// DovecotVersion returns the installed `dovecot --version` ("" if none).
func DovecotVersion() string {
	out, err := exec.Command("dovecot", "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
