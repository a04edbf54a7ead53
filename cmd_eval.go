package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/mailsrc/demo"
	"mailsift/mirror"
	"mailsift/store"
	"mailsift/triage"
)

// cmdEval triages a labeled mailbox into a temporary store and prints how
// well the triage matches the labels.
func cmdEval(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("eval", "--labels FILE [--json] [--offline] [--learn] [--predictions FILE]")
	labelsPath := fs.String("labels", "", "labels `FILE` (JSON; see the README's \"Measuring triage\")")
	jsonOut := fs.Bool("json", false, "print the figures as one JSON object on stdout")
	offline := fs.Bool("offline", false, "use only the deterministic triage, never the model")
	predPath := fs.String("predictions", "", "write one JSON line per thread with its triage to `FILE`")
	learn := fs.Bool("learn", false, "replay the labels as your corrections: oldest thread first, each wrong one corrected before the next (in memory only)")
	pos, err := g.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("eval takes no arguments (got %q); the mailbox is --source or the config's accounts", pos[0])
	}
	if *labelsPath == "" {
		return usageErrorf("eval needs --labels FILE")
	}
	data, err := os.ReadFile(*labelsPath)
	if err != nil {
		return fmt.Errorf("read labels: %w", err)
	}
	labels, err := app.ParseLabels(data)
	if err != nil {
		return fmt.Errorf("invalid labels in %s: %w", *labelsPath, err)
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	if cfg.NoConfig {
		fmt.Fprintln(g.Stderr, noConfigHint)
	}
	log, _ := g.Logger() // a log that cannot open is reported there
	st, cleanup, err := g.evalStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := g.syncAll(ctx, cfg, st); err != nil {
		return err
	}

	var pred *jsonLines
	var predBuf *bufio.Writer
	if *predPath != "" {
		f, err := os.OpenFile(*predPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("predictions: %w", err)
		}
		defer f.Close()
		predBuf = bufio.NewWriter(f)
		pred = newJSONLines(predBuf)
	}
	tty := false
	if f, ok := g.Stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	bar := &triageBar{w: g.Stderr, tty: tty, start: time.Now()}
	opts := app.EvalOptions{
		Offline:    *offline,
		Learn:      *learn,
		OnProgress: func(done, total int) { bar.update(triage.Event{Done: done, Total: total}) },
	}
	if pred != nil {
		opts.OnPrediction = func(p app.Prediction) error { return pred.Encode(p) }
	}
	rep, err := app.New(cfg, st, app.Options{Logger: log}).Eval(ctx, labels, opts)
	bar.finish()
	if err != nil {
		return err
	}
	if predBuf != nil {
		if err := predBuf.Flush(); err != nil {
			return fmt.Errorf("predictions: %w", err)
		}
	}
	if rep.OfflineReason != "" {
		fmt.Fprintf(g.Stderr, "mailsift eval: %s; the rest was triaged deterministically\n", errorText(errors.New(rep.OfflineReason)))
	}
	if *jsonOut {
		return newJSONLines(g.Stdout).Encode(rep)
	}
	return printEval(g.Stdout, rep)
}

// evalStore opens a new store in a temporary directory under the data
// directory, so the labeled mailbox never mixes with the user's mail; the
// cleanup closes and removes it.
func (g *globals) evalStore(ctx context.Context, cfg *config.Config) (*store.Store, func(), error) {
	if _, err := config.EnsurePrivateDir(cfg.DataDir); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp(cfg.DataDir, "eval-")
	if err != nil {
		return nil, nil, fmt.Errorf("eval store: %w", err)
	}
	log, _ := g.Logger()
	path := filepath.Join(dir, "eval.db")
	st, err := store.Open(ctx, path, &store.Options{Logger: log, Principal: cfg.Principal.Address()})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("open eval store %s: %w", path, err)
	}
	cleanup := func() { st.Close(); os.RemoveAll(dir) }
	for _, a := range cfg.Accounts {
		if err := st.EnsureAccount(ctx, a.Name, a.Src.Redacted()); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	return st, cleanup, nil
}

// syncAll mirrors every account of cfg into st, quietly.
func (g *globals) syncAll(ctx context.Context, cfg *config.Config, st *store.Store) error {
	log, _ := g.Logger()
	for i := range cfg.Accounts {
		acct := &cfg.Accounts[i]
		if cfg.Demo {
			if err := demo.New(acct.Name, nil).Sync(ctx, st, nil); err != nil {
				return fmt.Errorf("load demo mailbox: %w", err)
			}
			continue
		}
		src, err := mirror.Open(acct, mirror.Options{Logger: log})
		if err != nil {
			return err
		}
		err = mirror.Sync(ctx, st, acct.Name, src, nil)
		src.Close()
		if err != nil {
			return fmt.Errorf("sync %s: %w", acct.Name, err)
		}
	}
	return nil
}

// printEval writes the report as text tables.
func printEval(w io.Writer, r *app.EvalReport) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "threads: %d, labeled %d\n", r.Threads, r.Labeled)
	if r.MissingLabels > 0 {
		fmt.Fprintf(bw, "labels not found in the mailbox: %d (first: %s)\n", r.MissingLabels, strings.Join(r.MissingFirst, ", "))
	}
	if r.JoinedLabels > 0 {
		fmt.Fprintf(bw, "labels of messages that joined another thread (scored by that thread's root label): %d (first: %s)\n",
			r.JoinedLabels, strings.Join(r.JoinedFirst, ", "))
	}
	fmt.Fprintf(bw, "triage: %s; model calls %d, threads by the model %d, skipped (deterministic) %d", r.Mode, r.ModelCalls, r.ModelThreads, r.DeterministicThreads)
	if r.Fallbacks > 0 {
		fmt.Fprintf(bw, " of which %d after the model failed", r.Fallbacks)
	}
	if r.Threads > 0 {
		fmt.Fprintf(bw, "\ndecided by the signals alone (the model is not asked unless you press t): %d of %d threads (%.1f %%)",
			r.SignalDecided, r.Threads, 100*float64(r.SignalDecided)/float64(r.Threads))
	}
	if r.ModelThreads > 0 {
		fmt.Fprintf(bw, "\nprompt tokens evaluated per answered thread: %d (prompt_eval_count, after the cached prefix), prompt_eval_duration %s",
			r.PromptEvalTokens/r.ModelThreads, fmtDur(r.PromptEvalDuration/time.Duration(r.ModelThreads)))
	}
	fmt.Fprintf(bw, "\nlatency per thread: p50 %s, p95 %s; total %s\n", fmtDur(r.LatencyP50), fmtDur(r.LatencyP95), fmtDur(r.Elapsed))
	if r.Learn {
		fmt.Fprintf(bw, "learning from corrections (oldest thread first, each wrong one corrected before the next): %d spam/not-spam marks, %d bucket moves\n",
			r.CorrectionMarks, r.CorrectionMoves)
	}

	if r.BucketLabeled == 0 {
		fmt.Fprintf(bw, "\nbuckets: no labeled thread has an expected bucket\n")
	} else {
		fmt.Fprintf(bw, "\nbuckets (%d threads; rows expected, columns predicted):\n", r.BucketLabeled)
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "\t%s\t\n", strings.Join(r.Columns, "\t"))
		for i, row := range r.Rows {
			fmt.Fprintf(tw, "%s\t", row)
			for _, n := range r.Confusion[i] {
				fmt.Fprintf(tw, "%d\t", n)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintf(bw, "bucket accuracy: %s (spam and phishing expected in quarantine)\n\n", fmtRatio(r.Accuracy))
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "bucket\tsupport\tpredicted\tprecision\trecall\tF1\t\n")
		for _, s := range r.Buckets {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t\n", s.Bucket, s.Support, s.Predicted, fmtRatio(s.Precision), fmtRatio(s.Recall), fmtRatio(s.F1))
		}
		tw.Flush()
	}
	fmt.Fprintln(bw)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "flag\tlabeled\ttp\tfp\tfn\ttn\tprecision\trecall\tfalse positive rate\t\n")
	for _, f := range []struct {
		name string
		s    app.BinaryScore
	}{{"spam", r.Spam}, {"phishing", r.Phishing}} {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", f.name, f.s.Labeled, f.s.TP, f.s.FP, f.s.FN, f.s.TN,
			fmtRatio(f.s.Precision), fmtRatio(f.s.Recall), fmtRatio(f.s.FalsePositiveRate))
	}
	tw.Flush()
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// fmtRatio prints a ratio with three decimals, "-" when undefined.
func fmtRatio(r *float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *r)
}

// fmtDur rounds d for reading: microseconds below a millisecond.
func fmtDur(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(100 * time.Microsecond).String()
}
