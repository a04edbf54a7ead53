//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withUmask022 runs the test under the common umask 022, which lets a file
// created with mode 0644 be read by others.
func withUmask022(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

func permOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestLogFileModes checks that the log is 0600 and the data dir 0700, that
// an existing looser log and data dir are tightened, and that the log says
// the dir was tightened.
func TestLogFileModes(t *testing.T) {
	withUmask022(t)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "mailsift.log")
	if err := os.WriteFile(logPath, []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	os.Chmod(logPath, 0o644)
	g := &globals{DataDir: dir, Stderr: &bytes.Buffer{}, Env: func(string) string { return "" }}
	if _, err := g.Logger(); err != nil {
		t.Fatal(err)
	}
	g.closeLog()
	if m := permOf(t, dir); m != 0o700 {
		t.Errorf("data dir mode = %04o, want 0700", m)
	}
	if m := permOf(t, logPath); m != 0o600 {
		t.Errorf("log mode = %04o, want 0600", m)
	}
	b, _ := os.ReadFile(logPath)
	if !strings.Contains(string(b), "tightened") || !strings.Contains(string(b), "0755") {
		t.Errorf("the log does not say the data dir was tightened:\n%s", b)
	}

	fresh := filepath.Join(t.TempDir(), "new", "data")
	g = &globals{DataDir: fresh, Stderr: &bytes.Buffer{}, Env: func(string) string { return "" }}
	log, err := g.Logger()
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hello")
	g.closeLog()
	if m := permOf(t, fresh); m != 0o700 {
		t.Errorf("new data dir mode = %04o, want 0700", m)
	}
	if m := permOf(t, filepath.Join(fresh, "mailsift.log")); m != 0o600 {
		t.Errorf("new log mode = %04o, want 0600", m)
	}
}

// TestLogRotation checks that the log moves to .1 when a write would take it
// past the limit, replacing an older .1, and that both stay 0600.
func TestLogRotation(t *testing.T) {
	withUmask022(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "mailsift.log")
	if err := os.WriteFile(path+".1", []byte("oldest\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := openRotatingLog(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Repeat("a", 59) + "\n"
	second := strings.Repeat("b", 59) + "\n"
	for _, s := range []string{first, second} {
		if _, err := l.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path + ".1"); string(b) != first {
		t.Errorf("%s.1 = %q, want the first write", filepath.Base(path), b)
	}
	if b, _ := os.ReadFile(path); string(b) != second {
		t.Errorf("log = %q, want the second write only", b)
	}
	for _, p := range []string{path, path + ".1"} {
		if m := permOf(t, p); m != 0o600 {
			t.Errorf("%s mode = %04o, want 0600", filepath.Base(p), m)
		}
	}

	// A log already at the limit is rotated when it is opened.
	if err := os.WriteFile(path, bytes.Repeat([]byte("c"), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err = openRotatingLog(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	l.Write([]byte("d\n"))
	l.Close()
	if b, _ := os.ReadFile(path); string(b) != "d\n" {
		t.Errorf("log after opening a full one = %q, want a new log", b)
	}
	if fi, _ := os.Stat(path + ".1"); fi == nil || fi.Size() != 100 {
		t.Errorf("the full log was not moved to .1")
	}
	if logMaxBytes != 10<<20 {
		t.Errorf("logMaxBytes = %d, want 10 MB", logMaxBytes)
	}
}

// TestSourcePasswordFlagRefused checks that a password in --source, visible
// in the process list, is refused with the fix and not echoed.
func TestSourcePasswordFlagRefused(t *testing.T) {
	r := runWith(t, nil, "", "--source", "imaps://bob:hunter2@imap.example.com", "search", "x")
	if r.code == 0 {
		t.Fatalf("--source with a password was accepted: %+v", r)
	}
	for _, w := range []string{"--password-cmd", "MAILSIFT_PASSWORD", "process list"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr %q lacks %q", r.stderr, w)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "hunter2") {
		t.Errorf("the password is echoed: %+v", r)
	}
}
