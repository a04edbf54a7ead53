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
	"mailsift/store"
	"mailsift/triage"
	"mailsift/triage/bayes"
)

// check is one doctor check: what was checked, and on failure what to do.
// A warning (ok and warn set) is something that waits for the user while
// mailsift itself works; it is shown with its fix but does not fail.
type check struct {
	name string
	ok   bool
	skip bool
	warn bool
	info string
	fix  string
}

// cmdDoctor checks the config, the accounts, Ollama and its model, the
// spam model and the store (integrity, schema version, outbox, outbox
// lock); each finding comes with its fix. Exit 1 if any check fails.
//
// Failures are what keeps mailsift from working as configured: a config
// that does not load, an account or model server that cannot be reached,
// a damaged store, a store written by a newer mailsift. Warnings are
// states that wait for the user while mailsift works: a send interrupted
// by a crash, a send whose outcome is unknown, one that failed for good,
// a migration still to apply, another process running the outbox.
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
		checks = append(checks, storeChecks(ctx, storePath(cfg))...)
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
		out = append(out, check{name: "model host", ok: true, info: "model: " + r + " (remote): mail to triage or answer is sent to this host (config key ollama.remote = true)"})
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
			check{name: "ollama", info: redact.Replace(err.Error()) + "; triage falls back to deterministic rules meanwhile", fix: fix},
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

// storeChecks checks the store's integrity and, when it is readable, its
// schema version, the outbox items that wait for the user and who runs the
// outbox; all read-only, so doctor is safe while a TUI runs.
func storeChecks(ctx context.Context, path string) []check {
	integrity := storeCheck(ctx, path)
	if !integrity.ok {
		return []check{integrity}
	}
	if _, err := os.Stat(path); err != nil {
		return []check{integrity} // no store yet: nothing more to look at
	}
	out := []check{integrity}
	h, err := store.Inspect(ctx, path)
	if err != nil {
		return append(out, check{name: "schema", info: err.Error(), fix: "check the permissions of " + path})
	}
	out = append(out, schemaCheck(path, h.SchemaVersion))
	lock, err := store.ProbeOutboxLock(path)
	if err != nil {
		out = append(out, check{name: "outbox lock", info: err.Error(), fix: "check the permissions of " + lock.Path})
	}
	out = append(out, outboxChecks(h, lock)...)
	if err == nil {
		out = append(out, lockCheck(lock))
	}
	return out
}

// schemaCheck compares the store's schema version with this build's: a
// newer store cannot be opened (fail), an older one is migrated by the
// next command that opens it (warning).
func schemaCheck(path string, v int) check {
	want := store.SchemaVersionWanted()
	switch {
	case v > want:
		return check{name: "schema", info: fmt.Sprintf("%s has schema version %d, newer than this mailsift's %d: a newer mailsift wrote it, and this one refuses to open it", path, v, want),
			fix: "upgrade mailsift to the version that wrote this store (or newer); do not downgrade the store by hand"}
	case v < want:
		return check{name: "schema", ok: true, warn: true,
			info: fmt.Sprintf("schema version %d, this mailsift uses %d: migrations %d to %d are pending and are applied when a command next opens the store", v, want, v+1, want),
			fix:  fmt.Sprintf("run `mailsift outbox` (or sync, or the TUI) to migrate now; each migration is one transaction, so one that fails leaves the store at its last good version and its error names it: copy %s aside before retrying", path)}
	}
	return check{name: "schema", ok: true, info: fmt.Sprintf("schema version %d (current)", v)}
}

// outboxChecks reports the outbox items that wait for the user: sends a
// crash interrupted (sending while no process holds the outbox), sends
// whose outcome is unknown, and sends that failed for good.
func outboxChecks(h *store.Health, lock store.OutboxLockState) []check {
	if !h.HasOutbox {
		return nil
	}
	var sending, committed, unknown, unknownWaiting, failed, waiting []int64
	for _, it := range h.Outbox {
		switch {
		case it.State == store.OutboxSending:
			sending = append(sending, it.ID)
			if it.Phase == store.PhaseCommitted {
				committed = append(committed, it.ID)
			}
		case it.State == store.OutboxUnknown:
			unknown = append(unknown, it.ID)
			if it.NextAttemptAt.IsZero() {
				unknownWaiting = append(unknownWaiting, it.ID)
			}
		case it.State == store.OutboxFailed && it.NextAttemptAt.IsZero():
			failed = append(failed, it.ID)
		default:
			waiting = append(waiting, it.ID)
		}
	}
	var out []check
	if len(sending) > 0 {
		if lock.Held {
			out = append(out, check{name: "outbox", ok: true, info: fmt.Sprintf("%s being sent by %s", items(sending), holderName(lock))})
		} else {
			info := fmt.Sprintf("%s: interrupted mid-send (the sending process ended), awaiting reconciliation", items(sending))
			if len(committed) > 0 {
				info += fmt.Sprintf("; %s had been handed to the server, so its outcome is unknown", items(committed))
			}
			out = append(out, check{name: "outbox", ok: true, warn: true, info: info,
				fix: "run `mailsift outbox send` (or start the TUI): a send that never left is retried; one handed over becomes unknown and is looked up in Sent before anything is sent again; then `mailsift outbox` shows the result"})
		}
	}
	if len(unknown) > 0 {
		info := fmt.Sprintf("%s: send outcome unknown (the connection dropped after the message was handed over; it may have left)", items(unknown))
		if len(unknownWaiting) > 0 {
			info += fmt.Sprintf("; %s wait for you", items(unknownWaiting))
		}
		out = append(out, check{name: "outbox", ok: true, warn: true, info: info,
			fix: "look in your Sent folder or ask the recipient, then `mailsift outbox retry ID` (checks Sent first, sends again only if no copy is there) or `mailsift outbox cancel ID` (gives up; the draft reopens); `mailsift outbox` lists them"})
	}
	if len(failed) > 0 {
		out = append(out, check{name: "outbox", ok: true, warn: true,
			info: fmt.Sprintf("%s failed with no further attempt (nothing was sent)", items(failed)),
			fix:  "`mailsift outbox` shows each last error; fix its cause, then `mailsift outbox retry ID`, or `mailsift outbox cancel ID` to edit the draft again"})
	}
	if len(out) == 0 {
		info := "nothing waits for you"
		if len(waiting) > 0 {
			info = fmt.Sprintf("%s queued or retrying on schedule; nothing waits for you", items(waiting))
		}
		out = append(out, check{name: "outbox", ok: true, info: info})
	}
	return out
}

// lockCheck says who runs the outbox: another process holding the lock is
// a warning (it, not this one, sends); a lock file nobody holds is
// harmless, whoever left it.
func lockCheck(lock store.OutboxLockState) check {
	switch {
	case lock.Held:
		return check{name: "outbox lock", ok: true, warn: true,
			info: fmt.Sprintf("%s runs the outbox of this data dir now (holds %s): it sends what is confirmed anywhere; `mailsift outbox send` here would refuse", holderName(lock), lock.Path),
			fix:  "nothing to do while that mailsift runs; to send from another process, quit it first (if it hangs, end " + holderName(lock) + ")"}
	case lock.Exists && lock.Holder != "":
		return check{name: "outbox lock", ok: true, info: fmt.Sprintf("free; %s was last held by process %s, which let go or ended: a lock file left by a dead process is harmless (the lock died with it)", lock.Path, lock.Holder)}
	}
	return check{name: "outbox lock", ok: true, info: "free"}
}

// holderName names the process holding the outbox lock.
func holderName(lock store.OutboxLockState) string {
	if lock.Holder == "" {
		return "another process"
	}
	return "process " + lock.Holder
}

// items names outbox items: "item 3" or "3 items (3, 5, 8)", at most ten
// ids.
func items(ids []int64) string {
	if len(ids) == 1 {
		return fmt.Sprintf("item %d", ids[0])
	}
	var b strings.Builder
	for i, id := range ids {
		if i == 10 {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", id)
	}
	return fmt.Sprintf("%d items (%s)", len(ids), b.String())
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
		case c.warn:
			mark = "warn"
		}
		fmt.Fprintf(w, "%s %-11s %s\n", mark, c.name, c.info)
		if c.fix != "" && (!c.ok || c.skip || c.warn || c.name == "config") {
			fmt.Fprintf(w, "     %-11s fix: %s\n", "", c.fix)
		}
	}
	return code
}
