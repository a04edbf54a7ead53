package triage_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"mailsift/model"
	"mailsift/triage"
	"mailsift/triage/bayes"
)

// Cross-validation of the offline spam decision on the TRAINING groups of
// the SpamAssassin corpus (spam-1 and easy-ham-1, the only groups the
// shipped model and the rules may be designed on). The shipped model has
// seen every one of those messages, so its scores on them are in-sample
// and hide the mistakes it makes on mail it has not seen; the held-out
// groups (spam-2, easy-ham-2, hard-ham-1) are for measuring only. Here
// every thread of the training groups is triaged by the whole offline
// decision (triage.Offline, the same as `mailsift eval --offline`) with a
// spam model trained, as triage/bayes/train does, on the other folds
// only: out-of-fold figures to design on.
//
// Threads are assigned to folds by a hash of their root Message-ID, and
// a fold's model is trained on every message of the threads of the other
// folds: a thread's messages never train the model that judges it. The
// figures are per thread, like eval's.
//
// Run it with
//
//	go test ./triage -run TestCrossValidation -v
//
// MAILSIFT_CV_TOP, MAILSIFT_CV_MIN_DF, MAILSIFT_CV_ALPHA and
// MAILSIFT_CV_THRESHOLD override
// the training parameters (default those of triage/bayes/train);
// MAILSIFT_CV_LIST=1 logs every out-of-fold mistake with its reasons, and
// the ham threads the fold's model alone scores as spam.
//
// A second run assigns the folds by source (see cvSource): every list and
// sender domain is then judged by a model that never saw it, a harsher
// test, closer to mail from another mailbox than folds by thread, where a
// thread's ham neighbours share its list. A third assigns them by date
// (five blocks of consecutive dates per group): the mail of a period is
// judged by a model that never saw that period, as later mail is. Folds
// by date agreed with the held-out groups where folds by thread did not:
// smoothing 0.75 instead of 1 cost one spam thread by date and three of
// spam-2, and none by thread.
//
// MAILSIFT_CV_VARIANT screens a change of the score's input before it is
// built into bayes.Tokenize and triage: a comma-separated list of
// binary (each token once per message), cap=N (the body's first N
// bytes), noquote (without lines starting with '>'), nosig (without
// what follows a "-- " signature line), nofooter (list mail without
// its list's footer, see cvStripFooter), header (tokens of the
// envelope: HTML-only text, list mail, attachment types, the
// Return-Path's domain) and bigram (pairs of adjacent words), which
// transform the training
// messages and the scored one, and norm=N (a long message's summed
// log-likelihoods scaled by sqrt(N/tokens)) and topk=K (only the K
// distinct tokens of largest weight), which change how the score is
// summed. They apply to the "score alone" figures only: the whole
// decision still scores the message as triage does, so its figures are
// not meaningful then.

// cvFolds is the number of folds.
const cvFolds = 5

// cvConfig are the training parameters of one cross-validation run.
type cvConfig struct {
	topN, minDF      int
	threshold, alpha float64
}

// cvDefault is what triage/bayes/train ships with.
var cvDefault = cvConfig{topN: 20000, minDF: 3, threshold: 0.9, alpha: bayes.DefaultAlpha}

// Out-of-fold floors, so that a change that makes the decision worse on
// mail the model has not seen fails. Measured when the harness was
// written: ham false positives 3 of 1,434 threads (0.21 %), spam recall
// 0.9534 (450 of 472 threads); by source, ham false positives 122
// (8.51 %) and spam recall 0.9449 (446). Now: ham false positives 2
// (0.14 %; credential requests count in the author's own text only) and
// by source 104 (7.25 %; replies in a conversation and signed mail are
// vouched for), spam recall unchanged. By date: ham false positives 6
// (0.42 %), spam recall 0.9428 (445).
const (
	cvMaxHamFP            = 0.0015
	cvMinSpamRecall       = 0.95
	cvSourceMaxHamFP      = 0.0735
	cvSourceMinSpamRecall = 0.94
	cvDateMaxHamFP        = 0.0045
	cvDateMinSpamRecall   = 0.94
)

// cvThread is one thread of a training group.
type cvThread struct {
	root string
	// fold is the thread's fold by root Message-ID, sourceFold by source,
	// dateFold by date (see cvByDate).
	fold, sourceFold, dateFold int
	spam                       bool
	msgs                       []*model.Message
}

// cvMistake is one out-of-fold misjudged thread.
type cvMistake struct {
	group, subject, from string
	spam                 bool
	reasons              string
}

// cvResult are the out-of-fold figures of one run.
type cvResult struct {
	ham, hamFP, spam, spamTP int
	// scoreHamFP and scoreSpamTP count threads whose latest message the
	// fold's model alone scores at or above the threshold, before any
	// exemption or other evidence: how well the score itself does.
	scoreHamFP, scoreSpamTP int
	mistakes                []cvMistake
	// hamScores lists the ham threads the model alone scores as spam.
	hamScores []cvMistake
}

func (r cvResult) String() string {
	return fmt.Sprintf("ham FP %d of %d (%.2f %%), spam recall %.4f (%d of %d; %d missed)",
		r.hamFP, r.ham, 100*float64(r.hamFP)/float64(max(r.ham, 1)),
		float64(r.spamTP)/float64(max(r.spam, 1)), r.spamTP, r.spam, r.spam-r.spamTP) +
		fmt.Sprintf("; score alone: ham %d, spam %d", r.scoreHamFP, r.scoreSpamTP)
}

// cvFold returns the fold of a thread by its root Message-ID.
func cvFold(root string) int {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(strings.Trim(root, "<> "))))
	return int(h.Sum32() % cvFolds)
}

// cvSource is where a message comes from: its mailing list (List-Id, else
// the List-Unsubscribe address), else its sender's domain. Folds by source
// judge every thread by a model that never saw its list or its sender.
func cvSource(m *model.Message) string {
	if id := m.Header("List-Id"); id != "" {
		return strings.ToLower(id)
	}
	if u := m.Header("List-Unsubscribe"); u != "" {
		return strings.ToLower(u)
	}
	return strings.ToLower(m.From.Email[strings.LastIndexByte(m.From.Email, '@')+1:])
}

// cvGroup is one synced training group.
type cvGroup struct {
	name    string
	threads []cvThread
	senders triage.Senders
}

// loadCVGroup syncs a corpus group into a temporary store and returns its
// threads with their folds.
func loadCVGroup(t *testing.T, name string, spam bool) cvGroup {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(accuracyCorpus, name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cur")); err != nil {
		t.Skipf("corpus group %s absent (%v): run scripts/fetch-corpus.sh to cross-validate", name, err)
	}
	ctx := context.Background()
	st, _ := syncMaildir(t, dir, "me@example.org")
	fam, err := st.Familiarity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := cvGroup{name: name, senders: fam}
	eachStoredThread(t, st, func(th *model.Thread) {
		root := th.Messages[0].MessageID
		g.threads = append(g.threads, cvThread{root: root, fold: cvFold(root), sourceFold: cvFold(cvSource(th.Messages[0])), spam: spam, msgs: th.Messages})
	})
	// Folds by date: the group's threads by their root's date, cut into
	// cvFolds blocks of consecutive dates.
	idx := make([]int, len(g.threads))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		return g.threads[idx[a]].msgs[0].Date.Before(g.threads[idx[b]].msgs[0].Date)
	})
	for rank, i := range idx {
		g.threads[i].dateFold = rank * cvFolds / len(idx)
	}
	return g
}

// cvDoc tokenizes a message as triage/bayes/train does.
func cvDoc(m *model.Message, spam bool) bayes.Doc {
	from := ""
	if i := strings.LastIndexByte(m.From.Email, '@'); i >= 0 {
		from = m.From.Email[i+1:]
	}
	body := m.Body()
	v := os.Getenv("MAILSIFT_CV_VARIANT")
	if strings.Contains(v, "noquote") {
		var b strings.Builder
		for _, l := range strings.SplitAfter(body, "\n") {
			if !strings.HasPrefix(strings.TrimLeft(l, " "), ">") {
				b.WriteString(l)
			}
		}
		body = b.String()
	}
	if strings.Contains(v, "nosig") {
		if i := strings.Index(body, "\n-- \n"); i >= 0 {
			body = body[:i]
		}
	}
	if strings.Contains(v, "nofooter") && (m.Header("List-Id") != "" || m.Header("List-Unsubscribe") != "" || strings.EqualFold(m.Header("Precedence"), "list")) {
		body = cvStripFooter(body)
	}
	if i := strings.Index(v, "cap="); i >= 0 {
		n, _ := strconv.Atoi(strings.Split(v[i+4:], ",")[0])
		if len(body) > n {
			body = body[:n]
		}
	}
	toks := bayes.Tokenize(m.Subject, body, from)
	if strings.Contains(v, "bigram") {
		n := len(toks)
		prev := ""
		for _, t := range toks[:n] {
			if strings.Contains(t, ":") {
				prev = ""
				continue
			}
			if prev != "" {
				toks = append(toks, "b:"+prev+"_"+t)
			}
			prev = t
		}
	}
	if strings.Contains(v, "header") {
		if strings.TrimSpace(m.Text) == "" && m.HTMLText != "" {
			toks = append(toks, "h:htmlonly")
		}
		if m.Header("List-Id") != "" || m.Header("List-Unsubscribe") != "" || strings.EqualFold(strings.TrimSpace(m.Header("Precedence")), "list") {
			toks = append(toks, "h:list")
		}
		for _, a := range m.Attachments {
			toks = append(toks, "h:att:"+strings.ToLower(a.ContentType))
		}
		if rp := strings.Trim(strings.TrimSpace(m.Header("Return-Path")), "<>"); strings.Contains(rp, "@") {
			toks = append(toks, "h:rp:"+strings.ToLower(rp[strings.LastIndexByte(rp, '@')+1:]))
		}
	}
	if strings.Contains(v, "binary") {
		seen := map[string]bool{}
		out := toks[:0]
		for _, t := range toks {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
		toks = out
	}
	return bayes.Doc{Tokens: toks, Spam: spam}
}

// cvScore is c.SpamProbability(toks), or with MAILSIFT_CV_VARIANT
// norm=N the log-likelihood sum of a message of more than N tokens
// scaled by sqrt(N/len), or with topk=K only the K distinct tokens of
// largest weight either way summed.
func cvScore(c *bayes.Classifier, m *bayes.Model, toks []string) float64 {
	v := os.Getenv("MAILSIFT_CV_VARIANT")
	norm, topk := 0, 0
	if i := strings.Index(v, "norm="); i >= 0 {
		norm, _ = strconv.Atoi(strings.Split(v[i+5:], ",")[0])
	}
	if i := strings.Index(v, "topk="); i >= 0 {
		topk, _ = strconv.Atoi(strings.Split(v[i+5:], ",")[0])
	}
	if norm == 0 && topk == 0 {
		return c.SpamProbability(toks)
	}
	alpha := m.Alpha
	if alpha <= 0 {
		alpha = bayes.DefaultAlpha
	}
	vocab := float64(len(m.Tokens))
	spamDen := math.Log(float64(m.SpamTotal) + alpha*vocab)
	hamDen := math.Log(float64(m.HamTotal) + alpha*vocab)
	prior := math.Log(float64(m.SpamDocs)) - math.Log(float64(m.HamDocs))
	var ws []float64
	seen := map[string]bool{}
	for _, t := range toks {
		cnt, ok := m.Tokens[t]
		if !ok {
			continue
		}
		if topk > 0 {
			if seen[t] {
				continue
			}
			seen[t] = true
		}
		ws = append(ws, math.Log(float64(cnt[0])+alpha)-spamDen-(math.Log(float64(cnt[1])+alpha)-hamDen))
	}
	if topk > 0 {
		sort.Slice(ws, func(i, j int) bool { return math.Abs(ws[i]) > math.Abs(ws[j]) })
		ws = ws[:min(topk, len(ws))]
	}
	var sum float64
	for _, w := range ws {
		sum += w
	}
	if norm > 0 && len(toks) > norm {
		sum *= math.Sqrt(float64(norm) / float64(len(toks)))
	}
	return bayes.Probability(prior + sum)
}

// cvStripFooter cuts body at the first separator line (ten or more '_'
// or '-') of its last 2,000 bytes after which the text speaks of
// unsubscribing or of the list: a list manager's footer.
func cvStripFooter(body string) string {
	off := 0
	for off < len(body) {
		nl := strings.IndexByte(body[off:], '\n')
		end := len(body)
		if nl >= 0 {
			end = off + nl
		}
		line := strings.TrimSpace(body[off:end])
		if len(line) >= 10 && (strings.Count(line, "_") >= 10 || strings.Count(line, "-") >= 10) && len(body)-off < 2000 {
			rest := strings.ToLower(body[off:])
			if strings.Contains(rest, "unsubscribe") || strings.Contains(rest, "listinfo") || strings.Contains(rest, "mailing list") {
				return body[:off]
			}
		}
		if nl < 0 {
			break
		}
		off = end + 1
	}
	return body
}

// cvLatest returns the latest message not from principal (nil if none):
// the one triage scores.
func cvLatest(msgs []*model.Message, principal model.Address) *model.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if !strings.EqualFold(msgs[i].From.Email, principal.Email) {
			return msgs[i]
		}
	}
	return nil
}

// cvAssign is how threads are assigned to folds.
type cvAssign int

const (
	cvByThread cvAssign = iota // by root Message-ID
	cvBySource                 // by list or sender domain (cvSource)
	cvByDate                   // by date: each group's threads in cvFolds blocks of consecutive dates
)

// crossValidate trains one model per fold on the other folds' messages
// and triages the fold's threads with it.
func crossValidate(t *testing.T, groups []cvGroup, cfg cvConfig, principal model.Address, by cvAssign) cvResult {
	t.Helper()
	fold := func(th cvThread) int {
		switch by {
		case cvBySource:
			return th.sourceFold
		case cvByDate:
			return th.dateFold
		}
		return th.fold
	}
	ctx := context.Background()
	var res cvResult
	for k := 0; k < cvFolds; k++ {
		var docs []bayes.Doc
		for _, g := range groups {
			for _, th := range g.threads {
				if fold(th) == k {
					continue
				}
				for _, m := range th.msgs {
					docs = append(docs, cvDoc(m, th.spam))
				}
			}
		}
		m := bayes.Train(docs, cfg.topN, cfg.minDF, fmt.Sprintf("cross-validation fold %d", k))
		m.Threshold = cfg.threshold
		m.Alpha = cfg.alpha
		c := bayes.NewClassifier(m, nil)
		det := triage.NewOffline(triage.NewAnalyzer(c))
		for _, g := range groups {
			for _, th := range g.threads {
				if fold(th) != k {
					continue
				}
				o, err := det.Triage(ctx, triage.Input{Messages: th.msgs, Principal: principal, Senders: g.senders})
				if err != nil {
					t.Fatal(err)
				}
				spam := o.Result.IsSpam
				if last := cvLatest(th.msgs, principal); last != nil {
					p := cvScore(c, m, cvDoc(last, th.spam).Tokens)
					if p >= cfg.threshold {
						if th.spam {
							res.scoreSpamTP++
						} else {
							res.scoreHamFP++
							res.hamScores = append(res.hamScores, cvMistake{group: g.name, subject: last.Subject, from: last.From.Email,
								reasons: fmt.Sprintf("p=%.4f decided spam=%t", p, spam)})
						}
					}
				}
				if th.spam {
					res.spam++
					if spam {
						res.spamTP++
					}
				} else {
					res.ham++
					if spam {
						res.hamFP++
					}
				}
				if spam != th.spam {
					last := th.msgs[len(th.msgs)-1]
					var kinds []string
					for _, s := range o.Signals {
						kinds = append(kinds, string(s.Kind))
					}
					res.mistakes = append(res.mistakes, cvMistake{group: g.name, subject: last.Subject, from: last.From.Email, spam: th.spam,
						reasons: strings.Join(o.SpamReasons, " | ") + " || " + strings.Join(kinds, ",")})
				}
			}
		}
	}
	sort.Slice(res.mistakes, func(i, j int) bool {
		a, b := res.mistakes[i], res.mistakes[j]
		if a.group != b.group {
			return a.group < b.group
		}
		return a.subject < b.subject
	})
	return res
}

// cvEnv returns cvDefault with the environment's overrides.
func cvEnv(t *testing.T) cvConfig {
	cfg := cvDefault
	if v := os.Getenv("MAILSIFT_CV_TOP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("MAILSIFT_CV_TOP: %v", err)
		}
		cfg.topN = n
	}
	if v := os.Getenv("MAILSIFT_CV_MIN_DF"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("MAILSIFT_CV_MIN_DF: %v", err)
		}
		cfg.minDF = n
	}
	if v := os.Getenv("MAILSIFT_CV_ALPHA"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("MAILSIFT_CV_ALPHA: %v", err)
		}
		cfg.alpha = f
	}
	if v := os.Getenv("MAILSIFT_CV_THRESHOLD"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("MAILSIFT_CV_THRESHOLD: %v", err)
		}
		cfg.threshold = f
	}
	return cfg
}

// TestCrossValidation measures the offline spam decision out of fold on
// the training groups and fails when it is worse than the floors.
func TestCrossValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-validation on the SpamAssassin corpus: skipped in -short mode")
	}
	groups := []cvGroup{loadCVGroup(t, "spam-1", true), loadCVGroup(t, "easy-ham-1", false)}
	cfg := cvEnv(t)
	for _, run := range []struct {
		name             string
		by               cvAssign
		maxFP, minRecall float64
	}{
		{"by-thread", cvByThread, cvMaxHamFP, cvMinSpamRecall},
		{"by-source", cvBySource, cvSourceMaxHamFP, cvSourceMinSpamRecall},
		{"by-date", cvByDate, cvDateMaxHamFP, cvDateMinSpamRecall},
	} {
		t.Run(run.name, func(t *testing.T) {
			res := crossValidate(t, groups, cfg, model.Address{Email: "me@example.org"}, run.by)
			t.Logf("out of fold (%d folds %s, per thread; top %d, min-df %d, alpha %g, threshold %.3f): %s", cvFolds, run.name, cfg.topN, cfg.minDF, cfg.alpha, cfg.threshold, res)
			if os.Getenv("MAILSIFT_CV_LIST") != "" {
				for _, m := range res.mistakes {
					t.Logf("MISS %s spam=%t %q from %s\n    %s", m.group, m.spam, m.subject, m.from, m.reasons)
				}
				for _, m := range res.hamScores {
					t.Logf("HAMSCORE %q from %s: %s", m.subject, m.from, m.reasons)
				}
			}
			if cfg != cvDefault || os.Getenv("MAILSIFT_CV_VARIANT") != "" {
				return // the floors hold for the shipped parameters
			}
			if fp := float64(res.hamFP) / float64(max(res.ham, 1)); fp > run.maxFP {
				t.Errorf("out-of-fold ham false-positive rate %.4f, want ≤ %.4f", fp, run.maxFP)
			}
			if r := float64(res.spamTP) / float64(max(res.spam, 1)); r < run.minRecall {
				t.Errorf("out-of-fold spam recall %.4f, want ≥ %.4f", r, run.minRecall)
			}
		})
	}
}
