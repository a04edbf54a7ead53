package triage

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"mailsift/drafts"
	"mailsift/mailsrc/demo"
	"mailsift/model"
	"mailsift/model/contract"
)

// groundedAnswer is a model answer for the invoice demo thread.
func groundedAnswer(t testing.TB, summary string, items ...string) string {
	t.Helper()
	res := contract.Result{Category: "actionable", Summary: summary, ActionItems: []contract.ActionItem{}}
	for _, d := range items {
		res.ActionItems = append(res.ActionItems, contract.ActionItem{Description: d})
	}
	return string(mustJSON(t, res))
}

func signalsOf(o *Outcome, k SignalKind) []Signal {
	var out []Signal
	for _, s := range o.Signals {
		if s.Kind == k {
			out = append(out, s)
		}
	}
	return out
}

// TestModelFactsAreGrounded checks that a model summary or action item
// naming an address, an amount or a link the thread does not hold is
// flagged with a reason, the action item dropped and the summary replaced,
// while facts the thread does hold pass.
func TestModelFactsAreGrounded(t *testing.T) {
	threads := demoThreads(t)
	p := demo.Principal()
	invoice := threads["05-invoice-review-1"]
	if len(invoice) == 0 {
		t.Fatal("demo thread 05-invoice-review-1 missing")
	}
	in := Input{Messages: invoice, Principal: p}
	det := Deterministic(invoice, p)

	t.Run("grounded", func(t *testing.T) {
		var log bytes.Buffer
		out := triageWith(t, in, groundedAnswer(t, "Tom asks for a review of the Cloudline invoice (EUR 18,420.00) by Friday.",
			"Review the Cloudline invoice of EUR 18,420.00", "Reply to Tom"), &log)
		if len(out.Result.ActionItems) != 2 || !strings.Contains(out.Result.Summary, "18,420") {
			t.Errorf("grounded answer changed: %+v", out.Result)
		}
		if s := signalsOf(out, SigUngrounded); len(s) > 0 {
			t.Errorf("grounded answer flagged: %v", s)
		}
	})
	for _, tc := range []struct {
		name, summary string
		items         []string
		keep          []string // descriptions kept
		flagged       []string // values flagged
		summaryKept   bool
	}{
		{name: "address in an action item", summary: "Tom asks for a review of the invoice.",
			items: []string{"Review the invoice", "Send the payment confirmation to billing@evil.example"},
			keep:  []string{"Review the invoice"}, flagged: []string{"billing@evil.example"}, summaryKept: true},
		{name: "link in an action item", summary: "Tom asks for a review of the invoice.",
			items: []string{"Pay the invoice at https://pay.evil.example/inv", "Review the invoice"},
			keep:  []string{"Review the invoice"}, flagged: []string{"pay.evil.example"}, summaryKept: true},
		{name: "amount in an action item", summary: "Tom asks for a review of the invoice.",
			items: []string{"Transfer EUR 9,999.00 today", "Review the invoice"},
			keep:  []string{"Review the invoice"}, flagged: []string{"9,999.00"}, summaryKept: true},
		{name: "dollar amount in an action item", summary: "Tom asks for a review of the invoice.",
			items: []string{"Wire $250 to the new account"},
			keep:  []string{}, flagged: []string{"$250"}, summaryKept: true},
		{name: "address in the summary", summary: "Tom asks to send the invoice to payments@evil.example.",
			items: []string{"Review the invoice"},
			keep:  []string{"Review the invoice"}, flagged: []string{"payments@evil.example"}},
		{name: "link in the summary", summary: "Invoice to review at www.evil.example/invoice.",
			items: []string{"Review the invoice"},
			keep:  []string{"Review the invoice"}, flagged: []string{"www.evil.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			out := triageWith(t, in, groundedAnswer(t, tc.summary, tc.items...), &log)
			var got []string
			for _, it := range out.Result.ActionItems {
				got = append(got, it.Description)
			}
			if !slices.Equal(got, tc.keep) && !(len(got) == 0 && len(tc.keep) == 0) {
				t.Errorf("action items %q, want %q", got, tc.keep)
			}
			if tc.summaryKept && out.Result.Summary != tc.summary {
				t.Errorf("summary %q, want the model's %q", out.Result.Summary, tc.summary)
			}
			if !tc.summaryKept && out.Result.Summary != det.Result.Summary {
				t.Errorf("summary %q, want the thread's own %q", out.Result.Summary, det.Result.Summary)
			}
			sig := signalsOf(out, SigUngrounded)
			for _, f := range tc.flagged {
				if !slices.ContainsFunc(sig, func(s Signal) bool { return strings.Contains(s.Reason, f) }) {
					t.Errorf("no %s signal naming %q: %v", SigUngrounded, f, out.Signals)
				}
			}
			b, _ := json.Marshal(Response(contract.KindThread, out))
			for _, f := range tc.flagged {
				if strings.Contains(string(b), f) {
					t.Errorf("contract response names %q: %s", f, b)
				}
			}
		})
	}
}

// TestDraftAttackerEverywhere is the draft test: a stand-in model
// names an attacker in draft.to, in a second to entry (the contract's
// draft has no cc) and in the body's "send to …" text. The contract
// result's draft goes only to the thread's computed recipients, and a body
// that asks to send to an address outside the thread drops the draft with
// a reason.
func TestDraftAttackerEverywhere(t *testing.T) {
	threads := demoThreads(t)
	p := demo.Principal()
	invoice := threads["05-invoice-review-1"]
	if len(invoice) == 0 {
		t.Fatal("demo thread 05-invoice-review-1 missing")
	}
	rcpt := drafts.ComputeRecipients(&model.Thread{Messages: invoice}, p, false).To
	sender := rcpt[0].Email
	in := Input{Messages: invoice, Principal: p}
	const attacker = "attacker@evil.example"
	const sendTo = "Thanks Tom. Please send the signed copy to " + attacker + " as well."

	for _, tc := range []struct {
		name, answer string
		draft        bool // a draft survives
	}{
		{name: "to", answer: draftAnswer(t, "actionable", "Re", "Thanks, I will review it.", attacker)},
		{name: "second to (cc)", answer: draftAnswer(t, "actionable", "Re", "Thanks, I will review it.", sender, attacker)},
		{name: "body send to", answer: draftAnswer(t, "actionable", "Re", sendTo, sender)},
		{name: "everywhere", answer: draftAnswer(t, "actionable", "Re", sendTo, attacker, sender)},
		{name: "clean", answer: draftAnswer(t, "actionable", "Re", "Thanks Tom, I will review it by Friday.", sender), draft: true},
		{name: "body names a thread address", answer: draftAnswer(t, "actionable", "Re", "Thanks, I will write to "+sender+" again.", sender), draft: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			out := triageWith(t, in, tc.answer, &log)
			d := out.Result.Draft
			if !tc.draft {
				if d != nil {
					t.Fatalf("draft kept: %+v", *d)
				}
				if s := signalsOf(out, SigUngrounded); !slices.ContainsFunc(s, func(s Signal) bool { return strings.Contains(s.Reason, attacker) }) {
					t.Errorf("no %s signal naming %s: %v", SigUngrounded, attacker, out.Signals)
				}
			} else {
				if d == nil {
					t.Fatal("clean draft dropped")
				}
				if got := emails(d.To); !slices.Equal(got, emails(toContract(rcpt))) {
					t.Errorf("draft to %v, want %v", got, emails(toContract(rcpt)))
				}
				if s := signalsOf(out, SigUngrounded); len(s) > 0 {
					t.Errorf("clean draft flagged: %v", s)
				}
			}
			if b, _ := json.Marshal(Response(contract.KindThread, out)); strings.Contains(string(b), "evil.example") {
				t.Errorf("contract response names evil.example: %s", b)
			}
		})
	}
}

func toContract(as []model.Address) []contract.Address {
	out := make([]contract.Address, len(as))
	for i, a := range as {
		out[i] = contract.Address{Email: a.Email}
	}
	return out
}

// TestThreadFactsAreGrounded checks, over every demo thread, that a model
// answer quoting the thread (the deterministic summary and action items,
// which are extracted from it) is neither flagged nor trimmed: grounding
// flags what the thread lacks, not what it says.
func TestThreadFactsAreGrounded(t *testing.T) {
	threads := demoThreads(t)
	p := demo.Principal()
	a := NewAnalyzer(nil)
	checked := 0
	for k, msgs := range threads {
		det := a.Deterministic(msgs, p)
		res := det.Result
		res.IsSpam, res.IsPhishing, res.Draft = false, false, nil
		var log bytes.Buffer
		out := triageWith(t, Input{Messages: msgs, Principal: p}, string(mustJSON(t, res)), &log)
		if s := signalsOf(out, SigUngrounded); len(s) > 0 {
			t.Errorf("%s: the thread's own words flagged: %v", k, s)
		}
		if !det.Result.IsSpam && (out.Result.Summary != res.Summary || len(out.Result.ActionItems) != len(res.ActionItems)) {
			t.Errorf("%s: grounded answer changed: %+v", k, out.Result)
		}
		checked++
	}
	if checked < 30 {
		t.Errorf("only %d demo threads checked", checked)
	}
}
