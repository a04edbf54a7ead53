package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorAccountChecks checks the per-account lines: a missing Maildir
// path fails with a fix, an existing one passes, and a sendmail command
// that does not exist fails naming it.
func TestDoctorAccountChecks(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"OLLAMA_HOST": fakeOllamaServer(t, []string{"llama3.2:3b"}, ""),
	}
	mail := filepath.Join(home, "Mail")
	cfgPath := filepath.Join(home, "config.toml")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[principal]\nemail = \"me@example.org\"\n[[account]]\nname = \"local\"\nsource = \"maildir://" + mail + "\"\nsendmail = \"/nonexistent/sendmail-xyz -t\"\n")
	r := runWith(t, env, "", "--config", cfgPath, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "account local: source") || !strings.Contains(r.stdout, "mbsync") {
		t.Fatalf("doctor with a missing Maildir: code %d\n%s", r.code, r.stdout)
	}
	if !strings.Contains(r.stdout, `sendmail command "/nonexistent/sendmail-xyz" not found`) {
		t.Fatalf("doctor did not flag the missing sendmail command:\n%s", r.stdout)
	}
	for _, d := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(mail, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write("[principal]\nemail = \"me@example.org\"\n[[account]]\nname = \"local\"\nsource = \"maildir://" + mail + "\"\nsendmail = \"/bin/sh -c true\"\n")
	r = runWith(t, env, "", "--config", cfgPath, "doctor")
	if r.code != 0 {
		t.Fatalf("doctor with a good Maildir and sendmail: code %d\n%s", r.code, r.stdout)
	}
}
