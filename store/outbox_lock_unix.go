//go:build unix

package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
)

// lockFile opens (creating) the lock file at path and takes an exclusive
// flock on it without waiting; it records this process's id in the file
// for the error a second process reports.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open the outbox lock %s (check the data directory's permissions): %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, busyError(path, string(holder))
		}
		return nil, fmt.Errorf("store: lock the outbox with %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
