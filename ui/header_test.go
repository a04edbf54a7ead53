package ui

import (
	"strings"
	"testing"

	"mailsift/model/contract"
	"mailsift/store"
)

// TestTriageHeaderWrapsReasons checks that every spam and phishing reason
// reaches a narrow screen whole (wrapped, not cut at the edge).
func TestTriageHeaderWrapsReasons(t *testing.T) {
	c := &common{st: newStyles(), keys: DefaultKeyMap()}
	long := "link text names sso.northwind.example but the link goes to 203.0.113.77 (a raw IP address)"
	ts := store.ThreadSummary{Section: store.SectionQuarantine, Triage: &store.TriageRecord{
		Result:          contract.Result{Category: contract.CategoryLowPriority, IsSpam: true, IsPhishing: true, Summary: "s"},
		PhishingReasons: []string{"sender authentication failed (spf=fail)", long},
		SpamReasons:     []string{"content resembles known spam (score 1.00)"},
	}}
	out := triageHeader(c, ts, 50)
	for _, line := range strings.Split(out, "\n") {
		if w := len([]rune(line)); w > 50 {
			t.Errorf("line wider than the screen (%d): %q", w, line)
		}
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"203.0.113.77 (a raw IP address)", "spf=fail", "score 1.00"} {
		if !strings.Contains(flat, want) {
			t.Errorf("header lost %q:\n%s", want, out)
		}
	}
}

// TestThreadHeaderShowsDisagreement checks that the triage header says
// when the model and the signals put the thread in different buckets, and
// says nothing when they agree.
func TestThreadHeaderShowsDisagreement(t *testing.T) {
	c := &common{st: newStyles(), keys: DefaultKeyMap()}
	rec := &store.TriageRecord{
		Result:  contract.Result{Category: contract.CategoryActionable, Summary: "s"},
		Source:  "ollama",
		Model:   "llama3.2:3b",
		Signals: []string{"question: asks you a question", "disagreement: model: actionable · signals: urgent"},
	}
	out := triageHeader(c, store.ThreadSummary{Section: store.SectionActionable, Triage: rec}, 80)
	if !strings.Contains(out, "model: actionable · signals: urgent") {
		t.Errorf("header lacks the disagreement:\n%s", out)
	}
	rec.Signals = rec.Signals[:1]
	if out := triageHeader(c, store.ThreadSummary{Section: store.SectionActionable, Triage: rec}, 80); strings.Contains(out, "signals:") {
		t.Errorf("header shows a disagreement where there is none:\n%s", out)
	}
}
