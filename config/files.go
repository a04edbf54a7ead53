package config

import (
	"fmt"
	"os"
)

// EnsurePrivateDir creates dir (and its parents) with mode 0700, or tightens
// an existing dir to 0700 when others could read or enter it; tightened
// reports the latter so that the caller can log it. The data dir holds the
// mail store and the log, which only the user may read.
func EnsurePrivateDir(dir string) (tightened bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("create %s: %w; check --data-dir", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", dir, err)
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return false, nil
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return false, fmt.Errorf("%s is readable by others (mode %04o) and cannot be tightened: %w; run `chmod 700 %s`", dir, fi.Mode().Perm(), err, dir)
	}
	return true, nil
}
