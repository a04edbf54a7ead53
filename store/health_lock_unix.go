//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// probeLock tries an exclusive flock on f without waiting and releases it
// at once; it reports whether another holder has it.
func probeLock(f *os.File) (held bool, err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, nil
		}
		return false, err
	}
	return false, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
