package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/model"
)

// TestDiskFullSaysSo: a write SQLite refuses for want of room
// (SQLITE_FULL, here from a page limit on the writer) fails with an error
// that wraps ErrDiskFull, says the disk is full, names the store's
// directory and what to do; the store keeps what was written before and
// takes writes again once there is room.
func TestDiskFullSaysSo(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	put(t, s, mkMsg("before@example.com", "Before"))
	var pages int
	if err := s.w.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	var msgs []*model.Message
	for i := range 50 {
		msgs = append(msgs, mkMsg(fmt.Sprintf("m%d@example.com", i), "Big", body(strings.Repeat("figures ", 2000))))
	}
	err := s.PutMessages(ctx, msgs)
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("PutMessages on a full disk = %v, want ErrDiskFull", err)
	}
	for _, want := range []string{"the disk is full", filepath.Dir(s.path), "free some space"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := s.w.ExecContext(ctx, `PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	if err := s.PutMessages(ctx, msgs); err != nil {
		t.Fatalf("PutMessages with room again = %v", err)
	}
	for _, id := range []string{"before@example.com", "m49@example.com"} {
		if _, err := s.ThreadIDForMessage(ctx, id); err != nil {
			t.Errorf("%s after the full disk: %v", id, err)
		}
	}
}
