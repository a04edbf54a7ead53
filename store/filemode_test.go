//go:build unix

package store

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withUmask022 runs the test under the common umask 022, under which files
// created with the default mode 0644 are readable by others; a stricter
// umask on the test machine would hide the bug.
func withUmask022(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

func modeOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestStoreFileModes checks that the store, its -wal and -shm files are
// created 0600, whatever the umask allows.
func TestStoreFileModes(t *testing.T) {
	withUmask022(t)
	path := filepath.Join(t.TempDir(), "data", "mailsift.db")
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.EnsureAccount(context.Background(), "a", "imaps://imap.example.com"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if m := modeOf(t, p); m != 0o600 {
			t.Errorf("%s mode = %04o, want 0600", filepath.Base(p), m)
		}
	}
	if m := modeOf(t, filepath.Dir(path)); m != 0o700 {
		t.Errorf("data dir mode = %04o, want 0700", m)
	}
}

// TestStoreTightensExisting checks that a store left readable by others (by
// an older mailsift) is tightened at open, that the log says so, and that
// the directory, which may be shared, is left alone.
func TestStoreTightensExisting(t *testing.T) {
	withUmask022(t)
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "mailsift.db")
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureAccount(context.Background(), "a", "imaps://imap.example.com"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Leave all three files and the directory open to others, as an older
	// mailsift did; the -wal and -shm files are recreated if absent.
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	s, err = Open(context.Background(), path, &Options{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.EnsureAccount(context.Background(), "b", "imaps://imap.example.com"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if m := modeOf(t, p); m != 0o600 {
			t.Errorf("%s mode = %04o after reopening, want 0600", filepath.Base(p), m)
		}
	}
	if m := modeOf(t, dir); m != 0o755 {
		t.Errorf("directory mode = %04o after reopening, want it left at 0755", m)
	}
	if !strings.Contains(logBuf.String(), "0644") || !strings.Contains(logBuf.String(), path) {
		t.Errorf("the log does not say the store was tightened: %q", logBuf.String())
	}
}
