package triage

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mailsift/mailsrc/demo"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

// standInAnswer is a model answer that says the same for every thread.
func standInAnswer(category string) string {
	return fmt.Sprintf(`{"category":%q,"is_spam":false,"is_phishing":false,"summary":"A thread.","action_items":[],"draft":null}`, category)
}

// demoExpectation returns the demo expectation of a stored thread (by the
// "NN" key prefix of its messages).
func demoExpectation(t *testing.T, th *model.Thread) demo.Expectation {
	t.Helper()
	for _, m := range th.Messages {
		k := m.Loc.Key
		i := strings.IndexByte(k, '-')
		if i < 0 {
			continue
		}
		for _, e := range demo.Expectations() {
			if strings.HasPrefix(e.Key, k[:i+1]) {
				return e
			}
		}
	}
	t.Fatalf("thread %d (%q) has no demo expectation", th.ID, th.Subject)
	return demo.Expectation{}
}

// bucketOf is where a result puts a thread: quarantine for spam or
// phishing, else its category.
func bucketOf(r contract.Result) string {
	if r.IsSpam || r.IsPhishing {
		return "quarantine"
	}
	return r.Category
}

// TestModelNeverErasesEvidence runs the worker over the demo mailbox with
// stand-in models that give one answer for every thread, never spam and
// never phishing: the signals' verdicts must survive each of them.
func TestModelNeverErasesEvidence(t *testing.T) {
	ctx := context.Background()
	for _, category := range []string{contract.CategoryActionable, contract.CategoryUrgent, contract.CategoryLowPriority} {
		t.Run(category, func(t *testing.T) {
			st := openDemoStore(t, filepath.Join(t.TempDir(), "mailsift.db"), true)
			defer st.Close()
			answer := standInAnswer(category)
			f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, answer, -1) })
			w := NewWorker(st, WorkerOptions{Triager: f.triager(t, nil), Principal: demo.Principal(), Parallel: 2})
			res, evs := runPass(t, w)
			if res.Triaged < 30 || res.Failed != 0 {
				t.Fatalf("pass: %+v", res)
			}
			a := NewAnalyzer(nil)
			phishing, spam, disagreements := 0, 0, 0
			for _, ev := range evs {
				if ev.Outcome == nil {
					continue
				}
				out := ev.Outcome
				if out.Source != SourceOllama {
					t.Fatalf("thread %d: source %q, want the model's answer", ev.ThreadID, out.Source)
				}
				th, err := st.Thread(ctx, ev.ThreadID)
				if err != nil {
					t.Fatal(err)
				}
				e := demoExpectation(t, th)
				det := a.Deterministic(th.Messages, demo.Principal())
				sum, err := st.ThreadSummaryByID(ctx, ev.ThreadID)
				if err != nil {
					t.Fatal(err)
				}
				if det.Result.IsPhishing {
					if !out.Result.IsPhishing || sum.Section != store.SectionQuarantine {
						t.Errorf("%s: signals say phishing; got phishing=%v section %q", e.Key, out.Result.IsPhishing, sum.Section)
					}
					for _, r := range det.PhishingReasons {
						if !slices.Contains(sum.Triage.PhishingReasons, r) {
							t.Errorf("%s: phishing reason %q lost; stored %q", e.Key, r, sum.Triage.PhishingReasons)
						}
					}
					if e.Phishing {
						phishing++
					}
				}
				if det.Result.IsSpam {
					if !out.Result.IsSpam || sum.Section != store.SectionQuarantine || len(sum.Triage.SpamReasons) == 0 {
						t.Errorf("%s: signals say spam; got spam=%v section %q reasons %q", e.Key, out.Result.IsSpam, sum.Section, sum.Triage.SpamReasons)
					}
					if e.Spam {
						spam++
					}
				}
				if e.Phishing && !det.Result.IsPhishing {
					t.Errorf("%s: demo phishing not caught by the signals", e.Key)
				}
				// The disagreement is recorded exactly when the buckets differ.
				want := ""
				if mb, sb := bucketOf(contract.Result{Category: category}), bucketOf(det.Result); mb != sb {
					want = "model: " + mb + " · signals: " + sb
					disagreements++
				}
				if out.Disagreement != want {
					t.Errorf("%s: disagreement %q, want %q", e.Key, out.Disagreement, want)
				}
				var stored string
				for _, s := range sum.Triage.Signals {
					if r, ok := strings.CutPrefix(s, "disagreement: "); ok {
						stored = r
					}
				}
				if stored != want {
					t.Errorf("%s: stored disagreement %q, want %q", e.Key, stored, want)
				}
			}
			if phishing != 2 {
				t.Errorf("%d demo phishing threads kept as phishing, want 2", phishing)
			}
			if spam < 6 {
				t.Errorf("%d demo spam threads kept as spam, want >= 6", spam)
			}
			if disagreements == 0 {
				t.Errorf("no disagreement recorded")
			}
		})
	}
}
