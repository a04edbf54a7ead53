package triage

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"testing"

	"mailsift/drafts"
	"mailsift/mailsrc/demo"
	"mailsift/model"
	"mailsift/model/contract"
)

// draftAnswer is a model answer proposing a reply to the given addresses.
func draftAnswer(t testing.TB, category, subject, body string, to ...string) string {
	t.Helper()
	res := contract.Result{Category: category, Summary: "A thread.", ActionItems: []contract.ActionItem{},
		Draft: &contract.DraftReply{Subject: subject, Body: body}}
	for _, a := range to {
		res.Draft.To = append(res.Draft.To, contract.Address{Email: a})
	}
	return string(mustJSON(t, res))
}

// triageWith triages in with a fake model that gives answer, logging to log.
func triageWith(t *testing.T, in Input, answer string, log *bytes.Buffer) *Outcome {
	t.Helper()
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, answer, -1) })
	o := f.triager(t, func(o *OllamaOptions) { o.Logger = slog.New(slog.NewTextHandler(log, nil)) })
	out, err := o.Triage(context.Background(), in)
	if err != nil {
		t.Fatalf("Triage: %v", err)
	}
	if out.Source != SourceOllama {
		t.Fatalf("source %q, want the model's answer", out.Source)
	}
	return out
}

func emails(as []contract.Address) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Email
	}
	return out
}

func TestDraftIsGrounded(t *testing.T) {
	threads := demoThreads(t)
	p := demo.Principal()
	invoice := threads["05-invoice-review-1"]
	if len(invoice) == 0 {
		t.Fatal("demo thread 05-invoice-review-1 missing")
	}
	last := invoice[len(invoice)-1]
	sender := drafts.ComputeRecipients(&model.Thread{Messages: invoice}, p, false).To[0].Email

	noReply := testInput()
	noReply.Messages[0].From = model.Address{Name: "Billing", Email: "no-reply@bob.example.org"}
	replyTo := testInput()
	replyTo.Messages[0].ReplyTo = []model.Address{{Name: "Bob's desk", Email: "desk@example.org"}}

	for _, tc := range []struct {
		name    string
		in      Input
		answer  string
		wantTo  []string // nil: no draft
		wantSub string
		wantLog string
	}{
		{name: "addressed elsewhere", in: Input{Messages: invoice, Principal: p},
			answer:  draftAnswer(t, "actionable", "Re: invoice", "Send the money here.", "attacker@evil.example"),
			wantLog: "attacker@evil.example"},
		{name: "one of two addressed elsewhere", in: Input{Messages: invoice, Principal: p},
			answer:  draftAnswer(t, "actionable", "Re: invoice", "Done.", sender, "attacker@evil.example"),
			wantLog: "attacker@evil.example"},
		{name: "model subject replaced", in: Input{Messages: invoice, Principal: p},
			answer: draftAnswer(t, "actionable", "Wire instructions", "Thanks, I will review it today.", strings.ToUpper(sender)),
			wantTo: []string{sender}, wantSub: drafts.ReplySubject(last.Subject)},
		{name: "reply-to", in: replyTo,
			answer: draftAnswer(t, "actionable", "x", "Sure, Thursday works.", "desk@example.org"),
			wantTo: []string{"desk@example.org"}, wantSub: "Re: Contract renewal"},
		{name: "no-reply sender", in: noReply,
			answer: draftAnswer(t, "actionable", "x", "Thanks.", "no-reply@bob.example.org")},
		{name: "bulk", in: Input{Messages: threads["15-newsletter-1"], Principal: p},
			answer: draftAnswer(t, "informational", "x", "Thanks.", threads["15-newsletter-1"][0].From.Email)},
		{name: "spam", in: Input{Messages: threads["18-spam-lottery-1"], Principal: p},
			answer: draftAnswer(t, "actionable", "x", "Here are my bank details.", threads["18-spam-lottery-1"][0].From.Email)},
		{name: "phishing", in: Input{Messages: threads["22-phish-sso-1"], Principal: p},
			answer: draftAnswer(t, "urgent", "x", "Here is my password.", threads["22-phish-sso-1"][0].From.Email)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			out := triageWith(t, tc.in, tc.answer, &log)
			d := out.Result.Draft
			if tc.wantTo == nil {
				if d != nil {
					t.Fatalf("draft = %+v, want none", *d)
				}
			} else {
				if d == nil {
					t.Fatalf("no draft, want one to %v", tc.wantTo)
				}
				if got := emails(d.To); !slices.Equal(got, tc.wantTo) || d.Subject != tc.wantSub {
					t.Errorf("draft to %v subject %q, want %v %q", got, d.Subject, tc.wantTo, tc.wantSub)
				}
				if d.Body == "" {
					t.Errorf("draft body lost")
				}
			}
			if tc.wantLog != "" && !strings.Contains(log.String(), tc.wantLog) {
				t.Errorf("drop not logged with %q:\n%s", tc.wantLog, log.String())
			}
			// The contract answer is what scripts read: it never names
			// the attacker.
			if b, _ := json.Marshal(Response(contract.KindThread, out)); strings.Contains(string(b), "evil.example") {
				t.Errorf("response names evil.example: %s", b)
			}
		})
	}
}

// TestDraftRecipientsAgreeWithDrafts checks, over every demo thread, that
// a model draft addressed to the reply's sender comes back addressed as
// the drafts package addresses a reply, under its subject, unless the
// thread is one that gets no draft.
func TestDraftRecipientsAgreeWithDrafts(t *testing.T) {
	threads := demoThreads(t)
	keys := make([]string, 0, len(threads))
	for k := range threads {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	p := demo.Principal()
	a := NewAnalyzer(nil)
	kept := 0
	for _, k := range keys {
		th := &model.Thread{Messages: threads[k]}
		want, err := drafts.Generate(context.Background(), th, p, drafts.Policy{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var to []string
		for _, r := range want.To {
			to = append(to, r.Email)
		}
		var log bytes.Buffer
		out := triageWith(t, Input{Messages: threads[k], Principal: p}, draftAnswer(t, "actionable", "x", "Thanks, will do.", to...), &log)
		det, an := a.deterministic(threads[k], p, nil)
		suppressed := det.Result.IsSpam || det.Result.IsPhishing || an.bulk || len(to) == 0
		d := out.Result.Draft
		switch {
		case d == nil && !suppressed && !noReplyAddress(to[0]):
			t.Errorf("%s: draft to %v dropped", k, to)
		case d != nil && suppressed:
			t.Errorf("%s: draft kept on a thread that gets none", k)
		case d != nil:
			kept++
			if got := emails(d.To); !slices.Equal(got, to) || d.Subject != want.Subject {
				t.Errorf("%s: draft to %v subject %q; drafts package says %v %q", k, got, d.Subject, to, want.Subject)
			}
		}
	}
	if kept < 10 {
		t.Errorf("only %d drafts kept", kept)
	}
}
