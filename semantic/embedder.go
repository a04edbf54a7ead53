package semantic

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"mailsift/internal/ollama"
	"mailsift/store"
)

// Defaults of EmbedderOptions.
const (
	// DefaultBatch is how many texts go to /api/embed in one request.
	DefaultBatch = 64
	// DefaultPassLimit bounds the messages one pass embeds before it
	// returns, so a first run over a large mailbox yields between passes.
	DefaultPassLimit = 1024
	// DefaultRetry is how long Run waits after a failed pass before trying
	// again when nothing wakes it sooner.
	DefaultRetry = time.Minute
)

// EmbedderOptions configure an Embedder; zero values mean defaults.
type EmbedderOptions struct {
	// Model is the embed model (ollama.embed_model). Required.
	Model string
	// Client is the Ollama client. Required.
	Client *ollama.Client
	// ChatOptions carry num_ctx and keep_alive, the same for every
	// request, so the embed model stays loaded.
	ChatOptions ollama.ChatOptions
	// Timeout bounds one request (0: only the context).
	Timeout time.Duration
	// Batch is the texts per request (default DefaultBatch; at least
	// ollama.MinEmbedBatch).
	Batch int
	// PassLimit bounds one pass (default DefaultPassLimit).
	PassLimit int
	// Retry is the wait after a failed pass (default DefaultRetry).
	Retry time.Duration
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Embedder keeps the store's vectors and an Index current: it embeds
// messages that have no vector by the configured model (new mail, or
// everything after the model changed), newest first, in batches. Every
// batch is saved in its own transaction before the next is sent, so a
// killed process loses at most the batch in flight, and the next run
// resumes with what is still missing: the store holds one vector per
// message, never two.
type Embedder struct {
	st   *store.Store
	idx  *Index
	opts EmbedderOptions
	log  *slog.Logger

	loadMu sync.Mutex
	loaded bool

	errMu   sync.Mutex
	lastErr error // why the last pass stopped early; nil after one that finished
}

// LastErr returns why the last pass stopped early, or nil.
func (e *Embedder) LastErr() error {
	e.errMu.Lock()
	defer e.errMu.Unlock()
	return e.lastErr
}

// NewEmbedder returns an embedder writing to st and idx (whose model must
// be opts.Model).
func NewEmbedder(st *store.Store, idx *Index, opts EmbedderOptions) (*Embedder, error) {
	if opts.Model == "" || opts.Client == nil {
		return nil, errors.New("semantic: an embedder needs an embed model and an Ollama client")
	}
	if idx.Model() != opts.Model {
		return nil, fmt.Errorf("semantic: index holds %s vectors, embedder makes %s", idx.Model(), opts.Model)
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	opts.Batch = max(opts.Batch, ollama.MinEmbedBatch)
	if opts.PassLimit <= 0 {
		opts.PassLimit = DefaultPassLimit
	}
	if opts.Retry <= 0 {
		opts.Retry = DefaultRetry
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Embedder{st: st, idx: idx, opts: opts, log: log}, nil
}

// Model returns the embed model.
func (e *Embedder) Model() string { return e.opts.Model }

// Client returns the Ollama client the embedder uses.
func (e *Embedder) Client() *ollama.Client { return e.opts.Client }

// Load fills the index with the store's current vectors by the model,
// once: later calls (a search racing the background loop) return at once.
func (e *Embedder) Load(ctx context.Context) error {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	if e.loaded {
		return nil
	}
	var batch []store.Embedding
	err := e.st.Embeddings(ctx, e.opts.Model, func(em store.Embedding) error {
		batch = append(batch, em)
		if len(batch) == 512 {
			err := e.idx.Put(batch...)
			batch = batch[:0]
			return err
		}
		return nil
	})
	if err == nil {
		err = e.idx.Put(batch...)
	}
	if err != nil {
		return fmt.Errorf("semantic: load vectors: %w", err)
	}
	e.loaded = true
	return nil
}

// embed sends one request for texts.
func (e *Embedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.Timeout)
		defer cancel()
	}
	req := &api.EmbedRequest{Model: e.opts.Model}
	e.opts.ChatOptions.ApplyEmbed(req)
	vecs, err := e.opts.Client.Embed(ctx, req, texts)
	if err != nil {
		return nil, fmt.Errorf("embed with %s: %w", e.opts.Model, err)
	}
	return vecs, nil
}

// EmbedQuery returns the vector of a search query.
func (e *Embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vecs, err := e.embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vecs[0], nil
}

// Pass embeds up to PassLimit waiting messages, Batch at a time, and
// returns how many it embedded and whether more are waiting.
func (e *Embedder) Pass(ctx context.Context) (n int, more bool, err error) {
	for n < e.opts.PassLimit {
		src, err := e.st.MessagesToEmbed(ctx, e.opts.Model, min(e.opts.Batch, e.opts.PassLimit-n))
		if err != nil {
			return n, true, err
		}
		if len(src) == 0 {
			return n, false, nil
		}
		texts := make([]string, len(src))
		for i, s := range src {
			texts[i] = s.Text
		}
		vecs, err := e.embed(ctx, texts)
		if err != nil {
			return n, true, err
		}
		embs := make([]store.Embedding, len(src))
		for i, s := range src {
			embs[i] = store.Embedding{ID: s.ID, ThreadID: s.ThreadID, Date: s.Date, Hash: s.Hash, Vec: vecs[i]}
		}
		if err := e.st.SaveEmbeddings(ctx, e.opts.Model, embs); err != nil {
			return n, true, err
		}
		if err := e.idx.Put(embs...); err != nil {
			return n, true, err
		}
		n += len(src)
	}
	return n, true, nil
}

// isMissingModel reports whether err is Ollama's answer for a model that
// is not pulled.
func isMissingModel(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == 404
}

// Progress reports the embedder's state after a pass.
type Progress struct {
	// Embedded is how many messages the pass embedded.
	Embedded int
	// Indexed is the number of vectors in the index.
	Indexed int
	// Err is why the pass stopped early (nil: it finished).
	Err error
}

// Run loads the index, then embeds whatever is waiting, pass after pass,
// and waits for wake (new mail) before looking again. After a failed pass
// (Ollama down, the model not pulled) it waits for wake or Retry. Each
// pass is reported on progress (if not nil) without blocking the work for
// longer than ctx allows. Run returns when ctx ends.
func (e *Embedder) Run(ctx context.Context, wake <-chan struct{}, progress chan<- Progress) error {
	if err := e.Load(ctx); err != nil {
		return err
	}
	for {
		n, more, err := e.Pass(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && isMissingModel(err) {
			err = fmt.Errorf("embed model %s is not pulled (run: ollama pull %s): %w", e.opts.Model, e.opts.Model, err)
		}
		e.errMu.Lock()
		e.lastErr = err
		e.errMu.Unlock()
		if err != nil {
			e.log.Warn("semantic: embedding pass stopped", "model", e.opts.Model, "embedded", n, "err", err)
		} else if n > 0 {
			e.log.Info("semantic: embedded", "model", e.opts.Model, "messages", n, "indexed", e.idx.Len())
		}
		if progress != nil && (n > 0 || err != nil) {
			select {
			case progress <- Progress{Embedded: n, Indexed: e.idx.Len(), Err: err}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err == nil && more {
			continue
		}
		var retry <-chan time.Time
		var timer *time.Timer
		if err != nil {
			timer = time.NewTimer(e.opts.Retry)
			retry = timer.C
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-retry:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
