// Package ollama is mailsift's one client for a local Ollama server, shared
// by triage and drafts. Requests and answers are the types of
// github.com/ollama/ollama/api, so field names match the real API; errors
// keep that package's shapes (api.StatusError for an error status) so
// callers can classify them.
//
// The transport is our own rather than api.Client because api.Client cannot
// bound an answer: its non-streamed calls read the whole body with
// io.ReadAll, and Chat scans the stream with an 8 MB line buffer allocated
// per call (api/client.go maxBufferSize), which cost more CPU and garbage
// than the rest of a triage. api.Client also signs requests with a key from
// the user's home directory when OLLAMA_AUTH is set, which a client of a
// local server does not want. Here every answer is read up to
// Options.MaxAnswerBytes and a larger one is an error (ErrAnswerTooLarge),
// never a silently cut body.
package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// DefaultMaxAnswerBytes is the default bound on one answer's body.
const DefaultMaxAnswerBytes = 16 << 20

// DefaultNumCtx is the context window every request asks for when the
// caller configures none.
const DefaultNumCtx = 8192

// DefaultKeepAlive is how long the server keeps the model loaded after a
// request when the caller configures nothing else.
const DefaultKeepAlive = 10 * time.Minute

// ErrTimeout is returned (wrapped) when a chat request has no answer
// within Options.Timeout of its turn at the server (see Options.Timeout).
var ErrTimeout = errors.New("ollama: no answer within the timeout")

// ErrAnswerTooLarge is returned (wrapped) when an answer's body exceeds
// Options.MaxAnswerBytes.
var ErrAnswerTooLarge = errors.New("ollama: answer too large")

// Options configure a Client; nil or zero values mean defaults.
type Options struct {
	// HTTPClient sends the requests (default: a client without timeout
	// that keeps up to 64 idle connections to the server, one per
	// parallel request). Bound each call's time with its context.
	HTTPClient *http.Client
	// MaxAnswerBytes bounds how much of one answer is read (default
	// DefaultMaxAnswerBytes).
	MaxAnswerBytes int64
	// Timeout bounds a chat request from its turn at the server, not from
	// when it was sent (0: no bound but the context's). Ollama serves one
	// request at a time unless OLLAMA_NUM_PARALLEL says otherwise and
	// queues the rest, so a request sent while others of this client are
	// still unanswered waits in that queue; its clock starts only when
	// every chat request sent before it has its answer. A slow model thus
	// fails a request only when it takes Timeout for one answer, however
	// many requests are queued.
	Timeout time.Duration
	// AfterFunc arms the timeout (default time.AfterFunc, returning the
	// timer's Stop); tests inject a fake clock.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
}

// Client talks to one Ollama server. It is safe for concurrent use.
type Client struct {
	base      *url.URL
	http      *http.Client
	max       int64
	timeout   time.Duration
	afterFunc func(time.Duration, func()) func() bool

	mu      sync.Mutex
	pending []chan struct{} // one per unanswered chat request, in send order; closed when answered
}

// New returns a client for the server at base, a URL with a scheme and a
// host such as http://127.0.0.1:11434. It does not contact the server.
func New(base string, opts *Options) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("ollama: host %q is not a URL like http://127.0.0.1:11434", base)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64 // the default keeps 2
		o.HTTPClient = &http.Client{Transport: tr}
	}
	if o.MaxAnswerBytes <= 0 {
		o.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	return &Client{base: u, http: o.HTTPClient, max: o.MaxAnswerBytes, timeout: o.Timeout, afterFunc: o.AfterFunc}, nil
}

// ChatOptions are the options that make Ollama load a model: a request to
// the same model that differs in any of them (num_ctx, num_thread) makes
// the server reload it, and keep_alive decides how long it stays loaded.
// Every request mailsift sends to a model — triage and drafts — carries
// the same ChatOptions through Apply, so the model stays loaded.
type ChatOptions struct {
	// NumCtx is the context window (default DefaultNumCtx).
	NumCtx int
	// KeepAlive keeps the model loaded between requests (default
	// DefaultKeepAlive).
	KeepAlive time.Duration
}

// Normalized returns o with defaults filled in.
func (o ChatOptions) Normalized() ChatOptions {
	if o.NumCtx <= 0 {
		o.NumCtx = DefaultNumCtx
	}
	if o.KeepAlive <= 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	return o
}

// Apply sets req's num_ctx and keep_alive from o (defaults filled in);
// other options of req (temperature, seed, num_predict, which do not
// reload the model) are left as they are. num_thread is never set: the
// server's choice is the same for every request.
func (o ChatOptions) Apply(req *api.ChatRequest) {
	o = o.Normalized()
	if req.Options == nil {
		req.Options = map[string]any{}
	}
	req.Options["num_ctx"] = o.NumCtx
	delete(req.Options, "num_thread")
	req.KeepAlive = &api.Duration{Duration: o.KeepAlive}
}

// Version returns the server's version (GET /api/version).
func (c *Client) Version(ctx context.Context) (string, error) {
	var v struct {
		Version string `json:"version"`
	}
	if err := c.getJSON(ctx, "/api/version", &v); err != nil {
		return "", err
	}
	return v.Version, nil
}

// List returns the models pulled on the server (GET /api/tags).
func (c *Client) List(ctx context.Context) (*api.ListResponse, error) {
	var lr api.ListResponse
	if err := c.getJSON(ctx, "/api/tags", &lr); err != nil {
		return nil, err
	}
	return &lr, nil
}

// HasModel reports whether model is pulled on the server. A name without
// a tag matches "name:latest".
func (c *Client) HasModel(ctx context.Context, model string) (bool, error) {
	lr, err := c.List(ctx)
	if err != nil {
		return false, err
	}
	want := model
	if !strings.Contains(want, ":") {
		want += ":latest"
	}
	for _, m := range lr.Models {
		for _, n := range []string{m.Name, m.Model} {
			if n == want || n == model {
				return true, nil
			}
		}
	}
	return false, nil
}

// Chat sends one non-streamed chat request (req.Stream is ignored) and
// returns the decoded answer.
func (c *Client) Chat(ctx context.Context, req *api.ChatRequest) (*api.ChatResponse, error) {
	body, err := EncodeChat(req)
	if err != nil {
		return nil, err
	}
	data, err := c.ChatBytes(ctx, body)
	if err != nil {
		return nil, err
	}
	return DecodeChat(data)
}

// EncodeChat encodes req as the body of a non-streamed chat request.
// Callers that pace their requests encode before taking a turn.
func EncodeChat(req *api.ChatRequest) ([]byte, error) {
	r := *req
	stream := false
	r.Stream = &stream
	b, err := json.Marshal(&r)
	if err != nil {
		return nil, fmt.Errorf("ollama: encode chat request: %w", err)
	}
	return b, nil
}

// ChatBytes posts an encoded non-streamed chat request (see EncodeChat) to
// /api/chat and returns the answer's bytes, undecoded (see DecodeChat).
// An error status is an api.StatusError carrying Ollama's "error" message
// (or the body, if it is not Ollama's JSON); a success status whose body
// is an error object is an error with that message. A trace in ctx
// (net/http/httptrace) sees the request.
//
// With Options.Timeout, the request fails with ErrTimeout when it has no
// answer within Timeout of its turn (see Options.Timeout).
func (c *Client) ChatBytes(ctx context.Context, body []byte) ([]byte, error) {
	if c.timeout <= 0 {
		return c.do(ctx, http.MethodPost, "/api/chat", body)
	}
	mine := make(chan struct{})
	c.mu.Lock()
	before := append([]chan struct{}(nil), c.pending...)
	c.pending = append(c.pending, mine)
	c.mu.Unlock()
	defer c.answered(mine)

	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go c.armAfter(cctx, before, func() {
		cancel(fmt.Errorf("%w (%s from its turn at the server)", ErrTimeout, c.timeout))
	})
	data, err := c.do(cctx, http.MethodPost, "/api/chat", body)
	if err != nil && ctx.Err() == nil {
		if cause := context.Cause(cctx); errors.Is(cause, ErrTimeout) {
			return nil, cause
		}
	}
	return data, err
}

// armAfter waits until every request in before is answered, then arms the
// timeout f; it ends when ctx does (the request was answered or given up).
func (c *Client) armAfter(ctx context.Context, before []chan struct{}, f func()) {
	for _, ch := range before {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
	stop := c.afterFunc(c.timeout, f)
	<-ctx.Done()
	stop()
}

// answered removes ch from the pending requests and closes it, starting
// the clock of the requests queued behind it.
func (c *Client) answered(ch chan struct{}) {
	c.mu.Lock()
	for i, p := range c.pending {
		if p == ch {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
	close(ch)
}

// DecodeChat decodes the answer of a non-streamed chat request; the error
// quotes the start of an answer that is not Ollama's JSON.
func DecodeChat(data []byte) (*api.ChatResponse, error) {
	var cr api.ChatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return nil, fmt.Errorf("ollama: decode answer %q: %w", head(data, 80), err)
	}
	return &cr, nil
}

// getJSON gets path and decodes the answer into v.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	data, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("ollama: decode %s answer %q: %w", path, head(data, 80), err)
	}
	return nil
}

// do sends one request and returns the answer's body, read up to the
// bound. Transport errors are returned as the HTTP client gives them
// (*url.Error), so callers can tell an unreachable server and a cancelled
// context apart.
func (c *Client) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.JoinPath(path).String(), rd)
	if err != nil {
		return nil, fmt.Errorf("ollama: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > c.max {
		return nil, fmt.Errorf("%w: %s %s answered more than %d bytes", ErrAnswerTooLarge, method, path, c.max)
	}
	var e struct {
		Error string `json:"error"`
	}
	if resp.StatusCode >= http.StatusBadRequest {
		se := api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(bytes.TrimSpace(data))}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			se.ErrorMessage = e.Error
		}
		return nil, se
	}
	if bytes.Contains(data, []byte(`"error"`)) && json.Unmarshal(data, &e) == nil && e.Error != "" {
		return nil, fmt.Errorf("ollama: %s: %w", path, &AnswerError{Message: e.Error})
	}
	return data, nil
}

// AnswerError is an error object that Ollama sent with a success status
// (e.g. a failure after the answer had started).
type AnswerError struct {
	// Message is Ollama's "error" field.
	Message string
}

// Error returns Ollama's message.
func (e *AnswerError) Error() string { return e.Message }

// head returns up to n runes of b as one line, for error messages.
func head(b []byte, n int) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
