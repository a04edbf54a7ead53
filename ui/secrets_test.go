package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusShowsRemoteModelHost checks that a model host off this machine
// is named in the status bar, and that a local one adds nothing.
func TestStatusShowsRemoteModelHost(t *testing.T) {
	st := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	d := newDriver(t, Options{Store: st, ModelHost: "gpu-box:11434"}, 120, 30)
	if got := d.m.statusLine(); !strings.Contains(got, "model: gpu-box:11434 (remote)") {
		t.Errorf("status line %q lacks the remote model host", got)
	}
	local := newDriver(t, Options{Store: st}, 120, 30)
	if got := local.m.statusLine(); strings.Contains(got, "model:") || strings.Contains(got, "remote") {
		t.Errorf("status line %q names a model host, but it is local", got)
	}
}

// TestEditorEnvLacksPassword checks that $EDITOR does not inherit
// MAILSIFT_PASSWORD: the editor script prints its environment into a file.
func TestEditorEnvLacksPassword(t *testing.T) {
	t.Setenv("MAILSIFT_PASSWORD", "editor-pw-51c2")
	t.Setenv("MAILSIFT_TEST_MARKER", "present")
	dir := t.TempDir()
	out := filepath.Join(dir, "env.txt")
	script := filepath.Join(dir, "ed.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nenv > '"+out+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	draft := filepath.Join(dir, "draft.txt")
	if err := os.WriteFile(draft, []byte("body\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := editorCmd([]string{script}, draft).Run(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "MAILSIFT_TEST_MARKER=present") {
		t.Fatalf("editor environment lacks MAILSIFT_TEST_MARKER: the file holds %d bytes", len(b))
	}
	if strings.Contains(string(b), "MAILSIFT_PASSWORD") || strings.Contains(string(b), "editor-pw-51c2") {
		t.Error("the editor inherited MAILSIFT_PASSWORD")
	}
}
