package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTmuxEndToEnd builds mailsift, runs `mailsift --demo` in a detached
// tmux session (120x40) and drives it like a user: waits for the bucket
// headers, navigates, searches, opens a thread, goes back and quits.
func TestTmuxEndToEnd(t *testing.T) {
	tmux := requireTmux(t)
	dir := t.TempDir()
	bin := buildMailsift(t, dir)
	data := filepath.Join(dir, "data")
	exitFile := filepath.Join(dir, "exit")
	// The shell records the exit code so the test can assert a clean exit,
	// and prints it, so the test sees when it is there.
	// Empty config paths keep the user's real config and Ollama out of it.
	script := "env -u NO_COLOR XDG_CONFIG_HOME=" + filepath.Join(dir, "cfg") + " OLLAMA_HOST=http://127.0.0.1:9 " +
		bin + " --demo --data-dir " + data + "; code=$?; echo $code > " + exitFile + "; echo mailsift exited with $code; sleep 60"
	p := newTmuxPane(t, tmux, "mailsift-e2e-"+filepath.Base(dir), 120, 40, script)
	waitFor := func(what string, cond func(string) bool) string {
		t.Helper()
		return p.waitFor(what, 20*time.Second, cond, nil)
	}
	keys := p.keys

	// Deterministic offline triage (no Ollama on port 9) fills the four buckets.
	screen := waitFor("the four bucket headers", func(s string) bool {
		return hasAll("Urgent (", "Actionable (", "Informational (", "Low priority (")(s) &&
			!strings.Contains(s, "Not yet triaged") && !strings.Contains(s, " 0 threads") &&
			!strings.Contains(s, "(0)")
	})
	if !strings.Contains(screen, "demo") {
		t.Errorf("status bar lacks the account:\n%s", screen)
	}

	// Navigate: the cursor mark moves down one row and back.
	keys("g")
	top := waitFor("cursor on first row", func(s string) bool { return strings.Contains(s, "\n> ") })
	first := cursorLine(top)
	keys("j")
	moved := waitFor("cursor moved", func(s string) bool { return cursorLine(s) != first })
	if cursorLine(moved) == "" {
		t.Fatalf("no cursor after j:\n%s", moved)
	}
	keys("k")
	waitFor("cursor back", func(s string) bool { return cursorLine(s) == first })
	keys("Tab")
	waitFor("cursor in the next section", func(s string) bool { return cursorLine(s) != first })

	// Search and open a known demo thread.
	keys("/")
	waitFor("search prompt", hasAll("type to search"))
	keys("-l", "Escalation")
	waitFor("search results", hasAll("results for Escalation", "Ben Carter"))
	keys("Enter")
	waitFor("thread view", hasAll("Bucket:", "Our nightly data export from Northwind has failed"))
	keys("Escape")
	waitFor("search results again", hasAll("results for Escalation"))
	keys("Escape")
	waitFor("inbox again", hasAll("Urgent (", "Actionable ("))

	keys("q")
	waitFor("mailsift to exit", hasAll("mailsift exited with"))
	b, err := os.ReadFile(exitFile)
	if err != nil {
		t.Fatalf("exit code not recorded: %v", err)
	}
	if code := string(bytes.TrimSpace(b)); code != "0" {
		t.Fatalf("mailsift exited with %s; screen:\n%s", code, p.capture())
	}
}

// cursorLine returns the screen line holding the cursor mark.
func cursorLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "> ") {
			return l
		}
	}
	return ""
}
