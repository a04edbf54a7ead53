package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"mailsift/config"
)

// cmdInit writes a commented config file (mode 0600) from flags, prompting on a
// terminal for anything missing.
func cmdInit(ctx context.Context, g *globals, args []string) int {
	fs := g.flagSet("init", "[--name NAME] --email ADDR --source URL [--smtp URL] [--password-cmd CMD] [--force]")
	var opts config.InitOptions
	fs.StringVar(&opts.Name, "name", "", "your `NAME` (the principal)")
	fs.StringVar(&opts.Email, "email", "", "your email `ADDRESS` (required)")
	fs.StringVar(&opts.AccountName, "account", "", "account `NAME` (default: the source host)")
	fs.StringVar(&opts.SMTP, "smtp", "", "smtp `URL`: smtps://user@host:465 or smtp://user@host:587 (STARTTLS)")
	fs.BoolVar(&opts.Force, "force", false, "overwrite an existing config file")
	fs.Lookup("source").Usage = "account source `URL`: imaps://user@host, imap://user@host (STARTTLS), maildir://~/Mail, mbox:///path (required)"
	fs.Lookup("password-cmd").Usage = "`CMD` that prints the password (recommended; else MAILSIFT_PASSWORD is used)"
	pos, code, ok := g.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(g.Stderr, "mailsift init: unexpected argument %q\n", pos[0])
		fs.SetOutput(g.Stderr)
		fs.Usage()
		return 2
	}
	opts.Source = g.Source
	opts.PasswordCmd = g.PasswordCmd

	if isTerminal(g.Stdin) {
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
				fmt.Fprintf(g.Stderr, "mailsift init: %v\n", err)
				return 1
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
		fmt.Fprintf(g.Stderr, "mailsift init: %s required (stdin is not a terminal, so there are no prompts)\n", strings.Join(missing, " and "))
		fmt.Fprintf(g.Stderr, "example: mailsift init --name 'Your Name' --email you@example.com --source 'imaps://you%%40example.com@imap.example.com' --password-cmd 'pass show mail'\n")
		return 2
	}

	path := g.ConfigPath
	if path == "" {
		p, err := config.DefaultPath(g.Env)
		if err != nil {
			fmt.Fprintf(g.Stderr, "mailsift init: %v\n", err)
			return 1
		}
		path = p
	}
	if err := config.Write(path, opts); err != nil {
		fmt.Fprintf(g.Stderr, "mailsift init: %v\n", err)
		return 1
	}
	fmt.Fprintf(g.Stdout, "wrote %s (mode 0600)\n", path)
	if opts.PasswordCmd == "" {
		fmt.Fprintf(g.Stdout, "no password_cmd set: export %s, or add password_cmd to the file\n", config.PasswordEnv)
	}
	fmt.Fprintf(g.Stdout, "next: mailsift doctor, then mailsift\n")
	return 0
}

func prompt(w io.Writer, in *bufio.Reader, label string) (string, error) {
	fmt.Fprintf(w, "%s: ", label)
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("read answer for %q: %w", label, err)
	}
	return strings.TrimSpace(line), nil
}

// isTerminal reports whether r is a character device (an interactive terminal).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
