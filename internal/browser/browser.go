// Package browser builds the command that opens a URL in the user's
// browser: the first program of $BROWSER (a colon-separated list, "%s"
// standing for the URL) found on the PATH, else xdg-open (open on macOS).
// The URL is always one argument of an exec'd program, never text for a
// shell, and only http, https, mailto and file URLs of a local file are
// accepted.
package browser

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"unicode"
)

// Command returns the command that opens u, with env as its environment
// (nil: this process's). getenv reads BROWSER (nil: os.Getenv).
func Command(u string, env []string, getenv func(string) string) (*exec.Cmd, error) {
	if err := check(u); err != nil {
		return nil, err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, entry := range strings.Split(getenv("BROWSER"), ":") {
		argv := strings.Fields(entry)
		if len(argv) == 0 {
			continue
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			continue
		}
		placed := false
		for i, a := range argv[1:] {
			if strings.Contains(a, "%s") {
				argv[i+1] = strings.ReplaceAll(a, "%s", u)
				placed = true
			}
		}
		if !placed {
			argv = append(argv, u)
		}
		c := exec.Command(argv[0], argv[1:]...) //nolint:gosec // the user's own $BROWSER; the URL is one argument
		c.Env = env
		return c, nil
	}
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	if _, err := exec.LookPath(opener); err != nil {
		return nil, fmt.Errorf("no browser: set BROWSER (e.g. BROWSER=firefox) or install %s", opener)
	}
	c := exec.Command(opener, u)
	c.Env = env
	return c, nil
}

// check refuses what must never reach a browser from mail: other schemes
// (javascript:, data:, a remote file:), spaces and control or format
// characters.
func check(u string) error {
	for _, r := range u {
		if unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return errors.New("browser: the URL holds spaces or control characters; not opened")
		}
	}
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Errorf("browser: not a URL: %w", err)
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https":
		if p.Host == "" {
			return errors.New("browser: the URL has no host; not opened")
		}
		return nil
	case "mailto":
		return nil
	case "file":
		if p.Host != "" && p.Host != "localhost" {
			return errors.New("browser: a file URL on another host is not opened")
		}
		return nil
	}
	return fmt.Errorf("browser: %q links are not opened (only http, https and mailto)", p.Scheme)
}
