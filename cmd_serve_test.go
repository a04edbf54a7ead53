package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeTokenAndShutdown: on a non-loopback address serve makes a 0600
// token in the data directory and refuses requests without it; cancelling
// the context shuts it down gracefully with exit 0.
func TestServeTokenAndShutdown(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"--demo", "--data-dir", dir, "serve", "--addr", "0.0.0.0:0"}, strings.NewReader(""), io.Discard, pw,
			func(k string) string { return env[k] })
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	var port string
	for sc.Scan() {
		if m := regexp.MustCompile(`listening on http://.*:(\d+) `).FindStringSubmatch(sc.Text()); m != nil {
			port = m[1]
			break
		}
	}
	if port == "" {
		t.Fatal("serve printed no listening line")
	}
	go io.Copy(io.Discard, pr)
	fi, err := os.Stat(filepath.Join(dir, "serve.token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", fi, err)
	}
	tok, _ := os.ReadFile(filepath.Join(dir, "serve.token"))
	get := func(auth string) int {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+port+"/v1/approvals", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := get(""); c != 401 {
		t.Errorf("no token = %d, want 401", c)
	}
	if c := get("Bearer " + strings.TrimSpace(string(tok))); c != 200 {
		t.Errorf("with the token = %d, want 200", c)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve after cancel exited %d, want 0", code)
	}
}
