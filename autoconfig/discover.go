package autoconfig

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Resolver looks up SRV records (net.Resolver does).
type Resolver interface {
	LookupSRV(ctx context.Context, service, proto, name string) (string, []*net.SRV, error)
}

// Options tune Discover; the zero value uses the system resolver and an
// HTTP client with a 15-second timeout.
type Options struct {
	Resolver   Resolver
	HTTPClient *http.Client
}

// MaxDocument is the largest autoconfig document read; a larger one is
// refused.
const MaxDocument = 256 << 10

// ErrNotFound says neither DNS SRV nor an autoconfig document named the
// servers; the caller asks for them by hand.
var ErrNotFound = errors.New("no servers found")

// Discover finds the servers for email: a preset, else DNS SRV records,
// else the domain's autoconfig document over https (plain http only as
// the spec's last fallback, said in the notes). Each step's failure is
// kept for the final error, which says what was tried.
func Discover(ctx context.Context, email string, opts Options) (Result, error) {
	if r, ok := Preset(email); ok {
		return r, nil
	}
	domain, err := Domain(email)
	if err != nil {
		return Result{}, err
	}
	var tried []string
	r, err := lookupSRV(ctx, email, domain, opts)
	if err == nil {
		return r, nil
	}
	tried = append(tried, "DNS SRV: "+err.Error())
	r, err = fetchAutoconfig(ctx, email, domain, opts)
	if err == nil {
		return r, nil
	}
	tried = append(tried, "autoconfig: "+err.Error())
	return Result{}, fmt.Errorf("%w for %s (%s); give the servers with --source and --smtp", ErrNotFound, domain, strings.Join(tried, "; "))
}

// lookupSRV reads the RFC 6186 records. Implicit TLS is preferred to
// STARTTLS, as RFC 8314 asks. A record whose port contradicts its
// service (imaps on 143, submissions on 25 or 587) is ignored with a note.
func lookupSRV(ctx context.Context, email, domain string, opts Options) (Result, error) {
	res := opts.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	r := Result{Email: email, Via: "DNS SRV records of " + domain}
	type svc struct {
		name     string
		sec      Security
		badPorts []uint16
		dst      *Server
	}
	var errs []string
	for _, group := range [][]svc{
		{{"imaps", TLS, []uint16{143}, &r.IMAP}, {"imap", StartTLS, []uint16{993}, &r.IMAP}},
		{{"submissions", TLS, []uint16{25, 587}, &r.SMTP}, {"submission", StartTLS, []uint16{25, 465}, &r.SMTP}},
	} {
		for _, s := range group {
			_, addrs, err := res.LookupSRV(ctx, s.name, "tcp", domain)
			if err != nil {
				var de *net.DNSError
				if !errors.As(err, &de) || !de.IsNotFound {
					errs = append(errs, fmt.Sprintf("_%s._tcp: %v", s.name, err))
				}
				continue
			}
			srv := pickSRV(addrs)
			if srv == nil {
				continue // "." target: the service is not offered
			}
			host := strings.ToLower(strings.TrimSuffix(srv.Target, "."))
			if containsPort(s.badPorts, srv.Port) {
				r.Notes = append(r.Notes, fmt.Sprintf("ignored _%s._tcp: it points at port %d, which is not a %s port", s.name, srv.Port, describeSecurity(s.sec)))
				continue
			}
			if !validHost(host) {
				r.Notes = append(r.Notes, fmt.Sprintf("ignored _%s._tcp: target %q is not a host name", s.name, srv.Target))
				continue
			}
			*s.dst = Server{Host: host, Port: int(srv.Port), Security: s.sec}
			if host != domain && !strings.HasSuffix(host, "."+domain) {
				r.Notes = append(r.Notes, fmt.Sprintf("_%s._tcp names %s, outside %s: DNS is not authenticated, so check that this is your provider", s.name, host, domain))
			}
			break
		}
	}
	if r.IMAP.Host == "" {
		if len(errs) > 0 {
			return Result{}, errors.New(strings.Join(errs, "; "))
		}
		return Result{}, errors.New("no _imaps._tcp or _imap._tcp record")
	}
	return r, nil
}

func pickSRV(addrs []*net.SRV) *net.SRV {
	// net.Resolver returns them ordered by priority and weight.
	for _, a := range addrs {
		if a.Target != "." && a.Target != "" && a.Port != 0 {
			return a
		}
	}
	return nil
}

func containsPort(ports []uint16, p uint16) bool {
	for _, x := range ports {
		if x == p {
			return true
		}
	}
	return false
}

// validHost accepts DNS names and IP addresses only.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if net.ParseIP(h) != nil {
		return true
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// autoconfigURLs are where the document is looked for, in order: the
// autoconfig host, then the domain's well-known path, over https; the
// autoconfig host over plain http is the spec's last fallback.
func autoconfigURLs(email, domain string) (secure []string, plain string) {
	q := "?emailaddress=" + url.QueryEscape(email)
	secure = []string{
		"https://autoconfig." + domain + "/mail/config-v1.1.xml" + q,
		"https://" + domain + "/.well-known/autoconfig/mail/config-v1.1.xml",
	}
	return secure, "http://autoconfig." + domain + "/mail/config-v1.1.xml" + q
}

func fetchAutoconfig(ctx context.Context, email, domain string, opts Options) (Result, error) {
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	secure, plain := autoconfigURLs(email, domain)
	var errs []string
	for _, u := range secure {
		r, err := fetchOne(ctx, hc, u, email, true)
		if err == nil {
			return r, nil
		}
		errs = append(errs, err.Error())
	}
	r, err := fetchOne(ctx, hc, plain, email, false)
	if err == nil {
		r.Notes = append(r.Notes, "the autoconfig document came over plain http (no https copy was found), so anyone on the network could have changed it: check these servers")
		return r, nil
	}
	errs = append(errs, err.Error())
	return Result{}, errors.New(strings.Join(errs, "; "))
}

// fetchOne reads one autoconfig document. Over https a redirect to plain
// http is refused.
func fetchOne(ctx context.Context, hc *http.Client, raw, email string, secure bool) (Result, error) {
	client := *hc
	prev := hc.CheckRedirect
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if secure && req.URL.Scheme != "https" {
			return fmt.Errorf("refused a redirect from https to %s", req.URL.Scheme)
		}
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if prev != nil {
			return prev(req, via)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", redactQuery(raw), err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", redactQuery(raw), unwrapURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Result{}, fmt.Errorf("%s: %s", redactQuery(raw), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocument+1))
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", redactQuery(raw), err)
	}
	if len(data) > MaxDocument {
		return Result{}, fmt.Errorf("%s: document larger than %d KiB; refused", redactQuery(raw), MaxDocument>>10)
	}
	r, err := Parse(data, email)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", redactQuery(raw), err)
	}
	r.Via = "autoconfig " + redactQuery(raw)
	return r, nil
}

func redactQuery(raw string) string {
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		return raw[:i]
	}
	return raw
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// clientConfig is the part of config-v1.1.xml mailsift reads.
type clientConfig struct {
	XMLName  xml.Name `xml:"clientConfig"`
	Provider struct {
		ID       string      `xml:"id,attr"`
		Incoming []xmlServer `xml:"incomingServer"`
		Outgoing []xmlServer `xml:"outgoingServer"`
	} `xml:"emailProvider"`
}

type xmlServer struct {
	Type           string   `xml:"type,attr"`
	Hostname       string   `xml:"hostname"`
	Port           string   `xml:"port"`
	SocketType     string   `xml:"socketType"`
	Username       string   `xml:"username"`
	Authentication []string `xml:"authentication"`
}

// Parse reads a Thunderbird autoconfig document (config-v1.1.xml) for
// email. A document type declaration is refused outright (Go's XML
// decoder expands no external entities, and a real document needs none);
// plaintext servers are skipped with a note; placeholders (%EMAILADDRESS%,
// %EMAILLOCALPART%, %EMAILDOMAIN%) are filled in.
func Parse(data []byte, email string) (Result, error) {
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	dec.Strict = true
	var doc clientConfig
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Result{}, fmt.Errorf("not a valid autoconfig document: %w", err)
		}
		if d, ok := tok.(xml.Directive); ok && strings.HasPrefix(strings.ToUpper(strings.TrimSpace(string(d))), "DOCTYPE") {
			return Result{}, errors.New("autoconfig document declares a DOCTYPE, which a real one never does; refused")
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "clientConfig" {
			if err := dec.DecodeElement(&doc, &se); err != nil {
				return Result{}, fmt.Errorf("not a valid autoconfig document: %w", err)
			}
			break
		}
	}
	if doc.XMLName.Local == "" {
		return Result{}, errors.New("not an autoconfig document (no clientConfig element)")
	}
	r := Result{Email: email}
	local, domain, _ := strings.Cut(email, "@")
	fill := func(s string) string {
		s = strings.ReplaceAll(s, "%EMAILADDRESS%", email)
		s = strings.ReplaceAll(s, "%EMAILLOCALPART%", local)
		s = strings.ReplaceAll(s, "%EMAILDOMAIN%", domain)
		return strings.TrimSpace(s)
	}
	pick := func(list []xmlServer, kind string) (Server, bool) {
		for _, x := range list {
			if !strings.EqualFold(x.Type, kind) {
				continue
			}
			host := strings.ToLower(fill(x.Hostname))
			port, err := strconv.Atoi(strings.TrimSpace(x.Port))
			if !validHost(host) || err != nil || port < 1 || port > 65535 {
				r.Notes = append(r.Notes, fmt.Sprintf("skipped a %s server with host %q port %q: not a host and port", kind, x.Hostname, x.Port))
				continue
			}
			var sec Security
			switch strings.ToUpper(strings.TrimSpace(x.SocketType)) {
			case "SSL", "TLS":
				sec = TLS
			case "STARTTLS":
				sec = StartTLS
			default:
				r.Notes = append(r.Notes, fmt.Sprintf("skipped %s %s:%d: it offers no encryption (socketType %q)", kind, host, port, x.SocketType))
				continue
			}
			for _, a := range x.Authentication {
				if strings.EqualFold(strings.TrimSpace(a), "OAuth2") {
					r.Notes = append(r.Notes, fmt.Sprintf("%s %s signs in with OAuth2: set oauth2_provider and your client id (see the README)", kind, host))
					break
				}
			}
			user := fill(x.Username)
			if user == email {
				user = ""
			}
			return Server{Host: host, Port: port, Security: sec, User: user}, true
		}
		return Server{}, false
	}
	var ok bool
	if r.IMAP, ok = pick(doc.Provider.Incoming, "imap"); !ok {
		return Result{}, errors.New("the document names no IMAP server with TLS or STARTTLS")
	}
	r.SMTP, _ = pick(doc.Provider.Outgoing, "smtp")
	return r, nil
}
