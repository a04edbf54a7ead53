package mailsrc

import (
	"context"
	"time"
)

// PollWatch is Source.Watch for sources without push notifications
// (Maildir, mbox): every interval it compares signature() with the last
// value and calls changed when it differs. It returns nil when ctx ends.
func PollWatch(ctx context.Context, interval time.Duration, signature func() string, changed func()) error {
	prev := signature()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if cur := signature(); cur != prev {
				prev = cur
				changed()
			}
		}
	}
}
