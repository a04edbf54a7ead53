package mailsrc

import "sync"

// SerialProgress returns a progress function that calls progress (nil: a
// no-op) one call at a time. A source reports progress both from its sync
// goroutine and from its store writer's goroutine; callers of Sync may
// keep state in their callback without locking it.
func SerialProgress(progress func(Progress)) func(Progress) {
	if progress == nil {
		return func(Progress) {}
	}
	var mu sync.Mutex
	return func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		progress(p)
	}
}
