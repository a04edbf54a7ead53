package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/mailsrc/demo"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage"
)

// cmdTriage triages the store's threads headlessly, or one contract request.
func cmdTriage(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("triage", "[--json] [--offline] [--request FILE|-]")
	jsonOut := fs.Bool("json", false, "print one contract v1.0 EmailTriageResponse per thread as JSON lines on stdout")
	request := fs.String("request", "", "triage one v1.0 EmailTriageRequest from `FILE` (- for stdin) and print the response")
	offline := fs.Bool("offline", false, "use only the deterministic triage, never the model")
	if _, err := g.parse(fs, args); err != nil {
		return err
	}
	if *request != "" {
		return g.triageRequest(ctx, *request, *offline)
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	if cfg.NoConfig {
		fmt.Fprintln(g.Stderr, noConfigHint)
	}
	log, _ := g.Logger() // a log that cannot open is reported there
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if cfg.Demo {
		for _, a := range cfg.Accounts {
			if err := demo.New(a.Name, nil).Sync(ctx, st, nil); err != nil {
				return fmt.Errorf("load demo mailbox: %w", err)
			}
		}
	}
	if err := g.checkSynced(ctx, cfg, st); err != nil {
		return err
	}
	a := app.New(cfg, st, app.Options{Logger: log})
	an := a.Analyzer()
	tr, err := a.Triager(an, *offline)
	if err != nil {
		return err
	}
	w := a.Worker(tr, an)
	tty := false
	if f, ok := g.Stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	events := make(chan triage.Event, 16)
	done := make(chan struct{})
	bar := &triageBar{w: g.Stderr, tty: tty, start: time.Now()}
	// With --json each result is printed as the worker saves it, so a
	// script sees progress and a cancelled run still prints what finished.
	enc := newJSONLines(g.Stdout)
	printed := make(map[int64]bool)
	var printErr error
	go func() {
		defer close(done)
		for ev := range events {
			if ev.Err != nil {
				bar.clear()
				fmt.Fprintf(g.Stderr, "mailsift triage: %s\n", errorText(ev.Err)) // may quote the model server
			}
			if *jsonOut && ev.Outcome != nil && ev.ThreadID != 0 && printErr == nil {
				if printErr = enc.Encode(triage.Response(contract.KindThread, ev.Outcome)); printErr == nil {
					printed[ev.ThreadID] = true
				}
			}
			bar.update(ev)
		}
	}()
	res, err := w.Run(ctx, events)
	close(events)
	<-done
	bar.finish()
	if err != nil {
		return err
	}
	if printErr != nil {
		return printErr
	}
	mode := tr.Model()
	if res.Offline != nil || mode == "" {
		mode = "deterministic"
	}
	fmt.Fprintf(g.Stderr, "triaged %d thread(s) (%s) in %s", res.Triaged, mode, time.Since(bar.start).Round(time.Millisecond))
	if res.Failed > 0 {
		fmt.Fprintf(g.Stderr, ", %d failed (see the log)", res.Failed)
	}
	fmt.Fprintln(g.Stderr)
	if *jsonOut {
		// Threads whose stored triage was already current.
		if err := printStoredTriage(ctx, enc, st, printed); err != nil {
			return err
		}
	}
	if res.Failed > 0 {
		return exitWith(1) // the summary line above says how many failed
	}
	return nil
}

// checkSynced fails when no account was ever synced into st: triage would
// report "triaged 0 thread(s)" of mail it has not seen. Triage only reads
// the store (syncing a network account is the sync command's job, with its
// progress and errors), so the error names the exact command to run.
func (g *globals) checkSynced(ctx context.Context, cfg *config.Config, st *store.Store) error {
	for _, a := range cfg.Accounts {
		mbs, err := st.Mailboxes(ctx, a.Name)
		if err != nil {
			return err
		}
		if len(mbs) > 0 {
			return nil
		}
	}
	return fmt.Errorf("nothing to triage: no mail was synced into %s yet; run `%s` first", storePath(cfg), g.commandLine("sync"))
}

// commandLine is the mailsift command line for cmd with the global flags
// this run was given (config, source, password command, data dir), for
// hints.
func (g *globals) commandLine(cmd string) string {
	parts := []string{"mailsift"}
	add := func(flag, v string) {
		if v != "" {
			parts = append(parts, flag, shellQuote(v))
		}
	}
	add("--config", g.ConfigPath)
	add("--source", g.Source)
	add("--password-cmd", g.PasswordCmd)
	add("--data-dir", g.DataDir)
	return strings.Join(append(parts, cmd), " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// characters that are safe unquoted.
func shellQuote(s string) string {
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./_-~", c)) {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printStoredTriage prints the stored triage of every thread not in skip
// as contract v1.0 responses, one JSON line per thread.
func printStoredTriage(ctx context.Context, enc *jsonLines, st *store.Store, skip map[int64]bool) error {
	for _, sec := range store.Sections() {
		if sec == store.SectionUntriaged {
			continue
		}
		for off := 0; ; off += 500 {
			rows, err := st.ListThreads(ctx, sec, off, 500)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if r.Triage == nil || skip[r.ID] {
					continue
				}
				o := &triage.Outcome{Result: r.Triage.Result}
				if err := enc.Encode(triage.Response(contract.KindThread, o)); err != nil {
					return err
				}
			}
			if len(rows) < 500 {
				break
			}
		}
	}
	return nil
}

// triageRequest answers one contract request from path ("-" = stdin).
func (g *globals) triageRequest(ctx context.Context, path string, offline bool) error {
	var data []byte
	var err error
	name := path
	if path == "-" {
		name = "stdin"
		data, err = io.ReadAll(io.LimitReader(g.Stdin, 32<<20))
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return fmt.Errorf("read request %s: %w", name, err)
	}
	req, err := contract.ParseRequest(data)
	if err != nil {
		return fmt.Errorf("invalid request in %s: %w", name, err)
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	log, _ := g.Logger()
	a := app.New(cfg, nil, app.Options{Logger: log})
	tr, err := a.Triager(a.Analyzer(), offline)
	if err != nil {
		return err
	}
	in, kind := triage.FromRequest(req)
	out, terr := tr.Triage(ctx, in)
	if terr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(g.Stderr, "mailsift triage: deterministic triage: %s\n", errorText(terr))
	}
	return newJSONLines(g.Stdout).Encode(triage.Response(kind, out))
}

// triageBar draws one line of triage progress on a terminal; without a
// terminal it stays silent (the summary line follows).
type triageBar struct {
	w     io.Writer
	tty   bool
	start time.Time
	drawn bool
}

func (b *triageBar) update(ev triage.Event) {
	if !b.tty || ev.Total == 0 {
		return
	}
	const width = 30
	n := width * ev.Done / ev.Total
	mode := ev.Model
	if mode == "" {
		mode = "deterministic"
	}
	fmt.Fprintf(b.w, "\r\x1b[Ktriage [%s%s] %d/%d %s", strings.Repeat("#", n), strings.Repeat("-", width-n), ev.Done, ev.Total, mode)
	b.drawn = true
}

func (b *triageBar) clear() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}

func (b *triageBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}
