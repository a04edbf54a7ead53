package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/internal/termsafe"
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
func cmdOutbox(ctx context.Context, g *globals, args []string) error {
	fset := g.flagSet("outbox", "[list | retry ID | cancel ID | send] [--json]\n\n"+
		"list    show queued, failed, unknown and sent messages (default)\n"+
		"retry   make a failed item due now; an unknown one is first looked up in Sent\n"+
		"cancel  cancel a queued or failed item (its draft reopens)\n"+
		"send    send the items that are due now, once (headless)")
	asJSON := fset.Bool("json", false, "print one JSON object per item")
	all := fset.Bool("all", false, "list cancelled items too")
	pos, err := g.parse(fset, args)
	if err != nil {
		return err
	}
	sub := "list"
	if len(pos) > 0 {
		sub = pos[0]
	}
	cfg, st, err := g.openExistingStore(ctx)
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	idArg := func() (int64, error) {
		if len(pos) != 2 {
			return 0, usageErrorf("%s: want exactly one item ID (see `mailsift outbox list`)", sub)
		}
		id, err := strconv.ParseInt(pos[1], 10, 64)
		if err != nil || id <= 0 {
			return 0, usageErrorf("%s: %q is not an item ID (a positive number from `mailsift outbox list`)", sub, pos[1])
		}
		return id, nil
	}
	switch sub {
	case "list":
		if len(pos) > 1 {
			return usageErrorf("list: takes no arguments")
		}
		return outboxList(ctx, g, st, *asJSON, *all)
	case "retry", "cancel":
		id, err := idArg()
		if err != nil {
			return err
		}
		if st == nil {
			return fmt.Errorf("%s: no outbox item %d: the outbox is empty", sub, id)
		}
		if sub == "retry" {
			err = st.RetryOutbox(ctx, id)
		} else {
			err = st.CancelOutbox(ctx, id, "cancelled with mailsift outbox cancel")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", sub, err)
		}
		fmt.Fprintf(g.Stdout, "outbox item %d: %s\n", id, map[string]string{"retry": "due now (a running mailsift sends it; or run `mailsift outbox send`)", "cancel": "cancelled; its draft is open again"}[sub])
		return nil
	case "send":
		if st == nil {
			fmt.Fprintln(g.Stdout, "processed 0 due item(s); see `mailsift outbox`")
			return nil
		}
		return outboxSend(ctx, g, cfg, st)
	default:
		return usageErrorf("unknown subcommand %q; use list, retry ID, cancel ID or send", sub)
	}
}

// outboxList prints the outbox; a nil st (no store yet) is an empty one.
func outboxList(ctx context.Context, g *globals, st *store.Store, asJSON, all bool) error {
	var items []store.OutboxItem
	if st != nil {
		var err error
		if items, err = st.OutboxItems(ctx); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	enc := newJSONLines(g.Stdout)
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
				Recipients: it.Recipients, Subject: termsafe.SanitizeLine(subject), LastError: it.LastError, CreatedAt: it.CreatedAt.Format(time.RFC3339),
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
			if err := enc.Encode(j); err != nil {
				return err
			}
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
			cell(strings.Join(it.Recipients, ", "), 40), cell(subject, 40), cell(it.LastError, 80))
	}
	if !asJSON {
		if shown == 0 {
			fmt.Fprintln(g.Stdout, "the outbox is empty")
			return nil
		}
		return tw.Flush()
	}
	return nil
}

// outboxSend sends the due items once with the configured transports,
// through the same engine setup as the TUI.
func outboxSend(ctx context.Context, g *globals, cfg *config.Config, st *store.Store) error {
	log, _ := g.Logger()
	eng, closeDrafts := app.New(cfg, st, app.Options{Logger: log}).Drafts(ctx, app.DraftOptions{})
	defer closeDrafts()
	if _, err := st.RecoverInterrupted(ctx); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	n, err := eng.ProcessDue(ctx)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	fmt.Fprintf(g.Stdout, "processed %d due item(s); see `mailsift outbox`\n", n)
	return nil
}
