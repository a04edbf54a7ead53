package triage_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/mirror"
	"mailsift/model"
	"mailsift/store"
	"mailsift/triage"
)

// accuracyCorpus is the SpamAssassin corpus as scripts/fetch-corpus.sh
// lays it out (the CI fetches it; it is never committed).
const accuracyCorpus = "../testdata/corpus/maildir"

// accuracyGroup is one held-out corpus group (never trained on) and the
// targets its deterministic triage must meet. A zero target is not
// asserted: it is not met yet, and its figure is only logged.
type accuracyGroup struct {
	name string
	spam bool // every message of the group is spam, else every one is ham
	// minSpamRecall applies to spam groups; maxSpamFP and maxPhishFP
	// (false-positive rates) to ham groups.
	minSpamRecall, maxSpamFP, maxPhishFP float64
	// maxLearnedSpamFP bounds the spam false-positive rate with the
	// labels replayed as the user's corrections (eval --learn).
	maxLearnedSpamFP float64
}

// accuracyGroups are the targets of the issue "Triage you can trust":
// spam recall ≥ 0.95, spam false positives ≤ 0.5 % on easy ham and ≤ 5 %
// on hard ham, phishing false positives ≤ 1 % on ham. Targets met are
// asserted as targets; where a target is not met the measured floor is
// asserted instead, so that a regression fails (README, "Measuring
// triage", has the figures):
//   - easy-ham-2 spam false positives are 0.97 % (6 of 618 threads;
//     target 0.5 %; floor 1.0 %);
//   - hard-ham-1 spam false positives are 44.3 % (109 threads; target
//     5 %; floor 45 %), and 17.9 % (44 threads) when the user corrects
//     each mistake as it comes (floor 19 %).
var accuracyGroups = []accuracyGroup{
	{name: "spam-2", spam: true, minSpamRecall: 0.95},
	{name: "easy-ham-2", maxSpamFP: 0.010, maxPhishFP: 0.01},
	{name: "hard-ham-1", maxSpamFP: 0.45, maxPhishFP: 0.01, maxLearnedSpamFP: 0.19},
}

// TestAccuracyHeldOut syncs each held-out SpamAssassin group into a
// temporary store, triages every thread deterministically through the
// same eval service as `mailsift eval --offline`, logs the figures and
// fails only when a figure is worse than its target. The figures are
// counts over a fixed corpus: they do not depend on the machine's speed.
//
// With MAILSIFT_ACCURACY_REASONS=1 it also logs, for every misjudged
// thread, the spam and phishing reasons and the signals.
func TestAccuracyHeldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("accuracy on the SpamAssassin corpus: skipped in -short mode")
	}
	for _, g := range accuracyGroups {
		t.Run(g.name, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(accuracyCorpus, g.name))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, "cur")); err != nil {
				t.Skipf("corpus group %s absent (%v): run scripts/fetch-corpus.sh to measure accuracy", g.name, err)
			}
			labels, err := app.ParseLabels([]byte(fmt.Sprintf(`{"default": {"is_spam": %t, "is_phishing": false}}`, g.spam)))
			if err != nil {
				t.Fatal(err)
			}
			rep, st, a := evalMaildir(t, dir, "me@example.org", labels)
			if g.spam {
				r := ptr(rep.Spam.Recall)
				t.Logf("%s: %d threads, spam recall %.4f (%d of %d; %d missed); phishing flagged %d",
					g.name, rep.Threads, r, rep.Spam.TP, rep.Spam.TP+rep.Spam.FN, rep.Spam.FN, rep.Phishing.FP)
				if g.minSpamRecall > 0 && r < g.minSpamRecall {
					t.Errorf("%s: spam recall %.4f, want ≥ %.2f", g.name, r, g.minSpamRecall)
				}
			} else {
				sfp, pfp := ptr(rep.Spam.FalsePositiveRate), ptr(rep.Phishing.FalsePositiveRate)
				t.Logf("%s: %d threads, spam false positives %d (%.2f %%), phishing false positives %d (%.2f %%)",
					g.name, rep.Threads, rep.Spam.FP, 100*sfp, rep.Phishing.FP, 100*pfp)
				if g.maxSpamFP > 0 && sfp > g.maxSpamFP {
					t.Errorf("%s: spam false-positive rate %.4f, want ≤ %.3f", g.name, sfp, g.maxSpamFP)
				}
				if g.maxPhishFP > 0 && pfp > g.maxPhishFP {
					t.Errorf("%s: phishing false-positive rate %.4f, want ≤ %.3f", g.name, pfp, g.maxPhishFP)
				}
			}
			// The same mailbox with the labels replayed as the user's
			// corrections (mailsift eval --learn): each wrongly judged
			// thread corrected before the next, oldest first.
			lr, err := a.Eval(context.Background(), labels, app.EvalOptions{Offline: true, Learn: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s with the user's corrections: spam recall %.4f, spam false positives %d (%.2f %%) after %d marks",
				g.name, ptr(lr.Spam.Recall), lr.Spam.FP, 100*ptr(lr.Spam.FalsePositiveRate), lr.CorrectionMarks)
			if g.maxLearnedSpamFP > 0 && ptr(lr.Spam.FalsePositiveRate) > g.maxLearnedSpamFP {
				t.Errorf("%s with the user's corrections: spam false-positive rate %.4f, want ≤ %.3f", g.name, ptr(lr.Spam.FalsePositiveRate), g.maxLearnedSpamFP)
			}
			if g.spam && ptr(lr.Spam.Recall) < ptr(rep.Spam.Recall) {
				t.Errorf("%s: the user's corrections lowered spam recall %.4f → %.4f", g.name, ptr(rep.Spam.Recall), ptr(lr.Spam.Recall))
			}
			if os.Getenv("MAILSIFT_ACCURACY_REASONS") != "" {
				logMisjudged(t, st, a, g.spam)
			}
		})
	}
}

func ptr(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// evalMaildir syncs the Maildir dir into a temporary store and runs the
// offline eval for principal against labels.
func evalMaildir(t *testing.T, dir, principal string, labels *app.Labels) (*app.EvalReport, *store.Store, *app.App) {
	t.Helper()
	st, a := syncMaildir(t, dir, principal)
	rep, err := a.Eval(context.Background(), labels, app.EvalOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep, st, a
}

// syncMaildir syncs the Maildir dir into a temporary store and returns
// it with an app for principal.
func syncMaildir(t *testing.T, dir, principal string) (*store.Store, *app.App) {
	t.Helper()
	ctx := context.Background()
	cfg := &config.Config{}
	cfg.Principal.Email = principal
	src, err := config.ParseSource("maildir://" + dir)
	if err != nil {
		t.Fatal(err)
	}
	acct := config.Account{Name: "corpus", Src: src}
	cfg.Accounts = []config.Account{acct}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "eval.db"), &store.Options{Principal: cfg.Principal.Address()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.EnsureAccount(ctx, acct.Name, src.Redacted()); err != nil {
		t.Fatal(err)
	}
	ms, err := mirror.Open(&acct, mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = mirror.Sync(ctx, st, acct.Name, ms, nil)
	ms.Close()
	if err != nil {
		t.Fatal(err)
	}
	return st, app.New(cfg, st, app.Options{})
}

// Own-set targets of the issue: bucket accuracy ≥ 0.85, phishing recall
// ≥ 0.9 with false positives ≤ 1 %. All three are met; the floors
// asserted are just under the measured figures (accuracy 0.967, 145 of
// 150; phishing recall 1.000, 12 of 12, with no false positive; spam
// recall 1.000, 27 of 27, since the cold-outreach rule, with no spam
// false positive of 123 since a greeting by title and surname counts, a
// Reply-To in the principal's own domain diverts nothing and a service's
// notification address is not condemned by the learned score alone:
// README, "Measuring triage"), so that a regression fails.
const (
	ownMinAccuracy    = 0.96
	ownMinSpamRecall  = 0.99
	ownMaxSpamFP      = 0.01
	ownMinPhishRecall = 0.99
	ownMaxPhishFP     = 0.01
	ownSetPrincipal   = "alex.morgan@northwind.example"
	ownSetDir         = "../testdata/eval"
)

// TestAccuracyOwnSet runs the offline eval on the labeled set under
// testdata/eval (written to be hard, in five languages), logs bucket
// accuracy and the phishing figures, and fails below the floors above.
func TestAccuracyOwnSet(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(ownSetDir, "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := app.ParseLabels(data)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(filepath.Join(ownSetDir, "maildir"))
	if err != nil {
		t.Fatal(err)
	}
	rep, _, a := evalMaildir(t, dir, ownSetPrincipal, labels)
	acc, pr, pfp := ptr(rep.Accuracy), ptr(rep.Phishing.Recall), ptr(rep.Phishing.FalsePositiveRate)
	// The user correcting each mistake as it comes must not make the set
	// worse: what was learned from one thread must not misplace others
	// (bucket moves of colleagues' threads once taught the whole own
	// domain and took the accuracy from 0.727 to 0.580).
	lr, err := a.Eval(context.Background(), labels, app.EvalOptions{Offline: true, Learn: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("own set with the user's corrections: bucket accuracy %.3f after %d moves and %d marks",
		ptr(lr.Accuracy), lr.CorrectionMoves, lr.CorrectionMarks)
	if ptr(lr.Accuracy) < acc {
		t.Errorf("the user's corrections lowered the bucket accuracy %.3f → %.3f", acc, ptr(lr.Accuracy))
	}
	t.Logf("own set: %d threads, bucket accuracy %.3f, spam recall %.3f fp %.3f, phishing recall %.3f fp %.3f",
		rep.Threads, acc, ptr(rep.Spam.Recall), ptr(rep.Spam.FalsePositiveRate), pr, pfp)
	if rep.Labeled != 150 || rep.MissingLabels != 0 {
		t.Fatalf("labeled %d, missing %d: want all 150 threads matched", rep.Labeled, rep.MissingLabels)
	}
	if acc < ownMinAccuracy {
		t.Errorf("bucket accuracy %.3f, want ≥ %.2f", acc, ownMinAccuracy)
	}
	if sr := ptr(rep.Spam.Recall); sr < ownMinSpamRecall {
		t.Errorf("spam recall %.3f, want ≥ %.2f", sr, ownMinSpamRecall)
	}
	if sfp := ptr(rep.Spam.FalsePositiveRate); sfp > ownMaxSpamFP {
		t.Errorf("spam false-positive rate %.3f, want ≤ %.2f", sfp, ownMaxSpamFP)
	}
	if pr < ownMinPhishRecall {
		t.Errorf("phishing recall %.3f, want ≥ %.2f", pr, ownMinPhishRecall)
	}
	if pfp > ownMaxPhishFP {
		t.Errorf("phishing false-positive rate %.3f, want ≤ %.2f", pfp, ownMaxPhishFP)
	}
}

// Sets written independently of the rules, by people who read neither
// the rules nor the other sets (README, "Measuring triage"): each was
// first measured as it came (an honest figure for mail the rules had not
// seen) and may since have been developed on. The floors are today's
// figures, guards against regressions, not targets to tune for. First
// measurement → now (bucket accuracy; phishing where it moved):
//   - fresh (60): 0.550 → 0.917; dev (150): 0.667 → 0.913; heldout (80):
//     0.688 → 0.962; dev2 (150): 0.787 → 0.987; heldout2 (100): 0.680 →
//     0.920 (phishing 5 of 5); heldout3 (100): 0.780 → 0.920; heldout4
//     (120): 0.767 → 0.967; heldout5 (150): 0.747 → 0.947; heldout6
//     (150): 0.753 → 0.980, all developed on;
//   - heldout7 (150 written, 148 in the mailbox: two continue another
//     thread's subject and join it): 0.736, 0.838 with the rules of the
//     round it closed, never developed on in that round, developed on in
//     the next: 0.912;
//   - heldout8 (150, 149): 0.799 at ff799b6, 0.812 with the second
//     round's first rules, then developed on: 0.906;
//   - heldout11 (150, 149): 0.745 at ff799b6, 0.758 with the second
//     round's rules so far, then developed on: 0.893, phishing 10 of 10;
//   - heldout9, heldout10, heldout12 (150 each): never developed on;
//     0.853, 0.827, 0.807 at ff799b6, 0.873, 0.840, 0.853 with the
//     second round's rules (pooled 0.829 → 0.856); phishing 8 of 9, 9 of
//     10 and 7 of 9;
//   - heldout13 (150): written at the round's end and measured once, with
//     ff799b6 (0.813) and with the round's final rules (0.840, phishing 9
//     of 9, 2 false positives: 1.4 %, above the 1 % target); never
//     developed on. Pooled over the four never developed on: 0.825 →
//     0.852 (511 of 600).
//   - third round: heldout9, 10, 12 and 13 developed on (0.887, 0.853,
//     0.880, 0.873, phishing 1.0 each); heldout14 and heldout18 (150)
//     measured first (0.820, 0.833) and developed on (0.867, 0.887);
//     phish1-3 (120 each, phishing-focused) developed on (phishing 42,
//     44, 44 of 50; phish3 measured first at 34 of 50); heldout15, 16,
//     17, 19 (150) and phish4 (120) never developed on, measured at
//     a9de162 and with the round's final rules: 0.833 → 0.847, 0.887 →
//     0.893, 0.873 → 0.867, 0.827 → 0.853 (pooled 0.855 → 0.865,
//     phishing 31 → 34 of 37), phish4 0.617 → 0.733 (phishing 20 → 33
//     of 49, with the sent-only crash fix on a9de162).
//   - fourth round: heldout15-17, heldout19 and phish4 developed on
//     (0.847, 0.893, 0.873, 0.867; phish4 0.825, phishing 44 of 49);
//     heldout20, heldout21, phish5, phish6 measured at 9303d24 (0.827,
//     0.847, 0.725 with phishing 28 of 50, 0.800 with 29 of 50) and once
//     mid-round, then developed on (0.860, 0.853, 0.833 with 42, 0.867
//     with 41); heldout22, heldout23 (150), phish7, phish8 (120) never
//     developed on, measured at 9303d24 and with the round's final
//     rules: 0.837 → 0.837, 0.867 → 0.867, phish7 0.717 → 0.767
//     (phishing 24 → 30 of 50), phish8 0.733 → 0.775 (34 → 38 of 50,
//     false positives 5 → 2).
//   - fifth round: heldout22, heldout23, phish7, phish8 developed on
//     (0.844, 0.880; phish7 0.858 with phishing 42 of 50, phish8 0.817
//     with 42 of 50); heldout24, heldout25 (150), phish9, phish10 (120)
//     measured at e199aeb and at 446675e (0.887 → 0.887 with phishing
//     8 → 9 of 9, 0.873 → 0.873, 0.808 → 0.808 with 31 of 50, 0.798 →
//     0.798 with 37 → 38 of 50), then developed on (0.887, 0.887, 0.850
//     with 39 of 50, 0.832 with 41 of 50); heldout26, heldout27 (150),
//     phish11, phish12 (120, 119 in the mailbox each) never developed
//     on, measured at e199aeb and with the round's final rules: 0.860 →
//     0.887, 0.860 → 0.880 (pooled 0.860 → 0.883, phishing 17 of 19),
//     phish11 0.874 → 0.882 (phishing 38 → 39 of 49), phish12 0.832 →
//     0.849 (39 → 41 of 49).
//   - sixth round: heldout26, heldout27, phish11, phish12 developed on
//     (0.907, 0.893; phish11 0.933 with 44 of 49, phish12 0.882 with
//     48 of 49); phish15, phish16 (120) and heldout30, heldout31 (150)
//     written mid-round, measured at c5f9d51 (0.700 with 35 of 50, 0.767
//     with 39 of 50, 0.800, 0.847) and developed on (0.792 with 46,
//     0.850 with 49, 0.840, 0.873); heldout28, heldout29 (150), phish13
//     (120) and phish14 (120, 119 in the mailbox) never developed on,
//     measured at c5f9d51, once mid-round and with the round's final
//     rules: 0.853 → 0.853, 0.773 → 0.787 (phishing 6 → 7 of 9; pooled
//     0.813 → 0.820), phish13 0.692 → 0.725 (29 → 33 of 50), phish14
//     0.857 → 0.857 (43 of 50); no phishing false positive on either.
//   - seventh round: heldout28, heldout29, phish13 and phish14 developed
//     on (0.867, 0.807 with 8 of 9; phish13 0.808 with 44 of 50, phish14
//     0.874 with 45 of 50); phish19, phish20 (120) and heldout34,
//     heldout35 (150) written mid-round, measured at 1c1556f (0.733 with
//     33 of 51, 0.725 with 33 of 50, 0.840, 0.860) and developed on
//     (0.792 with 39, 0.808 with 43, 0.847, 0.880); heldout32, heldout33
//     (150), phish17 and phish18 (120) never developed on, measured at
//     1c1556f and with the round's final rules: 0.873 → 0.880, 0.853 →
//     0.860 (pooled 0.863 → 0.870, phishing 17 of 18, 1 false
//     positive), phish17 0.775 → 0.783 (37 → 38 of 50), phish18 0.733 →
//     0.758 (38 → 41 of 50; 2 false positives, as at 1c1556f).
var heldOutSets = []struct {
	name, dir                               string
	threads                                 int
	joined                                  int // labels whose root joined another thread
	minAccuracy, minPhishRecall, maxPhishFP float64
}{
	{name: "fresh", dir: "../testdata/eval/fresh", threads: 60, minAccuracy: 0.91, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "dev", dir: "../testdata/eval/dev", threads: 150, minAccuracy: 0.91, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout", dir: "../testdata/eval/heldout", threads: 80, minAccuracy: 0.97, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "dev2", dir: "../testdata/eval/dev2", threads: 150, minAccuracy: 0.98, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout2", dir: "../testdata/eval/heldout2", threads: 100, minAccuracy: 0.93, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout3", dir: "../testdata/eval/heldout3", threads: 100, minAccuracy: 0.92, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout4", dir: "../testdata/eval/heldout4", threads: 120, minAccuracy: 0.96, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout5", dir: "../testdata/eval/heldout5", threads: 150, minAccuracy: 0.94, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout6", dir: "../testdata/eval/heldout6", threads: 150, minAccuracy: 0.98, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout7", dir: "../testdata/eval/heldout7", threads: 148, joined: 2, minAccuracy: 0.91, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout8", dir: "../testdata/eval/heldout8", threads: 149, joined: 1, minAccuracy: 0.91, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout9", dir: "../testdata/eval/heldout9", threads: 150, minAccuracy: 0.9, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout10", dir: "../testdata/eval/heldout10", threads: 150, minAccuracy: 0.86, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout11", dir: "../testdata/eval/heldout11", threads: 149, joined: 1, minAccuracy: 0.9, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout12", dir: "../testdata/eval/heldout12", threads: 150, minAccuracy: 0.89, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout13", dir: "../testdata/eval/heldout13", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	// The third round (README, "The third independent-sets round"):
	// heldout14, heldout18 and phish1-3 developed on, heldout15-17,
	// heldout19 and phish4 never.
	{name: "heldout14", dir: "../testdata/eval/heldout14", threads: 150, minAccuracy: 0.87, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout15", dir: "../testdata/eval/heldout15", threads: 150, minAccuracy: 0.85, minPhishRecall: 0.88, maxPhishFP: 0.015},
	{name: "heldout16", dir: "../testdata/eval/heldout16", threads: 150, minAccuracy: 0.9, minPhishRecall: 0.9, maxPhishFP: 0.01},
	{name: "heldout17", dir: "../testdata/eval/heldout17", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout18", dir: "../testdata/eval/heldout18", threads: 150, minAccuracy: 0.9, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout19", dir: "../testdata/eval/heldout19", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "phish1", dir: "../testdata/eval/phish1", threads: 120, minAccuracy: 0.87, minPhishRecall: 0.96, maxPhishFP: 0.01},
	{name: "phish2", dir: "../testdata/eval/phish2", threads: 120, minAccuracy: 0.89, minPhishRecall: 0.96, maxPhishFP: 0.01},
	{name: "phish3", dir: "../testdata/eval/phish3", threads: 120, minAccuracy: 0.9, minPhishRecall: 0.96, maxPhishFP: 0.01},
	{name: "phish4", dir: "../testdata/eval/phish4", threads: 120, minAccuracy: 0.87, minPhishRecall: 0.97, maxPhishFP: 0.01},
	// The fourth round (README, "The fourth independent-sets round"):
	// heldout15-17, heldout19 and phish4 developed on; heldout20,
	// heldout21, phish5 and phish6 measured first, then developed on;
	// heldout22, heldout23, phish7 and phish8 never developed on.
	{name: "heldout20", dir: "../testdata/eval/heldout20", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout21", dir: "../testdata/eval/heldout21", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout22", dir: "../testdata/eval/heldout22", threads: 147, joined: 3, minAccuracy: 0.86, minPhishRecall: 0.88, maxPhishFP: 0.01},
	{name: "heldout23", dir: "../testdata/eval/heldout23", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "phish5", dir: "../testdata/eval/phish5", threads: 120, minAccuracy: 0.86, minPhishRecall: 0.88, maxPhishFP: 0.01},
	{name: "phish6", dir: "../testdata/eval/phish6", threads: 120, minAccuracy: 0.89, minPhishRecall: 0.86, maxPhishFP: 0.01},
	{name: "phish7", dir: "../testdata/eval/phish7", threads: 120, minAccuracy: 0.9, minPhishRecall: 0.98, maxPhishFP: 0.01},
	{name: "phish8", dir: "../testdata/eval/phish8", threads: 120, minAccuracy: 0.87, minPhishRecall: 0.94, maxPhishFP: 0.01},
	// The fifth round: heldout22, heldout23, phish7 and phish8 developed
	// on; heldout24, heldout25, phish9 and phish10 measured first, then
	// developed on.
	{name: "heldout24", dir: "../testdata/eval/heldout24", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout25", dir: "../testdata/eval/heldout25", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "phish9", dir: "../testdata/eval/phish9", threads: 120, minAccuracy: 0.88, minPhishRecall: 0.84, maxPhishFP: 0.01},
	{name: "phish10", dir: "../testdata/eval/phish10", threads: 119, joined: 1, minAccuracy: 0.84, minPhishRecall: 0.84, maxPhishFP: 0.01},
	// The fifth round's second batch, never developed on: measured at
	// e199aeb and with the round's final rules.
	{name: "heldout26", dir: "../testdata/eval/heldout26", threads: 150, minAccuracy: 0.9, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout27", dir: "../testdata/eval/heldout27", threads: 150, minAccuracy: 0.89, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "phish11", dir: "../testdata/eval/phish11", threads: 119, joined: 1, minAccuracy: 0.93, minPhishRecall: 0.89, maxPhishFP: 0.015},
	{name: "phish12", dir: "../testdata/eval/phish12", threads: 119, joined: 1, minAccuracy: 0.88, minPhishRecall: 0.97, maxPhishFP: 0.015},
	// The sixth round: heldout26, heldout27, phish11 and phish12
	// developed on; phish15, phish16, heldout30 and heldout31 written
	// mid-round, measured first and developed on; heldout28, heldout29,
	// phish13 and phish14 never developed on, measured at c5f9d51, once
	// mid-round and with the round's final rules.
	{name: "phish15", dir: "../testdata/eval/phish15", threads: 120, minAccuracy: 0.79, minPhishRecall: 0.92, maxPhishFP: 0.01},
	{name: "phish16", dir: "../testdata/eval/phish16", threads: 120, minAccuracy: 0.85, minPhishRecall: 0.98, maxPhishFP: 0.01},
	{name: "heldout30", dir: "../testdata/eval/heldout30", threads: 150, minAccuracy: 0.84, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout31", dir: "../testdata/eval/heldout31", threads: 150, minAccuracy: 0.87, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout28", dir: "../testdata/eval/heldout28", threads: 150, minAccuracy: 0.86, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout29", dir: "../testdata/eval/heldout29", threads: 150, minAccuracy: 0.8, minPhishRecall: 0.88, maxPhishFP: 0.01},
	{name: "phish13", dir: "../testdata/eval/phish13", threads: 120, minAccuracy: 0.8, minPhishRecall: 0.88, maxPhishFP: 0.01},
	{name: "phish14", dir: "../testdata/eval/phish14", threads: 119, joined: 1, minAccuracy: 0.87, minPhishRecall: 0.9, maxPhishFP: 0.01},
	// The seventh round: heldout28, heldout29, phish13 and phish14
	// developed on; phish19, phish20, heldout34 and heldout35 written
	// mid-round, measured first and developed on; heldout32, heldout33,
	// phish17 and phish18 never developed on, measured at 1c1556f and
	// with the round's final rules.
	{name: "phish19", dir: "../testdata/eval/phish19", threads: 120, minAccuracy: 0.79, minPhishRecall: 0.76, maxPhishFP: 0.015},
	{name: "phish20", dir: "../testdata/eval/phish20", threads: 120, minAccuracy: 0.8, minPhishRecall: 0.86, maxPhishFP: 0.01},
	{name: "heldout34", dir: "../testdata/eval/heldout34", threads: 150, minAccuracy: 0.84, minPhishRecall: 0.88, maxPhishFP: 0.01},
	{name: "heldout35", dir: "../testdata/eval/heldout35", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.88, maxPhishFP: 0.01},
	{name: "heldout32", dir: "../testdata/eval/heldout32", threads: 150, minAccuracy: 0.88, minPhishRecall: 0.99, maxPhishFP: 0.01},
	{name: "heldout33", dir: "../testdata/eval/heldout33", threads: 150, minAccuracy: 0.86, minPhishRecall: 0.88, maxPhishFP: 0.01},
	{name: "phish17", dir: "../testdata/eval/phish17", threads: 120, minAccuracy: 0.78, minPhishRecall: 0.76, maxPhishFP: 0.015},
	{name: "phish18", dir: "../testdata/eval/phish18", threads: 120, minAccuracy: 0.75, minPhishRecall: 0.82, maxPhishFP: 0.03},
}

// TestAccuracyFreshSet runs the offline eval on the fresh set and the
// development set and fails below their floors.
func TestAccuracyFreshSet(t *testing.T) {
	for _, set := range heldOutSets {
		t.Run(set.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(set.dir, "labels.json"))
			if err != nil {
				t.Fatal(err)
			}
			labels, err := app.ParseLabels(data)
			if err != nil {
				t.Fatal(err)
			}
			dir, err := filepath.Abs(filepath.Join(set.dir, "maildir"))
			if err != nil {
				t.Fatal(err)
			}
			rep, _, _ := evalMaildir(t, dir, ownSetPrincipal, labels)
			acc, pr, pfp := ptr(rep.Accuracy), ptr(rep.Phishing.Recall), ptr(rep.Phishing.FalsePositiveRate)
			t.Logf("%s set: %d threads, bucket accuracy %.3f, spam recall %.3f fp %.3f, phishing recall %.3f fp %.3f",
				set.name, rep.Threads, acc, ptr(rep.Spam.Recall), ptr(rep.Spam.FalsePositiveRate), pr, pfp)
			if rep.Labeled != set.threads || rep.MissingLabels != 0 || rep.JoinedLabels != set.joined {
				t.Fatalf("labeled %d, missing %d, joined %d: want %d threads matched, none missing, %d joined", rep.Labeled, rep.MissingLabels, rep.JoinedLabels, set.threads, set.joined)
			}
			if acc < set.minAccuracy {
				t.Errorf("bucket accuracy %.3f, want ≥ %.2f", acc, set.minAccuracy)
			}
			if pr < set.minPhishRecall {
				t.Errorf("phishing recall %.3f, want ≥ %.2f", pr, set.minPhishRecall)
			}
			if pfp > set.maxPhishFP {
				t.Errorf("phishing false-positive rate %.3f, want ≤ %.2f", pfp, set.maxPhishFP)
			}
		})
	}
}

// logMisjudged logs the reasons and signals of every thread whose spam
// flag is wrong (and, on ham, every thread flagged phishing).
func logMisjudged(t *testing.T, st *store.Store, a *app.App, spam bool) {
	an := triage.NewAnalyzer(nil)
	eachStoredThread(t, st, func(th *model.Thread) {
		o := an.Deterministic(th.Messages, a.Principal())
		if o.Result.IsSpam == spam && !(o.Result.IsPhishing && !spam) {
			return
		}
		var kinds []string
		for _, s := range o.Signals {
			kinds = append(kinds, string(s.Kind))
		}
		last := th.Messages[len(th.Messages)-1]
		t.Logf("MISJUDGED %q from %s: spam=%t phish=%t\n  spam: %s\n  phish: %s\n  signals: %s",
			last.Subject, last.From.Email, o.Result.IsSpam, o.Result.IsPhishing,
			strings.Join(o.SpamReasons, " | "), strings.Join(o.PhishingReasons, " | "), strings.Join(kinds, ","))
	})
}

// eachStoredThread calls fn with every thread of st that has messages,
// section by section, a page at a time.
func eachStoredThread(t *testing.T, st *store.Store, fn func(th *model.Thread)) {
	t.Helper()
	ctx := context.Background()
	for _, sec := range store.Sections() {
		for off := 0; ; off += 500 {
			rows, err := st.ListThreads(ctx, sec, off, 500)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				th, err := st.Thread(ctx, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				if len(th.Messages) > 0 {
					fn(th)
				}
			}
			if len(rows) < 500 {
				break
			}
		}
	}
}
