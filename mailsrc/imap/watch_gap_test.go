package imap

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"mailsift/mailsrc/internal/memsink"
)

// TestWatchSeesMailFromBeforeIdle: IDLE reports only what happens after it
// starts, so mail that arrives between the end of a sync and the start of
// the watch must be noticed when the watch selects INBOX; with nothing new,
// the watch stays quiet.
func TestWatchSeesMailFromBeforeIdle(t *testing.T) {
	ts := newMemServer(t)
	ad := ts.admin(t)
	ad.append("INBOX", "From: a@example.com\r\nSubject: one\r\nMessage-ID: <one@example.com>\r\n\r\nfirst\r\n")
	idling := make(chan struct{}, 4)
	src := ts.source(t, func(c *Config) {
		c.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			var once sync.Once
			return &idleConn{Conn: conn, idling: func() { once.Do(func() { idling <- struct{}{} }) }}, nil
		}
	})
	sink := memsink.New()
	if err := src.Sync(context.Background(), sink, nil); err != nil {
		t.Fatal(err)
	}
	watch := func() (changed chan struct{}, stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		changed = make(chan struct{}, 4)
		done := make(chan error, 1)
		go func() { done <- src.Watch(ctx, func() { changed <- struct{}{} }) }()
		return changed, func() { cancel(); <-done }
	}

	// Nothing new since the sync: the watch reaches IDLE without a change.
	changed, stop := watch()
	select {
	case <-idling:
	case <-changed:
		t.Fatal("changed() with nothing new since the sync")
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not reach IDLE within 10s")
	}
	select {
	case <-changed:
		t.Fatal("changed() with nothing new since the sync")
	default:
	}
	stop()

	// Mail arrives after the sync and before the next watch's IDLE.
	ad.append("INBOX", "From: b@example.com\r\nSubject: two\r\nMessage-ID: <two@example.com>\r\n\r\nsecond\r\n")
	changed, stop = watch()
	defer stop()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("mail that arrived before IDLE was not noticed within 10s")
	}
}
