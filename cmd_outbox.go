package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"mailsift/config"
	"mailsift/drafts"
	"mailsift/mirror"
	"mailsift/model"
	"mailsift/store"
)

// outboxItemJSON is one line of `mailsift outbox --json`.
type outboxItemJSON struct {
	ID            int64    `json:"id"`
	State         string   `json:"state"`
	Attempts      int      `json:"attempts"`
	NextAttemptAt string   `json:"next_attempt_at,omitempty"`
	MessageID     string   `json:"message_id"`
	Recipients    []string `json:"recipients"`
	Subject       string   `json:"subject"`
	LastError     string   `json:"last_error,omitempty"`
	CreatedAt     string   `json:"created_at"`
	SentAt        string   `json:"sent_at,omitempty"`
	TraceID       string   `json:"trace_id"`
	DraftID       string   `json:"draft_id"`
}

// cmdOutbox is `mailsift outbox [list|retry ID|cancel ID|send] [--json]`.
func cmdOutbox(ctx context.Context, g *globals, args []string) int {
	fset := g.flagSet("outbox", "[list | retry ID | cancel ID | send] [--json]\n\n"+
		"list    show queued, failed, unknown and sent messages (default)\n"+
		"retry   make a failed item due now; an unknown one is first looked up in Sent\n"+
		"cancel  cancel a queued or failed item (its draft reopens)\n"+
		"send    send the items that are due now, once (headless)")
	asJSON := fset.Bool("json", false, "print one JSON object per item")
	all := fset.Bool("all", false, "list cancelled items too")
	pos, code, ok := g.parse(fset, args)
	if !ok {
		return code
	}
	sub := "list"
	if len(pos) > 0 {
		sub = pos[0]
	}
	cfg, st := g.openExistingStore(ctx, "outbox", "nothing was ever queued")
	if st == nil {
		return 1
	}
	defer st.Close()
	idArg := func() (int64, bool) {
		if len(pos) != 2 {
			fmt.Fprintf(g.Stderr, "mailsift outbox %s: want exactly one item ID (see `mailsift outbox list`)\n", sub)
			return 0, false
		}
		id, err := strconv.ParseInt(pos[1], 10, 64)
		if err != nil || id <= 0 {
			fmt.Fprintf(g.Stderr, "mailsift outbox %s: %q is not an item ID (a positive number from `mailsift outbox list`)\n", sub, pos[1])
			return 0, false
		}
		return id, true
	}
	switch sub {
	case "list":
		if len(pos) > 1 {
			fmt.Fprintln(g.Stderr, "mailsift outbox list: takes no arguments")
			return 2
		}
		return outboxList(ctx, g, st, *asJSON, *all)
	case "retry", "cancel":
		id, ok := idArg()
		if !ok {
			return 2
		}
		var err error
		if sub == "retry" {
			err = st.RetryOutbox(ctx, id)
		} else {
			err = st.CancelOutbox(ctx, id, "cancelled with mailsift outbox cancel")
		}
		if err != nil {
			fmt.Fprintf(g.Stderr, "mailsift outbox %s: %v\n", sub, err)
			return 1
		}
		fmt.Fprintf(g.Stdout, "outbox item %d: %s\n", id, map[string]string{"retry": "due now (a running mailsift sends it; or run `mailsift outbox send`)", "cancel": "cancelled; its draft is open again"}[sub])
		return 0
	case "send":
		return outboxSend(ctx, g, cfg, st)
	default:
		fmt.Fprintf(g.Stderr, "mailsift outbox: unknown subcommand %q; use list, retry ID, cancel ID or send\n", sub)
		return 2
	}
}

func outboxList(ctx context.Context, g *globals, st *store.Store, asJSON, all bool) int {
	items, err := st.OutboxItems(ctx)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift outbox: %v\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintln(tw, "ID\tSTATE\tTRIES\tNEXT\tTO\tSUBJECT\tLAST ERROR")
	}
	shown := 0
	for _, it := range items {
		if it.State == store.OutboxCancelled && !all {
			continue
		}
		shown++
		subject := ""
		if d, err := st.Draft(ctx, it.DraftID); err == nil {
			subject = d.Subject
		}
		if asJSON {
			j := outboxItemJSON{ID: it.ID, State: string(it.State), Attempts: it.Attempts, MessageID: it.MessageID,
				Recipients: it.Recipients, Subject: subject, LastError: it.LastError, CreatedAt: it.CreatedAt.Format(time.RFC3339),
				TraceID: it.TraceID, DraftID: it.DraftID}
			if !it.NextAttemptAt.IsZero() && it.State != store.OutboxSent {
				j.NextAttemptAt = it.NextAttemptAt.Format(time.RFC3339)
			}
			if !it.SentAt.IsZero() {
				j.SentAt = it.SentAt.Format(time.RFC3339)
			}
			if j.Recipients == nil {
				j.Recipients = []string{}
			}
			b, _ := json.Marshal(j)
			fmt.Fprintln(g.Stdout, string(b))
			continue
		}
		next := "-"
		switch {
		case it.State == store.OutboxSent:
			next = "sent " + it.SentAt.Local().Format("Jan 2 15:04")
		case !it.NextAttemptAt.IsZero():
			next = it.NextAttemptAt.Local().Format("Jan 2 15:04:05")
		case it.State == store.OutboxFailed || it.State == store.OutboxUnknown:
			next = "waits for you"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\n", it.ID, it.State, it.Attempts, next,
			safeCell(strings.Join(it.Recipients, ", "), 40), safeCell(subject, 40), safeCell(it.LastError, 80))
	}
	if !asJSON {
		if shown == 0 {
			fmt.Fprintln(g.Stdout, "the outbox is empty")
			return 0
		}
		tw.Flush()
	}
	return 0
}

// safeCell strips control characters (terminal escapes in mail-derived
// text) and shortens s to n runes.
func safeCell(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// outboxSend sends the due items once with the configured transports.
func outboxSend(ctx context.Context, g *globals, cfg *config.Config, st *store.Store) int {
	log, _ := g.Logger()
	principal := model.Address{Name: cfg.Principal.Name, Email: cfg.Principal.Email}
	var accts []drafts.Account
	for i := range cfg.Accounts {
		a := &cfg.Accounts[i]
		da := drafts.AccountFromConfig(a, principal)
		if a.Src.IsNetwork() {
			if src, err := mirror.Open(a, mirror.Options{Logger: log}); err == nil {
				defer src.Close()
				if mb, ok := src.(drafts.Mailbox); ok {
					da.Mailbox = mb
				}
			}
			if mbs, err := st.Mailboxes(ctx, a.Name); err == nil {
				da.SentMailbox, da.DraftsMailbox = drafts.SentAndDrafts(mbs)
			}
		}
		accts = append(accts, da)
	}
	e := drafts.New(st, drafts.Options{Principal: principal, Accounts: accts, Logger: log})
	if _, err := st.RecoverInterrupted(ctx); err != nil {
		fmt.Fprintf(g.Stderr, "mailsift outbox send: %v\n", err)
		return 1
	}
	n, err := e.ProcessDue(ctx)
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift outbox send: %v\n", err)
		return 1
	}
	fmt.Fprintf(g.Stdout, "processed %d due item(s); see `mailsift outbox`\n", n)
	return 0
}
