package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"mailsift/config"
	"mailsift/mailsrc/demo"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage"
)

// cmdTriage triages the store's threads headlessly, or one contract request.
func cmdTriage(ctx context.Context, g *globals, args []string) int {
	fs := g.flagSet("triage", "[--json] [--offline] [--request FILE|-]")
	jsonOut := fs.Bool("json", false, "print one contract v1.0 EmailTriageResponse per thread as JSON lines on stdout")
	request := fs.String("request", "", "triage one v1.0 EmailTriageRequest from `FILE` (- for stdin) and print the response")
	offline := fs.Bool("offline", false, "use only the deterministic triage, never the model")
	if _, code, ok := g.parse(fs, args); !ok {
		return code
	}
	if *request != "" {
		return g.triageRequest(ctx, *request, *offline)
	}
	cfg, err := g.loadConfig()
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
		return 1
	}
	if cfg.NoConfig {
		fmt.Fprintln(g.Stderr, noConfigHint)
	}
	log, _ := g.Logger()
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
		return 1
	}
	defer st.Close()
	if cfg.Demo {
		for _, a := range cfg.Accounts {
			if err := demo.New(a.Name, nil).Sync(ctx, st, nil); err != nil {
				fmt.Fprintf(g.Stderr, "mailsift triage: load demo mailbox: %v\n", err)
				return 1
			}
		}
	}
	principal := model.Address{Name: cfg.Principal.Name, Email: cfg.Principal.Email}
	an := triageAnalyzer(cfg, g)
	tr, err := g.triager(cfg, an, *offline)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
		return 1
	}
	w := triage.NewWorker(st, triage.WorkerOptions{
		Triager: tr, Fallback: triage.NewOffline(an), Principal: principal,
		Parallel: cfg.Ollama.Parallel, Logger: log,
	})
	tty := false
	if f, ok := g.Stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	events := make(chan triage.Event, 16)
	done := make(chan struct{})
	bar := &triageBar{w: g.Stderr, tty: tty, start: time.Now()}
	go func() {
		defer close(done)
		for ev := range events {
			if ev.Err != nil {
				bar.clear()
				fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", ev.Err)
			}
			bar.update(ev)
		}
	}()
	res, err := w.Run(ctx, events)
	close(events)
	<-done
	bar.finish()
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
		return 1
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
		if err := printStoredTriage(ctx, g.Stdout, st); err != nil {
			fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
			return 1
		}
	}
	if res.Failed > 0 {
		return 1
	}
	return 0
}

// printStoredTriage prints the stored triage of every thread as contract
// v1.0 responses, one JSON line per thread.
func printStoredTriage(ctx context.Context, w io.Writer, st *store.Store) error {
	enc := json.NewEncoder(w)
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
				if r.Triage == nil {
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
func (g *globals) triageRequest(ctx context.Context, path string, offline bool) int {
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
		fmt.Fprintf(g.Stderr, "mailsift triage: read request %s: %v\n", name, err)
		return 1
	}
	req, err := contract.ParseRequest(data)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: invalid request in %s: %v\n", name, err)
		return 1
	}
	cfg, err := g.loadConfig()
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
		return 1
	}
	an := triageAnalyzer(cfg, g)
	tr, err := g.triager(cfg, an, offline)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
		return 1
	}
	in, kind := triage.FromRequest(req)
	out, terr := tr.Triage(ctx, in)
	if terr != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", ctx.Err())
			return 1
		}
		fmt.Fprintf(g.Stderr, "mailsift triage: deterministic triage: %v\n", terr)
	}
	b, err := json.Marshal(triage.Response(kind, out))
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift triage: %v\n", err)
		return 1
	}
	fmt.Fprintln(g.Stdout, string(b))
	return 0
}

// triageAnalyzer returns the analyzer with the shipped spam model. The
// user's spam marks are not persisted yet, so there is nothing to load.
func triageAnalyzer(cfg *config.Config, g *globals) *triage.Analyzer {
	return triage.NewAnalyzer(nil)
}

// triager returns the configured triager: deterministic when offline is
// asked for (flag or triage.offline), else Ollama.
func (g *globals) triager(cfg *config.Config, an *triage.Analyzer, offline bool) (triage.Triager, error) {
	if offline || cfg.Triage.Offline {
		return triage.NewOffline(an), nil
	}
	log, _ := g.Logger()
	return triage.NewOllama(triage.OllamaOptions{
		Host: cfg.Ollama.Host, Model: cfg.Ollama.Model, NumCtx: cfg.Ollama.NumCtx,
		Timeout: cfg.Ollama.Timeout, TokenBudget: cfg.Triage.TokenBudget,
		MaxMessages: cfg.Triage.MaxThreadMessages, Analyzer: an, Logger: log,
	})
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
