package app

import (
	"context"
	"time"

	"mailsift/drafts"
	"mailsift/mirror"
)

// DemoNoSend is what confirming a message in the demo mailbox says: the
// demo has no transport, so a confirmed message stays in the outbox.
const DemoNoSend = "demo mailbox: nothing is sent"

// DraftOptions tune the send engine for one surface.
type DraftOptions struct {
	// Events receives the engine's outbox state changes (nil: none).
	Events chan<- drafts.Event
	// Retriage is called with a thread's id after a reply to it was sent.
	Retriage func(ctx context.Context, threadID int64)
}

// Drafts builds the send engine for the configured accounts: the SMTP or
// sendmail transport of each, the IMAP source as its mailbox (Sent and
// Drafts copies, looking up unknown sends) for IMAP accounts, a transport
// that refuses for the demo mailbox, and the Ollama draft writer unless
// triage is offline. The returned func closes the IMAP connections; call it
// after the engine stopped.
func (a *App) Drafts(ctx context.Context, opts DraftOptions) (*drafts.Engine, func()) {
	cfg := a.cfg
	principal := a.Principal()
	var accts []drafts.Account
	var closers []func() error
	for i := range cfg.Accounts {
		acct := &cfg.Accounts[i]
		da := drafts.AccountFromConfig(acct, principal)
		if da.Transport == nil && (cfg.Demo || acct.Src.Scheme == "demo") {
			da.Transport = &drafts.NoSend{Reason: DemoNoSend}
		}
		if acct.Src.IsNetwork() {
			if src, err := mirror.Open(acct, mirror.Options{Logger: a.log}); err == nil {
				closers = append(closers, src.Close)
				if mb, ok := src.(drafts.Mailbox); ok {
					da.Mailbox = mb
				}
			} else {
				a.log.Warn("drafts: no mailbox for Sent copies", "account", acct.Name, "err", err)
			}
			if mbs, err := a.st.Mailboxes(ctx, acct.Name); err == nil {
				da.SentMailbox, da.DraftsMailbox = drafts.SentAndDrafts(mbs)
			}
		}
		accts = append(accts, da)
	}
	var gen drafts.Generator
	if !cfg.Triage.Offline {
		if o, err := drafts.NewOllama(cfg.Ollama.Host, cfg.Ollama.Model, cfg.Ollama.NumCtx, nil); err == nil {
			gen = timeoutGenerator{g: o, d: cfg.Ollama.Timeout}
		} else {
			a.log.Warn("drafts: template drafts only", "err", err)
		}
	}
	eng := drafts.New(a.st, drafts.Options{
		Principal: principal,
		Policy: drafts.Policy{Tone: cfg.Drafts.Tone, Length: cfg.Drafts.Length, Signature: cfg.Drafts.Signature,
			Language: cfg.Drafts.Language, NeverPromise: cfg.Drafts.NeverPromise},
		Generator:   gen,
		Accounts:    accts,
		UndoWindow:  time.Duration(cfg.Drafts.UndoSeconds) * time.Second,
		ApprovalTTL: cfg.Drafts.ApprovalTTL,
		Retriage:    opts.Retriage,
		Events:      opts.Events,
		Now:         a.now,
		Logger:      a.log,
	})
	return eng, func() {
		for _, c := range closers {
			_ = c()
		}
	}
}

// timeoutGenerator bounds each draft request, so an unresponsive Ollama
// falls back to the template draft instead of spinning for ever.
type timeoutGenerator struct {
	g drafts.Generator
	d time.Duration
}

func (t timeoutGenerator) GenerateReply(ctx context.Context, req drafts.GenerateRequest) (*drafts.GeneratedReply, error) {
	if t.d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.d)
		defer cancel()
	}
	return t.g.GenerateReply(ctx, req)
}

func (t timeoutGenerator) Name() string { return t.g.Name() }
