package app

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/model"
	"mailsift/store"
	"mailsift/triage"
)

func fmtPtr(f *float64) string {
	if f == nil {
		return "nil"
	}
	return fmt.Sprintf("%.4f", *f)
}

func samePtr(got *float64, want float64) bool {
	if math.IsNaN(want) {
		return got == nil
	}
	return got != nil && math.Abs(*got-want) < 1e-4
}

// TestEvalConfusionScores checks precision, recall and F1 against values
// computed by hand; NaN stands for "undefined" (nil).
func TestEvalConfusionScores(t *testing.T) {
	nan := math.NaN()
	type want struct{ p, r, f1 float64 }
	tests := []struct {
		name string
		c    Confusion
		want [4]want
	}{
		{
			name: "mixed",
			// rows: urgent, actionable, informational, low priority;
			// columns: the same, then quarantine.
			c: Confusion{
				{3, 1, 0, 0, 1},
				{1, 4, 0, 0, 0},
				{0, 1, 6, 2, 1},
				{0, 0, 0, 0, 2},
			},
			want: [4]want{
				{3.0 / 4, 3.0 / 5, 2.0 / 3},   // 2·0.75·0.6 / 1.35
				{4.0 / 6, 4.0 / 5, 16.0 / 22}, // 2·(2/3)·(4/5) / (22/15)
				{1, 6.0 / 10, 0.75},           // 1.2 / 1.6
				{0, 0, 0},                     // predicted 2 (both wrong), expected 2 (both quarantined)
			},
		},
		{
			name: "one bucket only",
			c:    Confusion{{}, {}, {0, 0, 5, 0, 0}, {}},
			want: [4]want{{nan, nan, nan}, {nan, nan, nan}, {1, 1, 1}, {nan, nan, nan}},
		},
		{
			name: "all quarantined",
			c:    Confusion{{}, {}, {}, {0, 0, 0, 0, 3}},
			want: [4]want{{nan, nan, nan}, {nan, nan, nan}, {nan, nan, nan}, {nan, 0, nan}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c.Scores()
			for i, w := range tt.want {
				s := got[i]
				if !samePtr(s.Precision, w.p) || !samePtr(s.Recall, w.r) || !samePtr(s.F1, w.f1) {
					t.Errorf("%s: P/R/F1 = %s/%s/%s, want %.4f/%.4f/%.4f", s.Bucket,
						fmtPtr(s.Precision), fmtPtr(s.Recall), fmtPtr(s.F1), w.p, w.r, w.f1)
				}
			}
		})
	}
	// Accuracy counts the diagonal, quarantine included: 3+4+6+0+2 of 25.
	c := Confusion{{3, 1, 0, 0, 1}, {1, 4, 0, 0, 0}, {0, 1, 6, 2, 1}, {0, 0, 0, 0, 2}, {0, 0, 0, 1, 2}}
	if a := c.Accuracy(); !samePtr(a, 15.0/25) {
		t.Errorf("accuracy = %s, want 15/25", fmtPtr(a))
	}
	if a := (Confusion{}).Accuracy(); a != nil {
		t.Errorf("accuracy of an empty matrix = %v, want nil", *a)
	}
	s := Confusion{{3, 1, 0, 0, 1}}.Scores()[0]
	if s.Support != 5 || s.Predicted != 3 {
		t.Errorf("urgent support/predicted = %d/%d, want 5/3", s.Support, s.Predicted)
	}
}

func TestEvalBinaryAndPercentile(t *testing.T) {
	var b Binary
	for range 8 {
		b.add(true, true)
	}
	for range 2 {
		b.add(false, true)
	}
	for range 4 {
		b.add(true, false)
	}
	for range 86 {
		b.add(false, false)
	}
	s := b.Score()
	if s.Binary != (Binary{TP: 8, FP: 2, FN: 4, TN: 86}) || s.Labeled != 100 {
		t.Fatalf("counts = %+v", s)
	}
	if !samePtr(s.Precision, 0.8) || !samePtr(s.Recall, 8.0/12) || !samePtr(s.FalsePositiveRate, 2.0/88) {
		t.Errorf("P/R/FPR = %s/%s/%s, want 0.8/0.6667/0.0227", fmtPtr(s.Precision), fmtPtr(s.Recall), fmtPtr(s.FalsePositiveRate))
	}
	if s := (Binary{TP: 3}).Score(); s.FalsePositiveRate != nil || !samePtr(s.Precision, 1) {
		t.Errorf("all spam: %+v", s)
	}

	var ds []time.Duration
	for i := 20; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p50, p95 := Percentile(ds, 50), Percentile(ds, 95); p50 != 10*time.Millisecond || p95 != 19*time.Millisecond {
		t.Errorf("p50, p95 of 1..20 ms = %s, %s; want 10ms, 19ms", p50, p95)
	}
	if Percentile(nil, 50) != 0 || Percentile(ds[:1], 95) != 20*time.Millisecond {
		t.Error("percentile of empty or one value")
	}
}

func TestEvalParseLabels(t *testing.T) {
	tests := []struct {
		name, in string
		err      string // "" = valid
	}{
		{name: "default only", in: `{"default": {"is_spam": true}}`},
		{name: "threads", in: `{"threads": [{"root_message_id": "<a@x>", "bucket": "low priority", "is_spam": false, "is_phishing": null}]}`},
		{name: "empty", in: `{}`, err: `$: no "default" and no "threads"`},
		{name: "not an object", in: `[1]`, err: "labels: $:"},
		{name: "null", in: `null`, err: "labels: $: want an object"},
		{name: "trailing data", in: `{"default": {}} {}`, err: "data after the top-level object"},
		{name: "unknown top field", in: `{"default": {}, "thread": []}`, err: "$.thread: unknown field"},
		{name: "unknown default field", in: `{"default": {"spam": true}}`, err: "$.default.spam: unknown field"},
		{name: "unknown thread field", in: `{"threads": [{"root_message_id": "a", "category": "urgent"}]}`, err: "$.threads[0].category: unknown field"},
		{name: "bad bucket", in: `{"threads": [{"root_message_id": "a"}, {"root_message_id": "b", "bucket": "spam"}]}`, err: `$.threads[1].bucket: "spam" is not one of urgent, actionable, informational, low priority`},
		{name: "bad default bucket", in: `{"default": {"bucket": "Urgent"}}`, err: `$.default.bucket: "Urgent"`},
		{name: "bucket not a string", in: `{"default": {"bucket": 1}}`, err: "$.default.bucket: want a string"},
		{name: "flag not a bool", in: `{"threads": [{"root_message_id": "a", "is_phishing": "yes"}]}`, err: "$.threads[0].is_phishing: want true or false"},
		{name: "missing id", in: `{"threads": [{"bucket": "urgent"}]}`, err: "$.threads[0].root_message_id: missing"},
		{name: "empty id", in: `{"threads": [{"root_message_id": " <> "}]}`, err: "$.threads[0].root_message_id: empty"},
		{name: "id not a string", in: `{"threads": [{"root_message_id": 7}]}`, err: "$.threads[0].root_message_id: want a string"},
		{name: "duplicate id", in: `{"threads": [{"root_message_id": "a@x"}, {"root_message_id": "<a@x>"}]}`, err: "$.threads[1].root_message_id: \"<a@x>\" is already labeled at $.threads[0]"},
		{name: "threads not an array", in: `{"threads": {}}`, err: "$.threads: want an array"},
		{name: "thread not an object", in: `{"threads": [1]}`, err: "$.threads[0]: want an object"},
		{name: "default not an object", in: `{"default": true}`, err: "$.default: want an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLabels([]byte(tt.in))
			if tt.err == "" {
				if err != nil {
					t.Fatalf("ParseLabels(%s) = %v, want no error", tt.in, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("ParseLabels(%s) = %v, want an error containing %q", tt.in, err, tt.err)
			}
		})
	}

	l, err := ParseLabels([]byte(`{"default": {"bucket": "informational", "is_spam": false},
		"threads": [{"root_message_id": "<a@x>", "is_spam": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	idx := l.index()
	got, ok := l.labelFor("a@x", idx)
	if !ok || got.Bucket != "informational" || got.IsSpam == nil || !*got.IsSpam || got.IsPhishing != nil {
		t.Errorf("listed thread = %+v, %v; want the default's bucket, its own is_spam, no phishing label", got, ok)
	}
	got, ok = l.labelFor("other@x", idx)
	if !ok || got.IsSpam == nil || *got.IsSpam {
		t.Errorf("unlisted thread = %+v, %v; want the default", got, ok)
	}
	l, _ = ParseLabels([]byte(`{"threads": [{"root_message_id": "a@x"}]}`))
	if _, ok := l.labelFor("other@x", l.index()); ok {
		t.Error("without a default an unlisted thread must be unlabeled")
	}
}

// TestEvalStore scores a store of three one-message threads with a clock
// that advances 1 ms per reading, so the latencies are exact.
func TestEvalStore(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msg := func(key, id, from, subject, text string) *model.Message {
		return &model.Message{
			Loc: model.Location{Account: "a", Mailbox: "INBOX", Key: key}, MessageID: id,
			From: model.Address{Email: from}, To: []model.Address{{Email: "me@example.org"}},
			Subject: subject, Text: text, HasBody: true, ContentHash: "h" + key,
			Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		}
	}
	if err := st.PutMessages(ctx, []*model.Message{
		msg("1", "lunch@x", "bob@example.com", "Lunch?", "Lunch tomorrow at noon?"),
		msg("2", "news@x", "news@example.net", "Weekly digest", "This week's articles."),
		msg("3", "other@x", "carol@example.com", "Hello", "Hi there."),
	}); err != nil {
		t.Fatal(err)
	}
	// A labeled reply joins the lunch thread: its label is reported as
	// joined, not as missing from the mailbox.
	reply := msg("4", "lunch-re@x", "bob@example.com", "Re: Lunch?", "Or Friday?")
	reply.InReplyTo, reply.Date = []string{"lunch@x"}, reply.Date.Add(time.Hour)
	if err := st.PutMessages(ctx, []*model.Message{reply}); err != nil {
		t.Fatal(err)
	}
	var tick time.Duration
	now := func() time.Time { tick += time.Millisecond; return time.Unix(0, 0).Add(tick) }
	cfg := &config.Config{}
	cfg.Principal.Email = "me@example.org"
	a := New(cfg, st, Options{Now: now})
	labels, err := ParseLabels([]byte(`{"threads": [
		{"root_message_id": "<lunch@x>", "is_spam": false, "is_phishing": false},
		{"root_message_id": "news@x", "is_spam": true},
		{"root_message_id": "gone-1@x"}, {"root_message_id": "gone-2@x"}, {"root_message_id": "<lunch-re@x>"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var preds []Prediction
	rep, err := a.Eval(ctx, labels, EvalOptions{Offline: true, OnPrediction: func(p Prediction) error {
		preds = append(preds, p)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Threads != 3 || rep.Labeled != 2 || len(preds) != 3 {
		t.Errorf("threads %d, labeled %d, predictions %d; want 3, 2, 3", rep.Threads, rep.Labeled, len(preds))
	}
	if rep.MissingLabels != 2 || strings.Join(rep.MissingFirst, " ") != "gone-1@x gone-2@x" {
		t.Errorf("missing = %d %v, want 2 [gone-1@x gone-2@x]", rep.MissingLabels, rep.MissingFirst)
	}
	if rep.JoinedLabels != 1 || strings.Join(rep.JoinedFirst, " ") != "lunch-re@x" {
		t.Errorf("joined = %d %v, want 1 [lunch-re@x]", rep.JoinedLabels, rep.JoinedFirst)
	}
	if rep.Mode != "deterministic" || rep.ModelCalls != 0 || rep.DeterministicThreads != 3 || rep.ModelThreads != 0 {
		t.Errorf("mode %q, calls %d, deterministic %d, model %d", rep.Mode, rep.ModelCalls, rep.DeterministicThreads, rep.ModelThreads)
	}
	if rep.LatencyP50 != time.Millisecond || rep.LatencyP95 != time.Millisecond || rep.Elapsed != 3*time.Millisecond {
		t.Errorf("latency p50 %s p95 %s total %s, want 1ms 1ms 3ms", rep.LatencyP50, rep.LatencyP95, rep.Elapsed)
	}
	if rep.Spam.Labeled != 2 || rep.Phishing.Labeled != 1 || rep.BucketLabeled != 0 {
		t.Errorf("spam labeled %d, phishing %d, buckets %d; want 2, 1, 0", rep.Spam.Labeled, rep.Phishing.Labeled, rep.BucketLabeled)
	}
	for _, p := range preds {
		want := 1
		if p.RootMessageID == "lunch@x" {
			want = 2 // with the reply
		}
		if p.Source != "deterministic" || len(p.MessageIDs) != want || p.MessageIDs[0] != p.RootMessageID || p.Category == "" {
			t.Errorf("prediction %+v", p)
		}
	}
}

// TestEvalLearn checks --learn: threads are triaged oldest first, each
// wrong one is corrected before the next as a user would, two moves of
// one sender's threads move the rest, and the user's own corrections file
// is neither read nor written.
func TestEvalLearn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Stored newest first, so store order is not arrival order.
	var msgs []*model.Message
	for i := 4; i >= 1; i-- {
		key := fmt.Sprint(i)
		msgs = append(msgs, &model.Message{
			Loc: model.Location{Account: "a", Mailbox: "INBOX", Key: key}, MessageID: "issue-" + key + "@news",
			From: model.Address{Email: "news@example.net"}, To: []model.Address{{Email: "me@example.org"}},
			Subject: "Weekly digest " + key, Text: "This week's articles, issue " + key + ".", HasBody: true, ContentHash: "h" + key,
			Date: time.Date(2026, 11, i, 9, 0, 0, 0, time.UTC),
		})
	}
	if err := st.PutMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{DataDir: dir}
	cfg.Principal.Email = "me@example.org"
	a := New(cfg, st, Options{})
	// The user's own corrections say the opposite: --learn must not read them.
	spam := true
	for i := range 3 {
		if _, err := a.Learning().record(triage.Correction{Thread: fmt.Sprintf("other-%d", i), Sender: "news@example.net", Domain: "example.net", Spam: &spam}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.ReadFile(filepath.Join(dir, triage.CorrectionsFile))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := ParseLabels([]byte(`{"default": {"bucket": "actionable", "is_spam": false}}`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(learn bool) (*EvalReport, []string) {
		var order []string
		rep, err := a.Eval(ctx, labels, EvalOptions{Offline: true, Learn: learn, OnPrediction: func(p Prediction) error {
			order = append(order, p.RootMessageID)
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return rep, order
	}
	cold, _ := run(false)
	if acc := *cold.Accuracy; acc != 0 || cold.Learn || cold.CorrectionMoves != 0 || cold.Spam.FP != 4 {
		t.Fatalf("without --learn: accuracy %.2f, learn %t, moves %d, spam false positives %d; want 0, false, 0, 4 (the user's own spam marks apply)",
			acc, cold.Learn, cold.CorrectionMoves, cold.Spam.FP)
	}
	rep, order := run(true)
	if want := "issue-1@news issue-2@news issue-3@news issue-4@news"; strings.Join(order, " ") != want {
		t.Errorf("order %v, want oldest first: %s", order, want)
	}
	if rep.CorrectionMoves != 2 || rep.CorrectionMarks != 0 || *rep.Accuracy != 0.5 {
		t.Errorf("moves %d, marks %d, accuracy %.2f; want 2 moves (then the sender's mail moves), 0 marks (the user's own spam marks are not used), 0.50",
			rep.CorrectionMoves, rep.CorrectionMarks, *rep.Accuracy)
	}
	after, err := os.ReadFile(filepath.Join(dir, triage.CorrectionsFile))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the corrections file changed (%v)", err)
	}
}
