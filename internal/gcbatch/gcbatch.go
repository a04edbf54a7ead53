// Package gcbatch switches the garbage collector to batch-job settings
// while a mail sync runs, wherever it runs (mailsift sync, or the TUI's
// background sync): a larger heap between collections (GOGC 400) under a
// 512 MB soft limit. On the 6,046-message corpus this trades ≈ 70 MB of
// peak memory for ≈ 10 % of the sync's time (see BENCHMARKS.md); the soft
// limit keeps a mailbox of large messages from growing the heap five-fold,
// since near it the collector runs as often as needed again.
//
// The GOGC and GOMEMLIMIT environment variables still win: a setting
// given there is left alone.
package gcbatch

import (
	"os"
	"runtime/debug"
	"sync"
)

const (
	// Percent is the GOGC used while a sync runs.
	Percent = 400
	// Limit is the soft memory limit used while a sync runs.
	Limit = 512 << 20
)

var (
	mu        sync.Mutex
	depth     int
	oldPct    int
	oldLimit  int64
	setPct    bool
	setLimit  bool
	getenvFor = os.Getenv
)

// Enter switches to the batch settings (nested and concurrent syncs
// share them) and returns the function that leaves them; the settings
// before the first Enter come back when the last one leaves.
func Enter() (leave func()) {
	mu.Lock()
	defer mu.Unlock()
	if depth == 0 {
		setPct = getenvFor("GOGC") == ""
		setLimit = setPct && getenvFor("GOMEMLIMIT") == ""
		if setPct {
			oldPct = debug.SetGCPercent(Percent)
		}
		if setLimit {
			oldLimit = debug.SetMemoryLimit(Limit)
		}
	}
	depth++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			depth--
			if depth > 0 {
				return
			}
			if setPct {
				debug.SetGCPercent(oldPct)
			}
			if setLimit {
				debug.SetMemoryLimit(oldLimit)
			}
		})
	}
}
