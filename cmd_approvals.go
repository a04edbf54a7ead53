package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"mailsift/internal/app"
	"mailsift/internal/termsafe"
	"mailsift/store"
)

// approvalJSON is one approval in `mailsift approvals --json` (the
// contract's Approval).
type approvalJSON struct {
	ApprovalID string `json:"approval_id"`
	CreatedAt  string `json:"created_at"`
	ExpiresAt  string `json:"expires_at"`
	Status     string `json:"status"`
	TraceID    string `json:"trace_id"`
	Refs       struct {
		EventID *string `json:"event_id"`
		TaskID  *string `json:"task_id"`
		StepID  *string `json:"step_id"`
	} `json:"refs"`
	RiskLevel     string             `json:"risk_level"`
	AutonomyLevel string             `json:"autonomy_level"`
	What          store.ApprovalWhat `json:"what"`
	WhatHash      string             `json:"what_hash"`
	Why           string             `json:"why"`
	HowToApprove  string             `json:"how_to_approve"`
	Decision      struct {
		By     *string `json:"by"`
		At     *string `json:"at"`
		Reason *string `json:"reason"`
	} `json:"decision"`
}

func approvalToJSON(a *store.Approval) approvalJSON {
	j := approvalJSON{ApprovalID: a.ID, CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339), ExpiresAt: a.ExpiresAt.UTC().Format(time.RFC3339),
		Status: string(a.Status), TraceID: a.TraceID, RiskLevel: a.RiskLevel, AutonomyLevel: a.AutonomyLevel, What: a.What,
		WhatHash: a.WhatHash, Why: termsafe.SanitizeLine(a.Why), HowToApprove: termsafe.SanitizeLine(a.HowToApprove)}
	if a.DecisionBy != "" {
		j.Decision.By = &a.DecisionBy
	}
	if !a.DecisionAt.IsZero() {
		at := a.DecisionAt.UTC().Format(time.RFC3339)
		j.Decision.At = &at
	}
	if a.DecisionReason != "" {
		j.Decision.Reason = &a.DecisionReason
	}
	return j
}

// cmdApprovals is `mailsift approvals [list|show ID|approve ID|deny ID]`:
// the sends agents asked for, waiting for the person.
func cmdApprovals(ctx context.Context, g *globals, args []string) error {
	fset := g.flagSet("approvals", "[list | show ID | approve ID | deny ID] [--json] [--all] [--reason TEXT]\n\n"+
		"list     pending approvals (--all: every state)\n"+
		"show     one approval with the exact message bytes\n"+
		"approve  show the exact message and ask; on a terminal only (an agent cannot approve)\n"+
		"deny     refuse it; nothing is sent")
	asJSON := fset.Bool("json", false, "print JSON (list: one approval per line)")
	all := fset.Bool("all", false, "list approvals in every state")
	reason := fset.String("reason", "denied on the command line", "deny: the `TEXT` recorded as the reason")
	pos, err := g.parse(fset, args)
	if err != nil {
		return err
	}
	sub := "list"
	if len(pos) > 0 {
		sub = pos[0]
	}
	switch sub {
	case "list":
		if len(pos) > 1 {
			return usageErrorf("list: takes no arguments")
		}
	case "show", "approve", "deny":
		if len(pos) != 2 {
			return usageErrorf("%s: want exactly one approval ID (see `mailsift approvals list`)", sub)
		}
	default:
		return usageErrorf("unknown subcommand %q; use list, show ID, approve ID or deny ID", sub)
	}
	if sub == "approve" && !g.interactive() {
		return fmt.Errorf("approve: needs a terminal (stdin and stdout): the person approves after reading the exact message; " +
			"run `mailsift approvals approve ID` in a terminal or use the TUI's approvals screen")
	}
	cfg, st, err := g.openExistingStore(ctx)
	if err != nil {
		return err
	}
	if st == nil {
		if sub == "list" {
			if !*asJSON {
				fmt.Fprintln(g.Stdout, "no approvals")
			}
			return nil
		}
		return fmt.Errorf("%s: no approval %s: nothing was ever asked", sub, pos[1])
	}
	defer st.Close()
	log, _ := g.Logger()
	a := app.New(cfg, st, app.Options{Logger: log})
	eng, closeEng := a.Drafts(ctx, app.DraftOptions{})
	defer closeEng()
	svc := a.Approvals(eng)
	if sub == "list" {
		var states []store.ApprovalStatus
		if !*all {
			states = []store.ApprovalStatus{store.ApprovalPending}
		}
		list, err := svc.List(ctx, states...)
		if err != nil {
			return err
		}
		return printApprovals(g, list, *asJSON)
	}
	ap, err := findApproval(ctx, svc, pos[1])
	if err != nil {
		return err
	}
	switch sub {
	case "show":
		if *asJSON {
			return exactJSON(g.Stdout, approvalToJSON(ap))
		}
		showApproval(g.Stdout, ap)
		return nil
	case "deny":
		if err := svc.Deny(ctx, ap.ID, *reason); err != nil {
			return fmt.Errorf("deny %s: %w", ap.ID, err)
		}
		fmt.Fprintf(g.Stdout, "approval %s denied; nothing is sent\n", ap.ID)
		return nil
	}
	// approve
	if ap.Status != store.ApprovalPending {
		return fmt.Errorf("approve: approval %s is %s, not pending", ap.ID, ap.Status)
	}
	showApproval(g.Stdout, ap)
	fmt.Fprintf(g.Stdout, "\nSend exactly this message to %s? Type y to send, anything else to leave it pending: ",
		strings.Join(ap.What.Recipients, ", "))
	line, _ := bufio.NewReader(g.Stdin).ReadString('\n')
	if strings.TrimSpace(line) != "y" {
		fmt.Fprintln(g.Stdout, "not approved; it stays pending")
		return nil
	}
	item, err := svc.Approve(ctx, ap.ID)
	if err != nil {
		return fmt.Errorf("approve %s: %w", ap.ID, err)
	}
	fmt.Fprintf(g.Stdout, "approved: outbox item %d, sent after the undo window by a running mailsift or `mailsift outbox send`\n", item.ID)
	return nil
}

// interactive reports whether stdin and stdout are terminals.
func (g *globals) interactive() bool {
	in, ok1 := g.Stdin.(*os.File)
	out, ok2 := g.Stdout.(*os.File)
	return ok1 && ok2 && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}

// findApproval finds an approval by its id or a unique prefix of it.
func findApproval(ctx context.Context, svc *app.Approvals, id string) (*store.Approval, error) {
	if ap, err := svc.Get(ctx, id); err == nil {
		return ap, nil
	}
	list, err := svc.List(ctx)
	if err != nil {
		return nil, err
	}
	var found []store.Approval
	for _, a := range list {
		if len(id) >= 4 && strings.HasPrefix(a.ID, id) {
			found = append(found, a)
		}
	}
	switch len(found) {
	case 1:
		return svc.Get(ctx, found[0].ID)
	case 0:
		return nil, fmt.Errorf("no approval %s (see `mailsift approvals list --all`)", id)
	}
	return nil, fmt.Errorf("%s names %d approvals; give more of the id", id, len(found))
}

func printApprovals(g *globals, list []store.Approval, asJSON bool) error {
	if asJSON {
		for i := range list {
			if err := exactJSON(g.Stdout, approvalToJSON(&list[i])); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(g.Stdout, "no approvals")
		return nil
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tEXPIRES\tTO\tSUBJECT")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.ID, a.Status, a.ExpiresAt.Local().Format("2006-01-02 15:04"),
			cell(strings.Join(a.What.Recipients, ", "), 40), cell(headerOf(a.What.Message, "Subject"), 60))
	}
	return tw.Flush()
}

// headerOf returns the first value of a header of a message.
func headerOf(msg, name string) string {
	head, _, _ := strings.Cut(msg, "\r\n\r\n")
	for _, l := range strings.Split(head, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// showApproval prints an approval and its exact message: every byte that
// is not printable ASCII shows as an escape, as on the confirm screen.
func showApproval(w io.Writer, a *store.Approval) {
	fmt.Fprintf(w, "approval   %s (%s)\n", a.ID, a.Status)
	fmt.Fprintf(w, "expires    %s\n", a.ExpiresAt.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(w, "risk       %s\n", a.RiskLevel)
	fmt.Fprintf(w, "why        %s\n", termsafe.SanitizeLine(a.Why))
	fmt.Fprintf(w, "approve    %s\n", termsafe.SanitizeLine(a.HowToApprove))
	fmt.Fprintf(w, "envelope   MAIL FROM:<%s> RCPT TO:%s\n", escapeBytes(a.What.EnvelopeFrom), escapeBytes(strings.Join(a.What.Recipients, ", ")))
	fmt.Fprintf(w, "sha256     %s\n", a.WhatHash)
	fmt.Fprintln(w, "---- exact message ----")
	for _, l := range strings.Split(a.What.Message, "\r\n") {
		fmt.Fprintln(w, escapeBytes(l))
	}
	fmt.Fprintln(w, "---- end ----")
}

// escapeBytes shows printable ASCII as is and anything else as an escape
// (\t, \xNN for a byte, \uNNNN for a rune); a backslash is doubled.
func escapeBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
			i++
		case c == '\t':
			b.WriteString(`\t`)
			i++
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
			i++
		case c < 0x80:
			fmt.Fprintf(&b, `\x%02x`, c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				fmt.Fprintf(&b, `\x%02x`, c)
				i++
				continue
			}
			fmt.Fprintf(&b, `\u%04x`, r)
			i += n
		}
	}
	return b.String()
}

// exactJSON writes one approval as a JSON line with the message's bytes
// kept exactly (CR LF included; the --json sanitiser would drop the CRs
// and break what_hash). json.Marshal writes every control character as an
// escape, and the message is 7-bit ASCII (drafts builds it so); the other
// strings are sanitised in approvalToJSON.
func exactJSON(w io.Writer, v approvalJSON) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
