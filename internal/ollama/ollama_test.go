package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"mailsift/internal/ollama/ollamatest"
)

// strictServer is an httptest Ollama that is strict about what it is sent
// and answers /api/chat with answer.
func strictServer(t *testing.T, answer http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			if r.Method != http.MethodGet {
				t.Errorf("%s /api/version, want GET", r.Method)
			}
			io.WriteString(w, `{"version":"0.17.4"}`)
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"llama3.2:3b","model":"llama3.2:3b","size":1},{"name":"qwen3:latest","model":"qwen3:latest","size":1}]}`)
		case "/api/chat":
			if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s /api/chat with Content-Type %q, want a JSON POST", r.Method, r.Header.Get("Content-Type"))
			}
			req, err := ollamatest.DecodeChat(r.Body)
			if err != nil {
				t.Errorf("fake ollama: bad request body: %v", err)
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			if req.Stream == nil || *req.Stream {
				t.Errorf("stream = %v, want false", req.Stream)
			}
			answer(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newClient(t *testing.T, srv *httptest.Server, opts *Options) *Client {
	t.Helper()
	c, err := New(srv.URL, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chatRequest() *api.ChatRequest {
	stream := true // Chat must send stream=false whatever it is given
	return &api.ChatRequest{
		Model:     "llama3.2:3b",
		Messages:  []api.Message{{Role: "system", Content: "rules"}, {Role: "user", Content: "mail"}},
		Stream:    &stream,
		Format:    json.RawMessage(`{"type":"object"}`),
		KeepAlive: &api.Duration{Duration: time.Minute},
		Options:   map[string]any{"temperature": 0, "num_ctx": 4096},
	}
}

const goodAnswer = `{"model":"llama3.2:3b","created_at":"2026-11-21T23:00:00Z","message":{"role":"assistant","content":"{\"ok\":true}"},"done":true,"done_reason":"stop","prompt_eval_count":12,"eval_count":3}`

func TestChat(t *testing.T) {
	srv := strictServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, goodAnswer) })
	req := chatRequest()
	resp, err := newClient(t, srv, nil).Chat(context.Background(), req)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if resp.Message.Content != `{"ok":true}` || resp.PromptEvalCount != 12 || !resp.Done {
		t.Errorf("Chat = %+v", resp)
	}
	if !*req.Stream {
		t.Errorf("Chat changed the caller's request")
	}
}

func TestChatErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		max    int64
		check  func(t *testing.T, err error)
	}{
		{name: "model not found", status: 404, body: `{"error":"model \"llama3.2:3b\" not found, try pulling it first"}`,
			check: wantStatus(404, `model "llama3.2:3b" not found, try pulling it first`)},
		{name: "runner killed", status: 500, body: `{"error":"llama runner process has terminated: signal: killed"}`,
			check: wantStatus(500, "llama runner process has terminated: signal: killed")},
		{name: "queue full", status: 503, body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`,
			check: wantStatus(503, "server busy, please try again.  maximum pending requests exceeded")},
		{name: "plain text error", status: 502, body: "bad gateway\n",
			check: wantStatus(502, "bad gateway")},
		{name: "error with success status", status: 200, body: `{"error":"an error was encountered while running the model"}`,
			check: func(t *testing.T, err error) {
				var ae *AnswerError
				if !errors.As(err, &ae) || ae.Message != "an error was encountered while running the model" {
					t.Errorf("err = %#v, want *AnswerError", err)
				}
			}},
		{name: "broken json", status: 200, body: `{"model":"llama3.2:3b","message":{`,
			check: func(t *testing.T, err error) {
				var se *json.SyntaxError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), `decode answer "{\"model\":\"llama3.2:3b\",\"message\":{"`) {
					t.Errorf("err = %v, want a decode error quoting the answer", err)
				}
			}},
		{name: "answer over the bound", status: 200, body: goodAnswer, max: int64(len(goodAnswer)) - 1,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, ErrAnswerTooLarge) {
					t.Errorf("err = %v, want ErrAnswerTooLarge", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := strictServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			})
			resp, err := newClient(t, srv, &Options{MaxAnswerBytes: tt.max}).Chat(context.Background(), chatRequest())
			if err == nil {
				t.Fatalf("Chat = %+v, want an error", resp)
			}
			tt.check(t, err)
		})
	}
}

func wantStatus(code int, msg string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != code || se.ErrorMessage != msg {
			t.Errorf("err = %#v, want api.StatusError %d %q", err, code, msg)
		}
	}
}

// TestAnswerAtTheBound checks that an answer exactly as long as the bound
// is read whole.
func TestAnswerAtTheBound(t *testing.T) {
	srv := strictServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, goodAnswer) })
	c := newClient(t, srv, &Options{MaxAnswerBytes: int64(len(goodAnswer))})
	if _, err := c.Chat(context.Background(), chatRequest()); err != nil {
		t.Fatalf("Chat: %v", err)
	}
}

// TestChatSlowServer checks that a server that never answers is left when
// the caller's context ends, with the context's error.
func TestChatSlowServer(t *testing.T) {
	srv := strictServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := newClient(t, srv, nil).Chat(ctx, chatRequest())
	var ue *url.Error
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a *url.Error wrapping context.DeadlineExceeded", err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, err := New("http://"+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Version(context.Background())
	var ue *url.Error
	if !errors.As(err, &ue) || errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a *url.Error", err)
	}
}

func TestVersionAndModels(t *testing.T) {
	srv := strictServer(t, nil)
	c := newClient(t, srv, nil)
	ctx := context.Background()
	if v, err := c.Version(ctx); err != nil || v != "0.17.4" {
		t.Errorf("Version = %q, %v; want 0.17.4", v, err)
	}
	for _, tt := range []struct {
		model string
		want  bool
	}{{"llama3.2:3b", true}, {"qwen3", true}, {"qwen3:latest", true}, {"llama3.2", false}, {"mistral", false}} {
		if got, err := c.HasModel(ctx, tt.model); err != nil || got != tt.want {
			t.Errorf("HasModel(%q) = %v, %v; want %v", tt.model, got, err, tt.want)
		}
	}
}

func TestVersionErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			io.WriteString(w, "<html>not ollama</html>")
		default:
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"error":"forbidden"}`)
		}
	}))
	defer srv.Close()
	c := newClient(t, srv, nil)
	if _, err := c.Version(context.Background()); err == nil || !strings.Contains(err.Error(), "decode /api/version answer") {
		t.Errorf("Version err = %v, want a decode error", err)
	}
	_, err := c.List(context.Background())
	wantStatus(http.StatusForbidden, "forbidden")(t, err)
}

func TestNewRejectsBadHosts(t *testing.T) {
	for _, h := range []string{"", "not a url", "127.0.0.1:11434", "http://", "/api"} {
		if _, err := New(h, nil); err == nil {
			t.Errorf("New(%q) accepted", h)
		}
	}
}

// fakeClock is a clock for Options.AfterFunc that moves only when the
// test advances it; armed receives one value per timer armed.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
	armed  chan time.Duration
}

type fakeTimer struct {
	at          time.Duration
	f           func()
	done, fired bool
}

func newFakeClock() *fakeClock { return &fakeClock{armed: make(chan time.Duration, 16)} }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	t := &fakeTimer{at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	now := c.now
	c.mu.Unlock()
	c.armed <- now
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		return was
	}
}

// Advance moves the clock by d and runs the timers that fall due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []func()
	for _, t := range c.timers {
		if !t.done && t.at <= c.now {
			t.done, t.fired = true, true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// TestChatTimeoutSkipsServerQueue: Ollama serves one request at a time
// and queues the rest. With two requests sent at once and each answer
// taking 90 s against a 120 s timeout, the second must not fail for the
// 90 s it spent queued; a request that gets no answer within the timeout
// of its turn fails with ErrTimeout.
func TestChatTimeoutSkipsServerQueue(t *testing.T) {
	var one sync.Mutex // the server runs one request at a time
	arrived := make(chan string, 4)
	serving := make(chan string, 4)
	release := make(chan struct{})
	srv := strictServer(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- "x"
		one.Lock()
		defer one.Unlock()
		serving <- "x"
		select {
		case <-release:
			io.WriteString(w, goodAnswer)
		case <-r.Context().Done():
		}
	})
	clock := newFakeClock()
	c := newClient(t, srv, &Options{Timeout: 120 * time.Second, AfterFunc: clock.AfterFunc})
	errs := make(chan error, 3)
	send := func() { _, err := c.Chat(context.Background(), chatRequest()); errs <- err }

	go send() // A
	<-arrived
	<-serving
	if at := <-clock.armed; at != 0 {
		t.Fatalf("first request's timeout armed at %v, want 0", at)
	}
	go send() // B: queued at the server behind A
	<-arrived
	clock.Advance(90 * time.Second)
	release <- struct{}{}
	if err := <-errs; err != nil {
		t.Fatalf("A: %v", err)
	}
	<-serving
	if at := <-clock.armed; at != 90*time.Second {
		t.Errorf("queued request's timeout armed at %v, want 90s (when the request before it was answered)", at)
	}
	clock.Advance(90 * time.Second) // 180 s after B was sent, 90 s into its turn
	release <- struct{}{}
	if err := <-errs; err != nil {
		t.Fatalf("B failed after waiting in the server's queue: %v", err)
	}

	go send() // C: never answered
	<-arrived
	<-serving
	<-clock.armed
	clock.Advance(120 * time.Second)
	err := <-errs
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "2m0s from its turn") {
		t.Fatalf("C: err = %v, want ErrTimeout", err)
	}
}

// TestChatOptionsApply: the options that load a model are set the same
// way on every request, with defaults, whatever else the request holds.
func TestChatOptionsApply(t *testing.T) {
	a := &api.ChatRequest{Options: map[string]any{"temperature": 0, "num_thread": 3}}
	b := &api.ChatRequest{}
	ChatOptions{}.Apply(a)
	ChatOptions{NumCtx: DefaultNumCtx, KeepAlive: DefaultKeepAlive}.Apply(b)
	for _, r := range []*api.ChatRequest{a, b} {
		if r.Options["num_ctx"] != DefaultNumCtx || r.KeepAlive == nil || r.KeepAlive.Duration != DefaultKeepAlive {
			t.Errorf("options %v keep_alive %v, want num_ctx %d keep_alive %v", r.Options, r.KeepAlive, DefaultNumCtx, DefaultKeepAlive)
		}
		if _, ok := r.Options["num_thread"]; ok {
			t.Errorf("num_thread kept: %v", r.Options)
		}
	}
	if a.Options["temperature"] != 0 {
		t.Errorf("temperature dropped: %v", a.Options)
	}
}
