package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"mailsift/config"
	"mailsift/drafts"
	"mailsift/mirror"
	"mailsift/model"
)

// accountChecks tests each account's source (IMAP login and capabilities,
// or the Maildir/mbox path) and its sending settings (SMTP login, or that
// the sendmail command exists), each with a fix on failure.
func accountChecks(ctx context.Context, cfg *config.Config) []check {
	var out []check
	principal := cfg.Principal.Address()
	for i := range cfg.Accounts {
		a := &cfg.Accounts[i]
		out = append(out, sourceCheck(ctx, a))
		if c, ok := sendCheck(ctx, a, principal); ok {
			out = append(out, c)
		}
	}
	return out
}

type loginChecker interface {
	CheckLogin(ctx context.Context) error
	Capabilities(ctx context.Context) ([]string, error)
}

func sourceCheck(ctx context.Context, a *config.Account) check {
	name := "account " + a.Name + ": source"
	switch a.Src.Scheme {
	case "demo":
		return check{name: name, ok: true, info: "embedded demo mailbox"}
	case "maildir", "mbox":
		if _, err := os.Stat(a.Src.Path); err != nil {
			return check{name: name, info: fmt.Sprintf("%s: %v", a.Src.Redacted(), err), fix: "check the path in account.source, or create it with your sync tool (mbsync, OfflineIMAP)"}
		}
		return check{name: name, ok: true, info: a.Src.Redacted()}
	}
	src, err := mirror.Open(a, mirror.Options{})
	if err != nil {
		return check{name: name, info: err.Error(), fix: "fix account.source in the config"}
	}
	defer src.Close()
	lc, ok := src.(loginChecker)
	if !ok {
		return check{name: name, ok: true, skip: true, info: a.Src.Redacted() + ": no login check for this source"}
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := lc.CheckLogin(cctx); err != nil {
		return check{name: name, info: err.Error(), fix: loginFix(a)}
	}
	caps, err := lc.Capabilities(cctx)
	if err != nil {
		return check{name: name, ok: true, info: a.Src.Redacted() + ": logged in; capabilities unknown: " + err.Error()}
	}
	var have, missing []string
	for _, c := range []string{"IDLE", "CONDSTORE", "UIDPLUS", "SPECIAL-USE"} {
		if slices.ContainsFunc(caps, func(s string) bool { return strings.EqualFold(s, c) }) {
			have = append(have, c)
		} else {
			missing = append(missing, c)
		}
	}
	info := fmt.Sprintf("%s: logged in; has %s", a.Src.Redacted(), strings.Join(have, " "))
	if len(missing) > 0 {
		info += "; lacks " + strings.Join(missing, " ") + " (mailsift falls back: polling, full flag rescans, name-based folder roles)"
	}
	return check{name: name, ok: true, info: info}
}

type smtpChecker interface {
	Check(ctx context.Context) error
}

func sendCheck(ctx context.Context, a *config.Account, principal model.Address) (check, bool) {
	name := "account " + a.Name + ": sending"
	acct := drafts.AccountFromConfig(a, principal)
	switch t := acct.Transport.(type) {
	case nil:
		if a.Src.Scheme == "demo" {
			return check{}, false
		}
		return check{name: name, ok: true, skip: true, info: "no smtp or sendmail configured: replies cannot be sent", fix: "add smtp = \"smtps://user@host:465\" or sendmail = \"msmtp -t\" to the account"}, true
	case *drafts.Sendmail:
		fields := strings.Fields(t.Command)
		if len(fields) == 0 {
			return check{name: name, info: "empty sendmail command", fix: "set account.sendmail to a command such as \"msmtp -t\""}, true
		}
		if _, err := lookPath(fields[0]); err != nil {
			return check{name: name, info: fmt.Sprintf("sendmail command %q not found", fields[0]), fix: "install it or fix account.sendmail"}, true
		}
		return check{name: name, ok: true, info: "sendmail: " + fields[0]}, true
	case smtpChecker:
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := t.Check(cctx); err != nil {
			return check{name: name, info: err.Error(), fix: "check account.smtp (host, port, smtps:// vs smtp://) and the password_cmd output"}, true
		}
		return check{name: name, ok: true, info: acct.Transport.Name() + ": logged in"}, true
	default:
		return check{name: name, ok: true, info: acct.Transport.Name()}, true
	}
}

// lookPath finds a command on PATH (or checks an absolute path).
func lookPath(cmd string) (string, error) { return exec.LookPath(cmd) }
