package imap

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
)

// refusingSession answers LOGIN with refuse while refusals remain, then
// lets the memserver log in.
type refusingSession struct {
	imapserver.SessionIMAP4rev2
	refuse    *imap.Error
	remaining *atomic.Int64
}

func (s *refusingSession) Login(username, password string) error {
	if s.remaining.Add(-1) >= 0 {
		return s.refuse
	}
	return s.SessionIMAP4rev2.Login(username, password)
}

func refusingServer(t *testing.T, refuse *imap.Error, times int64) *testServer {
	remaining := new(atomic.Int64)
	remaining.Store(times)
	return serveMem(t, func(next imapserver.SessionIMAP4rev2) imapserver.Session {
		return &refusingSession{SessionIMAP4rev2: next, refuse: refuse, remaining: remaining}
	})
}

// TestLoginErrorClassification: only a rejection of the credentials is
// final (ErrAuthFailed); a server that cannot check them right now (RFC
// 5530 UNAVAILABLE, as Dovecot says when its auth process is busy) is a
// temporary failure that callers retry.
func TestLoginErrorClassification(t *testing.T) {
	no := func(code imap.ResponseCode, text string) *imap.Error {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Code: code, Text: text}
	}
	tests := []struct {
		name  string
		err   *imap.Error
		final bool
		want  string
	}{
		{"authenticationfailed", no(imap.ResponseCodeAuthenticationFailed, "Authentication failed."), true, "check password_cmd"},
		{"plain no", no("", "Login failed"), true, "check password_cmd"},
		{"expired", no(imap.ResponseCodeExpired, "Password expired"), true, "check password_cmd"},
		{"unavailable", no(imap.ResponseCodeUnavailable, "Temporary authentication failure. [host:2026-11-24 10:00:00]"), false, "temporarily"},
		{"serverbug", no(imap.ResponseCodeServerBug, "Internal error"), false, "temporarily"},
		{"inuse", no(imap.ResponseCodeInUse, "Mailbox locked"), false, "temporarily"},
		{"limit", no(imap.ResponseCodeLimit, "Too many connections"), false, "temporarily"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := refusingServer(t, tt.err, 1)
			src := ts.source(t, nil)
			err := src.Sync(context.Background(), newFakeSink(), nil)
			if err == nil {
				t.Fatal("Sync() = nil, want the login error")
			}
			if errors.Is(err, ErrAuthFailed) != tt.final {
				t.Errorf("Sync() = %v: errors.Is(ErrAuthFailed) = %v, want %v", err, !tt.final, tt.final)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.err.Text) {
				t.Errorf("Sync() = %v, want it to quote the server and say %q", err, tt.want)
			}
			if !tt.final && strings.Contains(err.Error(), "password") {
				t.Errorf("Sync() = %v: a temporary failure must not blame the password", err)
			}
			// The next attempt logs in.
			if err := src.Sync(context.Background(), newFakeSink(), nil); err != nil {
				t.Errorf("second Sync() = %v, want success", err)
			}
		})
	}
}

// TestWatchRetriesTemporaryLoginFailure: Watch retries a temporary login
// failure with backoff instead of ending as if the password were wrong.
func TestWatchRetriesTemporaryLoginFailure(t *testing.T) {
	ts := refusingServer(t, &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeUnavailable, Text: "Temporary authentication failure."}, 1)
	src := ts.source(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan struct{}, 10)
	done := make(chan error, 1)
	go func() { done <- src.Watch(ctx, func() { changed <- struct{}{} }) }()
	select {
	case <-changed: // reconnected and logged in
	case err := <-done:
		t.Fatalf("Watch() = %v after a temporary login failure, want a retry", err)
	case <-time.After(20 * time.Second):
		t.Fatal("Watch did not log in again within 20s")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch() = %v, want context.Canceled", err)
	}
}
