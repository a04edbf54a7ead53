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
	return poll(ctx, t.C, prev, signature, changed)
}

// PollTicks is PollWatch driven by ticks instead of a clock: it compares
// signature() at every value received from ticks (tests send them).
func PollTicks(ctx context.Context, ticks <-chan time.Time, signature func() string, changed func()) error {
	return poll(ctx, ticks, signature(), signature, changed)
}

// poll compares signature() with prev at every tick until ctx ends.
func poll(ctx context.Context, ticks <-chan time.Time, prev string, signature func() string, changed func()) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticks:
			if cur := signature(); cur != prev {
				prev = cur
				changed()
			}
		}
	}
}
