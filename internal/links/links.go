// Package links lists the links of a mail message (the anchors of its HTML
// part with their text, and the URLs of its plain text) and marks the ones
// whose text names another place than they lead to, and writes a message's
// HTML part to a private file a browser can open without loading anything
// from the network.
//
// Mail is untrusted: nothing here opens or fetches a link.
package links

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	_ "github.com/emersion/go-message/charset" // decodes every charset go-message knows
	"github.com/emersion/go-message/mail"
	"golang.org/x/net/html"
)

// Link is one link of a message.
type Link struct {
	// Text is what the message shows for it (the anchor text; the URL
	// itself for a link in plain text).
	Text string
	// URL is where it leads, exactly as written in the message.
	URL string
	// Mismatch: the text names a host other than the URL's (a link that
	// reads "paypal.com" but leads elsewhere).
	Mismatch bool
	// Openable: an http, https or mailto URL; any other scheme
	// (javascript:, file:, data:, ...) is never opened.
	Openable bool
}

// maxLinks bounds the list: a message with more is a spam page.
const maxLinks = 500

// maxPart bounds how much of one part is read.
const maxPart = 8 << 20

// FromRaw returns the links of a raw message, HTML anchors first (in
// document order) and then URLs of the plain text not already listed, and
// the decoded HTML part (nil when there is none). A message whose MIME is
// broken yields the links of the parts that could be read.
func FromRaw(raw []byte) ([]Link, []byte, error) {
	mr, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil && mr == nil {
		return nil, nil, fmt.Errorf("links: %w", err)
	}
	var htmlPart []byte
	var texts []string
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if p == nil {
				break // a broken part ends the walk; keep what was read
			}
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if ct == "" {
			ct = "text/plain"
		}
		if _, isAtt := p.Header.(*mail.AttachmentHeader); isAtt {
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(p.Body, maxPart))
		switch ct {
		case "text/html":
			if htmlPart == nil {
				htmlPart = b
			}
		case "text/plain":
			texts = append(texts, string(b))
		}
	}
	var out []Link
	seen := map[string]bool{}
	if htmlPart != nil {
		for _, l := range FromHTML(htmlPart) {
			seen[l.URL] = true
			out = append(out, l)
		}
	}
	for _, t := range texts {
		for _, l := range FromText(t) {
			if !seen[l.URL] && len(out) < maxLinks {
				seen[l.URL] = true
				out = append(out, l)
			}
		}
	}
	return out, htmlPart, nil
}

// FromHTML returns the anchors (a href) and area links of an HTML document
// with their visible text.
func FromHTML(doc []byte) []Link {
	z := html.NewTokenizer(bytes.NewReader(doc))
	var out []Link
	var cur *Link
	var text strings.Builder
	for len(out) < maxLinks {
		switch z.Next() {
		case html.ErrorToken:
			if cur != nil {
				out = append(out, finish(*cur, text.String()))
			}
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if tag != "a" && tag != "area" {
				if tag == "img" && cur != nil && hasAttr {
					// An image link reads as its alt text.
					for {
						k, v, more := z.TagAttr()
						if string(k) == "alt" {
							text.WriteString(" " + string(v))
						}
						if !more {
							break
						}
					}
				}
				continue
			}
			if cur != nil {
				out = append(out, finish(*cur, text.String()))
				cur = nil
			}
			var href string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "href" {
					href = strings.TrimSpace(string(v))
				}
			}
			if href == "" || strings.HasPrefix(href, "#") {
				continue
			}
			text.Reset()
			if tag == "area" {
				out = append(out, finish(Link{URL: href}, ""))
				continue
			}
			cur = &Link{URL: href}
		case html.EndTagToken:
			name, _ := z.TagName()
			if string(name) == "a" && cur != nil {
				out = append(out, finish(*cur, text.String()))
				cur = nil
			}
		case html.TextToken:
			if cur != nil {
				text.Write(z.Text())
			}
		}
	}
	return out
}

var reURL = regexp.MustCompile(`(?i)\b(?:https?://|mailto:|www\.)[^\s<>"'\x60]+`)

// FromText returns the URLs written in plain text.
func FromText(s string) []Link {
	var out []Link
	for _, u := range reURL.FindAllString(s, maxLinks) {
		u = strings.TrimRight(u, ".,;:!?)]}>")
		out = append(out, finish(Link{URL: u}, u))
	}
	return out
}

// finish sets the text (spaces collapsed), whether the link is openable
// and whether its text names another host.
func finish(l Link, text string) Link {
	l.Text = strings.Join(strings.Fields(text), " ")
	l.Openable = Openable(l.URL)
	if th := textHost(l.Text); th != "" {
		uh := urlHost(l.URL)
		l.Mismatch = uh == "" || !sameSite(th, uh)
	}
	return l
}

// Openable reports whether u may be handed to a browser: an absolute
// http, https or mailto URL without spaces or control characters.
func Openable(u string) bool {
	for _, r := range u {
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https":
		return p.Host != ""
	case "mailto":
		return p.Opaque != "" || p.Path != ""
	}
	return false
}

var reHostText = regexp.MustCompile(`(?i)^(?:https?://)?((?:[a-z0-9\p{L}-]+\.)+[a-z\p{L}]{2,})(?:[/:?#].*)?$`)

// textHost returns the host a link's text names ("paypal.com",
// "https://www.paypal.com/login"), or "" when the text is not an address.
func textHost(text string) string {
	t := strings.TrimSpace(text)
	if t == "" || strings.ContainsAny(t, " \t") || strings.Contains(t, "@") {
		return ""
	}
	m := reHostText.FindStringSubmatch(t)
	if m == nil {
		return ""
	}
	return strings.ToLower(strings.TrimPrefix(strings.ToLower(m[1]), "www."))
}

// urlHost returns the lower-cased host of a URL without "www.".
func urlHost(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return ""
	}
	if p.Host == "" && strings.HasPrefix(strings.ToLower(u), "www.") {
		if q, err := url.Parse("http://" + u); err == nil {
			p = q
		}
	}
	return strings.TrimPrefix(strings.ToLower(p.Hostname()), "www.")
}

// sameSite reports whether host a and b are the same or one is a
// subdomain of the other.
func sameSite(a, b string) bool {
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// csp blocks everything a mail's HTML could load or run: scripts, remote
// images (tracking pixels), frames, forms; inline styles and embedded
// data: images still show.
const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'">`

// WriteHTML writes an HTML part to a new private directory (0700) as
// message.html (0600), with a Content-Security-Policy in front that stops
// the browser from loading anything or running scripts. It returns the
// file's path and the directory to remove when done.
func WriteHTML(tmpDir string, doc []byte) (path, dir string, err error) {
	dir, err = os.MkdirTemp(tmpDir, "mailsift-html-*") // 0700
	if err != nil {
		return "", "", fmt.Errorf("links: private directory: %w", err)
	}
	path = filepath.Join(dir, "message.html")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.WriteString("<!DOCTYPE html>\n" + csp + `<meta charset="utf-8">` + "\n")
		if err == nil {
			_, err = f.Write(doc)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("links: write %s: %w", path, err)
	}
	return path, dir, nil
}

// Sweep removes the private HTML copies (WriteHTML's directories) in
// tmpDir ("" = os.TempDir()) last changed before cutoff: a copy whose
// removal timer did not run because mailsift ended first. It returns how
// many it removed.
func Sweep(tmpDir string, cutoff time.Time) int {
	if tmpDir == "" {
		tmpDir = os.TempDir()
	}
	entries, err := os.ReadDir(tmpDir)
	if err != nil {
		return 0
	}
	n := 0
	for _, en := range entries {
		if !en.IsDir() || !strings.HasPrefix(en.Name(), "mailsift-html-") {
			continue
		}
		fi, err := en.Info()
		if err != nil || fi.Mode().Perm() != 0o700 || !fi.ModTime().Before(cutoff) {
			continue
		}
		if os.RemoveAll(filepath.Join(tmpDir, en.Name())) == nil {
			n++
		}
	}
	return n
}
