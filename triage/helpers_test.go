package triage

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestQuoteOrSignatureHint checks the one-scan hint against the plain
// substring tests it replaces.
func TestQuoteOrSignatureHint(t *testing.T) {
	old := func(body string) bool {
		return strings.Contains(body, "\n>") || strings.HasPrefix(body, ">") ||
			strings.Contains(body, "wrote:") || strings.Contains(body, "\n--") ||
			strings.Contains(body, "-----") || strings.Contains(body, "Sent from my")
	}
	for _, b := range []string{"", ">", "> quoted", "a\n>b", "a\n-b", "a\n--", "a\n--\nsig", "x -- y", "Bob wrote:",
		"----", "-----", "Sent from my phone", "Sent from me", "plain\ntext\n", "\n", "\n\n", "a\n", "end\n-"} {
		if got, want := quoteOrSignatureHint(b), old(b); got != want {
			t.Errorf("quoteOrSignatureHint(%q) = %v, want %v", b, got, want)
		}
	}
}

// changes is a broadcast that a fake's state changed: tests wait on it
// and re-check their condition, instead of polling with sleeps.
type changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// signal wakes every waiter.
func (c *changes) signal() {
	c.mu.Lock()
	if c.ch != nil {
		close(c.ch)
	}
	c.ch = make(chan struct{})
	c.mu.Unlock()
}

// next returns a channel closed at the next signal.
func (c *changes) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// hangGuard only ends a test that would otherwise hang; no test waits
// for it to pass.
const hangGuard = 10 * time.Second

// waitUntil waits until cond holds, re-checking it at every signal of c.
// It returns false if cond still does not hold after hangGuard.
func (c *changes) waitUntil(cond func() bool) bool {
	guard := time.NewTimer(hangGuard)
	defer guard.Stop()
	for {
		next := c.next() // taken before the check: no signal is missed
		if cond() {
			return true
		}
		select {
		case <-next:
		case <-guard.C:
			return cond()
		}
	}
}

// waitFor is waitUntil that fails the test on a hang.
func waitFor(t *testing.T, what string, c *changes, cond func() bool) {
	t.Helper()
	if !c.waitUntil(cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}
