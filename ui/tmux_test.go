package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2/imapclient"

	"mailsift/internal/testserver"
)

// tmuxPane drives one tmux session. It waits on what the screen shows:
// tmux copies everything the pane prints into a FIFO (pipe-pane), each
// write wakes the waiter, and only then is the screen captured again, so
// no wait is a fixed delay.
type tmuxPane struct {
	t       *testing.T
	tmux    string
	session string
	changed chan struct{}
}

// newTmuxPane starts script in a detached session of w x h cells.
// tmuxWait bounds each wait of the tmux end-to-end tests for a screen or
// a delivery. The tests wait on what they see, so this is only how long a
// broken feature takes to fail; it is generous because the race detector
// on two busy cores can take tens of seconds for one step.
const tmuxWait = 2 * time.Minute

func newTmuxPane(t *testing.T, tmux, session string, w, h int, script string) *tmuxPane {
	t.Helper()
	// The tmux server is shared by every test binary the user runs at
	// once: the pid keeps two runs of one test (same TempDir base name)
	// from driving each other's session.
	session += "-" + strconv.Itoa(os.Getpid())
	p := &tmuxPane{t: t, tmux: tmux, session: session, changed: make(chan struct{}, 1)}
	fifo := filepath.Join(t.TempDir(), "pane.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	// Read-write, so opening does not wait for tmux to open the writing end
	// and the reader never sees EOF; closing it at cleanup ends the reader.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("open fifo: %v", err)
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case p.changed <- struct{}{}:
			default: // a wake-up is already pending
			}
		}
	}()
	t.Cleanup(func() { f.Close() })
	p.run("new-session", "-d", "-s", session, "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), script)
	t.Cleanup(func() { exec.Command(tmux, "kill-session", "-t", session).Run() })
	p.run("pipe-pane", "-t", session, "-o", "cat >> "+fifo)
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, args...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// capture returns the visible screen.
func (p *tmuxPane) capture() string { return p.run("capture-pane", "-p", "-t", p.session) }

// keys sends tmux key names or, after "-l", literal text.
func (p *tmuxPane) keys(ks ...string) {
	p.run(append([]string{"send-keys", "-t", p.session}, ks...)...)
}

// waitFor returns the screen once cond holds, re-reading it after every
// output of the pane; it fails after timeout (a generous bound, not a
// delay: it passes as soon as the screen shows what it waits for).
func (p *tmuxPane) waitFor(what string, timeout time.Duration, cond func(string) bool, extra func() string) string {
	p.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		screen := p.capture()
		if cond(screen) {
			return screen
		}
		select {
		case <-p.changed:
		case <-deadline.C:
			msg := ""
			if extra != nil {
				msg = extra()
			}
			p.t.Fatalf("timed out after %v waiting for %s; screen:\n%s%s", timeout, what, screen, msg)
		}
	}
}

// hasAll returns a condition that holds when the screen contains every sub.
func hasAll(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	}
}

// requireTmux returns the tmux binary for an end-to-end test. It skips the
// test in -short mode; a missing tmux skips it too, or fails it under
// MAILSIFT_REQUIRE_SERVERS=1.
func requireTmux(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		testserver.Unavailable(t, "tmux is not installed", "apt-get install tmux")
	}
	return tmux
}

// buildMailsift builds the mailsift binary into dir and returns its path.
func buildMailsift(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mailsift")
	build := exec.Command("go", "build", "-o", bin, "mailsift")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// imapAppend appends the raw message to mailbox over c, the end-to-end
// tests' way of putting mail on the test Dovecot before mailsift syncs.
func imapAppend(t *testing.T, c *imapclient.Client, mailbox, raw string) {
	t.Helper()
	cmd := c.Append(mailbox, int64(len(raw)), nil)
	if _, err := cmd.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}
