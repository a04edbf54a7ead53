package triage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"mailsift/internal/ollama"
	"mailsift/model/contract"
)

// ErrorKind classifies why the model could not be used.
type ErrorKind int

// Error kinds.
const (
	// ErrUnreachable: nothing answers at the configured host.
	ErrUnreachable ErrorKind = iota + 1
	// ErrModelMissing: the model is not pulled.
	ErrModelMissing
	// ErrBusy: Ollama's queue stayed full after retries (503).
	ErrBusy
	// ErrTimeout: no answer within the configured timeout of the
	// request's turn at the server (the model is slow), or cancelled.
	ErrTimeout
	// ErrServer: Ollama answered with another error status.
	ErrServer
	// ErrProtocol: the HTTP answer was not Ollama's JSON.
	ErrProtocol
	// ErrOffContract: the model's answer failed validation twice.
	ErrOffContract
	// ErrTruncated: the prompt kept being truncated by Ollama.
	ErrTruncated
)

// Error is a model failure with a message for the user that says what is
// wrong and how to fix it.
type Error struct {
	Kind ErrorKind
	Msg  string
	Err  error
}

// Error returns the user message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Offline reports whether the error means Ollama cannot be used at all
// (unreachable, or the model is not pulled): callers switch to
// deterministic triage and re-probe later.
func (e *Error) Offline() bool { return e.Kind == ErrUnreachable || e.Kind == ErrModelMissing }

// Slow reports whether the error means the model answers too slowly: a
// request got no answer within ollama.timeout of its turn at the server.
// The model stays in use; the status line says it is slow.
func (e *Error) Slow() bool { return e.Kind == ErrTimeout && errors.Is(e.Err, ollama.ErrTimeout) }

// IsSlow reports whether err is an *Error with Slow() true.
func IsSlow(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Slow()
}

// IsOffline reports whether err is an *Error with Offline() true.
func IsOffline(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Offline()
}

// OllamaOptions configure the Ollama triager; zero values mean defaults.
type OllamaOptions struct {
	// Host is Ollama's base URL (default http://127.0.0.1:11434).
	Host string
	// Model is the model name (default llama3.2:3b).
	Model string
	// NumCtx is the context window asked for (default
	// ollama.DefaultNumCtx); drafts ask for the same, so the model is not
	// reloaded between them.
	NumCtx int
	// Seed makes answers reproducible (default 42).
	Seed int
	// Timeout bounds one chat call from its turn at the server, so time
	// queued behind other requests does not count (default 2m; see
	// ollama.Options.Timeout).
	Timeout time.Duration
	// AfterFunc arms the timeout (default time.AfterFunc); tests inject
	// a fake clock.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// KeepAlive keeps the model loaded between the calls of a batch
	// (default ollama.DefaultKeepAlive, as for drafts).
	KeepAlive time.Duration
	// ReserveTokens is left for the answer (default 1024).
	ReserveTokens int
	// TokenBudget caps the prompt (triage.token_budget; 0: NumCtx - ReserveTokens).
	TokenBudget int
	// MaxMessages keeps only the newest messages of a thread in the prompt
	// (triage.max_thread_messages; 0: all that fit).
	MaxMessages int
	// BusyRetries is how often a 503 (queue full) is retried (default 3),
	// with backoff starting at BusyBackoff (default 500ms).
	BusyRetries int
	BusyBackoff time.Duration
	// HTTPClient is used for requests (default: the shared client's, which
	// has no timeout; the client applies Timeout per call).
	HTTPClient *http.Client
	// Analyzer computes signals and the fallback (default NewAnalyzer(nil)).
	Analyzer *Analyzer
	// AskAlways sends every thread to the model, also those the signals
	// decide on their own (Outcome.Decided), as if each were asked for.
	AskAlways bool
	Logger    *slog.Logger
}

// Ollama triages with a local Ollama model, through the shared client of
// mailsift/internal/ollama (which bounds how much of an answer is read).
type Ollama struct {
	opts   OllamaOptions
	shown  string // opts.Host without credentials, for messages
	client *ollama.Client
	schema json.RawMessage
	log    *slog.Logger

	mu sync.Mutex
	// scale is the model's tokens per token of EstimateTokens, learned
	// from prompt_eval_count (0 until the first untruncated answer).
	// Tokenizers differ from the estimate by 4x and more, so a prompt is
	// budgeted with it.
	scale float64
	// lastPrompt is the previous request's prompt (system, NUL, user):
	// Ollama evaluates only what follows the prefix it shares with the
	// request before it (its KV cache), so prompt_eval_count counts that
	// part only.
	lastPrompt string
	// fence is this triager's fence token: one for all its prompts, so
	// the system prompt and the examples block are a fixed prefix of
	// every request (see buildPrompt).
	fence string
}

// NewOllama returns an Ollama triager. It does not contact the server.
func NewOllama(opts OllamaOptions) (*Ollama, error) {
	if opts.Host == "" {
		opts.Host = "http://127.0.0.1:11434"
	}
	if !strings.Contains(opts.Host, "://") {
		opts.Host = "http://" + opts.Host
	}
	u, err := url.Parse(opts.Host)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("triage: ollama host %q is not a URL like http://127.0.0.1:11434 (set ollama.host or OLLAMA_HOST)", opts.Host)
	}
	if opts.Model == "" {
		opts.Model = "llama3.2:3b"
	}
	if opts.NumCtx <= 0 {
		opts.NumCtx = ollama.DefaultNumCtx
	}
	if opts.Seed == 0 {
		opts.Seed = 42
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Minute
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = ollama.DefaultKeepAlive
	}
	if opts.ReserveTokens <= 0 {
		opts.ReserveTokens = 1024
	}
	if opts.BusyRetries <= 0 {
		opts.BusyRetries = 3
	}
	if opts.BusyBackoff <= 0 {
		opts.BusyBackoff = 500 * time.Millisecond
	}
	if opts.Analyzer == nil {
		opts.Analyzer = NewAnalyzer(nil)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client, err := ollama.New(u.String(), &ollama.Options{HTTPClient: opts.HTTPClient, Timeout: opts.Timeout, AfterFunc: opts.AfterFunc})
	if err != nil {
		return nil, fmt.Errorf("triage: %w (set ollama.host or OLLAMA_HOST)", err)
	}
	shown := *u
	shown.User = nil // a user:password in the URL is never shown
	return &Ollama{opts: opts, shown: shown.String(), client: client, schema: json.RawMessage(contract.ResultSchema()), log: log, fence: newFence()}, nil
}

// CacheKey implements Triager.
func (o *Ollama) CacheKey() string { return OllamaCacheKey(o.opts.Model) }

// Model implements Triager.
func (o *Ollama) Model() string { return o.opts.Model }

// Host returns the configured base URL.
func (o *Ollama) Host() string { return o.opts.Host }

// Analyzer returns the analyzer used for hints and fallbacks.
func (o *Ollama) Analyzer() *Analyzer { return o.opts.Analyzer }

// Probe checks that Ollama answers and the model is pulled.
func (o *Ollama) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, min(o.opts.Timeout, 10*time.Second))
	defer cancel()
	if _, err := o.client.Version(ctx); err != nil {
		return o.classify(ctx, err)
	}
	ok, err := o.HasModel(ctx)
	if err != nil {
		return o.classify(ctx, err)
	}
	if !ok {
		return o.modelMissing(nil)
	}
	return nil
}

// Version returns the server's version (GET /api/version).
func (o *Ollama) Version(ctx context.Context) (string, error) {
	v, err := o.client.Version(ctx)
	if err != nil {
		return "", o.classify(ctx, err)
	}
	return v, nil
}

// HasModel reports whether the configured model is pulled (GET /api/tags).
// "name" without a tag matches "name:latest".
func (o *Ollama) HasModel(ctx context.Context) (bool, error) {
	ok, err := o.client.HasModel(ctx, o.opts.Model)
	if err != nil {
		return false, o.classify(ctx, err)
	}
	return ok, nil
}

// maxShrinks bounds retries after a detected prompt truncation.
const maxShrinks = 2

// worstScale bounds the model's tokens per EstimateTokens token: a
// tokenizer spends at most one token per byte plus the chat template's,
// and the estimate counts four ASCII bytes (or one other rune, at most
// four bytes) as a token. A prompt budgeted with it fits any tokenizer.
const worstScale = 4.5

// minLearnTokens is the smallest prompt (estimated) whose
// prompt_eval_count teaches the scale: the chat template's own tokens
// would inflate the ratio of a smaller one.
const minLearnTokens = 200

// Scale returns the model's tokens per EstimateTokens token learned from
// prompt_eval_count, or 0 before the first untruncated answer.
func (o *Ollama) Scale() float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.scale
}

// learn records what an answer tells about the model's tokenizer: an
// untruncated prompt of est estimated tokens took n model tokens; a
// truncated one took more than n, and is budgeted with worstScale until an
// untruncated answer says better.
func (o *Ollama) learn(n, est int, truncated bool) {
	if est <= 0 || n <= 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	r := float64(n) / float64(est)
	switch {
	case truncated:
		o.scale = max(o.scale*1.25, worstScale, r*1.25)
	case est >= minLearnTokens:
		o.scale = r
	}
}

// uncachedTokens returns the estimated tokens of p that Ollama evaluates:
// those after the prefix p shares with the previous request (the rest
// comes from its KV cache), all of them for a truncated prompt (the
// server cut it and evaluated a whole context). It remembers p as the
// previous request.
func (o *Ollama) uncachedTokens(p Prompt, truncated bool) int {
	full := p.System + "\x00" + p.User
	o.mu.Lock()
	prev := o.lastPrompt
	o.lastPrompt = full
	o.mu.Unlock()
	if truncated {
		return p.Tokens
	}
	shared := commonPrefix(prev, full)
	if shared == 0 {
		return p.Tokens
	}
	return max(EstimateTokens(full[shared:]), 1)
}

// commonPrefix returns the length in bytes of the longest common prefix
// of a and b, backed off to a rune boundary.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(b) && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// estimateBudget converts a budget of model tokens into EstimateTokens
// tokens with the learned scale. Before anything is learned it assumes the
// worst tokenizer (worstScale): the requests sent before the first answer
// fit whatever the model, rather than costing a truncated request each.
func (o *Ollama) estimateBudget(budget int) int {
	sc := o.Scale()
	if sc <= 0 {
		sc = worstScale
	}
	return max(int(float64(budget)/sc), 256)
}

// Triage implements Triager: the model's answer, validated, or the
// deterministic triage marked with the reason.
//
// It paces itself with in.Slot: the analysis and prompt are built, and
// the answer decoded and validated, in background turns, and a request
// slot is held only while a request is with the model, so the caller's
// next thread is ready to go the moment an answer is in.
func (o *Ollama) Triage(ctx context.Context, in Input) (*Outcome, error) {
	in.Slot.Release()
	// A cancelled wait goes on: the request fails on ctx right after.
	_ = in.Slot.Background(ctx)
	det, an := o.opts.Analyzer.deterministic(in.Messages, in.Principal, in.Senders)
	if det.Decided != "" && !in.Force && !o.opts.AskAlways {
		// The signals decide this thread on their own: the model's time
		// goes to threads where it adds something.
		det.ModelSkipped = true
		return det, nil
	}
	thread := in.Messages // the whole thread, before MaxMessages trims the prompt's
	fallback := func(err *Error, attempts int) (*Outcome, error) {
		out := det
		out.FallbackReason = err.Msg
		out.Attempts = attempts
		o.log.Warn("triage: deterministic fallback", "reason", err.Msg)
		return out, err
	}
	budget := o.opts.NumCtx - o.opts.ReserveTokens
	if o.opts.TokenBudget > 0 {
		budget = min(budget, o.opts.TokenBudget)
	}
	dropped := 0
	if n := o.opts.MaxMessages; n > 0 && len(in.Messages) > n {
		dropped = len(in.Messages) - n
		in.Messages = in.Messages[dropped:]
	}
	rejection := ""
	attempts := 0
	shrinks := 0
	offContract := 0
	for {
		p := buildPrompt(in, an.signals, o.estimateBudget(budget), o.fence, rejection, dropped)
		attempts++
		resp, err := o.chat(ctx, p, in.Slot)
		if err != nil {
			return fallback(err, attempts)
		}
		// Ollama cuts an over-long prompt from the front, keeping only
		// its first 4 tokens: the system prompt and the fence go first,
		// and the answer still comes with 200. prompt_eval_count is then
		// the context window.
		n := resp.PromptEvalCount
		truncated := n >= o.opts.NumCtx-8
		o.learn(n, o.uncachedTokens(p, truncated), truncated)
		if truncated {
			if shrinks == maxShrinks {
				return fallback(&Error{Kind: ErrTruncated, Msg: fmt.Sprintf("model %s kept truncating the prompt (prompt_eval_count %d for ~%d estimated tokens); raise ollama.num_ctx", o.opts.Model, n, p.Tokens)}, attempts)
			}
			shrinks++
			o.log.Info("triage: prompt truncated by ollama, budgeting with the model's tokenizer", "prompt_eval_count", n, "estimated", p.Tokens, "scale", o.Scale())
			continue
		}
		res, verr := contract.ParseResult([]byte(resp.Message.Content))
		if verr != nil && resp.DoneReason == "length" {
			// A model that rambles is cut at num_predict: its JSON is cut
			// too (a complete object followed by padding parses above).
			verr = fmt.Errorf("the model hit num_predict (%d tokens) before finishing its JSON answer: %w", o.opts.ReserveTokens, verr)
		}
		if verr != nil {
			offContract++
			if offContract == 2 {
				return fallback(&Error{Kind: ErrOffContract, Msg: fmt.Sprintf("model %s answered off-contract twice (%v); using deterministic triage", o.opts.Model, verr), Err: verr}, attempts)
			}
			rejection = verr.Error()
			continue
		}
		out := o.outcome(res, an, det, thread, in.Principal)
		o.opts.Analyzer.learner.apply(out, thread, in.Principal)
		out.PromptTokens = resp.PromptEvalCount
		out.PromptEvalDuration = resp.PromptEvalDuration
		out.Attempts = attempts
		return out, nil
	}
}

// chat sends one non-streaming chat request, retrying 503s with backoff.
// It holds a request slot from just before the request is sent until the
// answer has been read (encoding and decoding run outside it), and
// through the backoff of a 503, so no other request of the caller jumps
// a full queue.
func (o *Ollama) chat(ctx context.Context, p Prompt, slot *Slot) (*api.ChatResponse, *Error) {
	req := &api.ChatRequest{
		Model: o.opts.Model,
		Messages: []api.Message{
			{Role: "system", Content: p.System},
			{Role: "user", Content: p.User},
		},
		Format: o.schema,
		Options: map[string]any{
			"temperature": 0,
			"seed":        o.opts.Seed,
			"num_predict": o.opts.ReserveTokens,
		},
	}
	o.chatOptions().Apply(req)
	body, err := ollama.EncodeChat(req)
	if err != nil {
		return nil, &Error{Kind: ErrProtocol, Msg: fmt.Sprintf("triage: %v", err), Err: err}
	}
	if err := slot.Acquire(ctx); err != nil {
		return nil, &Error{Kind: ErrTimeout, Msg: "triage cancelled", Err: err}
	}
	data, serr := o.send(ctx, body, slot)
	slot.Release()
	_ = slot.Background(ctx)
	if serr != nil {
		return nil, serr
	}
	cr, err := ollama.DecodeChat(data)
	if err != nil {
		return nil, o.classify(ctx, err)
	}
	return cr, nil
}

// chatOptions are the options that keep the model loaded (see
// ollama.ChatOptions): the same for every request of the triager.
func (o *Ollama) chatOptions() ollama.ChatOptions {
	return ollama.ChatOptions{NumCtx: o.opts.NumCtx, KeepAlive: o.opts.KeepAlive}
}

// send posts body to /api/chat, retrying 503s with backoff, and returns
// the answer's bytes.
func (o *Ollama) send(ctx context.Context, body []byte, slot *Slot) ([]byte, *Error) {
	backoff := o.opts.BusyBackoff
	for try := 0; ; try++ {
		got, err := o.post(ctx, body, slot)
		if err == nil {
			return got, nil
		}
		var se api.StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusServiceUnavailable && try < o.opts.BusyRetries {
			o.log.Info("triage: ollama busy, retrying", "backoff", backoff)
			select {
			case <-ctx.Done():
				return nil, &Error{Kind: ErrTimeout, Msg: "triage cancelled", Err: ctx.Err()}
			case <-time.After(backoff):
			}
			backoff *= 2
			continue
		}
		if errors.Is(err, ollama.ErrTimeout) && ctx.Err() == nil {
			return nil, &Error{Kind: ErrTimeout, Msg: fmt.Sprintf("model %s is slow: it did not answer within %s of its turn at the server (raise ollama.timeout, or use a smaller model)", o.opts.Model, o.opts.Timeout), Err: err}
		}
		return nil, o.classify(ctx, err)
	}
}

// post sends one non-streamed chat request and returns the answer's
// bytes, telling slot the moment the request is written.
func (o *Ollama) post(ctx context.Context, body []byte, slot *Slot) ([]byte, error) {
	if slot != nil {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { slot.Sent() }})
	}
	return o.client.ChatBytes(ctx, body)
}

// classify maps a client error to a user-facing *Error.
func (o *Ollama) classify(ctx context.Context, err error) *Error {
	var se api.StatusError
	switch {
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return &Error{Kind: ErrTimeout, Msg: "triage cancelled or timed out: " + ctx.Err().Error(), Err: err}
	case errors.As(err, &se):
		msg := se.ErrorMessage
		switch {
		case se.StatusCode == http.StatusNotFound && strings.Contains(msg, "not found"):
			return o.modelMissing(err)
		case se.StatusCode == http.StatusServiceUnavailable:
			return &Error{Kind: ErrBusy, Msg: fmt.Sprintf("Ollama at %s is busy (%s); lower ollama.parallel or raise OLLAMA_MAX_QUEUE", o.shown, oneLine(msg, 120)), Err: err}
		default:
			return &Error{Kind: ErrServer, Msg: fmt.Sprintf("Ollama at %s failed with %d: %s", o.shown, se.StatusCode, oneLine(msg, 200)), Err: err}
		}
	}
	var ne net.Error
	var ue *url.Error
	if errors.As(err, &ue) || errors.As(err, &ne) {
		return &Error{Kind: ErrUnreachable, Msg: fmt.Sprintf("Ollama not reachable at %s: start it with `ollama serve` (or set ollama.host / OLLAMA_HOST)", o.shown), Err: err}
	}
	return &Error{Kind: ErrProtocol, Msg: fmt.Sprintf("Ollama at %s sent an answer mailsift cannot read (%s); is ollama.host an Ollama server?", o.shown, oneLine(err.Error(), 120)), Err: err}
}

func (o *Ollama) modelMissing(err error) *Error {
	return &Error{Kind: ErrModelMissing, Msg: fmt.Sprintf("model %s not found: run `ollama pull %s`", o.opts.Model, o.opts.Model), Err: err}
}
