// Package secrets keeps mail passwords, OAuth2 refresh tokens and OAuth2
// client secrets in the OS keyring (the Secret Service over D-Bus on
// Linux and BSD, the Keychain on macOS, the Credential Manager on
// Windows) through github.com/zalando/go-keyring. Nothing it stores ever
// reaches the config file or the store; errors never contain a secret.
package secrets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/zalando/go-keyring"
)

// Service is the keyring service name every mailsift item is filed under.
const Service = "mailsift"

// Kind is what an item holds.
type Kind string

// The kinds of secret mailsift keeps.
const (
	// Password is an account's IMAP/SMTP password.
	Password Kind = "password"
	// RefreshToken is an account's OAuth2 refresh token.
	RefreshToken Kind = "oauth2-refresh-token"
	// ClientSecret is an account's OAuth2 client secret (only for
	// providers that require one, such as Google).
	ClientSecret Kind = "oauth2-client-secret"
)

// ErrNotFound says the keyring works but holds no such item.
var ErrNotFound = errors.New("not in the keyring")

// NoKeyringError says there is no usable keyring (a headless server with
// no Secret Service, a locked or absent keychain).
type NoKeyringError struct{ Err error }

func (e *NoKeyringError) Error() string {
	return fmt.Sprintf("no OS keyring is available (%v); on a machine without a desktop session use password_cmd instead, e.g. password_cmd = \"pass show mail/work\"", e.Err)
}

func (e *NoKeyringError) Unwrap() error { return e.Err }

// item names one secret: the account and the kind, e.g. "work/password".
func item(account string, kind Kind) string { return account + "/" + string(kind) }

// Get returns the account's secret of this kind. A missing item is
// ErrNotFound (wrapped, naming the account and how to add it); a missing
// keyring is a *NoKeyringError.
func Get(ctx context.Context, account string, kind Kind) (string, error) {
	v, err := call(ctx, "", func() (string, error) { return keyring.Get(Service, item(account, kind)) })
	if errors.Is(err, keyring.ErrNotFound) {
		return "", fmt.Errorf("account %q: %s %w; store it with `mailsift login %s`", account, describe(kind), ErrNotFound, account)
	}
	if err != nil {
		return "", fmt.Errorf("account %q: read %s: %w", account, describe(kind), err)
	}
	return v, nil
}

// Set stores the account's secret of this kind, replacing any earlier one.
func Set(ctx context.Context, account string, kind Kind, secret string) error {
	_, err := call(ctx, secret, func() (string, error) { return "", keyring.Set(Service, item(account, kind), secret) })
	if err != nil {
		return fmt.Errorf("account %q: store %s: %w", account, describe(kind), err)
	}
	return nil
}

// Delete removes the account's secret of this kind; a missing item is not
// an error.
func Delete(ctx context.Context, account string, kind Kind) error {
	_, err := call(ctx, "", func() (string, error) { return "", keyring.Delete(Service, item(account, kind)) })
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("account %q: delete %s: %w", account, describe(kind), err)
	}
	return nil
}

func describe(k Kind) string {
	switch k {
	case Password:
		return "the password in the keyring"
	case RefreshToken:
		return "the OAuth2 sign-in in the keyring"
	case ClientSecret:
		return "the OAuth2 client secret in the keyring"
	}
	return string(k) + " in the keyring"
}

// call runs a keyring operation, which takes no context and can block (a
// keyring waiting to be unlocked), so that ctx ending returns at once.
// Errors other than "not found" become *NoKeyringError, with secret
// removed from their text.
func call(ctx context.Context, secret string, op func() (string, error)) (string, error) {
	if err := sessionBusMissing(); err != nil {
		return "", &NoKeyringError{Err: err}
	}
	type result struct {
		v   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := op()
		ch <- result{v, err}
	}()
	select {
	case <-ctx.Done():
		return "", fmt.Errorf("keyring did not answer: %w (is it waiting to be unlocked?)", ctx.Err())
	case r := <-ch:
		if r.err == nil || errors.Is(r.err, keyring.ErrNotFound) {
			return r.v, r.err
		}
		if errors.Is(r.err, keyring.ErrSetDataTooBig) {
			return "", r.err
		}
		msg := r.err.Error()
		if secret != "" {
			msg = strings.ReplaceAll(msg, secret, "[redacted]")
		}
		return "", &NoKeyringError{Err: errors.New(msg)}
	}
}

// sessionBusMissing reports a Unix machine without a D-Bus session bus
// (neither DBUS_SESSION_BUS_ADDRESS nor $XDG_RUNTIME_DIR/bus). godbus would
// then autolaunch a bus with dbus-launch, leaving a stray dbus-daemon (and
// a keyring it activates) behind on a headless machine; say instead that
// there is no keyring.
func sessionBusMissing() error {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android":
		return nil
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "bus")); err == nil {
			return nil
		}
	}
	return errors.New("no D-Bus session: DBUS_SESSION_BUS_ADDRESS is unset, so there is no Secret Service to ask")
}

// Available reports whether an OS keyring answers: nil, or a
// *NoKeyringError saying why not and suggesting password_cmd.
func Available(ctx context.Context) error {
	_, err := call(ctx, "", func() (string, error) { return keyring.Get(Service, "mailsift/availability-check") })
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}
