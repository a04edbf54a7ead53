package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTriageNeverSynced: triage of a source that was never synced says
// exactly what to run instead of reporting "triaged 0 thread(s)".
func TestTriageNeverSynced(t *testing.T) {
	mail := t.TempDir()
	for _, d := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(mail, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	msg := "From: Bob <bob@example.com>\r\nTo: me@example.org\r\nSubject: Lunch?\r\nMessage-ID: <1@example.com>\r\nDate: Mon, 2 Feb 2026 10:00:00 +0000\r\n\r\nLunch tomorrow?\r\n"
	if err := os.WriteFile(filepath.Join(mail, "new", "1.eml"), []byte(msg), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "MAILSIFT_EMAIL": "me@example.org"}
	data := t.TempDir()
	src := "maildir://" + mail

	r := runWith(t, env, "", "--source", src, "--data-dir", data, "triage", "--offline")
	want := "mailsift --source " + src + " --data-dir " + data + " sync"
	if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "triaged 0") {
		t.Fatalf("triage before sync: %+v, want exit 1 and the hint %q", r, want)
	}
	r = runWith(t, env, "", strings.Fields(strings.TrimPrefix(want, "mailsift "))...)
	if r.code != 0 {
		t.Fatalf("%s: %+v", want, r)
	}
	r = runWith(t, env, "", "--source", src, "--data-dir", data, "triage", "--offline")
	if r.code != 0 || !strings.Contains(r.stderr, "triaged 1 thread(s)") {
		t.Fatalf("triage after sync: %+v", r)
	}
}
