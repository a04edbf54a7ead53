package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"mailsift/config"

	"golang.org/x/term"
)

// cmdInit writes a commented config file (mode 0600) from flags, prompting on a
// terminal for anything missing.
func cmdInit(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("init", "[--name NAME] --email ADDR --source URL [--smtp URL] [--password-cmd CMD] [--force]")
	var opts config.InitOptions
	fs.StringVar(&opts.Name, "name", "", "your `NAME` (the principal)")
	fs.StringVar(&opts.Email, "email", "", "your email `ADDRESS` (required)")
	fs.StringVar(&opts.AccountName, "account", "", "account `NAME` (default: the source host)")
	fs.StringVar(&opts.SMTP, "smtp", "", "smtp `URL`: smtps://user@host:465 or smtp://user@host:587 (STARTTLS)")
	fs.BoolVar(&opts.Force, "force", false, "overwrite an existing config file")
	fs.Lookup("source").Usage = "account source `URL`: imaps://user@host, imap://user@host (STARTTLS), maildir://~/Mail, mbox:///path (required)"
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

	if f, ok := g.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		in := bufio.NewReader(g.Stdin)
		prompts := []struct {
			label string
			dst   *string
			need  bool
		}{
			{"Your name", &opts.Name, false},
			{"Your email address", &opts.Email, true},
			{"Source URL (imaps://you%40example.com@imap.example.com, maildir://~/Mail)", &opts.Source, true},
			{"SMTP URL (smtps://you%40example.com@smtp.example.com:465, empty for none)", &opts.SMTP, false},
			{"Password command (e.g. pass show mail/work; empty to use MAILSIFT_PASSWORD)", &opts.PasswordCmd, false},
		}
		for _, p := range prompts {
			if *p.dst != "" {
				continue
			}
			v, err := prompt(g.Stderr, in, p.label)
			if err != nil {
				return err
			}
			*p.dst = v
		}
	}
	var missing []string
	if opts.Email == "" {
		missing = append(missing, "--email")
	}
	if opts.Source == "" {
		missing = append(missing, "--source")
	}
	if len(missing) > 0 {
		return usageErrorf("%s required (stdin is not a terminal, so there are no prompts)\n"+
			"example: mailsift init --name 'Your Name' --email you@example.com --source 'imaps://you%%40example.com@imap.example.com' --password-cmd 'pass show mail'",
			strings.Join(missing, " and "))
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
	if opts.PasswordCmd == "" {
		fmt.Fprintf(g.Stdout, "no password_cmd set: export %s, or add password_cmd to the file\n", config.PasswordEnv)
	}
	fmt.Fprintf(g.Stdout, "next: mailsift doctor, then mailsift\n")
	return nil
}

func prompt(w io.Writer, in *bufio.Reader, label string) (string, error) {
	fmt.Fprintf(w, "%s: ", label)
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("read answer for %q: %w", label, err)
	}
	return strings.TrimSpace(line), nil
}
