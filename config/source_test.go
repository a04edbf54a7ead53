package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Source
	}{
		{"imaps default port", "imaps://user%40example.com@imap.example.com", Source{Scheme: "imaps", User: "user@example.com", Host: "imap.example.com", Port: 993, TLS: TLSImplicit}},
		{"imaps port", "imaps://u@imap.example.com:1993", Source{Scheme: "imaps", User: "u", Host: "imap.example.com", Port: 1993, TLS: TLSImplicit}},
		{"imap starttls", "imap://u@imap.example.com", Source{Scheme: "imap", User: "u", Host: "imap.example.com", Port: 143, TLS: TLSStartTLS}},
		{"insecure loopback", "imap+insecure://u@127.0.0.1:1143", Source{Scheme: "imap+insecure", User: "u", Host: "127.0.0.1", Port: 1143, TLS: TLSNone}},
		{"insecure 127.5", "imap+insecure://u@127.5.6.7", Source{Scheme: "imap+insecure", User: "u", Host: "127.5.6.7", Port: 143, TLS: TLSNone}},
		{"insecure localhost", "imap+insecure://u@localhost", Source{Scheme: "imap+insecure", User: "u", Host: "localhost", Port: 143, TLS: TLSNone}},
		{"insecure ipv6", "imap+insecure://u@[::1]:1143", Source{Scheme: "imap+insecure", User: "u", Host: "::1", Port: 1143, TLS: TLSNone}},
		{"url password", "imaps://u:p%40ss@h.example.com", Source{Scheme: "imaps", User: "u", Password: "p@ss", Host: "h.example.com", Port: 993, TLS: TLSImplicit}},
		{"upper scheme", "IMAPS://u@h.example.com", Source{Scheme: "imaps", User: "u", Host: "h.example.com", Port: 993, TLS: TLSImplicit}},
		{"maildir abs", "maildir:///home/a/Mail", Source{Scheme: "maildir", Path: "/home/a/Mail"}},
		{"maildir tilde", "maildir://~/Mail", Source{Scheme: "maildir", Path: "~/Mail"}},
		{"mbox", "mbox:///var/mail/a", Source{Scheme: "mbox", Path: "/var/mail/a"}},
		{"demo", "demo://", Source{Scheme: "demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSource(tt.in)
			if err != nil {
				t.Fatalf("ParseSource(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseSource(%q) = %+v, want %+v", tt.in, fields(got), fields(tt.want))
			}
		})
	}
}

func fields(s Source) string {
	return fmt.Sprintf("{%s user=%q pw=%q host=%q port=%d path=%q tls=%s}", s.Scheme, s.User, s.Password, s.Host, s.Port, s.Path, s.TLS)
}

func TestParseSourceErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty source URL"},
		{"imap.example.com", "not a URL"},
		{"pop3://u@h", `scheme "pop3" not supported; use imaps://, imap://, imap+insecure:// (loopback only), maildir://, mbox:// or demo://`},
		{"imap+insecure://u@mail.example.com", "only allowed to loopback hosts"},
		{"imap+insecure://u@10.0.0.1", "only allowed to loopback hosts"},
		{"imap+insecure://u@localhost.evil.com", "only allowed to loopback hosts"},
		{"imaps://u@", "has no host"},
		{"imaps://u@h:99999", "port"},
		{"imaps://u@h/INBOX", "folders key"},
		{"maildir://", "needs a path"},
		{"mbox://relative/file", "relative"},
		{"demo://x", "demo://"},
	}
	for _, tt := range tests {
		_, err := ParseSource(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSource(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestRedactedNeverLeaksPassword(t *testing.T) {
	s, err := ParseSource("imaps://me%40example.com:hunter2@imap.example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{s.Redacted(), s.String(), fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s)} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("redacted form %q contains the password", out)
		}
		if !strings.Contains(out, "imap.example.com") {
			t.Errorf("redacted form %q lost the host", out)
		}
	}
	o, err := ParseSMTP("smtps://u:hunter2@smtp.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if out := fmt.Sprintf("%v %+v %#v", o, o, o); strings.Contains(out, "hunter2") {
		t.Errorf("Outgoing prints the password: %q", out)
	}
	if _, err := ParseSource("pop3://u:hunter2@h"); err != nil && strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error leaks password: %v", err)
	}
	if _, err := ParseSource("imaps://u:hunter2@h:bad"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("parse error leaks password or is nil: %v", err)
	}
}

func TestParseSMTP(t *testing.T) {
	tests := []struct {
		in   string
		port int
		tls  TLSMode
		err  string
	}{
		{"smtps://u@smtp.example.com", 465, TLSImplicit, ""},
		{"smtp://u@smtp.example.com", 587, TLSStartTLS, ""},
		{"smtp://u@smtp.example.com:2525", 2525, TLSStartTLS, ""},
		{"smtp+insecure://u@127.0.0.1", 25, TLSNone, ""},
		{"smtp+insecure://u@smtp.example.com", 0, 0, "only allowed to loopback"},
		{"submission://u@h", 0, 0, "not supported"},
	}
	for _, tt := range tests {
		o, err := ParseSMTP(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSMTP(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || o.Port != tt.port || o.TLS != tt.tls || o.Kind != OutgoingSMTP {
			t.Errorf("ParseSMTP(%q) = %+v, %v; want port %d tls %s", tt.in, o, err, tt.port, tt.tls)
		}
	}
}

// TestDemoSourceIsTheDemo: --source demo:// is the embedded demo mailbox,
// with its principal (no MAILSIFT_EMAIL needed) and its own store.
func TestDemoSourceIsTheDemo(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return filepath.Join(dir, "cfg")
		}
		return ""
	}
	for _, src := range []string{"demo://", "DEMO:///", " demo:// "} {
		cfg, err := Load(LoadOptions{Env: env, DataDir: dir, Source: src})
		if err != nil {
			t.Fatalf("Load(--source %q) error = %v, want the demo principal", src, err)
		}
		if cfg.Principal != DemoPrincipal || !cfg.Demo || len(cfg.Accounts) != 1 || cfg.Accounts[0].Src.Scheme != "demo" {
			t.Errorf("Load(--source %q) = principal %v, demo %v, accounts %+v; want the demo mailbox", src, cfg.Principal, cfg.Demo, cfg.Accounts)
		}
	}
}
