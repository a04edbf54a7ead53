package main

import (
	"strings"
	"testing"
)

// TestReadCommandsOnFreshDataDir: commands that only read the store show
// an empty result, exit 0, on a data dir that has none yet.
func TestReadCommandsOnFreshDataDir(t *testing.T) {
	tests := []struct {
		args       []string
		stdout     string // exact
		stderrHint string
	}{
		{[]string{"outbox"}, "the outbox is empty\n", ""},
		{[]string{"outbox", "--json"}, "", ""},
		{[]string{"audit"}, "the audit log is empty\n", ""},
		{[]string{"audit", "--json"}, "", ""},
		{[]string{"search", "invoice"}, "", "mailsift sync"},
		{[]string{"search", "invoice", "--json"}, "", "mailsift sync"},
		{[]string{"outbox", "send"}, "processed 0 due item(s); see `mailsift outbox`\n", ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			r := runWith(t, nil, "", append([]string{"--data-dir", dir}, tt.args...)...)
			if r.code != 0 || r.stdout != tt.stdout || !strings.Contains(r.stderr, tt.stderrHint) {
				t.Errorf("code %d stdout %q stderr %q, want 0, %q and a hint %q", r.code, r.stdout, r.stderr, tt.stdout, tt.stderrHint)
			}
		})
	}
	r := runWith(t, nil, "", "--data-dir", t.TempDir(), "outbox", "retry", "3")
	if r.code != 1 || !strings.Contains(r.stderr, "no outbox item 3") {
		t.Errorf("retry on a fresh data dir: %+v", r)
	}
}
