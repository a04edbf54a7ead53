// Package dovecot starts a private Dovecot instance for tests: IMAP (and
// optionally LMTP) on 127.0.0.1 with random free ports, passwd-file users
// with plaintext passwords, and Maildir storage, all inside t.TempDir().
//
// Tests skip with a clear message when the dovecot binary is not
// installed, and fail instead when MAILSIFT_REQUIRE_SERVERS=1 (CI).
package dovecot

import (
	"bufio"
	"errors"
	"fmt"
	"mailsift/internal/testserver"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// errOAuth2Version is start's answer when the oauth2 mode is asked of a
// Dovecot whose oauth2 settings differ (2.4 moved them out of the passdb).
var errOAuth2Version = errors.New("oauth2 mode needs Dovecot 2.3")

// RequireEnv is the environment variable that turns a missing server
// into a test failure instead of a skip.
const RequireEnv = testserver.RequireEnv

// Options configures the instance. A nil *Options means defaults.
type Options struct {
	// Users maps user names to plaintext passwords. Default: one user
	// "alice" with password "alice-password".
	Users map[string]string
	// LMTP also starts an LMTP listener (for Postfix delivery tests).
	LMTP bool
	// ExtraConfig is appended verbatim to dovecot.conf.
	ExtraConfig string
	// OAuth2IntrospectionURL turns on the oauth2 mode: XOAUTH2 and
	// OAUTHBEARER logins whose bearer token Dovecot's oauth2 passdb
	// checks by RFC 7662 introspection (a form POST of token=...) at this
	// URL, which must answer {"active": true, "username": USER}. Password
	// logins keep working alongside.
	OAuth2IntrospectionURL string
}

// Server is a running Dovecot instance. It is stopped when the test ends.
type Server struct {
	// Addr is the IMAP listener, host:port (plain text, no TLS; login
	// with plaintext passwords is allowed).
	Addr string
	// LMTPAddr is the LMTP listener, host:port ("" unless Options.LMTP).
	LMTPAddr string
	// Users maps user names to passwords.
	Users map[string]string
	// MaildirPath is the directory holding one Maildir per user:
	// filepath.Join(MaildirPath, user) (see Maildir).
	MaildirPath string
	// Dir is the instance's private directory (config, logs, sockets).
	Dir string
	// Version is the output of `dovecot --version`.
	Version string

	cmd     *exec.Cmd
	logPath string
}

// Maildir returns the Maildir root of user.
func (s *Server) Maildir(user string) string { return filepath.Join(s.MaildirPath, user) }

// Log returns the instance's log so far (for failure messages).
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

// Binary returns the path of the dovecot binary, or "" if not installed.
func Binary() string {
	return testserver.FindBinary("dovecot", "/usr/sbin/dovecot", "/usr/local/sbin/dovecot")
}

// haveLMTP reports whether Dovecot's lmtp service binary is installed.
func haveLMTP() bool {
	for _, dir := range []string{"/usr/lib/dovecot", "/usr/libexec/dovecot", "/usr/local/libexec/dovecot", "/usr/lib64/dovecot"} {
		if _, err := os.Stat(filepath.Join(dir, "lmtp")); err == nil {
			return true
		}
	}
	return false
}

// Unavailable skips the test with msg, or fails it when RequireEnv=1.
func Unavailable(t testing.TB, msg string) {
	t.Helper()
	testserver.Unavailable(t, msg, "apt-get install dovecot-imapd dovecot-lmtpd")
}

// Start starts a private Dovecot instance and stops it when t ends.
func Start(t testing.TB, opts *Options) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		Unavailable(t, "dovecot is not installed")
	}
	if opts == nil {
		opts = &Options{}
	}
	users := opts.Users
	if len(users) == 0 {
		users = map[string]string{"alice": "alice-password"}
	}
	for u, p := range users {
		if u == "" || strings.ContainsAny(u, ":\n\r/ ") || strings.ContainsAny(p, ":\n\r") {
			t.Fatalf("dovecot: user %q or its password contains ':', '/', spaces or newlines", u)
		}
	}
	if opts.LMTP && !haveLMTP() {
		Unavailable(t, "dovecot's LMTP server is not installed (Debian package dovecot-lmtpd)")
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		Unavailable(t, fmt.Sprintf("dovecot --version failed: %v", err))
	}
	version := strings.TrimSpace(string(out))

	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := start(t, bin, version, users, opts)
		if err == nil {
			return s
		}
		if err == errOAuth2Version {
			Unavailable(t, "the oauth2 mode is written for Dovecot 2.3's oauth2 passdb, and this is Dovecot "+version)
		}
		lastErr = err
	}
	t.Fatalf("dovecot: %v", lastErr)
	return nil
}

// mailUser returns the uid/gid mail is stored as: the current user, or
// nobody when running as root (Dovecot refuses mail access as root).
func mailUser() (uid, gid int, name string, err error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return 0, 0, "", err
		}
		return os.Geteuid(), os.Getegid(), u.Username, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return 0, 0, "", fmt.Errorf("running as root needs user nobody: %w", err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, u.Username, nil
}

func start(t testing.TB, bin, version string, users map[string]string, opts *Options) (*Server, error) {
	dir := t.TempDir()
	uid, gid, _, err := mailUser()
	if err != nil {
		return nil, err
	}
	mailDir := filepath.Join(dir, "mail")
	for _, d := range []string{filepath.Join(dir, "run"), filepath.Join(dir, "state"), mailDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if os.Geteuid() == 0 {
		// The mail user must reach and write the mail directory.
		for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				return nil, err
			}
			if filepath.Dir(d) == d {
				break
			}
		}
		if err := os.Chown(mailDir, uid, gid); err != nil {
			return nil, err
		}
	}
	var pw strings.Builder
	names := make([]string, 0, len(users))
	for u := range users {
		names = append(names, u)
	}
	sort.Strings(names)
	for _, u := range names {
		fmt.Fprintf(&pw, "%s:{PLAIN}%s:%d:%d::%s::\n", u, users[u], uid, gid, filepath.Join(mailDir, u))
	}
	passwd := filepath.Join(dir, "passwd")
	if err := os.WriteFile(passwd, []byte(pw.String()), 0o644); err != nil {
		return nil, err
	}
	imapPort, err := testserver.FreePort()
	if err != nil {
		return nil, err
	}
	lmtpPort := 0
	if opts.LMTP {
		if lmtpPort, err = testserver.FreePort(); err != nil {
			return nil, err
		}
	}
	logPath := filepath.Join(dir, "dovecot.log")
	p := params{
		dir: dir, mailDir: mailDir, passwd: passwd, logPath: logPath,
		imapPort: imapPort, lmtpPort: lmtpPort, uid: uid, root: os.Geteuid() == 0,
		instance: "mailsift-test-" + filepath.Base(dir),
		mechs:    "plain login",
	}
	if opts.OAuth2IntrospectionURL != "" {
		p.mechs = "plain login xoauth2 oauthbearer"
		p.oauth2Conf = filepath.Join(dir, "oauth2.conf.ext")
		if err := os.WriteFile(p.oauth2Conf, []byte(oauth2Conf(opts.OAuth2IntrospectionURL)), 0o644); err != nil {
			return nil, err
		}
	}
	var conf string
	if strings.HasPrefix(version, "2.3") || strings.HasPrefix(version, "2.2") {
		conf = config23(p)
	} else if p.oauth2Conf != "" {
		return nil, errOAuth2Version
	} else {
		conf = config24(p)
	}
	conf += "\n" + opts.ExtraConfig + "\n"
	confPath := filepath.Join(dir, "dovecot.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-F", "-c", confPath)
	cmd.Dir = dir
	cmd.SysProcAttr = procAttr()
	stderr, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		stderr.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); stderr.Close() }()
	s := &Server{
		Addr:        net.JoinHostPort("127.0.0.1", strconv.Itoa(imapPort)),
		Users:       users,
		MaildirPath: mailDir,
		Dir:         dir,
		Version:     version,
		cmd:         cmd,
		logPath:     logPath,
	}
	if opts.LMTP {
		s.LMTPAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(lmtpPort))
	}
	stop := func() {
		// The master stops its children itself, but waits about a
		// second for them; a test instance need not shut down cleanly.
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(200 * time.Millisecond):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // any stragglers
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		ready := greets(s.Addr, "* OK") && (s.LMTPAddr == "" || greets(s.LMTPAddr, "220"))
		if ready {
			break
		}
		select {
		case err := <-exited:
			errLog, _ := os.ReadFile(filepath.Join(dir, "stderr.log"))
			return nil, fmt.Errorf("dovecot exited during startup (%v):\n%s\n%s", err, errLog, s.Log())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("dovecot did not accept connections on %s within 15s:\n%s", s.Addr, s.Log())
		}
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("dovecot log:\n%s", s.Log())
		}
	})
	return s, nil
}

// greets reports whether a server at addr answers with a line starting
// with prefix.
func greets(addr, prefix string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, prefix)
}

type params struct {
	dir, mailDir, passwd, logPath, instance string
	// mechs are the SASL mechanisms offered; oauth2Conf is the oauth2
	// passdb's settings file ("" when that mode is off).
	mechs, oauth2Conf       string
	imapPort, lmtpPort, uid int
	root                    bool
}

// specialUse configures the RFC 6154 special-use folders, created on
// demand (not automatically).
const specialUse = `
  mailbox Sent {
    special_use = \Sent
  }
  mailbox Drafts {
    special_use = \Drafts
  }
  mailbox Junk {
    special_use = \Junk
  }
  mailbox Trash {
    special_use = \Trash
  }
  mailbox Archive {
    special_use = \Archive
  }
`

func protocols(p params) string {
	if p.lmtpPort != 0 {
		return "imap lmtp"
	}
	return "imap"
}

func nonRootUsers(p params) string {
	if p.root {
		return ""
	}
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return fmt.Sprintf("default_login_user = %s\ndefault_internal_user = %s\n", u.Username, u.Username)
}

// lmtpService configures the LMTP TCP listener; addrKey is "address"
// before Dovecot 2.4 and "listen" from 2.4 on.
func lmtpService(p params, addrKey string) string {
	if p.lmtpPort == 0 {
		return ""
	}
	return fmt.Sprintf(`
service lmtp {
  inet_listener lmtp {
    %s = 127.0.0.1
    port = %d
  }
}
`, addrKey, p.lmtpPort)
}

func config23(p params) string {
	return fmt.Sprintf(`# Private Dovecot 2.3 instance for mailsift tests.
instance_name = %[1]s
base_dir = %[2]s/run
state_dir = %[2]s/state
log_path = %[3]s
info_log_path = %[3]s
protocols = %[4]s
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = %[11]s
auth_failure_delay = 0
first_valid_uid = %[5]d
last_valid_uid = 0
mail_location = maildir:~
%[6]s
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%%u %[7]s
}
%[12]s
userdb {
  driver = passwd-file
  args = username_format=%%u %[7]s
}
# No authentication penalty: tests log in wrongly on purpose.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
namespace inbox {
  inbox = yes
  separator = /
%[8]s
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = %[9]d
  }
  inet_listener imaps {
    port = 0
  }
}
%[10]s
`, p.instance, p.dir, p.logPath, protocols(p), min(p.uid, 500), nonRootUsers(p), p.passwd, specialUse, p.imapPort, lmtpService(p, "address"),
		p.mechs, oauth2Passdb23(p))
}

func config24(p params) string {
	return fmt.Sprintf(`# Private Dovecot 2.4 instance for mailsift tests.
dovecot_config_version = 2.4.0
dovecot_storage_version = 2.4.0
instance_name = %[1]s
base_dir = %[2]s/run
state_dir = %[2]s/state
log_path = %[3]s
info_log_path = %[3]s
protocols = %[4]s
listen = 127.0.0.1
ssl = no
auth_allow_cleartext = yes
auth_mechanisms = plain login
auth_failure_delay = 0
first_valid_uid = %[5]d
last_valid_uid = 0
mail_driver = maildir
mail_path = ~
%[6]s
passdb passwd-file {
  passwd_file_path = %[7]s
  default_password_scheme = PLAIN
}
userdb passwd-file {
  passwd_file_path = %[7]s
}
# No authentication penalty: tests log in wrongly on purpose.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
namespace inbox {
  inbox = yes
  separator = /
%[8]s
}
service imap-login {
  inet_listener imap {
    listen = 127.0.0.1
    port = %[9]d
  }
  inet_listener imaps {
    port = 0
  }
}
%[10]s
`, p.instance, p.dir, p.logPath, protocols(p), min(p.uid, 500), nonRootUsers(p), p.passwd, specialUse, p.imapPort, lmtpService(p, "listen"))
}

// oauth2Conf is the oauth2 passdb's settings: introspect every token by
// POST and accept it only while the server says it is active.
func oauth2Conf(introspectionURL string) string {
	return fmt.Sprintf(`introspection_mode = post
introspection_url = %s
force_introspection = yes
username_attribute = username
active_attribute = active
active_value = true
`, introspectionURL)
}

// oauth2Passdb23 is the Dovecot 2.3 oauth2 passdb, used only for the
// token mechanisms.
func oauth2Passdb23(p params) string {
	if p.oauth2Conf == "" {
		return ""
	}
	return fmt.Sprintf(`passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = %s
}
`, p.oauth2Conf)
}
