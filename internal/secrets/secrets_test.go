package secrets_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/internal/secrets"
	"mailsift/internal/testserver/secretservice"
)

// TestKeyring runs against a real Secret Service (gnome-keyring on a
// private D-Bus). The case without any keyring runs first: godbus keeps
// the first session bus it reaches for the rest of the process.
func TestKeyring(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	t.Run("no keyring", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "no-bus"))
		err := secrets.Set(ctx, "work", secrets.Password, "hunter2-secret")
		var nk *secrets.NoKeyringError
		if !errors.As(err, &nk) {
			t.Fatalf("Set without a keyring = %v, want *NoKeyringError", err)
		}
		if !strings.Contains(err.Error(), "password_cmd") || strings.Contains(err.Error(), "hunter2-secret") {
			t.Errorf("error %q: want the password_cmd hint and no secret", err)
		}
		if _, err := secrets.Get(ctx, "work", secrets.Password); !errors.As(err, &nk) {
			t.Errorf("Get without a keyring = %v, want *NoKeyringError", err)
		}
		if err := secrets.Available(ctx); !errors.As(err, &nk) {
			t.Errorf("Available without a keyring = %v, want *NoKeyringError", err)
		}
	})

	t.Run("no session bus", func(t *testing.T) {
		// Without any session bus, the answer comes at once and no bus is
		// autolaunched (dbus-launch would leave a daemon behind).
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
		t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
		_, err := secrets.Get(ctx, "work", secrets.Password)
		var nk *secrets.NoKeyringError
		if !errors.As(err, &nk) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") {
			t.Errorf("Get without a session bus = %v, want *NoKeyringError naming DBUS_SESSION_BUS_ADDRESS", err)
		}
	})

	secretservice.Start(t)

	t.Run("round trip", func(t *testing.T) {
		if err := secrets.Available(ctx); err != nil {
			t.Fatalf("Available with a Secret Service = %v", err)
		}
		if _, err := secrets.Get(ctx, "work", secrets.RefreshToken); !errors.Is(err, secrets.ErrNotFound) || !strings.Contains(err.Error(), "mailsift login work") {
			t.Fatalf("Get of a missing item = %v, want ErrNotFound naming mailsift login", err)
		}
		if err := secrets.Set(ctx, "work", secrets.RefreshToken, "rt-1"); err != nil {
			t.Fatal(err)
		}
		if err := secrets.Set(ctx, "home", secrets.Password, "pw-home"); err != nil {
			t.Fatal(err)
		}
		// Replacing keeps one item.
		if err := secrets.Set(ctx, "work", secrets.RefreshToken, "rt-2"); err != nil {
			t.Fatal(err)
		}
		if v, err := secrets.Get(ctx, "work", secrets.RefreshToken); err != nil || v != "rt-2" {
			t.Errorf("Get(work refresh) = %q, %v, want rt-2", v, err)
		}
		if v, err := secrets.Get(ctx, "home", secrets.Password); err != nil || v != "pw-home" {
			t.Errorf("Get(home password) = %q, %v", v, err)
		}
		if _, err := secrets.Get(ctx, "work", secrets.Password); !errors.Is(err, secrets.ErrNotFound) {
			t.Errorf("kinds are separate: Get(work password) = %v, want ErrNotFound", err)
		}
		if err := secrets.Delete(ctx, "work", secrets.RefreshToken); err != nil {
			t.Fatal(err)
		}
		if _, err := secrets.Get(ctx, "work", secrets.RefreshToken); !errors.Is(err, secrets.ErrNotFound) {
			t.Errorf("after Delete: %v, want ErrNotFound", err)
		}
		if err := secrets.Delete(ctx, "work", secrets.RefreshToken); err != nil {
			t.Errorf("deleting a missing item = %v, want nil", err)
		}
	})
}
