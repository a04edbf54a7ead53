package drafts

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
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// received is one message a test SMTP server accepted.
type received struct {
	From string
	To   []string
	Data []byte
	User string
	TLS  bool
}

// smtpBackend records sessions. Hooks let tests drop or stall the
// connection at a step.
type smtpBackend struct {
	mu   sync.Mutex
	msgs []received
	// user/pass, when set, are required (AUTH PLAIN and LOGIN).
	user, pass string
	// onMail is called after MAIL FROM; onData after the message was
	// read and recorded, before the reply. Returning an error fails the
	// command; dropping the connection is done with drop.
	onMail func(c *smtp.Conn)
	onData func(c *smtp.Conn) error
	// failData makes DATA reply with this error (after reading).
	failData error
	// sessions counts connections.
	sessions int
}

func (b *smtpBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	b.mu.Lock()
	b.sessions++
	b.mu.Unlock()
	return &smtpSession{b: b, c: c}, nil
}

func (b *smtpBackend) messages() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.msgs...)
}

type smtpSession struct {
	b    *smtpBackend
	c    *smtp.Conn
	user string
	from string
	to   []string
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain, sasl.Login} }

func (s *smtpSession) Auth(mech string) (sasl.Server, error) {
	check := func(u, p string) error {
		if u != s.b.user || p != s.b.pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		s.user = u
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(identity, u, p string) error { return check(u, p) }), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	}
	return nil, errors.New("unsupported mechanism")
}

// loginServer is a minimal AUTH LOGIN server.
type loginServer struct {
	check func(u, p string) error
	step  int
	user  string
}

func (l *loginServer) Next(resp []byte) ([]byte, bool, error) {
	switch l.step {
	case 0:
		l.step++
		if resp != nil {
			l.user = string(resp)
			l.step++
			return []byte("Password:"), false, nil
		}
		return []byte("Username:"), false, nil
	case 1:
		l.user = string(resp)
		l.step++
		return []byte("Password:"), false, nil
	default:
		return nil, true, l.check(l.user, string(resp))
	}
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.b.user != "" && s.user == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	s.from = from
	s.b.mu.Lock()
	onMail := s.b.onMail
	s.b.mu.Unlock()
	if onMail != nil {
		onMail(s.c)
	}
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.c.TLSConnectionState()
	s.b.mu.Lock()
	failData, onData := s.b.failData, s.b.onData
	if failData == nil {
		s.b.msgs = append(s.b.msgs, received{From: s.from, To: append([]string(nil), s.to...), Data: data, User: s.user, TLS: isTLS})
	}
	s.b.mu.Unlock()
	if failData != nil {
		return failData
	}
	if onData != nil {
		return onData(s.c)
	}
	return nil
}

func (s *smtpSession) Reset()        { s.from, s.to = "", nil }
func (s *smtpSession) Logout() error { return nil }

// drop closes the client connection without a reply.
func drop(c *smtp.Conn) { c.Conn().Close() }

type testSMTP struct {
	be   *smtpBackend
	host string
	port int
	// pool trusts the server's certificate (TLS servers only).
	pool *x509.CertPool
}

// startSMTP starts a go-smtp server on 127.0.0.1:0; mode "plain",
// "starttls" or "implicit".
func startSMTP(t testing.TB, be *smtpBackend, mode string) *testSMTP {
	t.Helper()
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.AllowInsecureAuth = mode == "plain"
	ts := &testSMTP{be: be, host: "127.0.0.1"}
	var ln net.Listener
	var err error
	if mode != "plain" {
		cert, pool := testCert(t)
		ts.pool = pool
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	if mode == "implicit" {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", srv.TLSConfig)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	ts.port = ln.Addr().(*net.TCPAddr).Port
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ts
}

// transport returns an SMTP transport for the server.
func (ts *testSMTP) transport(mode string) *SMTP {
	tr := &SMTP{Host: ts.host, Port: ts.port, TLS: SMTPInsecure, Timeout: 5 * time.Second}
	switch mode {
	case "starttls":
		tr.TLS = SMTPStartTLS
	case "implicit":
		tr.TLS = SMTPImplicitTLS
	}
	if ts.pool != nil {
		tr.TLSConfig = &tls.Config{RootCAs: ts.pool, ServerName: "127.0.0.1"}
	}
	if ts.be.user != "" {
		tr.Username = ts.be.user
		pass := ts.be.pass
		tr.Password = func(context.Context) (string, error) { return pass, nil }
	}
	return tr
}

// testCert makes a CA and a server certificate for 127.0.0.1.
func testCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailsift test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func countContaining(msgs []received, s string) int {
	n := 0
	for _, m := range msgs {
		if bytes.Contains(m.Data, []byte(s)) {
			n++
		}
	}
	return n
}
