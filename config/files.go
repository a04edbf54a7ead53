package config

import (
	"fmt"
	"os"
)

// EnsurePrivateDir creates dir (and its parents) with mode 0700, or tightens
// an existing dir to 0700 when others could read or enter it. The data dir
// holds the mail store and the log, which only the user may read. When it
// tightened dir, was is the mode dir had, so that the caller can log it;
// otherwise was is 0.
func EnsurePrivateDir(dir string) (was os.FileMode, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("create %s: %w; check --data-dir", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, fmt.Errorf("stat %s: %w", dir, err)
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return 0, nil
	}
	if fi.Mode()&os.ModeSticky != 0 {
		// A shared directory such as /tmp: tightening it would break it for
		// everyone else.
		return 0, fmt.Errorf("%s is a shared directory (mode %04o); choose a private data directory with --data-dir, e.g. ~/.local/share/mailsift", dir, perm|0o1000)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return 0, fmt.Errorf("%s is open to others (mode %04o) and cannot be tightened: %w; run `chmod 700 %s`", dir, perm, err, dir)
	}
	return perm, nil
}
