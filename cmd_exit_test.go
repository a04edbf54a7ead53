package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestExitCodeSanitisesServerText checks that error text from a server
// (a STARTTLS refusal, a sync error) cannot drive the terminal or forge a
// second line when run prints it.
func TestExitCodeSanitisesServerText(t *testing.T) {
	server := "no\x1b]52;c;cm0gLXJmIH4=\x07 STARTTLS\u009b2J\u202e\nmailsift sync: all good"
	var buf bytes.Buffer
	g := &globals{Stderr: &buf}
	err := errors.Join(fmt.Errorf("imap: server example.org:143 does not offer STARTTLS (%s)", server), errors.New("second\x1b[2K"))
	if code := g.exitCode("sync", err); code != 1 {
		t.Fatalf("exitCode = %d, want 1", code)
	}
	got := buf.String()
	// A line break in the text indents what follows, so no line can pass
	// for one of mailsift's own.
	want := "mailsift sync: imap: server example.org:143 does not offer STARTTLS (no STARTTLS\n  mailsift sync: all good)\nmailsift sync: second\n"
	if got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if strings.ContainsAny(got, "\x1b\u009b\u202e") {
		t.Errorf("printed a terminal control: %q", got)
	}
}

// TestTriageWarningSanitised checks the warning `mailsift triage` prints
// itself when the model server answers with hostile text.
func TestTriageWarningSanitised(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"error":"busy \u001b]0;pwned\u0007\u001b[2J\u202e"}`)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	env := seedSearchStore(t, dir)
	env["OLLAMA_HOST"] = srv.URL
	r := runWith(t, env, "", "--data-dir", dir, "triage")
	if !strings.Contains(r.stderr, "mailsift triage:") {
		t.Fatalf("no warning: %+v", r)
	}
	if strings.ContainsAny(r.stderr, "\x1b\x07\u202e") {
		t.Errorf("warning holds a terminal control: %q", r.stderr)
	}
}
