package autoconfig

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPresets(t *testing.T) {
	tests := []struct {
		email, imap, smtp, oauth string
	}{
		{"me@gmail.com", "imaps://me%40gmail.com@imap.gmail.com", "smtps://me%40gmail.com@smtp.gmail.com", "gmail"},
		{"Me@Outlook.com", "imaps://Me%40Outlook.com@outlook.office365.com", "smtp://Me%40Outlook.com@smtp.office365.com", "microsoft"},
		{"me@fastmail.com", "imaps://me%40fastmail.com@imap.fastmail.com", "smtps://me%40fastmail.com@smtp.fastmail.com", ""},
		{"me@icloud.com", "imaps://me%40icloud.com@imap.mail.me.com", "smtp://me%40icloud.com@smtp.mail.me.com", ""},
		{"me@yahoo.com", "imaps://me%40yahoo.com@imap.mail.yahoo.com", "smtps://me%40yahoo.com@smtp.mail.yahoo.com", ""},
		{"me@proton.me", "imap://me%40proton.me@127.0.0.1:1143", "smtp://me%40proton.me@127.0.0.1:1025", ""},
	}
	for _, tt := range tests {
		t.Run(tt.email, func(t *testing.T) {
			r, ok := Preset(tt.email)
			if !ok {
				t.Fatalf("Preset(%q): none", tt.email)
			}
			if r.SourceURL() != tt.imap || r.SMTPURL() != tt.smtp || r.OAuth2Provider != tt.oauth {
				t.Errorf("Preset(%q) = %s, %s, %q; want %s, %s, %q", tt.email, r.SourceURL(), r.SMTPURL(), r.OAuth2Provider, tt.imap, tt.smtp, tt.oauth)
			}
		})
	}
	if r, _ := Preset("me@proton.me"); !r.InsecureSkipVerify {
		t.Error("Proton Bridge preset must note its self-signed loopback certificate")
	}
	if _, ok := Preset("me@example.org"); ok {
		t.Error("preset for an unknown domain")
	}
}

// fakeDNS answers SRV lookups from a table; missing names are NXDOMAIN.
type fakeDNS map[string][]*net.SRV

func (f fakeDNS) LookupSRV(_ context.Context, service, proto, name string) (string, []*net.SRV, error) {
	key := "_" + service + "._" + proto + "." + name
	if rr, ok := f[key]; ok {
		return key, rr, nil
	}
	return "", nil, &net.DNSError{Err: "no such host", Name: key, IsNotFound: true}
}

func TestSRV(t *testing.T) {
	dns := fakeDNS{
		"_imap._tcp.example.org":        {{Target: "mail.example.org.", Port: 143}},
		"_imaps._tcp.example.org":       {{Target: "mail.example.org.", Port: 993}},
		"_submission._tcp.example.org":  {{Target: "smtp.provider.example.", Port: 587}},
		"_submissions._tcp.example.org": {{Target: ".", Port: 0}},
	}
	r, err := Discover(context.Background(), "me@example.org", Options{Resolver: dns, HTTPClient: noHTTP()})
	if err != nil {
		t.Fatal(err)
	}
	if r.SourceURL() != "imaps://me%40example.org@mail.example.org" || r.SMTPURL() != "smtp://me%40example.org@smtp.provider.example" {
		t.Errorf("SRV result = %s, %s", r.SourceURL(), r.SMTPURL())
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "outside example.org") {
		t.Errorf("a server under another domain is not pointed out: %q", r.Notes)
	}
	if !strings.Contains(r.Describe(), "DNS SRV") {
		t.Errorf("Describe does not say where it came from:\n%s", r.Describe())
	}
}

func TestSRVWrongPortIgnored(t *testing.T) {
	// _imaps pointing at 143 (the plaintext/STARTTLS port) is not used as
	// implicit TLS; the STARTTLS record is.
	dns := fakeDNS{
		"_imaps._tcp.example.org": {{Target: "mail.example.org.", Port: 143}},
		"_imap._tcp.example.org":  {{Target: "mail.example.org.", Port: 143}},
	}
	r, err := Discover(context.Background(), "me@example.org", Options{Resolver: dns, HTTPClient: noHTTP()})
	if err != nil {
		t.Fatal(err)
	}
	if r.IMAP.Security != StartTLS || r.IMAP.Port != 143 {
		t.Errorf("IMAP = %+v, want STARTTLS on 143", r.IMAP)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "ignored _imaps._tcp") {
		t.Errorf("notes %q do not say the record was ignored", r.Notes)
	}
	// Only the contradicting record: nothing usable.
	_, err = Discover(context.Background(), "me@example.org", Options{Resolver: fakeDNS{
		"_imaps._tcp.example.org": {{Target: "mail.example.org.", Port: 143}},
	}, HTTPClient: noHTTP()})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Discover = %v, want ErrNotFound", err)
	}
}

// noHTTP fails every request at once (no network in tests).
func noHTTP() *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, errors.New("dial " + r.URL.Host + ": unreachable")
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestDiscoveryFailsCleanly(t *testing.T) {
	_, err := Discover(context.Background(), "me@nowhere.example", Options{Resolver: fakeDNS{}, HTTPClient: noHTTP()})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Discover = %v, want ErrNotFound", err)
	}
	for _, want := range []string{"DNS SRV", "autoconfig", "https://autoconfig.nowhere.example/mail/config-v1.1.xml", "--source"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "emailaddress=") {
		t.Errorf("error repeats the query with the address: %q", err)
	}
}

const goodDoc = `<?xml version="1.0"?>
<clientConfig version="1.1">
  <emailProvider id="example.org">
    <domain>example.org</domain>
    <incomingServer type="pop3"><hostname>pop.example.org</hostname><port>995</port><socketType>SSL</socketType></incomingServer>
    <incomingServer type="imap"><hostname>imap.example.org</hostname><port>143</port><socketType>plain</socketType><username>%EMAILADDRESS%</username></incomingServer>
    <incomingServer type="imap"><hostname>imap.%EMAILDOMAIN%</hostname><port>993</port><socketType>SSL</socketType><username>%EMAILLOCALPART%</username><authentication>password-cleartext</authentication></incomingServer>
    <outgoingServer type="smtp"><hostname>smtp.example.org</hostname><port>587</port><socketType>STARTTLS</socketType><username>%EMAILADDRESS%</username></outgoingServer>
  </emailProvider>
</clientConfig>`

func TestParse(t *testing.T) {
	r, err := Parse([]byte(goodDoc), "me@example.org")
	if err != nil {
		t.Fatal(err)
	}
	if r.SourceURL() != "imaps://me@imap.example.org" || r.SMTPURL() != "smtp://me%40example.org@smtp.example.org" {
		t.Errorf("Parse = %s, %s", r.SourceURL(), r.SMTPURL())
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "offers no encryption") {
		t.Errorf("the plaintext server was not reported as skipped: %q", r.Notes)
	}
}

func TestParseHostile(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"entity expansion", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><clientConfig><emailProvider><incomingServer type="imap"><hostname>&lol2;</hostname></incomingServer></emailProvider></clientConfig>`, "DOCTYPE"},
		{"external entity", `<?xml version="1.0"?><!DOCTYPE c [<!ENTITY x SYSTEM "file:///etc/passwd">]><clientConfig><emailProvider><incomingServer type="imap"><hostname>&x;</hostname></incomingServer></emailProvider></clientConfig>`, "DOCTYPE"},
		{"not xml", `{"imap": "x"}`, "not"},
		{"only plaintext", `<clientConfig><emailProvider><incomingServer type="imap"><hostname>imap.example.org</hostname><port>143</port><socketType>plain</socketType></incomingServer></emailProvider></clientConfig>`, "no IMAP server with TLS"},
		{"bad host", `<clientConfig><emailProvider><incomingServer type="imap"><hostname>evil.example.org/x?y</hostname><port>993</port><socketType>SSL</socketType></incomingServer></emailProvider></clientConfig>`, "no IMAP server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), "me@example.org")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// webRig serves autoconfig documents for example.org over https (with a
// certificate the client trusts) and http, whatever host is dialled.
type webRig struct {
	https, http *httptest.Server
	client      *http.Client
}

func startWeb(t *testing.T, handler http.HandlerFunc) *webRig {
	t.Helper()
	cert, pool := makeCert(t, "example.org", "autoconfig.example.org")
	hs := httptest.NewUnstartedServer(handler)
	hs.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	hs.StartTLS()
	t.Cleanup(hs.Close)
	h := httptest.NewServer(handler)
	t.Cleanup(h.Close)
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			target := h.Listener.Addr().String()
			if port == "443" {
				target = hs.Listener.Addr().String()
			}
			var d net.Dialer
			return d.DialContext(ctx, network, target)
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &webRig{https: hs, http: h, client: &http.Client{Transport: tr}}
}

func TestAutoconfigHTTPS(t *testing.T) {
	var paths []string
	web := startWeb(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.Host+r.URL.Path)
		if r.TLS != nil && r.Host == "example.org" && r.URL.Path == "/.well-known/autoconfig/mail/config-v1.1.xml" {
			w.Write([]byte(goodDoc))
			return
		}
		http.NotFound(w, r)
	})
	r, err := Discover(context.Background(), "me@example.org", Options{Resolver: fakeDNS{}, HTTPClient: web.client})
	if err != nil {
		t.Fatalf("Discover: %v (requests %q)", err, paths)
	}
	if r.IMAP.Host != "imap.example.org" || !strings.Contains(r.Via, "https://example.org/.well-known/") {
		t.Errorf("Discover = %+v via %q", r.IMAP, r.Via)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "plain http") {
			t.Errorf("an https document is noted as plain http: %q", n)
		}
	}
}

func TestAutoconfigHTTPFallbackIsNoted(t *testing.T) {
	web := startWeb(t, func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil && r.Host == "autoconfig.example.org" {
			w.Write([]byte(goodDoc))
			return
		}
		http.NotFound(w, r)
	})
	r, err := Discover(context.Background(), "me@example.org", Options{Resolver: fakeDNS{}, HTTPClient: web.client})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "plain http") || !strings.Contains(r.Describe(), "plain http") {
		t.Errorf("http fallback not noted: %q", r.Notes)
	}
}

func TestAutoconfigRefusesDowngradeAndHugeDocuments(t *testing.T) {
	big := strings.Repeat(" ", MaxDocument+10)
	web := startWeb(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.TLS != nil && r.Host == "autoconfig.example.org":
			http.Redirect(w, r, "http://autoconfig.example.org/evil.xml", http.StatusFound)
		case r.TLS != nil:
			w.Write([]byte(big + goodDoc))
		case r.URL.Path == "/evil.xml":
			w.Write([]byte(goodDoc))
		default:
			http.NotFound(w, r)
		}
	})
	_, err := Discover(context.Background(), "me@example.org", Options{Resolver: fakeDNS{}, HTTPClient: web.client})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Discover = %v, want ErrNotFound", err)
	}
	for _, want := range []string{"refused a redirect from https to http", "larger than"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// makeCert returns a self-signed certificate for names and a pool
// trusting it.
func makeCert(t *testing.T, names ...string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}
