package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommandPassesTheURLAsOneArgument(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"mybrowser", "xdg-open"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	u := "https://example.com/a?x=1&y=$(touch${IFS}/tmp/pwned);`id`"
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, tc := range []struct {
		browser string
		want    []string
	}{
		{"", []string{"xdg-open", u}},
		{"missing:mybrowser --new-tab", []string{"mybrowser", "--new-tab", u}},
		{"mybrowser --url=%s --x", []string{"mybrowser", "--url=" + u, "--x"}},
	} {
		c, err := Command(u, nil, env(tc.browser))
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(c.Path) != tc.want[0] || strings.Join(c.Args[1:], "\x00") != strings.Join(tc.want[1:], "\x00") {
			t.Errorf("BROWSER=%q: %s %q, want %q", tc.browser, c.Path, c.Args[1:], tc.want)
		}
	}
	for _, bad := range []string{"javascript:alert(1)", "file://evil.example/share", "https://a.example/\x1b]52;c;x\x07", "data:text/html,hi", "https://"} {
		if _, err := Command(bad, nil, env("")); err == nil {
			t.Errorf("Command(%q) accepted", bad)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Command("https://example.com", nil, env("")); err == nil || !strings.Contains(err.Error(), "set BROWSER") {
		t.Errorf("no browser: %v", err)
	}
}
