package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	_ "modernc.org/sqlite" // driver for the read-only integrity check

	"mailsift/config"
	"mailsift/triage"
	"mailsift/triage/bayes"
)

// check is one doctor check: what was checked, and on failure what to do.
type check struct {
	name string
	ok   bool
	skip bool
	info string
	fix  string
}

// cmdDoctor checks the config, Ollama and its model, the spam model and
// the store; each failure comes with its fix. Exit 1 if any check fails.
func cmdDoctor(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("doctor", "[flags]")
	if _, err := g.parse(fs, args); err != nil {
		return err
	}
	var checks []check
	cfg, err := g.loadConfig()
	switch {
	case err != nil:
		checks = append(checks, check{name: "config", info: err.Error(), fix: "edit the config file, or run `mailsift init` to write a new one"})
	case cfg.NoConfig:
		checks = append(checks, check{name: "config", ok: true, info: "no config file: the demo mailbox is used", fix: "run `mailsift init` to configure a real account"})
	default:
		what := cfg.Path
		if cfg.Demo {
			what = "demo mailbox"
		}
		checks = append(checks, check{name: "config", ok: true, info: fmt.Sprintf("%s (%d account(s))", what, len(cfg.Accounts))})
	}
	if cfg != nil {
		if !cfg.NoConfig {
			checks = append(checks, accountChecks(ctx, cfg)...)
		}
		checks = append(checks, ollamaChecks(ctx, cfg)...)
		checks = append(checks, storeCheck(ctx, storePath(cfg)))
	}
	checks = append(checks, spamModelCheck())
	if printChecks(g.Stdout, checks) != 0 {
		return exitWith(1) // the report names each failure and its fix
	}
	return nil
}

// ollamaChecks names a remote model host (mail leaves the machine for it),
// then checks that Ollama answers and has the model. The host is shown
// without the credentials its URL may hold, in errors too.
func ollamaChecks(ctx context.Context, cfg *config.Config) []check {
	var out []check
	where := ""
	if r := cfg.Ollama.RemoteHost(); r != "" {
		where = " (remote)"
		out = append(out, check{name: "model host", ok: true, info: "model: " + r + " (remote): mail to triage or answer is sent to this host (ollama.remote = true)"})
	}
	if cfg.Triage.Offline {
		return append(out, check{name: "ollama", ok: true, skip: true, info: "triage.offline = true: the model is not used"})
	}
	redact := strings.NewReplacer(cfg.Ollama.Host, config.RedactURL(cfg.Ollama.Host))
	o, err := triage.NewOllama(triage.OllamaOptions{Host: cfg.Ollama.Host, Model: cfg.Ollama.Model, Timeout: 10 * time.Second})
	if err != nil {
		return append(out, check{name: "ollama", info: redact.Replace(err.Error()), fix: "set ollama.host to a URL like http://127.0.0.1:11434"})
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := o.Version(cctx)
	if err != nil {
		fix := "start it with `ollama serve`, or set ollama.host / OLLAMA_HOST to where it runs; mailsift triages deterministically meanwhile"
		return append(out,
			check{name: "ollama", info: redact.Replace(err.Error()), fix: fix},
			check{name: "model", skip: true, ok: true, info: cfg.Ollama.Model + ": not checked (Ollama unreachable)"},
		)
	}
	out = append(out, check{name: "ollama", ok: true, info: fmt.Sprintf("Ollama %s at %s%s", v, config.RedactURL(o.Host()), where)})
	has, err := o.HasModel(cctx)
	switch {
	case err != nil:
		out = append(out, check{name: "model", info: "cannot list models: " + redact.Replace(err.Error()), fix: "check the Ollama server log"})
	case !has:
		out = append(out, check{name: "model", info: cfg.Ollama.Model + " is not pulled", fix: "run `ollama pull " + cfg.Ollama.Model + "`"})
	default:
		out = append(out, check{name: "model", ok: true, info: cfg.Ollama.Model + " is pulled"})
	}
	return out
}

// storeCheck runs PRAGMA quick_check on the store, read-only.
func storeCheck(ctx context.Context, path string) check {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return check{name: "store", ok: true, info: path + " does not exist yet (created by the first `mailsift sync`)"}
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return check{name: "store", info: err.Error(), fix: "check the permissions of " + path}
	}
	defer db.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	rows, err := db.QueryContext(cctx, "PRAGMA quick_check")
	if err != nil {
		return check{name: "store", info: fmt.Sprintf("%s: %v", path, err), fix: "check the permissions of " + path + "; if it is not a mailsift store, move it away"}
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return check{name: "store", info: err.Error()}
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return check{name: "store", info: fmt.Sprintf("%s: %v", path, err), fix: "move " + path + " away and run `mailsift sync` to rebuild the mirror"}
	}
	if len(problems) > 0 {
		return check{name: "store", info: fmt.Sprintf("%s is damaged: %s", path, problems[0]), fix: "move " + path + " away and run `mailsift sync` to rebuild the mirror (drafts and overrides in it are lost)"}
	}
	return check{name: "store", ok: true, info: path + ": integrity ok"}
}

func spamModelCheck() check {
	m, err := bayes.Default()
	if err != nil {
		return check{name: "spam model", info: err.Error(), fix: "rebuild mailsift from a checkout with triage/bayes/data/model.json.gz"}
	}
	return check{name: "spam model", ok: true, info: fmt.Sprintf("%d tokens (%s)", len(m.Tokens), m.Source)}
}

func printChecks(w io.Writer, checks []check) int {
	code := 0
	for _, c := range checks {
		mark := "ok  "
		switch {
		case c.skip:
			mark = "skip"
		case !c.ok:
			mark = "FAIL"
			code = 1
		}
		fmt.Fprintf(w, "%s %-11s %s\n", mark, c.name, c.info)
		if c.fix != "" && (!c.ok || c.skip || c.name == "config") {
			fmt.Fprintf(w, "     %-11s fix: %s\n", "", c.fix)
		}
	}
	return code
}
