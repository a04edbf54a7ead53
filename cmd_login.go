package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"golang.org/x/term"

	"mailsift/config"
	"mailsift/internal/oauth"
	"mailsift/internal/secrets"
)

// cmdLogin signs an account in again: the OAuth2 sign-in for accounts with
// oauth2_provider (the refresh token goes to the keyring, or is printed
// for password_cmd with --print-refresh-token), or the password into the
// keyring for accounts with keyring = true.
func cmdLogin(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("login", "ACCOUNT [--device] [--print-refresh-token]")
	var lo loginFlags
	fs.BoolVar(&lo.device, "device", false, "sign in with a code entered on another device (for machines without a browser)")
	fs.BoolVar(&lo.print, "print-refresh-token", false, "print the refresh token on stdout (for a password_cmd store such as pass) instead of keeping it in the keyring")
	pos, err := g.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintf(g.Stderr, "mailsift login: name one account\n")
		fs.SetOutput(g.Stderr)
		fs.Usage()
		return exitWith(2)
	}
	cfg, err := config.Load(config.LoadOptions{Path: g.ConfigPath, Env: g.Env, DataDir: g.DataDir})
	if err != nil {
		return err
	}
	acct, ok := cfg.Account(pos[0])
	if !ok {
		var names []string
		for _, a := range cfg.Accounts {
			names = append(names, a.Name)
		}
		return usageErrorf("no account %q in %s; accounts: %s", pos[0], cfg.Path, strings.Join(names, ", "))
	}
	return login(ctx, g, acct, lo)
}

type loginFlags struct {
	device, print bool
}

// login signs acct in (see cmdLogin).
func login(ctx context.Context, g *globals, acct *config.Account, lo loginFlags) error {
	if !acct.OAuth2.Enabled() {
		if !acct.Keyring {
			return fmt.Errorf("account %q takes its password from password_cmd or %s, so there is nothing to sign in; set keyring = true to keep it in the OS keyring", acct.Name, config.PasswordEnv)
		}
		pw, err := readSecret(g, fmt.Sprintf("Password for %s (stored in the OS keyring)", acct.Name))
		if err != nil {
			return err
		}
		if err := secrets.Set(ctx, acct.Name, secrets.Password, pw); err != nil {
			return err
		}
		fmt.Fprintf(g.Stdout, "stored the password of %s in the OS keyring\n", acct.Name)
		return nil
	}
	if !acct.Keyring && !lo.print {
		return fmt.Errorf("account %q reads its refresh token from password_cmd; run `mailsift login %s --print-refresh-token` and store what it prints where password_cmd reads it (e.g. | pass insert -m mail/%s), or set keyring = true", acct.Name, acct.Name, acct.Name)
	}
	if acct.Keyring && !lo.print {
		// Fail before the browser round trip when there is no keyring.
		if _, err := secrets.Get(ctx, acct.Name, secrets.RefreshToken); err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return err
		}
	}
	client, err := acct.OAuthClient(ctx)
	if err != nil {
		return err
	}
	opts := oauth.LoginOptions{Out: g.Stderr, OpenBrowser: browserOpener(g.Env)}
	device := lo.device || (opts.OpenBrowser == nil && client.Provider.DeviceAuthURL != "")
	var tokErr error
	var refresh string
	if device {
		tok, err := client.LoginDevice(ctx, opts)
		tokErr = err
		if err == nil {
			refresh = tok.RefreshToken
		}
	} else {
		tok, err := client.LoginBrowser(ctx, opts)
		tokErr = err
		if err == nil {
			refresh = tok.RefreshToken
		}
	}
	if tokErr != nil {
		return fmt.Errorf("account %q: %w", acct.Name, tokErr)
	}
	if lo.print {
		fmt.Fprintln(g.Stdout, refresh)
		return nil
	}
	if err := secrets.Set(ctx, acct.Name, secrets.RefreshToken, refresh); err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "signed in: the refresh token of %s is in the OS keyring\n", acct.Name)
	return nil
}

// browserOpener opens URLs where a browser can be shown: macOS, or a
// desktop session (DISPLAY, WAYLAND_DISPLAY) with xdg-open. It returns nil
// on a headless machine.
func browserOpener(env func(string) string) func(string) error {
	if env == nil {
		env = os.Getenv
	}
	var name string
	switch {
	case runtime.GOOS == "darwin":
		name = "open"
	case env("DISPLAY") != "" || env("WAYLAND_DISPLAY") != "":
		name = "xdg-open"
	default:
		return nil
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil
	}
	return func(u string) error {
		cmd := exec.Command(path, u)
		cmd.Env = config.ChildEnv()
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait()
		return nil
	}
}

// readSecret reads a secret without echo on a terminal, or one line of
// stdin otherwise (so it can be piped from a password manager).
func readSecret(g *globals, label string) (string, error) {
	if f, ok := g.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(g.Stderr, "%s: ", label)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(g.Stderr)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		if len(b) == 0 {
			return "", errors.New("no password given")
		}
		return string(b), nil
	}
	line, err := bufio.NewReader(g.Stdin).ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		if err != nil {
			return "", fmt.Errorf("read the password from stdin: %w", err)
		}
		return "", errors.New("no password on stdin")
	}
	return line, nil
}

// loginFix is doctor's fix for a failed login, by where the account's
// secret comes from.
func loginFix(a *config.Account) string {
	switch {
	case a.OAuth2.Enabled():
		return fmt.Sprintf("check the host and port in account.source and that the server is reachable; if the sign-in was revoked or never done, run `mailsift login %s`", a.Name)
	case a.Keyring:
		return fmt.Sprintf("check the host and port in account.source and that the server is reachable; to store the password in the keyring again, run `mailsift login %s`", a.Name)
	}
	return "check the host and port in account.source, the password_cmd output, and that the server is reachable"
}
