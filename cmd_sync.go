package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"mailsift/internal/gcbatch"
	"mailsift/internal/termsafe"
	"mailsift/mailsrc"
	"mailsift/mirror"
)

// cmdSync mirrors every configured account (or --account) into the store once.
func cmdSync(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("sync", "[flags]")
	jsonOut := fs.Bool("json", false, "print progress as JSON lines on stdout (for scripts)")
	only := fs.String("account", "", "sync only this account")
	if _, err := g.parse(fs, args); err != nil {
		return err
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	if *only != "" {
		if _, ok := cfg.Account(*only); !ok {
			return fmt.Errorf("no account named %q in %s", *only, cfg.Path)
		}
	}
	log, _ := g.Logger() // a log that cannot open is reported there
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	// This process does nothing but sync: trade memory for speed in the
	// collector (the TUI's background sync keeps the process's settings).
	defer gcbatch.Enter()()

	tty := false
	if f, ok := g.Stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	var failed []error
	enc := newJSONLines(g.Stdout)
	for i := range cfg.Accounts {
		acct := &cfg.Accounts[i]
		if *only != "" && acct.Name != *only {
			continue
		}
		src, err := mirror.Open(acct, mirror.Options{Logger: log})
		if err != nil {
			failed = append(failed, err)
			continue
		}
		bar := &progressBar{w: g.Stderr, tty: tty, start: time.Now()}
		report := func(p mailsrc.Progress) {
			if *jsonOut {
				// A failed write (closed pipe) shows in the exit status of
				// the command reading it; the sync goes on.
				_ = enc.Encode(struct {
					Account string `json:"account"`
					Mailbox string `json:"mailbox"`
					Phase   string `json:"phase"`
					Done    int    `json:"done"`
					Total   int    `json:"total"`
				}{p.Account, p.Mailbox, p.Phase, p.Done, p.Total})
				return
			}
			bar.update(p)
		}
		err = mirror.Sync(ctx, st, acct.Name, src, report)
		src.Close()
		bar.finish()
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", acct.Name, err))
			continue
		}
		if !*jsonOut {
			fmt.Fprintf(g.Stderr, "%s: synced %d messages in %s\n", acct.Name, bar.done, time.Since(bar.start).Round(time.Millisecond))
		}
	}
	return errors.Join(failed...)
}

// progressBar draws one line of sync progress with counts and rate on a
// terminal, and nothing when stderr is not a terminal.
type progressBar struct {
	w     io.Writer
	tty   bool
	start time.Time
	last  time.Time
	done  int
	drawn bool
	// per mailbox, the highest count of messages seen in a fetch phase
	byBox map[string]int
}

func (b *progressBar) update(p mailsrc.Progress) {
	if p.Phase == "bodies" || p.Phase == "envelopes" || p.Phase == "messages" {
		if b.byBox == nil {
			b.byBox = map[string]int{}
		}
		b.done -= b.byBox[p.Mailbox]
		b.byBox[p.Mailbox] = max(b.byBox[p.Mailbox], p.Done)
		b.done += b.byBox[p.Mailbox]
	}
	if !b.tty || time.Since(b.last) < 100*time.Millisecond && p.Done != p.Total {
		return
	}
	b.last = time.Now()
	const width = 30
	filled := 0
	if p.Total > 0 {
		filled = width * min(p.Done, p.Total) / p.Total
	}
	rate := float64(b.done) / max(time.Since(b.start).Seconds(), 0.001)
	bar := make([]byte, width)
	for i := range bar {
		if i < filled {
			bar[i] = '#'
		} else {
			bar[i] = '.'
		}
	}
	fmt.Fprintf(b.w, "\r\x1b[K%s %-10s %-9s [%s] %d/%d %.0f msg/s", p.Account, termsafe.SanitizeLine(p.Mailbox), p.Phase, bar, p.Done, p.Total, rate)
	b.drawn = true
}

func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}
