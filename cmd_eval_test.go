package main

import (
	"encoding/json"
	"mailsift/model/contract"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// evalMaildir writes a Maildir of three threads: a two-message thread
// rooted at lunch@example.com, a one-message newsletter and a prize spam.
func evalMaildir(t *testing.T) string {
	t.Helper()
	mail := t.TempDir()
	for _, d := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(mail, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	msgs := []string{
		"From: Bob <bob@example.com>\r\nTo: me@example.org\r\nSubject: Lunch?\r\nMessage-ID: <lunch@example.com>\r\nDate: Mon, 2 Feb 2026 10:00:00 +0000\r\n\r\nLunch tomorrow at noon? Please confirm.\r\n",
		"From: Me <me@example.org>\r\nTo: bob@example.com\r\nSubject: Re: Lunch?\r\nMessage-ID: <reply@example.org>\r\nIn-Reply-To: <lunch@example.com>\r\nReferences: <lunch@example.com>\r\nDate: Mon, 2 Feb 2026 11:00:00 +0000\r\n\r\nSure, noon works.\r\n",
		"From: News <news@example.net>\r\nTo: me@example.org\r\nSubject: Weekly digest\r\nMessage-ID: <digest@example.net>\r\nDate: Tue, 3 Feb 2026 08:00:00 +0000\r\nList-Unsubscribe: <mailto:unsub@example.net>\r\n\r\nThis week's articles on gardening.\r\n",
		"From: Winner <claims@prize.example>\r\nTo: me@example.org\r\nSubject: YOU HAVE WON $1,000,000!!!\r\nMessage-ID: <prize@prize.example>\r\nDate: Wed, 4 Feb 2026 09:00:00 +0000\r\n\r\nCongratulations! Click here to claim your free cash prize now. Act now, limited time, 100% free!\r\n",
	}
	for i, m := range msgs {
		if err := os.WriteFile(filepath.Join(mail, "new", string(rune('1'+i))+".eml"), []byte(m), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return mail
}

const evalLabels = `{"default": {"is_phishing": false},
 "threads": [
  {"root_message_id": "<lunch@example.com>", "bucket": "actionable", "is_spam": false},
  {"root_message_id": "digest@example.net", "bucket": "urgent", "is_spam": true},
  {"root_message_id": "prize@prize.example", "is_spam": true},
  {"root_message_id": "gone@example.com", "bucket": "urgent"}]}`

type evalPrediction struct {
	RootMessageID string   `json:"root_message_id"`
	MessageIDs    []string `json:"message_ids"`
	Category      string   `json:"category"`
	IsSpam        bool     `json:"is_spam"`
	IsPhishing    bool     `json:"is_phishing"`
	Source        string   `json:"source"`
}

func readPredictions(t *testing.T, path string) map[string]evalPrediction {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]evalPrediction{}
	for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		var p evalPrediction
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("prediction line %q: %v", l, err)
		}
		out[p.RootMessageID] = p
	}
	return out
}

type evalJSON struct {
	Threads       int      `json:"threads"`
	Labeled       int      `json:"labeled"`
	MissingLabels int      `json:"missing_labels"`
	MissingFirst  []string `json:"missing_first"`
	Mode          string   `json:"mode"`
	BucketLabeled int      `json:"bucket_labeled"`
	Columns       []string `json:"columns"`
	Confusion     [5][5]int
	Buckets       []struct {
		Bucket                string
		Support, Predicted    int
		Precision, Recall, F1 *float64
	}
	Spam, Phishing struct {
		TP, FP, FN, TN, Labeled int
		Precision, Recall       *float64
		FalsePositiveRate       *float64 `json:"false_positive_rate"`
	}
	ModelCalls           int      `json:"model_calls"`
	ModelThreads         int      `json:"model_threads"`
	DeterministicThreads int      `json:"deterministic_threads"`
	SignalDecided        int      `json:"signal_decided"`
	LatencyP50           *float64 `json:"latency_p50_ms"`
	LatencyP95           *float64 `json:"latency_p95_ms"`
}

// TestEvalCommandOffline runs eval --offline on a Maildir and checks that
// the printed figures agree with the labels and the predictions file,
// whatever the deterministic rules decide.
func TestEvalCommandOffline(t *testing.T) {
	mail := evalMaildir(t)
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.json")
	if err := os.WriteFile(labels, []byte(evalLabels), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	preds := filepath.Join(dir, "pred.jsonl")
	env := map[string]string{"MAILSIFT_EMAIL": "me@example.org", "OLLAMA_HOST": deadHost(t)}
	args := []string{"--source", "maildir://" + mail, "--data-dir", data, "eval", "--offline", "--labels", labels, "--predictions", preds}

	r := runWith(t, env, "", append(args, "--json")...)
	if r.code != 0 {
		t.Fatalf("eval --json: %+v", r)
	}
	var rep evalJSON
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	p := readPredictions(t, preds)
	if len(p) != 3 || len(p["lunch@example.com"].MessageIDs) != 2 || p["lunch@example.com"].MessageIDs[1] != "reply@example.org" {
		t.Fatalf("predictions = %+v, want 3 threads, the lunch thread with both messages", p)
	}
	for id, pr := range p {
		if pr.Source != "deterministic" {
			t.Errorf("%s: source %q with --offline", id, pr.Source)
		}
	}
	if rep.Threads != 3 || rep.Labeled != 3 || rep.MissingLabels != 1 || len(rep.MissingFirst) != 1 || rep.MissingFirst[0] != "gone@example.com" {
		t.Errorf("threads %d labeled %d missing %d %v; want 3, 3, 1 [gone@example.com]", rep.Threads, rep.Labeled, rep.MissingLabels, rep.MissingFirst)
	}
	if rep.Mode != "deterministic" || rep.ModelCalls != 0 || rep.ModelThreads != 0 || rep.DeterministicThreads != 3 {
		t.Errorf("mode %q calls %d model %d deterministic %d", rep.Mode, rep.ModelCalls, rep.ModelThreads, rep.DeterministicThreads)
	}
	if rep.LatencyP50 == nil || rep.LatencyP95 == nil || *rep.LatencyP95 < *rep.LatencyP50 {
		t.Errorf("latency p50 %v p95 %v", rep.LatencyP50, rep.LatencyP95)
	}

	// The figures the report must hold, computed from the predictions.
	col := func(pr evalPrediction) int {
		if pr.IsSpam || pr.IsPhishing {
			return 4
		}
		return map[string]int{"urgent": 0, "actionable": 1, "informational": 2, "low priority": 3}[pr.Category]
	}
	var conf [5][5]int
	conf[1][col(p["lunch@example.com"])]++
	conf[4][col(p["digest@example.net"])]++ // labeled spam: expected in quarantine
	if rep.Confusion != conf || rep.BucketLabeled != 2 {
		t.Errorf("confusion = %v (%d), want %v (2)", rep.Confusion, rep.BucketLabeled, conf)
	}
	tp, fp, fn, tn := spamCounts(p)
	if s := rep.Spam; s.TP != tp || s.FP != fp || s.FN != fn || s.TN != tn || s.Labeled != 3 {
		t.Errorf("spam = %+v, want tp %d fp %d fn %d tn %d", s, tp, fp, fn, tn)
	}
	if rep.Phishing.Labeled != 3 {
		t.Errorf("phishing labeled %d, want 3 (from the default)", rep.Phishing.Labeled)
	}

	// The text report prints the same figures.
	r = runWith(t, env, "", args...)
	if r.code != 0 {
		t.Fatalf("eval: %+v", r)
	}
	for _, want := range []string{
		"threads: 3, labeled 3\n",
		"labels not found in the mailbox: 1 (first: gone@example.com)\n",
		"triage: deterministic; model calls 0, threads by the model 0, skipped (deterministic) 3\n",
		"buckets (2 threads; rows expected, columns predicted):",
		"quarantine",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if entries, _ := os.ReadDir(data); len(entries) != 1 || entries[0].Name() != "mailsift.log" {
		t.Errorf("data dir after eval holds %v, want only the log (the eval store is removed)", entries)
	}
}

// TestEvalCommandModel runs eval with a model that always answers
// "actionable, not spam". The model is used for every thread; where the
// deterministic signals call a thread spam the result keeps that evidence
// (spam, low priority), everywhere else it is the model's answer, and the
// report's figures agree with the predictions.
func TestEvalCommandModel(t *testing.T) {
	mail := evalMaildir(t)
	dir := t.TempDir()
	labels := filepath.Join(dir, "labels.json")
	if err := os.WriteFile(labels, []byte(evalLabels), 0o600); err != nil {
		t.Fatal(err)
	}
	// What the signals alone decide, for the evidence the model cannot erase.
	detPreds := filepath.Join(dir, "det.jsonl")
	r := runWith(t, map[string]string{"MAILSIFT_EMAIL": "me@example.org"}, "", "--source", "maildir://"+mail,
		"--data-dir", filepath.Join(dir, "det"), "eval", "--offline", "--labels", labels, "--predictions", detPreds)
	if r.code != 0 {
		t.Fatalf("eval --offline: %+v", r)
	}
	det := readPredictions(t, detPreds)

	preds := filepath.Join(dir, "pred.jsonl")
	result := `{"category":"actionable","is_spam":false,"is_phishing":false,"summary":"s","action_items":[],"draft":null}`
	env := map[string]string{"MAILSIFT_EMAIL": "me@example.org", "OLLAMA_HOST": fakeOllamaServer(t, []string{"llama3.2:3b"}, result)}
	r = runWith(t, env, "", "--source", "maildir://"+mail, "--data-dir", filepath.Join(dir, "data"),
		"eval", "--labels", labels, "--predictions", preds, "--json")
	if r.code != 0 {
		t.Fatalf("eval: %+v", r)
	}
	var rep evalJSON
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	// The threads the signals decide on their own (the spam, quarantined
	// on evidence beyond the learned score) are not sent to the model.
	asked := 3 - rep.SignalDecided
	if rep.Mode != "llama3.2:3b" || rep.SignalDecided < 1 || rep.ModelCalls != asked || rep.ModelThreads != asked || rep.DeterministicThreads != rep.SignalDecided {
		t.Errorf("mode %q decided %d calls %d model %d deterministic %d; want the model for the %d threads not decided",
			rep.Mode, rep.SignalDecided, rep.ModelCalls, rep.ModelThreads, rep.DeterministicThreads, asked)
	}
	p := readPredictions(t, preds)
	column := func(pr evalPrediction) int {
		if pr.IsSpam || pr.IsPhishing {
			return 4
		}
		return slices.Index(contract.Categories, pr.Category)
	}
	var want [5][5]int
	for id, row := range map[string]int{"lunch@example.com": 1, "digest@example.net": 4} {
		want[row][column(p[id])]++
	}
	if rep.Confusion != want {
		t.Errorf("confusion = %v, want %v from the predictions", rep.Confusion, want)
	}
	tp, fp, fn, tn := spamCounts(p)
	if s := rep.Spam; s.TP != tp || s.FP != fp || s.FN != fn || s.TN != tn || s.Labeled != 3 {
		t.Errorf("spam = %+v, want tp %d fp %d fn %d tn %d", s, tp, fp, fn, tn)
	}
	skipped := 0
	for id, pr := range p {
		switch {
		case pr.Source != "model":
			// Decided by the signals: their answer, unchanged.
			skipped++
			if d := det[id]; pr.Category != d.Category || pr.IsSpam != d.IsSpam || pr.IsPhishing != d.IsPhishing {
				t.Errorf("%s skipped the model: %+v, want the signals' %+v", id, pr, d)
			}
		case det[id].IsSpam && (!pr.IsSpam || pr.Category != contract.CategoryLowPriority):
			t.Errorf("%s: %+v; the signals call it spam, which the model's answer must not erase", id, pr)
		case !det[id].IsSpam && !det[id].IsPhishing && (pr.IsSpam || pr.Category != contract.CategoryActionable):
			t.Errorf("%s: %+v, want the model's actionable, not spam", id, pr)
		}
	}
	if skipped != rep.SignalDecided {
		t.Errorf("%d predictions without the model, report says %d decided", skipped, rep.SignalDecided)
	}
}

func TestEvalCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"threads": [{"root_message_id": "a", "bucket": "spam"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MAILSIFT_EMAIL": "me@example.org"}
	src := "maildir://" + evalMaildir(t)
	r := runWith(t, env, "", "--source", src, "--data-dir", dir, "eval")
	if r.code != 2 || !strings.Contains(r.stderr, "--labels") {
		t.Errorf("no labels: %+v, want exit 2 naming --labels", r)
	}
	r = runWith(t, env, "", "--source", src, "--data-dir", dir, "eval", "--labels", bad)
	if r.code != 1 || !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "$.threads[0].bucket") {
		t.Errorf("bad labels: %+v, want exit 1 naming the file and the JSON path", r)
	}
}

// spamCounts scores the predictions' spam flags against evalLabels' spam
// labels (the thread whose label is not found is not predicted).
func spamCounts(p map[string]evalPrediction) (tp, fp, fn, tn int) {
	for id, spam := range map[string]bool{"lunch@example.com": false, "digest@example.net": true, "prize@prize.example": true} {
		switch got := p[id].IsSpam; {
		case spam && got:
			tp++
		case spam:
			fn++
		case got:
			fp++
		default:
			tn++
		}
	}
	return tp, fp, fn, tn
}
