package imap

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"mailsift/internal/loopback"
	"mailsift/model"
)

func TestRefusesPlainToNonLoopback(t *testing.T) {
	var dials atomic.Int64
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"plain to remote host", Config{Host: "imap.example.com", TLS: TLSInsecurePlain}, "refusing unencrypted connection"},
		{"skip-verify to remote host", Config{Host: "203.0.113.7", TLS: TLSImplicit, TLSConfig: &tls.Config{InsecureSkipVerify: true}}, "refusing to skip TLS certificate verification"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Username = "alice"
			cfg.Password = func(context.Context) (string, error) { return "pw", nil }
			cfg.Dial = func(ctx context.Context, n, a string) (net.Conn, error) {
				dials.Add(1)
				return nil, errors.New("must not dial")
			}
			err := New("acct", cfg).Sync(context.Background(), newFakeSink(), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Sync() = %v, want error containing %q", err, tc.want)
			}
		})
	}
	if dials.Load() != 0 {
		t.Errorf("dialled %d times, want 0", dials.Load())
	}
	for _, h := range []string{"127.0.0.1", "::1", "localhost", "[::1]"} {
		if !loopback.Is(h) {
			t.Errorf("loopback.Is(%q) = false, want true", h)
		}
	}
	for _, h := range []string{"example.com", "10.0.0.1", "localhost.example.com"} {
		if loopback.Is(h) {
			t.Errorf("loopback.Is(%q) = true, want false", h)
		}
	}
}

// tlsServer starts a memserver with a fresh self-signed certificate for
// 127.0.0.1; implicit TLS if implicit, else STARTTLS (or no TLS at all
// when withTLS is false). It returns the address and a pool trusting it.
func tlsServer(t *testing.T, implicit, withTLS bool) (string, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailsift test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	tc := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}

	mem := imapmemserver.New()
	u := imapmemserver.NewUser(testUser, testPass)
	u.Create("INBOX", nil)
	mem.AddUser(u)
	opts := &imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:   imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}},
		Logger: log.New(io.Discard, "", 0),
	}
	if withTLS && !implicit {
		opts.TLSConfig = tc
	}
	if !withTLS {
		opts.InsecureAuth = true
	}
	srv := imapserver.New(opts)
	var ln net.Listener
	if implicit {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", tc)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), pool
}

func tlsSource(t *testing.T, addr string, mode TLSMode, pool *x509.CertPool) *Source {
	host, port, _ := net.SplitHostPort(addr)
	s := New("acct", Config{
		Host: host, Port: port, Username: testUser, TLS: mode,
		Password:  func(context.Context) (string, error) { return testPass, nil },
		TLSConfig: &tls.Config{RootCAs: pool},
	})
	t.Cleanup(func() { s.Close() })
	return s
}

func TestTLSModes(t *testing.T) {
	t.Run("implicit TLS with test CA", func(t *testing.T) {
		addr, pool := tlsServer(t, true, true)
		if err := tlsSource(t, addr, TLSImplicit, pool).CheckLogin(context.Background()); err != nil {
			t.Errorf("CheckLogin() = %v", err)
		}
	})
	t.Run("implicit TLS with untrusted certificate", func(t *testing.T) {
		addr, _ := tlsServer(t, true, true)
		err := tlsSource(t, addr, TLSImplicit, x509.NewCertPool()).CheckLogin(context.Background())
		if err == nil || !strings.Contains(err.Error(), "TLS handshake") {
			t.Errorf("CheckLogin() = %v, want TLS handshake error", err)
		}
	})
	t.Run("STARTTLS", func(t *testing.T) {
		addr, pool := tlsServer(t, false, true)
		src := tlsSource(t, addr, TLSStartTLS, pool)
		caps, err := src.Capabilities(context.Background())
		if err != nil || len(caps) == 0 {
			t.Errorf("Capabilities() = %v, %v", caps, err)
		}
	})
	t.Run("STARTTLS required but not offered", func(t *testing.T) {
		addr, pool := tlsServer(t, false, false)
		err := tlsSource(t, addr, TLSStartTLS, pool).CheckLogin(context.Background())
		if err == nil || !strings.Contains(err.Error(), "does not offer STARTTLS") {
			t.Errorf("CheckLogin() = %v, want 'does not offer STARTTLS'", err)
		}
	})
}

func TestDeadServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	host, port, _ := net.SplitHostPort(addr)
	src := New("acct", Config{Host: host, Port: port, Username: "u", TLS: TLSInsecurePlain,
		Password: func(context.Context) (string, error) { return "p", nil }})
	err = src.Sync(context.Background(), newFakeSink(), nil)
	if err == nil || !strings.Contains(err.Error(), "imap: connect to "+addr) {
		t.Errorf("Sync() against closed port = %v, want connect error naming %s", err, addr)
	}
}

func TestFlagsFromIMAP(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []imap.Flag
		want model.Flags
	}{
		{"none", nil, model.Flags{}},
		{"system", []imap.Flag{`\Seen`, `\ANSWERED`, `\flagged`, `\Deleted`, `\Draft`, `\Recent`},
			model.Flags{Seen: true, Answered: true, Flagged: true, Deleted: true, Draft: true}},
		{"keywords sorted and deduplicated", []imap.Flag{"$Junk", "$Forwarded", "$Junk"},
			model.Flags{Keywords: []string{"$Forwarded", "$Junk"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := flagsFromIMAP(tc.in); !flagsEqual(got, tc.want) {
				t.Errorf("flagsFromIMAP(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestRoleFromList(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs []imap.MailboxAttr
		want  model.Role
	}{
		{"INBOX", nil, model.RoleInbox},
		{"inbox", nil, model.RoleInbox},
		{"Gesendet", []imap.MailboxAttr{imap.MailboxAttrSent}, model.RoleSent},
		{"Whatever", []imap.MailboxAttr{imap.MailboxAttrHasNoChildren, imap.MailboxAttrJunk}, model.RoleJunk},
		{"[Gmail]/All Mail", []imap.MailboxAttr{imap.MailboxAttrAll}, model.RoleAll},
		{"INBOX/Sent Items", nil, model.RoleSent},
		{"Entwürfe", nil, model.RoleDrafts},
		{"Deleted Messages", nil, model.RoleTrash},
		{"Archive", nil, model.RoleArchive},
		{"Projects", nil, model.RoleNone},
	} {
		if got := roleFromList(tc.name, '/', tc.attrs); got != tc.want {
			t.Errorf("roleFromList(%q, %v) = %q, want %q", tc.name, tc.attrs, got, tc.want)
		}
	}
}

func TestAttachmentsFromStructure(t *testing.T) {
	bs := &imap.BodyStructureMultiPart{Subtype: "mixed", Children: []imap.BodyStructure{
		&imap.BodyStructureSinglePart{Type: "text", Subtype: "plain", Size: 10},
		&imap.BodyStructureMultiPart{Subtype: "related", Children: []imap.BodyStructure{
			&imap.BodyStructureSinglePart{Type: "text", Subtype: "html", Size: 20},
			&imap.BodyStructureSinglePart{Type: "image", Subtype: "png", ID: "<logo@x>", Size: 30,
				Extended: &imap.BodyStructureSinglePartExt{Disposition: &imap.BodyStructureDisposition{Value: "inline"}}},
		}},
		&imap.BodyStructureSinglePart{Type: "application", Subtype: "pdf", Size: 40, Params: map[string]string{"name": `C:\evil\..\r.pdf`},
			Extended: &imap.BodyStructureSinglePartExt{Disposition: &imap.BodyStructureDisposition{Value: "attachment"}}},
	}}
	got := attachmentsFromStructure(bs)
	want := []model.Attachment{
		{ContentType: "image/png", Size: 30, ContentID: "logo@x", Inline: true, Part: "2.2"},
		{Filename: "r.pdf", ContentType: "application/pdf", Size: 40, Part: "3"},
	}
	if len(got) != len(want) {
		t.Fatalf("attachmentsFromStructure() = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("attachment %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestXOAuth2(t *testing.T) {
	x := &xoauth2Client{user: "alice@example.com", token: "tok"}
	mech, ir, err := x.Start()
	if err != nil || mech != "XOAUTH2" || string(ir) != "user=alice@example.com\x01auth=Bearer tok\x01\x01" {
		t.Errorf("Start() = %q, %q, %v", mech, ir, err)
	}
	// The dummy %x01, not an empty response: go-imap sends an empty one
	// as "=", which Dovecot refuses as invalid base64.
	if resp, _ := x.Next([]byte(`{"status":"401"}`)); string(resp) != "\x01" {
		t.Errorf("Next(error challenge) = %q, want \"\\x01\"", resp)
	}
}

// TestWatchReconnects drops the watch connection under Watch and checks
// that it reconnects (with backoff) and reports a possible change.
func TestWatchReconnects(t *testing.T) {
	ts := newMemServer(t)
	var (
		conns    = make(chan net.Conn, 10)
		dials    atomic.Int64
		idling   = make(chan struct{}) // closed when the server first accepts IDLE
		idleOnce sync.Once
	)
	src := ts.source(t, func(c *Config) {
		c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			conns <- conn
			return &idleConn{Conn: conn, idling: func() { idleOnce.Do(func() { close(idling) }) }}, nil
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 10)
	done := make(chan error, 1)
	go func() { done <- src.Watch(ctx, func() { changed <- struct{}{} }) }()

	first := <-conns
	select {
	case <-idling:
	case err := <-done:
		t.Fatalf("Watch() = %v before reaching IDLE", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not reach IDLE within 10s")
	}
	select {
	case <-changed:
		t.Fatal("changed() called before anything happened")
	default:
	}
	first.Close() // the network drops the connection
	select {
	case <-changed:
	case err := <-done:
		t.Fatalf("Watch() gave up after a dropped connection: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no reconnect within 10s")
	}
	if n := dials.Load(); n != 2 {
		t.Errorf("dialled %d times, want 2", n)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch() = %v, want context.Canceled", err)
	}
}

// idleConn calls idling when the server answers an IDLE command with
// its continuation request ("+ idling"): the client is then in IDLE.
type idleConn struct {
	net.Conn
	idling func()
	sent   atomic.Bool // IDLE written
}

func (c *idleConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(" IDLE\r\n")) {
		c.sent.Store(true)
	}
	return c.Conn.Write(b)
}

func (c *idleConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.sent.Load() && bytes.HasPrefix(b[:n], []byte("+")) {
		c.idling()
	}
	return n, err
}

func TestConfigErrorsNotRetried(t *testing.T) {
	src := New("acct", Config{Host: "imap.example.com", TLS: TLSInsecurePlain, Username: "u",
		Password: func(context.Context) (string, error) { return "p", nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := src.Watch(ctx, func() {})
	if !isConfigError(err) || !strings.Contains(err.Error(), "refusing unencrypted") {
		t.Errorf("Watch() = %v, want the configuration error at once", err)
	}
}
