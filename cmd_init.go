package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"mailsift/autoconfig"
	"mailsift/config"
	"mailsift/internal/oauth"
	"mailsift/internal/secrets"

	"golang.org/x/term"
)

// initFlags are init's own flags beyond config.InitOptions.
type initFlags struct {
	yes, noDiscover, device bool
}

// cmdInit writes a commented config file (mode 0600) from flags, prompting on a
// terminal for anything missing. Given an address without --source it finds
// the servers (preset, DNS SRV, autoconfig), shows them and asks before
// writing; with --provider it then runs the OAuth2 sign-in, and with
// --keyring it keeps the password or refresh token in the OS keyring.
func cmdInit(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("init", "[--name NAME] --email ADDR [--source URL] [--smtp URL] [--password-cmd CMD | --keyring] [--provider gmail|microsoft --client-id ID] [--yes] [--force]")
	var opts config.InitOptions
	var fl initFlags
	fs.StringVar(&opts.Name, "name", "", "your `NAME` (the principal)")
	fs.StringVar(&opts.Email, "email", "", "your email `ADDRESS` (required)")
	fs.StringVar(&opts.AccountName, "account", "", "account `NAME` (default: the source host)")
	fs.StringVar(&opts.SMTP, "smtp", "", "smtp `URL`: smtps://user@host:465 or smtp://user@host:587 (STARTTLS)")
	fs.BoolVar(&opts.Force, "force", false, "overwrite an existing config file")
	fs.BoolVar(&opts.Keyring, "keyring", false, "keep the password (or OAuth2 refresh token) in the OS keyring")
	fs.StringVar(&opts.OAuth2Provider, "provider", "", "built-in OAuth2 sign-in: `gmail`, microsoft or custom")
	fs.StringVar(&opts.OAuth2ClientID, "client-id", "", "your OAuth2 client `ID` at the provider (see the README)")
	fs.StringVar(&opts.OAuth2ClientSecretCmd, "client-secret-cmd", "", "`CMD` printing the OAuth2 client secret, for providers that need one (else it is asked for and kept in the keyring)")
	fs.StringVar(&opts.OAuth2Tenant, "tenant", "", "Microsoft Entra `TENANT` (default common)")
	fs.BoolVar(&fl.yes, "yes", false, "accept the servers found for the address without asking")
	fs.BoolVar(&fl.noDiscover, "no-discover", false, "do not look the servers up; ask for them")
	fs.BoolVar(&fl.device, "device", false, "OAuth2: sign in with a code entered on another device")
	fs.Lookup("source").Usage = "account source `URL`: imaps://user@host, imap://user@host (STARTTLS), maildir://~/Mail, mbox:///path (default: found from --email)"
	fs.Lookup("password-cmd").Usage = "`CMD` that prints the password (recommended; else MAILSIFT_PASSWORD is used)"
	pos, err := g.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fmt.Fprintf(g.Stderr, "mailsift init: unexpected argument %q\n", pos[0])
		fs.SetOutput(g.Stderr)
		fs.Usage()
		return exitWith(2)
	}
	opts.Source = g.Source
	opts.PasswordCmd = g.PasswordCmd

	var in *bufio.Reader
	if f, ok := g.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		in = bufio.NewReader(g.Stdin)
	}
	ask := func(label string, dst *string) error {
		if in == nil || *dst != "" {
			return nil
		}
		v, err := promptCtx(ctx, g.Stderr, in, label)
		*dst = v
		return err
	}
	if err := ask("Your name", &opts.Name); err != nil {
		return err
	}
	if err := ask("Your email address", &opts.Email); err != nil {
		return err
	}
	if opts.Email == "" {
		return usageErrorf("--email required (stdin is not a terminal, so there are no prompts)\n" +
			"example: mailsift init --name 'Your Name' --email you@example.com  (servers are looked up from the address)")
	}
	if opts.Source == "" && !fl.noDiscover {
		if err := discover(ctx, g, &opts, fl, in); err != nil {
			return err
		}
	}
	if err := ask("Source URL (imaps://you%40example.com@imap.example.com, maildir://~/Mail)", &opts.Source); err != nil {
		return err
	}
	if opts.Source == "" {
		return usageErrorf("--source required (no servers were found for the address and stdin is not a terminal)\n" +
			"example: mailsift init --name 'Your Name' --email you@example.com --source 'imaps://you%%40example.com@imap.example.com' --password-cmd 'pass show mail'")
	}
	if err := ask("SMTP URL (smtps://you%40example.com@smtp.example.com:465, empty for none)", &opts.SMTP); err != nil {
		return err
	}
	if opts.OAuth2Provider != "" {
		opts.OAuth2Provider = strings.ToLower(opts.OAuth2Provider)
		if err := ask("OAuth2 client id of your own registration (README: OAuth2)", &opts.OAuth2ClientID); err != nil {
			return err
		}
		if opts.OAuth2ClientID == "" {
			return usageErrorf("--provider %s needs --client-id: register mailsift as a desktop app with the provider (the README says how) and pass its client id", opts.OAuth2Provider)
		}
		if opts.PasswordCmd == "" {
			opts.Keyring = true
		}
	} else if !opts.Keyring {
		if err := ask("Password command (e.g. pass show mail/work; empty to keep the password in the OS keyring)", &opts.PasswordCmd); err != nil {
			return err
		}
		if in != nil && opts.PasswordCmd == "" && strings.Contains(opts.Source, "://") && !strings.HasPrefix(opts.Source, "maildir") &&
			!strings.HasPrefix(opts.Source, "mbox") && !strings.HasPrefix(opts.Source, "demo") {
			opts.Keyring = true
		}
	}
	if opts.Keyring && opts.PasswordCmd != "" {
		return usageErrorf("--keyring and --password-cmd both name where the secret lives; give one")
	}

	if opts.Keyring {
		// Say now, before anything is written, when there is no keyring.
		if err := secrets.Available(ctx); err != nil {
			return fmt.Errorf("nothing written: %w", err)
		}
	}

	path := g.ConfigPath
	if path == "" {
		p, err := config.DefaultPath(g.Env)
		if err != nil {
			return err
		}
		path = p
	}
	if err := config.Write(path, opts); err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "wrote %s (mode 0600)\n", path)

	if opts.Keyring || opts.OAuth2Provider != "" {
		cfg, err := config.Load(config.LoadOptions{Path: path, Env: g.Env, DataDir: g.DataDir})
		if err != nil {
			return err
		}
		acct := &cfg.Accounts[0]
		if acct.Keyring && opts.OAuth2ClientSecretCmd == "" && opts.OAuth2Provider == oauth.Gmail {
			if err := storeClientSecret(ctx, g, acct.Name); err != nil {
				return err
			}
		}
		if !acct.Keyring {
			fmt.Fprintf(g.Stdout, "password_cmd prints the refresh token: sign in with `mailsift login %s --print-refresh-token` and store what it prints where password_cmd reads it\n", acct.Name)
		} else if err := login(ctx, g, acct, loginFlags{device: fl.device}); err != nil {
			return fmt.Errorf("%w\nthe config is written; sign in later with `mailsift login %s`", err, acct.Name)
		}
	} else if opts.PasswordCmd == "" {
		fmt.Fprintf(g.Stdout, "no password_cmd set: export %s, or add password_cmd (or keyring = true) to the file\n", config.PasswordEnv)
	}
	fmt.Fprintf(g.Stdout, "next: mailsift doctor, then mailsift\n")
	return nil
}

// discover looks up the servers for opts.Email, shows them and, once
// accepted (a prompt, or --yes), fills opts in. Not finding any is not an
// error: the caller asks for the servers.
func discover(ctx context.Context, g *globals, opts *config.InitOptions, fl initFlags, in *bufio.Reader) error {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := autoconfig.Discover(dctx, opts.Email, autoconfig.Options{})
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift init: %v\n", err)
		return nil
	}
	fmt.Fprint(g.Stdout, res.Describe())
	switch {
	case fl.yes:
	case in != nil:
		ans, err := promptCtx(ctx, g.Stderr, in, "Use these servers? [Y/n]")
		if err != nil {
			return err
		}
		if a := strings.ToLower(ans); a != "" && a != "y" && a != "yes" {
			fmt.Fprintln(g.Stderr, "not using them; give the servers yourself")
			return nil
		}
	default:
		return usageErrorf("servers found for %s (above); run again with --yes to write them, or give --source and --smtp", opts.Email)
	}
	opts.Source = res.SourceURL()
	if opts.SMTP == "" {
		opts.SMTP = res.SMTPURL()
	}
	opts.TLSInsecureSkipVerify = res.InsecureSkipVerify
	opts.Note = res.Via
	if opts.AccountName == "" {
		// "gmail" for you@gmail.com reads better than the IMAP host.
		if d, err := autoconfig.Domain(opts.Email); err == nil {
			opts.AccountName, _, _ = strings.Cut(d, ".")
		}
	}
	if res.OAuth2Provider != "" && opts.OAuth2Provider == "" && opts.PasswordCmd == "" {
		if in != nil {
			id, err := promptCtx(ctx, g.Stderr, in, fmt.Sprintf("%s signs in with OAuth2. Your client id (README: OAuth2), or empty to use an app password", res.OAuth2Provider))
			if err != nil {
				return err
			}
			opts.OAuth2ClientID = id
		}
		if opts.OAuth2ClientID != "" {
			opts.OAuth2Provider = res.OAuth2Provider
		}
	}
	return nil
}

// storeClientSecret asks for the OAuth2 client secret (Google's desktop
// clients have one) and keeps it in the keyring.
func storeClientSecret(ctx context.Context, g *globals, account string) error {
	if f, ok := g.Stdin.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return nil // public client, or --client-secret-cmd next time
	}
	s, err := readSecret(g, "OAuth2 client secret of your registration (kept in the OS keyring)")
	if err != nil {
		return err
	}
	return secrets.Set(ctx, account, secrets.ClientSecret, s)
}

// promptCtx asks for one line; ctx ending (Ctrl-C) abandons the question.
// The read itself cannot be interrupted, so it is left to the process's
// end.
func promptCtx(ctx context.Context, w io.Writer, in *bufio.Reader, label string) (string, error) {
	fmt.Fprintf(w, "%s: ", label)
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		line, err := in.ReadString('\n')
		ch <- answer{line, err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(w)
		return "", fmt.Errorf("no answer for %q: %w", label, ctx.Err())
	case a := <-ch:
		if a.err != nil && a.line == "" {
			return "", fmt.Errorf("read answer for %q: %w", label, a.err)
		}
		return strings.TrimSpace(a.line), nil
	}
}
