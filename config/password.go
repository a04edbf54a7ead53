package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// PasswordEnv is the environment variable read when an account has no password_cmd.
const PasswordEnv = "MAILSIFT_PASSWORD"

// Password returns the account's password or OAuth token: with the built-in
// OAuth2 sign-in a fresh access token (see OAuth2), with keyring = true the
// password from the OS keyring, else the output of password_cmd (run with
// sh -c, trailing newline trimmed), else a plaintext password from the
// file, else env MAILSIFT_PASSWORD. Errors never contain the secret.
func (a *Account) Password(ctx context.Context) (string, error) {
	if a.OAuth2.Enabled() || a.Keyring {
		return a.secret(ctx)
	}
	if a.PasswordCmd != "" {
		return runPasswordCmd(ctx, a.Name, a.PasswordCmd)
	}
	if a.PlainPassword != "" {
		return a.PlainPassword, nil
	}
	if a.Src.Password != "" {
		return a.Src.Password, nil
	}
	env := a.env
	if env == nil {
		env = os.Getenv
	}
	if pw := env(PasswordEnv); pw != "" {
		return pw, nil
	}
	return "", fmt.Errorf("account %q: no password: set password_cmd (e.g. password_cmd = \"pass show mail/%s\") or export %s", a.Name, a.Name, PasswordEnv)
}

func runPasswordCmd(ctx context.Context, name, command string) (string, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = nil // discarded: it may echo secrets
	cmd.Stdin = nil
	cmd.Env = ChildEnv()
	// If the shell is killed, a grandchild may still hold stdout; don't wait for it.
	cmd.WaitDelay = 500 * time.Millisecond
	killGroupOnCancel(cmd)
	err := cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return "", fmt.Errorf("account %q: password_cmd did not finish (%s after %s): %w; check that it does not wait for input", name, ctxErr, time.Since(start).Round(time.Millisecond), ctxErr)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("account %q: password_cmd failed with exit status %d; run it in a shell to see why", name, ee.ExitCode())
		}
		return "", fmt.Errorf("account %q: password_cmd: %w", name, err)
	}
	pw := strings.TrimRight(out.String(), "\r\n")
	if pw == "" {
		return "", fmt.Errorf("account %q: password_cmd printed nothing; it must print the password on stdout", name)
	}
	return pw, nil
}

// ChildEnv returns the environment for a child process mailsift starts
// (password_cmd, sendmail, $EDITOR): the process environment without
// MAILSIFT_PASSWORD, which none of them needs.
func ChildEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, PasswordEnv+"=")
	})
}
