//go:build !unix

package store

import "os"

// probeLock cannot tell without flock: these systems take no outbox lock
// (outbox_lock_other.go), so nothing is ever held.
func probeLock(*os.File) (held bool, err error) { return false, nil }
