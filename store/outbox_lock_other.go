//go:build !unix

package store

import (
	"fmt"
	"os"
)

// lockFile opens (creating) the lock file at path. Without flock it takes
// no lock: on these systems one process at a time must run the outbox.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open the outbox lock %s (check the data directory's permissions): %w", path, err)
	}
	return f, nil
}
