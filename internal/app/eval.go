package app

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage"
)

// QuarantineColumn is the confusion matrix's last column: threads
// predicted spam or phishing, which the inbox shows in quarantine
// whatever their bucket.
const QuarantineColumn = "quarantine"

// Prediction is one thread's triage, as eval writes it for scoring
// elsewhere.
type Prediction struct {
	RootMessageID string   `json:"root_message_id"`
	MessageIDs    []string `json:"message_ids"`
	Category      string   `json:"category"`
	IsSpam        bool     `json:"is_spam"`
	IsPhishing    bool     `json:"is_phishing"`
	// Source is "model" or "deterministic".
	Source string `json:"source"`
}

// Confusion counts threads by expected bucket (rows) and predicted column,
// both in contract.Categories order and then QuarantineColumn: a thread
// labeled spam or phishing is expected in quarantine, where the inbox
// shows it, whatever bucket its label names.
type Confusion [5][5]int

// Accuracy is the share of threads whose predicted column is the expected
// one (nil when the matrix is empty).
func (c Confusion) Accuracy() *float64 {
	right, all := 0, 0
	for row := range 5 {
		for col := range 5 {
			all += c[row][col]
		}
		right += c[row][row]
	}
	return ratio(right, all)
}

// BucketScore is one bucket's precision, recall and F1; a nil ratio had
// nothing to divide by.
type BucketScore struct {
	Bucket    string   `json:"bucket"`
	Support   int      `json:"support"`
	Predicted int      `json:"predicted"`
	Precision *float64 `json:"precision"`
	Recall    *float64 `json:"recall"`
	F1        *float64 `json:"f1"`
}

// Scores returns each bucket's scores. Precision is over the threads
// predicted in the bucket, recall over the threads expected in it; a
// quarantined thread is a miss for its expected bucket.
func (c Confusion) Scores() []BucketScore {
	out := make([]BucketScore, 0, 4)
	for b, name := range contract.Categories {
		tp, expected, predicted := c[b][b], 0, 0
		for col := range 5 {
			expected += c[b][col]
		}
		for row := range 5 {
			predicted += c[row][b]
		}
		s := BucketScore{Bucket: name, Support: expected, Predicted: predicted,
			Precision: ratio(tp, predicted), Recall: ratio(tp, expected)}
		if s.Precision != nil && s.Recall != nil {
			f := 0.0 // both zero: every guess and every expected thread missed
			if sum := *s.Precision + *s.Recall; sum > 0 {
				f = 2 * *s.Precision * *s.Recall / sum
			}
			s.F1 = &f
		}
		out = append(out, s)
	}
	return out
}

// Binary counts a yes/no flag (spam, phishing) over labeled threads.
type Binary struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
	TN int `json:"tn"`
}

// add counts one thread.
func (b *Binary) add(expected, predicted bool) {
	switch {
	case expected && predicted:
		b.TP++
	case expected:
		b.FN++
	case predicted:
		b.FP++
	default:
		b.TN++
	}
}

// Labeled is how many threads carry the flag's label.
func (b Binary) Labeled() int { return b.TP + b.FP + b.FN + b.TN }

// Precision is TP / (TP + FP), nil when nothing was flagged.
func (b Binary) Precision() *float64 { return ratio(b.TP, b.TP+b.FP) }

// Recall is TP / (TP + FN), nil when no thread is expected flagged.
func (b Binary) Recall() *float64 { return ratio(b.TP, b.TP+b.FN) }

// FalsePositiveRate is FP / (FP + TN), nil when every thread is expected
// flagged.
func (b Binary) FalsePositiveRate() *float64 { return ratio(b.FP, b.FP+b.TN) }

// BinaryScore is a Binary with its ratios, for JSON.
type BinaryScore struct {
	Binary
	Labeled           int      `json:"labeled"`
	Precision         *float64 `json:"precision"`
	Recall            *float64 `json:"recall"`
	FalsePositiveRate *float64 `json:"false_positive_rate"`
}

// Score returns b with its ratios.
func (b Binary) Score() BinaryScore {
	return BinaryScore{Binary: b, Labeled: b.Labeled(), Precision: b.Precision(), Recall: b.Recall(), FalsePositiveRate: b.FalsePositiveRate()}
}

func ratio(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	r := float64(n) / float64(d)
	return &r
}

// EvalReport is the outcome of an evaluation run.
type EvalReport struct {
	// Threads is how many threads the mailbox holds; Labeled how many of
	// them carry a label.
	Threads int `json:"threads"`
	Labeled int `json:"labeled"`
	// MissingLabels counts labeled root Message-IDs not found in the
	// mailbox; MissingFirst lists the first few.
	MissingLabels int      `json:"missing_labels"`
	MissingFirst  []string `json:"missing_first"`
	// JoinedLabels counts labeled Message-IDs that are in the mailbox but
	// not a thread's root: the message joined an earlier thread (by its
	// references or its subject), which is scored by its own root's
	// label; JoinedFirst lists the first few. They are not counted in
	// MissingLabels.
	JoinedLabels int      `json:"joined_labels"`
	JoinedFirst  []string `json:"joined_first,omitempty"`
	// Mode is the model name, or "deterministic"; OfflineReason says why
	// the model was not used when it was asked for.
	Mode          string `json:"mode"`
	OfflineReason string `json:"offline_reason,omitempty"`

	BucketLabeled int `json:"bucket_labeled"`
	// Accuracy is the confusion matrix's diagonal over BucketLabeled.
	Accuracy  *float64      `json:"accuracy"`
	Rows      []string      `json:"rows"`
	Columns   []string      `json:"columns"`
	Confusion Confusion     `json:"confusion"`
	Buckets   []BucketScore `json:"buckets"`
	Spam      BinaryScore   `json:"spam"`
	Phishing  BinaryScore   `json:"phishing"`

	// ModelCalls counts chat requests sent; ModelThreads the threads the
	// model answered; DeterministicThreads the threads triaged without
	// it (offline, or after the model failed: Fallbacks of them).
	ModelCalls           int `json:"model_calls"`
	ModelThreads         int `json:"model_threads"`
	DeterministicThreads int `json:"deterministic_threads"`
	Fallbacks            int `json:"fallbacks"`
	// SignalDecided counts the threads the deterministic signals decide
	// with high confidence (triage.Outcome.Decided): a model triager
	// skips them unless the user asks, offline or not.
	SignalDecided int `json:"signal_decided"`
	// PromptEvalTokens and PromptEvalDuration sum the model's
	// prompt_eval_count and prompt_eval_duration over the accepted answers
	// (tokens evaluated: those after the prefix in Ollama's KV cache).
	PromptEvalTokens   int           `json:"prompt_eval_tokens"`
	PromptEvalDuration time.Duration `json:"-"`

	// Learn is true when the labels were replayed as the user's
	// corrections (EvalOptions.Learn); CorrectionMarks and
	// CorrectionMoves count the spam / not-spam marks and bucket moves
	// made.
	Learn           bool `json:"learn"`
	CorrectionMarks int  `json:"correction_marks"`
	CorrectionMoves int  `json:"correction_moves"`

	// LatencyP50 and LatencyP95 are per-thread triage times (nearest
	// rank); Elapsed is the whole run's triage time.
	LatencyP50 time.Duration `json:"-"`
	LatencyP95 time.Duration `json:"-"`
	Elapsed    time.Duration `json:"-"`
}

// MarshalJSON writes the report with its durations in milliseconds.
func (r *EvalReport) MarshalJSON() ([]byte, error) {
	type plain EvalReport
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return json.Marshal(struct {
		*plain
		LatencyP50 float64 `json:"latency_p50_ms"`
		LatencyP95 float64 `json:"latency_p95_ms"`
		Elapsed    float64 `json:"elapsed_ms"`
		PromptEval float64 `json:"prompt_eval_duration_ms"`
	}{(*plain)(r), ms(r.LatencyP50), ms(r.LatencyP95), ms(r.Elapsed), ms(r.PromptEvalDuration)})
}

// EvalOptions configure Eval; zero values mean defaults.
type EvalOptions struct {
	// Offline forces the deterministic triage.
	Offline bool
	// OnPrediction, when set, receives every thread's prediction in
	// thread order; an error ends the run.
	OnPrediction func(Prediction) error
	// OnProgress, when set, is called after each thread.
	OnProgress func(done, total int)
	// Learn replays the labels as the user's corrections: threads are
	// triaged oldest first (by their latest message) with a learner of
	// their own (the user's corrections file is neither read nor
	// written), and each labeled thread triaged wrongly is corrected
	// before the next one, as a user fixing mistakes as they appear
	// would: a spam or not-spam mark when is_spam is wrong, a bucket move
	// when the bucket is.
	Learn bool
}

// missingShown is how many labeled ids not found the report lists.
const missingShown = 5

// Eval triages every inbox thread of the store (nothing is saved) and
// scores the results against labels: threads are matched to labels by
// the root (oldest) message's Message-ID. When the model is unreachable
// it triages the rest deterministically and says why in the report.
func (a *App) Eval(ctx context.Context, labels *Labels, opts EvalOptions) (*EvalReport, error) {
	an := a.Analyzer()
	var learner *triage.Learner
	if opts.Learn {
		learner = triage.NewLearner(nil)
		an = triage.NewAnalyzer(nil)
		an.SetLearner(learner)
	}
	tr, err := a.Triager(an, opts.Offline)
	if err != nil {
		return nil, err
	}
	det := triage.NewOffline(an)
	ids, err := a.inboxThreads(ctx)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if opts.Learn {
		if ids, err = a.oldestFirst(ctx, ids); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
	}
	// The mailbox's own evidence about senders takes part as it does in
	// the inbox (a labeled mailbox with read flags or sent mail has some).
	senders, err := a.st.Familiarity(ctx)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	byID := labels.index()
	found := make(map[string]bool, len(byID))
	inThread := map[string]bool{} // labeled Message-IDs seen inside a thread
	rep := &EvalReport{Threads: len(ids), Mode: tr.Model(), Learn: opts.Learn,
		Rows: append(slices.Clone(contract.Categories), QuarantineColumn), Columns: append(slices.Clone(contract.Categories), QuarantineColumn)}
	var lat []time.Duration
	for i, id := range ids {
		th, err := a.st.Thread(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		if len(th.Messages) == 0 {
			continue
		}
		in := triage.Input{Messages: th.Messages, Principal: a.Principal(), Senders: senders}
		start := a.now()
		out, terr := tr.Triage(ctx, in)
		lat = append(lat, a.now().Sub(start))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if triage.IsOffline(terr) && tr != triage.Triager(det) {
			rep.OfflineReason = terr.Error()
			tr = det
		}
		if out == nil { // a triager always answers; guard against one that does not
			out, _ = det.Triage(ctx, in)
		}
		rep.ModelCalls += out.Attempts
		if out.Decided != "" {
			rep.SignalDecided++
		}
		rep.PromptEvalTokens += out.PromptTokens
		rep.PromptEvalDuration += out.PromptEvalDuration
		if out.Source == triage.SourceOllama {
			rep.ModelThreads++
		} else {
			rep.DeterministicThreads++
			if out.FallbackReason != "" {
				rep.Fallbacks++
			}
		}
		root := th.Messages[0].MessageID
		p := Prediction{RootMessageID: root, Category: out.Result.Category,
			IsSpam: out.Result.IsSpam, IsPhishing: out.Result.IsPhishing, Source: "deterministic"}
		if out.Source == triage.SourceOllama {
			p.Source = "model"
		}
		for _, m := range th.Messages {
			p.MessageIDs = append(p.MessageIDs, m.MessageID)
			if n := normalizeMessageID(m.MessageID); n != normalizeMessageID(root) {
				if _, ok := byID[n]; ok {
					inThread[n] = true
				}
			}
		}
		if lab, ok := labels.labelFor(root, byID); ok {
			found[normalizeMessageID(root)] = true
			rep.Labeled++
			rep.score(lab, p)
			if learner != nil {
				rep.correct(learner, lab, p, th.Messages, a.Principal())
			}
		}
		if opts.OnPrediction != nil {
			if err := opts.OnPrediction(p); err != nil {
				return nil, err
			}
		}
		if opts.OnProgress != nil {
			opts.OnProgress(i+1, len(ids))
		}
	}
	for _, t := range labels.Threads {
		switch {
		case found[t.RootMessageID]:
		case inThread[normalizeMessageID(t.RootMessageID)]:
			rep.JoinedLabels++
			if len(rep.JoinedFirst) < missingShown {
				rep.JoinedFirst = append(rep.JoinedFirst, t.RootMessageID)
			}
		default:
			rep.MissingLabels++
			if len(rep.MissingFirst) < missingShown {
				rep.MissingFirst = append(rep.MissingFirst, t.RootMessageID)
			}
		}
	}
	if rep.Mode == "" || rep.ModelThreads == 0 {
		rep.Mode = "deterministic"
	}
	rep.Buckets = rep.Confusion.Scores()
	rep.Accuracy = rep.Confusion.Accuracy()
	rep.Spam, rep.Phishing = rep.Spam.Binary.Score(), rep.Phishing.Binary.Score()
	for _, d := range lat {
		rep.Elapsed += d
	}
	rep.LatencyP50, rep.LatencyP95 = Percentile(lat, 50), Percentile(lat, 95)
	return rep, nil
}

// score adds one labeled thread's prediction to the report's counts.
func (r *EvalReport) score(lab Label, p Prediction) {
	if lab.Bucket != "" {
		row := slices.Index(contract.Categories, lab.Bucket)
		if lab.IsSpam != nil && *lab.IsSpam || lab.IsPhishing != nil && *lab.IsPhishing {
			row = 4
		}
		col := slices.Index(contract.Categories, p.Category)
		if p.IsSpam || p.IsPhishing || col < 0 {
			col = 4
		}
		r.Confusion[row][col]++
		r.BucketLabeled++
	}
	if lab.IsSpam != nil {
		r.Spam.Binary.add(*lab.IsSpam, p.IsSpam)
	}
	if lab.IsPhishing != nil {
		r.Phishing.Binary.add(*lab.IsPhishing, p.IsPhishing)
	}
}

// correct adds to learner the correction a user would make of prediction
// p of the thread msgs labeled lab: a spam or not-spam mark when is_spam
// is wrong, a bucket move when a thread that is not spam landed in
// another bucket. It counts them in r.
func (r *EvalReport) correct(learner *triage.Learner, lab Label, p Prediction, msgs []*model.Message, principal model.Address) {
	c := triage.CorrectionFor(msgs, principal)
	if lab.IsSpam != nil && *lab.IsSpam != p.IsSpam {
		c.Spam = lab.IsSpam
		c.Tokens = triage.MarkTokens(msgs, principal)
		r.CorrectionMarks++
	}
	spam := lab.IsSpam != nil && *lab.IsSpam || lab.IsPhishing != nil && *lab.IsPhishing
	if lab.Bucket != "" && !spam && lab.Bucket != p.Category {
		c.Category = lab.Bucket
		r.CorrectionMoves++
	}
	if c.Spam == nil && c.Category == "" {
		return
	}
	c.ID = fmt.Sprintf("eval-%d", r.CorrectionMarks+r.CorrectionMoves)
	c.At = msgs[len(msgs)-1].Date
	learner.Set(append(learner.Corrections(), c))
}

// oldestFirst orders thread ids by their latest message, oldest first
// (ids break ties), as mail arrives.
func (a *App) oldestFirst(ctx context.Context, ids []int64) ([]int64, error) {
	latest := make(map[int64]time.Time, len(ids))
	for _, id := range ids {
		s, err := a.st.ThreadSummaryByID(ctx, id)
		if err != nil {
			return nil, err
		}
		latest[id] = s.Latest
	}
	out := slices.Clone(ids)
	slices.SortStableFunc(out, func(x, y int64) int {
		if c := latest[x].Compare(latest[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	return out, nil
}

// Percentile returns the nearest-rank p-th percentile of ds (0 when empty).
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 × n)
	return s[max(rank, 1)-1]
}

// inboxThreads returns the ids of every inbox thread, oldest id first.
func (a *App) inboxThreads(ctx context.Context) ([]int64, error) {
	var ids []int64
	for _, sec := range store.Sections() {
		for off := 0; ; off += 500 {
			rows, err := a.st.ListThreads(ctx, sec, off, 500)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			if len(rows) < 500 {
				break
			}
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Label is what a thread is expected to be. A nil field is not labeled and
// not scored.
type Label struct {
	// Bucket is one of the contract's four categories, or "" when the
	// thread's bucket is not labeled.
	Bucket     string
	IsSpam     *bool
	IsPhishing *bool
}

// ThreadLabel labels the thread whose root (oldest) message has
// RootMessageID (without angle brackets).
type ThreadLabel struct {
	RootMessageID string
	Label
}

// Labels is a parsed labels file. With a Default every thread of the
// mailbox is labeled: a listed thread's own fields replace the default's
// one by one. Without a Default only the listed threads are scored.
type Labels struct {
	Default *Label
	Threads []ThreadLabel
}

// labelFor returns the label of the thread with root Message-ID id (byID
// is l.index()) and whether the thread is labeled at all.
func (l *Labels) labelFor(id string, byID map[string]int) (Label, bool) {
	var out Label
	ok := false
	if l.Default != nil {
		out, ok = *l.Default, true
	}
	if i, found := byID[normalizeMessageID(id)]; found {
		t := l.Threads[i].Label
		if t.Bucket != "" {
			out.Bucket = t.Bucket
		}
		if t.IsSpam != nil {
			out.IsSpam = t.IsSpam
		}
		if t.IsPhishing != nil {
			out.IsPhishing = t.IsPhishing
		}
		ok = true
	}
	return out, ok
}

// index maps each labeled root Message-ID to its position in Threads.
func (l *Labels) index() map[string]int {
	m := make(map[string]int, len(l.Threads))
	for i, t := range l.Threads {
		m[normalizeMessageID(t.RootMessageID)] = i
	}
	return m
}

// normalizeMessageID drops surrounding space and angle brackets, as the
// store keeps Message-IDs without them.
func normalizeMessageID(id string) string {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(id, "<")
	return strings.TrimSuffix(id, ">")
}

// ParseLabels parses a labels file strictly: unknown fields, wrong types,
// unknown buckets, a missing or repeated root_message_id and trailing data
// are errors naming the JSON path. The format is
//
//	{"default": {"bucket": "...", "is_spam": true, "is_phishing": false},
//	 "threads": [{"root_message_id": "...", "bucket": "...", "is_spam": false, "is_phishing": false}]}
//
// where every field but root_message_id may be omitted (or null).
func ParseLabels(data []byte) (*Labels, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("labels: $: %w", jsonErr(err))
	}
	if top == nil {
		return nil, errors.New("labels: $: want an object, got null")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("labels: $: data after the top-level object")
	}
	if err := onlyKeys(top, "$", "default", "threads"); err != nil {
		return nil, err
	}
	var l Labels
	if raw, ok := top["default"]; ok && !isNull(raw) {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("labels: $.default: want an object: %w", jsonErr(err))
		}
		if err := onlyKeys(fields, "$.default", "bucket", "is_spam", "is_phishing"); err != nil {
			return nil, err
		}
		d, err := parseLabel(fields, "$.default")
		if err != nil {
			return nil, err
		}
		l.Default = &d
	}
	if raw, ok := top["threads"]; ok && !isNull(raw) {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("labels: $.threads: want an array: %w", jsonErr(err))
		}
		seen := map[string]int{}
		for i, item := range items {
			path := fmt.Sprintf("$.threads[%d]", i)
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(item, &fields); err != nil || fields == nil {
				return nil, fmt.Errorf("labels: %s: want an object", path)
			}
			if err := onlyKeys(fields, path, "root_message_id", "bucket", "is_spam", "is_phishing"); err != nil {
				return nil, err
			}
			var id string
			raw, ok := fields["root_message_id"]
			if !ok || isNull(raw) {
				return nil, fmt.Errorf("labels: %s.root_message_id: missing", path)
			}
			if err := json.Unmarshal(raw, &id); err != nil {
				return nil, fmt.Errorf("labels: %s.root_message_id: want a string", path)
			}
			norm := normalizeMessageID(id)
			if norm == "" {
				return nil, fmt.Errorf("labels: %s.root_message_id: empty", path)
			}
			if j, dup := seen[norm]; dup {
				return nil, fmt.Errorf("labels: %s.root_message_id: %q is already labeled at $.threads[%d]", path, id, j)
			}
			seen[norm] = i
			lab, err := parseLabel(fields, path)
			if err != nil {
				return nil, err
			}
			l.Threads = append(l.Threads, ThreadLabel{RootMessageID: norm, Label: lab})
		}
	}
	if l.Default == nil && len(l.Threads) == 0 {
		return nil, errors.New("labels: $: no \"default\" and no \"threads\": nothing to score")
	}
	return &l, nil
}

// parseLabel reads the optional bucket, is_spam and is_phishing of an
// object at path.
func parseLabel(fields map[string]json.RawMessage, path string) (Label, error) {
	var l Label
	if raw, ok := fields["bucket"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &l.Bucket); err != nil {
			return l, fmt.Errorf("labels: %s.bucket: want a string", path)
		}
		if !slices.Contains(contract.Categories, l.Bucket) {
			return l, fmt.Errorf("labels: %s.bucket: %q is not one of %s", path, l.Bucket, strings.Join(contract.Categories, ", "))
		}
	}
	for _, f := range []struct {
		name string
		dst  **bool
	}{{"is_spam", &l.IsSpam}, {"is_phishing", &l.IsPhishing}} {
		raw, ok := fields[f.name]
		if !ok || isNull(raw) {
			continue
		}
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return l, fmt.Errorf("labels: %s.%s: want true or false", path, f.name)
		}
		*f.dst = &b
	}
	return l, nil
}

// onlyKeys fails on the first key of fields (in sorted order) not in allowed.
func onlyKeys(fields map[string]json.RawMessage, path string, allowed ...string) error {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("labels: %s.%s: unknown field (want %s)", path, k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonErr shortens encoding/json's messages, which name Go types.
func jsonErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("wrong type (%s)", te.Value)
	}
	return err
}
