package app

import (
	"context"
	"fmt"

	"mailsift/triage"
)

// Analyzer returns the deterministic analyzer with the built-in spam model.
func (a *App) Analyzer() *triage.Analyzer { return triage.NewAnalyzer(nil) }

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
