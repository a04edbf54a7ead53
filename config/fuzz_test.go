package config

import (
	"net/url"
	"testing"
)

// FuzzParseSource: no source URL makes the parser panic, and whatever it
// accepts, the redacted form (what logs and errors show) never carries the
// password, nor does an error message.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{
		"imaps://alex%40example.com@imap.example.com", "imap://u:secretpw@host:143", "imap+insecure://u@[::1]:1143",
		"maildir://~/Mail", "maildir:///var/mail/x", "mbox:///tmp/a.mbox", "demo://", "smtps://u:pw@smtp.example.com:465",
		"imaps://u:p%40ss@h", "imaps://@/", "imaps://u@h:99999", "imaps://u@h:-1", "pop3://x", "://", "imaps://u:\x1b]52;c;x\x07@h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if src, err := ParseSource(raw); err == nil {
			noPassword(t, raw, src.Redacted())
		}
		if out, err := ParseSMTP(raw); err == nil {
			noPassword(t, raw, out.Redacted())
		}
	})
}

// noPassword fails when a redacted URL still has a password in its userinfo.
func noPassword(t *testing.T, raw, redacted string) {
	t.Helper()
	u, err := url.Parse(redacted)
	if err != nil || u.User == nil {
		return
	}
	if _, has := u.User.Password(); has {
		t.Fatalf("redacted form of %q = %q keeps a password", raw, redacted)
	}
}
