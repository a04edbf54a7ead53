package store

import (
	"errors"
	"fmt"
	"path/filepath"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDiskFull is wrapped by the error of a write the store could not make
// because the disk (or the user's quota or file size limit) had no room.
var ErrDiskFull = errors.New("store: the disk is full")

// diskFullError names the store's directory and says what to do, since
// SQLite's own words ("database or disk is full", "disk I/O error") do
// not.
type diskFullError struct {
	dir string
	err error
}

func (e *diskFullError) Error() string {
	return fmt.Sprintf("the disk is full: could not write the store in %s (%v); free some space there and try again (what was already saved is kept)", e.dir, e.err)
}

func (e *diskFullError) Unwrap() []error { return []error{ErrDiskFull, e.err} }

// diskFull wraps err in a diskFullError when SQLite failed for want of
// room: SQLITE_FULL (ENOSPC) or SQLITE_IOERR_WRITE, which is what a write
// refused for a quota (EDQUOT) or file size limit (EFBIG) gives. Other
// errors, and nil, are returned as they are.
func (s *Store) diskFull(err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	if se.Code()&0xff == sqlite3.SQLITE_FULL || se.Code() == sqlite3.SQLITE_IOERR_WRITE {
		return &diskFullError{dir: filepath.Dir(s.path), err: err}
	}
	return err
}
