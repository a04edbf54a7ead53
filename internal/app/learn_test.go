package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage/bayes"
)

// learnMessages are three threads from one sender and one from another.
func learnMessages() []*model.Message {
	msg := func(key, id, from, subject string) *model.Message {
		return &model.Message{
			Loc: model.Location{Account: "a", Mailbox: "INBOX", Key: key}, MessageID: id,
			From: model.Address{Email: from}, To: []model.Address{{Email: "me@example.org"}},
			Subject: subject, Text: "Notes from the weekly sync, nothing to do.", HasBody: true, ContentHash: "h" + key,
			Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(key)) * time.Hour),
		}
	}
	return []*model.Message{
		msg("1", "w1@x", "weekly@team.example", "Weekly notes 1"),
		msg("2", "w2@x", "weekly@team.example", "Weekly notes 2"),
		msg("3", "w3@x", "weekly@team.example", "Weekly notes 3"),
		msg("4", "o1@x", "other@else.example", "Other notes"),
	}
}

func openLearnStore(t *testing.T, dir string) (*store.Store, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutMessages(ctx, learnMessages()); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, m := range learnMessages() {
		id, err := st.ThreadIDForMessage(ctx, m.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		ids[m.MessageID] = id
	}
	return st, ids
}

// learnSetup opens a store with learnMessages in a new data directory,
// with the configuration of an app for me@example.org there.
func learnSetup(t *testing.T) (string, *config.Config, *store.Store, map[string]int64) {
	t.Helper()
	dir := t.TempDir()
	cfg := &config.Config{DataDir: dir}
	cfg.Principal.Email = "me@example.org"
	st, ids := openLearnStore(t, dir)
	return dir, cfg, st, ids
}

// rebuildLearnStore closes st, deletes the store and opens a new one in
// dir with learnMessages synced again (the data directory, and the
// corrections file in it, stay), with a new app over it.
func rebuildLearnStore(t *testing.T, dir string, cfg *config.Config, st *store.Store) (*store.Store, map[string]int64, *App) {
	t.Helper()
	st.Close()
	if err := os.Remove(filepath.Join(dir, "mailsift.db")); err != nil {
		t.Fatal(err)
	}
	st2, ids2 := openLearnStore(t, dir)
	t.Cleanup(func() { st2.Close() })
	return st2, ids2, New(cfg, st2, Options{})
}

// TestOverridesTeachAndSurviveRebuild moves two threads of one sender to
// low priority through Mail.SetOverride (the TUI's 1–4): the sender's
// third thread then triages to low priority with the reason, another
// sender's does not; after the store is deleted and synced again the
// corrections are still there and the moved threads get their overrides
// back; clearing an override undoes its correction.
func TestOverridesTeachAndSurviveRebuild(t *testing.T) {
	ctx := context.Background()
	dir, cfg, st, ids := learnSetup(t)
	a := New(cfg, st, Options{})
	mail := &Mail{Store: st, app: a}
	triageOf := func(a *App, st *store.Store, id int64) ([]string, string) {
		th, err := st.Thread(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		o := a.Analyzer().Deterministic(th.Messages, a.Principal())
		return o.Learned, o.Result.Category
	}
	if learned, cat := triageOf(a, st, ids["w3@x"]); len(learned) != 0 || cat == contract.CategoryLowPriority {
		t.Fatalf("before any move: %s %q; the test needs mail the signals do not put in low priority", cat, learned)
	}
	for _, id := range []string{"w1@x", "w2@x"} {
		if err := mail.SetOverride(ctx, ids[id], contract.CategoryLowPriority); err != nil {
			t.Fatal(err)
		}
	}
	learned, cat := triageOf(a, st, ids["w3@x"])
	if cat != contract.CategoryLowPriority || strings.Join(learned, "|") != "you moved 2 threads from this sender to low priority" {
		t.Errorf("after two moves: %s %q", cat, learned)
	}
	if learned, _ := triageOf(a, st, ids["o1@x"]); len(learned) != 0 {
		t.Errorf("another sender learned %q", learned)
	}
	data, err := os.ReadFile(filepath.Join(dir, "corrections.jsonl"))
	if err != nil || strings.Count(string(data), "\n") != 2 {
		t.Fatalf("corrections file: %v\n%s", err, data)
	}

	st2, ids2, a2 := rebuildLearnStore(t, dir, cfg, st)
	if n, err := a2.RestoreOverrides(ctx); err != nil || n != 2 {
		t.Fatalf("RestoreOverrides = %d, %v; want the 2 moved threads", n, err)
	}
	for _, id := range []string{"w1@x", "w2@x"} {
		if ts, _ := st2.ThreadSummaryByID(ctx, ids2[id]); ts.Override != contract.CategoryLowPriority {
			t.Errorf("%s after rebuild: override %q", id, ts.Override)
		}
	}
	if learned, cat := triageOf(a2, st2, ids2["w3@x"]); cat != contract.CategoryLowPriority || len(learned) != 1 {
		t.Errorf("after rebuild: %s %q", cat, learned)
	}
	if n, _ := a2.RestoreOverrides(ctx); n != 0 {
		t.Errorf("second restore changed %d threads", n)
	}

	// Undo one move: one correction left, the sender's mail is not moved.
	mail2 := &Mail{Store: st2, app: a2}
	if err := mail2.SetOverride(ctx, ids2["w2@x"], ""); err != nil {
		t.Fatal(err)
	}
	if learned, cat := triageOf(a2, st2, ids2["w3@x"]); cat == contract.CategoryLowPriority || len(learned) != 0 {
		t.Errorf("after undo: %s %q", cat, learned)
	}
	// Spam marks, and their undo, for the lead's spam key.
	for _, id := range []string{"w1@x", "w2@x"} {
		if _, err := a2.RecordSpamMark(ctx, ids2[id], true); err != nil {
			t.Fatal(err)
		}
	}
	th, _ := st2.Thread(ctx, ids2["w3@x"])
	if o := a2.Analyzer().Deterministic(th.Messages, a2.Principal()); !o.Result.IsSpam {
		t.Errorf("after two spam marks: not spam (%q)", o.Learned)
	}
	if err := a2.UndoSpamMark(ctx, ids2["w1@x"]); err != nil {
		t.Fatal(err)
	}
	if o := a2.Analyzer().Deterministic(th.Messages, a2.Principal()); o.Result.IsSpam {
		t.Errorf("after undoing a spam mark: still spam (%q)", o.Learned)
	}
}

// TestSpamMarkWordsSurviveRebuild checks that a spam mark made through
// the app carries the marked message's words into the corrections file,
// that the learned score has learned them (higher log-odds for the
// message), that an app over a rebuilt store learns them again from the
// file, and that undoing the mark unlearns them, also after a restart.
func TestSpamMarkWordsSurviveRebuild(t *testing.T) {
	ctx := context.Background()
	dir, cfg, st, ids := learnSetup(t)
	a := New(cfg, st, Options{})
	th, err := st.Thread(ctx, ids["o1@x"])
	if err != nil {
		t.Fatal(err)
	}
	m := th.Messages[0]
	toks := bayes.Tokenize(m.Subject, m.Body(), "else.example")
	odds := func(a *App) float64 {
		prior, tab := a.Learning().Learner.Classifier().Table()
		for _, tok := range toks {
			prior += tab.WeightOf(tok)
		}
		return prior
	}
	shipped := odds(a)
	if _, err := a.RecordSpamMark(ctx, ids["o1@x"], true); err != nil {
		t.Fatal(err)
	}
	marked := odds(a)
	if !(marked > shipped) {
		t.Errorf("spam mark: log-odds %.3f → %.3f, want higher", shipped, marked)
	}
	data, err := os.ReadFile(filepath.Join(dir, "corrections.jsonl"))
	if err != nil || !strings.Contains(string(data), `"tokens":{`) || !strings.Contains(string(data), `"weekly":1`) {
		t.Fatalf("corrections file lacks the marked message's words: %v\n%s", err, data)
	}
	// The app's analyzers score with the learner's classifier.
	if a.Analyzer().Classifier() != a.Learning().Learner.Classifier() {
		t.Error("the app's analyzer does not score with the learned classifier")
	}

	st2, ids2, a2 := rebuildLearnStore(t, dir, cfg, st)
	if got := odds(a2); got != marked {
		t.Errorf("after rebuild: log-odds %.6f, want the marked %.6f", got, marked)
	}
	if err := a2.UndoSpamMark(ctx, ids2["o1@x"]); err != nil {
		t.Fatal(err)
	}
	if got := odds(a2); got != shipped {
		t.Errorf("after undo: log-odds %.6f, want the shipped %.6f", got, shipped)
	}
	if got := odds(New(cfg, st2, Options{})); got != shipped {
		t.Errorf("restart after undo: log-odds %.6f, want the shipped %.6f", got, shipped)
	}
}
