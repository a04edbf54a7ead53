package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"mailsift/store"
	"mailsift/triage"
)

// Analyzer returns the deterministic analyzer with the built-in spam
// model and the user's corrections (see Learning).
func (a *App) Analyzer() *triage.Analyzer {
	an := triage.NewAnalyzer(nil)
	an.SetLearner(a.Learning().Learner)
	return an
}

// Learning is what the user taught triage: their bucket overrides and
// spam / not-spam marks, kept as corrections in a file in the data
// directory (triage.CorrectionsFile) so that they survive a rebuild of the
// store, and the learner that applies them to new triage.
type Learning struct {
	// Log is the corrections file (nil without a data directory: the
	// corrections then last as long as the process).
	Log     *triage.CorrectionLog
	Learner *triage.Learner
	mu      sync.Mutex
	// seq numbers the corrections kept without a file.
	seq int
}

// Learning returns the app's corrections, loaded on first use.
func (a *App) Learning() *Learning {
	a.learnOnce.Do(func() {
		l := &Learning{Learner: triage.NewLearner(nil)}
		if a.cfg != nil && a.cfg.DataDir != "" {
			l.Log = triage.OpenCorrections(filepath.Join(a.cfg.DataDir, triage.CorrectionsFile))
			cs, err := l.Log.Load()
			if err != nil {
				a.log.Warn("app: corrections not loaded", "err", err)
			}
			l.Learner.Set(cs)
		}
		a.learn = l
	})
	return a.learn
}

// record adds c to the corrections (the file first) and reloads the learner.
func (l *Learning) record(c triage.Correction) (triage.Correction, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Log == nil {
		l.seq++
		c.ID = fmt.Sprintf("mem-%d", l.seq)
		l.Learner.Set(append(l.Learner.Corrections(), c))
		return c, nil
	}
	c, err := l.Log.Add(c)
	if err != nil {
		return c, err
	}
	return c, l.reload()
}

// undo drops the corrections of thread (its root Message-ID) that keep
// matches, and reloads the learner.
func (l *Learning) undo(thread string, keep func(triage.Correction) bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var rest []triage.Correction
	for _, c := range l.Learner.Corrections() {
		if c.Thread != thread || !keep(c) {
			rest = append(rest, c)
			continue
		}
		if l.Log != nil {
			if err := l.Log.Undo(c.ID); err != nil {
				return err
			}
		}
	}
	if l.Log == nil {
		l.Learner.Set(rest)
		return nil
	}
	return l.reload()
}

// forget takes back the correction with id (one the learner may no
// longer apply: a later correction of its thread replaced it), and
// reloads the learner. Without a file it just drops it.
func (l *Learning) forget(id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Log == nil {
		var rest []triage.Correction
		for _, c := range l.Learner.Corrections() {
			if c.ID != id {
				rest = append(rest, c)
			}
		}
		l.Learner.Set(rest)
		return nil
	}
	if err := l.Log.Undo(id); err != nil {
		return err
	}
	return l.reload()
}

// reload reads the file into the learner; l.mu must be held.
func (l *Learning) reload() error {
	cs, err := l.Log.Load()
	if err != nil {
		return err
	}
	l.Learner.Set(cs)
	return nil
}

// correction describes thread threadID for a correction; with words, it
// carries the spam score's words of the message a spam mark judges.
func (a *App) correction(ctx context.Context, threadID int64, words bool) (triage.Correction, error) {
	th, err := a.st.Thread(ctx, threadID)
	if err != nil {
		return triage.Correction{}, err
	}
	c := triage.CorrectionFor(th.Messages, a.Principal())
	c.At = a.now()
	if c.Thread == "" {
		return c, fmt.Errorf("thread %d has no messages", threadID)
	}
	if words {
		c.Tokens = triage.MarkTokens(th.Messages, a.Principal())
	}
	return c, nil
}

// RecordOverride records the user's move of thread threadID to category
// as a correction ("" undoes the thread's move). Two moves of mail from
// the same list or sender move its future mail (see triage.Learner).
func (a *App) RecordOverride(ctx context.Context, threadID int64, category string) error {
	_, err := a.recordOverride(ctx, threadID, category)
	return err
}

// recordOverride is RecordOverride, returning the new correction's id
// ("" when category is "").
func (a *App) recordOverride(ctx context.Context, threadID int64, category string) (string, error) {
	c, err := a.correction(ctx, threadID, false)
	if err != nil {
		return "", fmt.Errorf("record override: %w", err)
	}
	l := a.Learning()
	if category == "" {
		err = l.undo(c.Thread, func(x triage.Correction) bool { return x.Category != "" })
	} else {
		// A new move of the thread replaces its earlier one (Load keeps
		// the latest per thread), a spam mark stays with it.
		c.Category = category
		for _, x := range l.Learner.Corrections() {
			if x.Thread == c.Thread && x.Spam != nil {
				c.Spam, c.Tokens = x.Spam, x.Tokens
			}
		}
		c, err = l.record(c)
	}
	if err != nil {
		return "", fmt.Errorf("record override: %w", err)
	}
	return c.ID, nil
}

// RecordSpamMark records the user's spam (true) or not-spam (false) mark
// on thread threadID as a correction and returns its id; UndoSpamMark
// undoes it. Two marks for the same list or sender mark its future mail.
func (a *App) RecordSpamMark(ctx context.Context, threadID int64, spam bool) (string, error) {
	c, err := a.correction(ctx, threadID, true)
	if err != nil {
		return "", fmt.Errorf("record spam mark: %w", err)
	}
	l := a.Learning()
	for _, x := range l.Learner.Corrections() {
		if x.Thread == c.Thread {
			c.Category = x.Category
		}
	}
	c.Spam = &spam
	c, err = l.record(c)
	if err != nil {
		return "", fmt.Errorf("record spam mark: %w", err)
	}
	return c.ID, nil
}

// UndoSpamMark undoes the spam or not-spam mark of thread threadID.
func (a *App) UndoSpamMark(ctx context.Context, threadID int64) error {
	c, err := a.correction(ctx, threadID, false)
	if err != nil {
		return fmt.Errorf("undo spam mark: %w", err)
	}
	if err := a.Learning().undo(c.Thread, func(x triage.Correction) bool { return x.Spam != nil }); err != nil {
		return fmt.Errorf("undo spam mark: %w", err)
	}
	return nil
}

// RestoreOverrides puts back the bucket overrides of the corrections whose
// thread is in the store without one: after the store was rebuilt, the
// threads the user moved are where the user put them. It returns how many
// it restored.
func (a *App) RestoreOverrides(ctx context.Context) (int, error) {
	n := 0
	for _, c := range a.Learning().Learner.Corrections() {
		if c.Category == "" {
			continue
		}
		id, err := a.st.ThreadIDForMessage(ctx, c.Thread)
		if err != nil {
			continue // not (yet) in the store
		}
		ts, err := a.st.ThreadSummaryByID(ctx, id)
		if err != nil || ts.Override != "" {
			continue
		}
		if err := a.st.SetOverride(ctx, id, c.Category); err != nil {
			return n, fmt.Errorf("restore overrides: %w", err)
		}
		n++
	}
	return n, nil
}

// SetOverride moves a thread to a bucket ("" clears its override) as
// MoveToBucket does.
func (m *Mail) SetOverride(ctx context.Context, threadID int64, category string) error {
	_, err := m.MoveToBucket(ctx, []int64{threadID}, category)
	return err
}

// What the learning recorded of a bucket move, as the undo stack keeps it
// (store.BucketRequest.Learned): a correction to take back, or a cleared
// override whose undo records the restored bucket again.
const (
	learnedForget  = "forget:"
	learnedCleared = "cleared"
)

// MoveToBucket moves threads to a bucket in the store ("" clears their
// override) and records each move as a correction the learner uses for
// the sender's and list's future mail. The move is one action on the
// undo stack: Actions.Undo puts the previous overrides back and takes the
// corrections back too. It returns the note a surface shows.
func (m *Mail) MoveToBucket(ctx context.Context, ids []int64, category string) (string, error) {
	learned := map[int64]string{}
	if m.app != nil {
		for _, id := range ids {
			cid, err := m.app.recordOverride(ctx, id, category)
			switch {
			case err != nil:
				// The move itself stands; only the learning is lost.
				m.app.log.Warn("app: override not recorded for learning", "thread", id, "err", err)
			case category == "":
				learned[id] = learnedCleared
			default:
				learned[id] = learnedForget + cid
			}
		}
	}
	label := "move " + plural(len(ids), "thread") + " to " + category
	if category == "" {
		label = "clear the bucket of " + plural(len(ids), "thread")
	}
	r, err := m.Store.SetBucket(ctx, store.BucketRequest{Label: label, Threads: ids, Category: category, Learned: learned})
	if err != nil {
		// Nothing moved: the learning must not keep what it recorded.
		for id, l := range learned {
			if uerr := m.app.unlearnBucket(ctx, store.UndoneOverride{Thread: id, Learned: l}); uerr != nil {
				m.app.log.Warn("app: taking back the learning of a failed move", "thread", id, "err", uerr)
			}
		}
		return "", err
	}
	if category == "" {
		return fmt.Sprintf("cleared the bucket of %s (u undoes)", plural(r.Threads, "thread")), nil
	}
	return fmt.Sprintf("moved %s to %s (kept over re-triage; u undoes)", plural(r.Threads, "thread"), category), nil
}

// unlearnBucket takes back what the learning recorded of a bucket move
// that was undone (or failed): the move's correction goes, so the thread
// counts where it was before; an undone clear records the restored
// bucket again.
func (a *App) unlearnBucket(ctx context.Context, o store.UndoneOverride) error {
	switch {
	case strings.HasPrefix(o.Learned, learnedForget):
		if err := a.Learning().forget(strings.TrimPrefix(o.Learned, learnedForget)); err != nil {
			return fmt.Errorf("undo override: %w", err)
		}
	case o.Learned == learnedCleared && o.Category != "":
		return a.RecordOverride(ctx, o.Thread, o.Category)
	}
	return nil
}

// Triager returns the configured triager: deterministic when offline is
// asked for (by the caller or triage.offline), else Ollama.
func (a *App) Triager(an *triage.Analyzer, offline bool) (triage.Triager, error) {
	if offline || a.cfg.Triage.Offline {
		return triage.NewOffline(an), nil
	}
	c := a.cfg
	tr, err := triage.NewOllama(triage.OllamaOptions{
		Host: c.Ollama.Host, Model: c.Ollama.Model, NumCtx: c.Ollama.NumCtx,
		Timeout: c.Ollama.Timeout, TokenBudget: c.Triage.TokenBudget,
		MaxMessages: c.Triage.MaxThreadMessages, Analyzer: an, Logger: a.log,
	})
	if err != nil {
		return nil, fmt.Errorf("triage: %w", err)
	}
	return tr, nil
}

// Worker returns a triage worker over the store using tr, falling back to
// the deterministic triage of an while the model is unreachable.
func (a *App) Worker(tr triage.Triager, an *triage.Analyzer) *triage.Worker {
	return triage.NewWorker(a.st, triage.WorkerOptions{
		Triager: tr, Fallback: triage.NewOffline(an), Principal: a.Principal(),
		Parallel: a.cfg.Ollama.Parallel, Logger: a.log,
	})
}

// Retriage queues a thread for triage again and calls wake so a running
// worker picks it up. The worker triages threads without a record on their
// current content hash, so re-saving the shown record with an emptied hash
// queues the thread while its current result stays on screen until the new
// one replaces it.
func (a *App) Retriage(ctx context.Context, threadID int64, wake func()) error {
	ts, err := a.st.ThreadSummaryByID(ctx, threadID)
	if err != nil {
		return fmt.Errorf("re-triage thread %d: %w", threadID, err)
	}
	if ts.Triage != nil {
		rec := *ts.Triage
		rec.ContentHash = ""
		if err := a.st.SaveTriage(ctx, rec); err != nil {
			return fmt.Errorf("re-triage thread %d: %w", threadID, err)
		}
	}
	if wake != nil {
		wake()
	}
	return nil
}
