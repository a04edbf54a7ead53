// Package unsubscribe reads a message's List-Unsubscribe header (RFC 2369)
// and List-Unsubscribe-Post (RFC 8058) into a plan the user confirms, and
// performs the one-click POST.
package unsubscribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// Method is how the list is left.
type Method string

// Methods, in the order they are preferred.
const (
	// OneClick is an RFC 8058 POST of "List-Unsubscribe=One-Click".
	OneClick Method = "one-click"
	// Mailto is a message to the list's unsubscribe address.
	Mailto Method = "mailto"
	// Web is a page to open in the browser (no one-click support).
	Web Method = "web"
	// None: the message has no usable List-Unsubscribe.
	None Method = ""
)

// Body is the RFC 8058 POST body.
const Body = "List-Unsubscribe=One-Click"

// Plan is what unsubscribing from a message's list will do.
type Plan struct {
	Method Method
	// URL is the https URL of OneClick and Web.
	URL string
	// To, Subject and MessageBody are the message of Mailto.
	To, Subject, MessageBody string
	// Why explains None, or why a listed URI was not used.
	Why string
}

// PlanFor reads the headers (canonical names as keys) of a message.
func PlanFor(h map[string][]string) Plan {
	var uris []string
	for _, v := range h["List-Unsubscribe"] {
		uris = append(uris, parseList(v)...)
	}
	if len(uris) == 0 {
		return Plan{Why: "this message has no List-Unsubscribe header: it does not say how to leave its list"}
	}
	oneClick := false
	for _, v := range h["List-Unsubscribe-Post"] {
		if strings.EqualFold(strings.TrimSpace(v), Body) {
			oneClick = true
		}
	}
	var why []string
	var web, mailto *Plan
	for _, u := range uris {
		p, err := url.Parse(u)
		if err != nil || hasControl(u) {
			why = append(why, "an unreadable URI was skipped")
			continue
		}
		switch strings.ToLower(p.Scheme) {
		case "https", "http":
			if err := PostAllowed(u); err != nil {
				why = append(why, err.Error())
				continue
			}
			if oneClick {
				return Plan{Method: OneClick, URL: u}
			}
			if web == nil {
				web = &Plan{Method: Web, URL: u}
			}
		case "mailto":
			if mailto == nil {
				if mp, ok := mailtoPlan(p); ok {
					mailto = &mp
				} else {
					why = append(why, "a mailto URI without an address was skipped")
				}
			}
		default:
			why = append(why, fmt.Sprintf("a %q URI was skipped", p.Scheme))
		}
	}
	switch {
	case mailto != nil:
		return *mailto
	case web != nil:
		return *web
	}
	return Plan{Why: "no usable unsubscribe URI: " + strings.Join(why, "; ")}
}

// parseList splits "<a>, <b>" into its URIs.
func parseList(v string) []string {
	var out []string
	for {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(v[i:], '>')
		if j < 0 {
			return out
		}
		if u := strings.TrimSpace(v[i+1 : i+j]); u != "" {
			out = append(out, u)
		}
		v = v[i+j+1:]
	}
}

func mailtoPlan(p *url.URL) (Plan, bool) {
	to := p.Opaque
	if to == "" {
		to = p.Path
	}
	to, _ = url.PathUnescape(to)
	q := p.Query()
	if to == "" {
		to = q.Get("to")
	}
	if to == "" || !strings.Contains(to, "@") || hasControl(to) {
		return Plan{}, false
	}
	subj := q.Get("subject")
	if subj == "" {
		subj = "unsubscribe"
	}
	return Plan{Method: Mailto, To: to, Subject: subj, MessageBody: q.Get("body")}, true
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return true
		}
	}
	return false
}

// PostAllowed reports why a URL may not receive the POST: only https, or
// http to a loopback host (a local test server).
func PostAllowed(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("unsubscribe: not a URL: %w", err)
	}
	host := p.Hostname()
	switch strings.ToLower(p.Scheme) {
	case "https":
		if host == "" {
			return errors.New("unsubscribe: the URL has no host")
		}
		return nil
	case "http":
		if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
			return nil
		}
		return fmt.Errorf("unsubscribe: %s is plain http; mailsift only posts to https URLs", host)
	}
	return fmt.Errorf("unsubscribe: %q URLs are not posted to", p.Scheme)
}

// Timeout bounds the POST.
const Timeout = 20 * time.Second

// Client returns the client Post uses when given nil: no cookie jar, no
// redirects followed, a timeout.
func Client() *http.Client {
	return &http.Client{
		Timeout: Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Post sends the RFC 8058 one-click request to u: a POST with the body
// "List-Unsubscribe=One-Click" as application/x-www-form-urlencoded, no
// cookies or credentials. client nil is Client(). A 2xx answer is
// success; a redirect is not followed and is an error.
func Post(ctx context.Context, client *http.Client, u string) error {
	if err := PostAllowed(u); err != nil {
		return err
	}
	if client == nil {
		client = Client()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(Body))
	if err != nil {
		return fmt.Errorf("unsubscribe: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", "mailsift (RFC 8058 one-click unsubscribe)")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("unsubscribe: POST %s: %w", redact(u), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("unsubscribe: POST %s: the list answered %s; try the list's web page or write to it", redact(u), resp.Status)
	}
	return nil
}

// redact shortens a URL for errors: its host and path, not the query
// (which usually holds a personal token).
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "the URL"
	}
	return p.Scheme + "://" + p.Host + p.Path
}
