package ui

import (
	"strings"
	"testing"

	"mailsift/model/contract"
	"mailsift/store"
)

// TestThreadHeaderShowsLearnedAndSkipped checks that the triage header
// shows what the user's corrections changed and why the model was not
// asked (triage.Record's "learned: " and "model not asked: " signals), and
// shows neither when the record has none.
func TestThreadHeaderShowsLearnedAndSkipped(t *testing.T) {
	c := &common{st: newStyles(), keys: DefaultKeyMap()}
	rec := &store.TriageRecord{
		Result: contract.Result{Category: contract.CategoryLowPriority, Summary: "s"},
		Source: "deterministic",
		Signals: []string{"bulk: sent to a mailing list",
			"learned: you moved 3 threads from this list to low priority",
			"familiar-sender: you have read 2 earlier messages from news@shop.example",
			"model not asked: bulk mail that asks you nothing (t asks it)"},
	}
	out := triageHeader(c, store.ThreadSummary{Section: store.SectionLowPriority, Triage: rec}, 120)
	for _, want := range []string{"Learned: you moved 3 threads from this list to low priority", "Model not asked: bulk mail that asks you nothing (t asks it)",
		"Known sender: you have read 2 earlier messages from news@shop.example"} {
		if !strings.Contains(out, want) {
			t.Errorf("header lacks %q:\n%s", want, out)
		}
	}
	rec.Signals = rec.Signals[:1]
	if out := triageHeader(c, store.ThreadSummary{Section: store.SectionLowPriority, Triage: rec}, 120); strings.Contains(out, "Learned:") || strings.Contains(out, "Model not asked") || strings.Contains(out, "Known sender") {
		t.Errorf("header shows a learned reason or a skip without one:\n%s", out)
	}
}
