package main

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/internal/app/event"
	"mailsift/internal/notify"
	"mailsift/ui"
)

// tuiHint is the status-line hint when no config exists.
const tuiHint = "no config: demo mailbox — run `mailsift init` to configure"

// cmdTUI runs the TUI: it draws from the store at once, while the app
// session syncs, triages and sends in the background and reports through
// its event stream.
func cmdTUI(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("", "[global flags]")
	if _, err := g.parse(fs, args); err != nil {
		return err
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	log, logErr := g.Logger()
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := app.New(cfg, st, app.Options{Logger: log})
	sess, err := a.Start(ctx)
	if err != nil {
		return err
	}
	defer sess.Wait() // after cancel (deferred later, runs first)
	defer cancel()
	if logErr != nil {
		go sess.Report(ctx, event.Failure{Err: fmt.Errorf("%w; logs are discarded", logErr)})
	}

	opts := ui.Options{
		Store:     sess.Mail,
		Account:   accountLabel(cfg),
		Accounts:  accountNames(cfg),
		ModelHost: cfg.Ollama.RemoteHost(),
		Principal: a.Principal(),
		Context:   ctx,
		Events:    sess.Events(),
		Logger:    log,
		Retriage:  sess.Retriage,
		Drafts:    sess.Drafts,
		Actions:   sess.Actions,
		Keys:      cfg.Keys,
		Approvals: a.Approvals(sess.Drafts),
	}
	if sess.Scheduler != nil {
		opts.Scheduling = sess.Scheduler
	}
	if sess.Actions != nil {
		opts.ArchiveSender = sess.Actions.ArchiveSender
	}
	if cfg.NoConfig {
		opts.Hint = tuiHint
	}
	opts.Searcher = a
	if in, err := a.Interpreter(); err == nil {
		opts.Interpreter = in
	} else {
		log.Info("tui: plain language on the : line is off", "reason", err)
	}
	notifier := a.Notifier()
	defer notifier.Close()
	term := notify.NewTerminal(g.Stdout)
	opts.NewMail, opts.Notifier, opts.Bell, opts.SetTitle = a.NewMail(), notifier, term.Bell, term.SetTitle
	p := tea.NewProgram(ui.New(opts),
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
		tea.WithContext(ctx),
		tea.WithInput(g.Stdin),
		tea.WithOutput(g.Stdout),
	)
	_, err = p.Run()
	cancel()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// accountLabel names the account(s) in the status bar.
func accountLabel(cfg *config.Config) string {
	switch len(cfg.Accounts) {
	case 0:
		return "no account"
	case 1:
		if cfg.Demo {
			return cfg.Accounts[0].Name + " (demo)"
		}
		return cfg.Accounts[0].Name
	default:
		return fmt.Sprintf("%s +%d", cfg.Accounts[0].Name, len(cfg.Accounts)-1)
	}
}

// accountNames lists the configured accounts for the TUI's account view.
func accountNames(cfg *config.Config) []string {
	names := make([]string, len(cfg.Accounts))
	for i, a := range cfg.Accounts {
		names[i] = a.Name
	}
	return names
}
