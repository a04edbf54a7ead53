package triage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mailsift/drafts"
	"mailsift/internal/ollama"
	"mailsift/model"
	"mailsift/model/contract"
)

// wireChat mirrors Ollama's /api/chat request body as the server decodes
// it; the fake server rejects any other field.
type wireChat struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Stream    *bool           `json:"stream"`
	Format    json.RawMessage `json:"format"`
	KeepAlive json.RawMessage `json:"keep_alive"`
	Options   map[string]any  `json:"options"`
}

// fakeOllama is an httptest Ollama that is strict about the request and
// answers from a script. Like Ollama v0.17.4 it counts tokens with its
// own tokenizer (fakeTokens: about 4 per token of EstimateTokens), and a
// prompt over num_ctx is cut from the front keeping its first 4 tokens:
// the system prompt and the fence are lost, the model answers prose, and
// prompt_eval_count is num_ctx.
type fakeOllama struct {
	t      testing.TB
	srv    *httptest.Server
	model  string
	numCtx int
	mu     sync.Mutex
	reqs   []wireChat
	calls  atomic.Int32
	// answer returns status, body for call n (0-based).
	answer func(n int, req wireChat) (int, string)
	delay  time.Duration
	// truncated counts the prompts cut for exceeding num_ctx.
	truncated atomic.Int32
	// charsPerToken is the fake tokenizer's ratio (0: one token per
	// character).
	charsPerToken int
	// cache models Ollama's KV cache: prompt_eval_count counts only the
	// tokens after the longest common prefix (system, then user) with the
	// previous request, and prompt_eval_duration is fakeTokenTime per
	// token evaluated.
	cache      bool
	lastPrompt []rune
}

// fakeTokenTime is what evaluating one prompt token costs the fake.
const fakeTokenTime = time.Millisecond

// cachedTokens returns how many tokens of req the fake's KV cache holds
// from the previous request (whole tokens of the shared prefix) and
// remembers req.
func (f *fakeOllama) cachedTokens(req wireChat) int {
	full := []rune(req.Messages[0].Content + "\x00" + req.Messages[1].Content)
	f.mu.Lock()
	prev := f.lastPrompt
	f.lastPrompt = full
	f.mu.Unlock()
	shared := 0
	for shared < len(prev) && shared < len(full) && prev[shared] == full[shared] {
		shared++
	}
	return shared / max(f.charsPerToken, 1)
}

// fakeTemplateTokens is what the fake's chat template adds per message.
const fakeTemplateTokens = 4

// fakeTokens counts a request's prompt tokens as the fake's tokenizer
// does: one per character by default, unlike EstimateTokens (about one
// per four).
func (f *fakeOllama) fakeTokens(req wireChat) int {
	per := max(f.charsPerToken, 1)
	n := 0
	for _, m := range req.Messages {
		n += (len([]rune(m.Content))+per-1)/per + fakeTemplateTokens
	}
	return n
}

// fakeTokens counts with the default fake tokenizer.
func fakeTokens(req wireChat) int { return (&fakeOllama{}).fakeTokens(req) }

func newFakeOllama(t testing.TB, answer func(n int, req wireChat) (int, string)) *fakeOllama {
	f := &fakeOllama{t: t, model: "llama3.2:3b", numCtx: 4096, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOllama) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api/version":
		io.WriteString(w, `{"version":"0.17.4"}`)
		return
	case "/api/tags":
		fmt.Fprintf(w, `{"models":[{"name":%q,"model":%q,"size":1}]}`, f.model, f.model)
		return
	case "/api/chat":
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, `{"error":"method not allowed"}`, http.StatusMethodNotAllowed)
		return
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req wireChat
	if err := dec.Decode(&req); err != nil {
		f.t.Errorf("fake ollama: bad request body: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":%q}`, err.Error())
		return
	}
	f.check(req)
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	n := int(f.calls.Add(1)) - 1
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	status, body := f.answer(n, req)
	if f.charsPerToken > 0 {
		var a map[string]any
		if json.Unmarshal([]byte(body), &a) == nil && a["prompt_eval_count"] != nil {
			a["prompt_eval_count"] = f.fakeTokens(req)
			b, _ := json.Marshal(a)
			body = string(b)
		}
	}
	if f.cache && len(req.Messages) == 2 {
		var a map[string]any
		if json.Unmarshal([]byte(body), &a) == nil && a["prompt_eval_count"] != nil {
			n := f.fakeTokens(req) - f.cachedTokens(req)
			a["prompt_eval_count"] = n
			a["prompt_eval_duration"] = int64(n) * int64(fakeTokenTime)
			b, _ := json.Marshal(a)
			body = string(b)
		}
	}
	if status == http.StatusOK && f.fakeTokens(req) > f.numCtx {
		// "truncating input prompt limit=4096 prompt=4794 keep=4
		// new=4096": the model never sees the instructions.
		f.truncated.Add(1)
		body = chatAnswerDone(req, "Sure! This email is about a contract renewal call.", f.numCtx, "stop")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// check asserts what mailsift must send on every chat request.
func (f *fakeOllama) check(req wireChat) {
	t := f.t
	if req.Model != f.model {
		t.Errorf("model = %q, want %q", req.Model, f.model)
	}
	if req.Stream == nil || *req.Stream {
		t.Errorf("stream = %v, want false", req.Stream)
	}
	var got, want any
	if err := json.Unmarshal(req.Format, &got); err != nil {
		t.Errorf("format is not JSON: %v", err)
	}
	if isDraftRequest(req) {
		// A draft generator's request: its own schema and temperature,
		// the same options that load the model (checked below).
	} else {
		json.Unmarshal(contract.ResultSchema(), &want)
		if !jsonEqual(got, want) {
			t.Errorf("format is not the v1.0 result schema: %s", req.Format)
		}
		if v, ok := req.Options["temperature"].(float64); !ok || v != 0 {
			t.Errorf("options.temperature = %v, want 0", req.Options["temperature"])
		}
		if _, ok := req.Options["seed"].(float64); !ok {
			t.Errorf("options.seed missing")
		}
	}
	if v, ok := req.Options["num_ctx"].(float64); !ok || int(v) != f.numCtx {
		t.Errorf("options.num_ctx = %v, want %d", req.Options["num_ctx"], f.numCtx)
	}
	if len(req.KeepAlive) == 0 {
		t.Errorf("keep_alive missing")
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Errorf("messages: want system + user, got %d", len(req.Messages))
	}
}

// isDraftRequest reports whether req comes from the draft generator.
func isDraftRequest(req wireChat) bool {
	return bytes.Contains(req.Format, []byte("needs_human_approval"))
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func (f *fakeOllama) triager(t testing.TB, mod func(*OllamaOptions)) *Ollama {
	// Every thread goes to the model unless a test says otherwise: the
	// tests of the skip (TestDecidedThreadsSkipTheModel) turn it off.
	opts := OllamaOptions{Host: f.srv.URL, Model: f.model, NumCtx: f.numCtx, Timeout: 2 * time.Second, BusyBackoff: time.Millisecond, ReserveTokens: 512, AskAlways: true}
	if mod != nil {
		mod(&opts)
	}
	o, err := NewOllama(opts)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// chatAnswer renders a successful non-streamed chat answer; promptEval
// -1 is the fake tokenizer's count of the prompt it answers.
func chatAnswer(req wireChat, content string, promptEval int) string {
	return chatAnswerDone(req, content, promptEval, "stop")
}

// chatAnswerDone is chatAnswer with a done_reason ("stop", or "length"
// when the model hit num_predict).
func chatAnswerDone(req wireChat, content string, promptEval int, reason string) string {
	if promptEval < 0 {
		promptEval = fakeTokens(req)
	}
	b, _ := json.Marshal(map[string]any{
		"model": req.Model, "created_at": "2026-11-21T23:00:00Z",
		"message": map[string]any{"role": "assistant", "content": content},
		"done":    true, "done_reason": reason, "prompt_eval_count": promptEval, "eval_count": 42,
	})
	return string(b)
}

const goodResult = `{"category":"actionable","is_spam":false,"is_phishing":false,"summary":"Bob asks for a renewal call.","action_items":[{"description":"Confirm the call","due_hint":"Thursday"}],"draft":null}`

func testInput() Input {
	return Input{
		Principal: model.Address{Name: "Alice", Email: "alice@example.com"},
		Messages: []*model.Message{{
			MessageID: "m1", From: model.Address{Name: "Bob", Email: "bob@example.org"},
			To: []model.Address{{Email: "alice@example.com"}}, Subject: "Contract renewal",
			Text: "Can we hop on a call about the renewal?", Date: time.Date(2026, 5, 30, 9, 0, 0, 0, time.UTC),
		}},
		Examples: []Example{{Subject: "Weekly digest", From: "news@example.net", Category: "low priority"}},
	}
}

func TestOllamaSuccess(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	o := f.triager(t, nil)
	out, err := o.Triage(context.Background(), testInput())
	if err != nil {
		t.Fatalf("Triage: %v", err)
	}
	if out.Source != SourceOllama || out.Model != "llama3.2:3b" || out.Attempts != 1 || out.FallbackReason != "" {
		t.Errorf("outcome = source %q model %q attempts %d fallback %q", out.Source, out.Model, out.Attempts, out.FallbackReason)
	}
	if out.Result.Category != "actionable" || len(out.Result.ActionItems) != 1 || *out.Result.ActionItems[0].DueHint != "Thursday" {
		t.Errorf("result = %+v", out.Result)
	}
	sys, user := f.reqs[0].Messages[0].Content, f.reqs[0].Messages[1].Content
	for _, want := range []string{"low priority", "alice@example.com", "never an instruction", "moved to other categories"} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	// The user's examples are mail text: given in the notes block, never
	// in the system prompt.
	if !strings.Contains(user, `"Weekly digest"`) || strings.Contains(sys, "Weekly digest") {
		t.Errorf("example subject not in the user prompt only:\nsystem: %s\nuser: %s", sys, user)
	}
	if got := o.CacheKey(); got != "v1.0|ollama:llama3.2:3b|p"+PromptVersion {
		t.Errorf("CacheKey = %q", got)
	}
}

func TestOllamaErrors(t *testing.T) {
	tests := []struct {
		name      string
		answer    func(n int, req wireChat) (int, string)
		delay     time.Duration
		kind      ErrorKind
		calls     int32
		msg       string
		offline   bool
		succeeded bool
	}{
		{name: "model not found", answer: func(int, wireChat) (int, string) {
			return 404, `{"error":"model \"llama3.2:3b\" not found, try pulling it first"}`
		}, kind: ErrModelMissing, calls: 1, msg: "model llama3.2:3b not found: run `ollama pull llama3.2:3b`", offline: true},
		{name: "server error", answer: func(int, wireChat) (int, string) {
			return 500, `{"error":"llama runner process has terminated: signal: killed"}`
		}, kind: ErrServer, calls: 1, msg: "failed with 500: llama runner process has terminated"},
		{name: "queue full then ok", answer: func(n int, req wireChat) (int, string) {
			if n < 2 {
				return 503, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`
			}
			return 200, chatAnswer(req, goodResult, -1)
		}, calls: 3, succeeded: true},
		{name: "queue stays full", answer: func(int, wireChat) (int, string) {
			return 503, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`
		}, kind: ErrBusy, calls: 4, msg: "is busy"},
		{name: "slow", answer: func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) },
			delay: 5 * time.Second, kind: ErrTimeout, calls: 1, msg: "did not answer within 1s"},
		{name: "broken http json", answer: func(int, wireChat) (int, string) { return 200, `{"model":"llama3.2:3b","message":{` },
			kind: ErrProtocol, calls: 1, msg: "cannot read"},
		{name: "broken model json twice", answer: func(n int, req wireChat) (int, string) {
			return 200, chatAnswer(req, `{"category":"urgent","is_spam":fa`, -1)
		}, kind: ErrOffContract, calls: 2, msg: "off-contract twice"},
		{name: "off-contract twice", answer: func(n int, req wireChat) (int, string) {
			return 200, chatAnswer(req, `{"category":"spam","is_spam":true,"is_phishing":false,"summary":"x","action_items":[],"draft":null}`, -1)
		}, kind: ErrOffContract, calls: 2, msg: "result.category"},
		{name: "off-contract then ok", answer: func(n int, req wireChat) (int, string) {
			if n == 0 {
				return 200, chatAnswer(req, `{"category":"actionable","is_spam":false,"is_phishing":false,"summary":"x","action_items":[],"draft":null,"priority":9}`, -1)
			}
			if !strings.Contains(req.Messages[0].Content, "previous answer was rejected") || !strings.Contains(req.Messages[1].Content, "priority") {
				return 500, `{"error":"retry lacks the validation error"}`
			}
			return 200, chatAnswer(req, goodResult, -1)
		}, calls: 2, succeeded: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeOllama(t, tt.answer)
			f.delay = tt.delay
			// A second: long enough that a fake answering at once is never
			// timed out on a loaded machine (-race, packages in parallel).
			o := f.triager(t, func(op *OllamaOptions) { op.Timeout = time.Second; op.BusyRetries = 3 })
			start := time.Now()
			out, err := o.Triage(context.Background(), testInput())
			if el := time.Since(start); el > 4*time.Second {
				t.Errorf("Triage blocked for %v", el)
			}
			if got := f.calls.Load(); got != tt.calls {
				t.Errorf("chat calls = %d, want %d", got, tt.calls)
			}
			if out == nil {
				t.Fatal("nil outcome")
			}
			if _, perr := contract.ParseResult(mustJSON(t, out.Result)); perr != nil {
				t.Errorf("outcome off-contract: %v", perr)
			}
			if tt.succeeded {
				if err != nil || out.Source != SourceOllama {
					t.Fatalf("err = %v, source %q; want model answer", err, out.Source)
				}
				return
			}
			var e *Error
			if !asError(err, &e) || e.Kind != tt.kind {
				t.Fatalf("err = %#v, want kind %d", err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q lacks %q", err.Error(), tt.msg)
			}
			if IsSlow(err) != (tt.kind == ErrTimeout) {
				t.Errorf("IsSlow = %v for kind %d; a timeout says the model is slow", IsSlow(err), tt.kind)
			}
			if IsOffline(err) != tt.offline {
				t.Errorf("IsOffline = %v, want %v", IsOffline(err), tt.offline)
			}
			if out.Source != SourceDeterministic || out.FallbackReason != err.Error() {
				t.Errorf("fallback not marked: source %q reason %q", out.Source, out.FallbackReason)
			}
		})
	}
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}

func TestOllamaUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	o, err := NewOllama(OllamaOptions{Host: "http://" + addr, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out, err := o.Triage(context.Background(), testInput())
	want := "Ollama not reachable at http://" + addr + ": start it with `ollama serve`"
	if err == nil || !strings.Contains(err.Error(), want) || !IsOffline(err) {
		t.Fatalf("err = %v, want %q (offline)", err, want)
	}
	if out.Source != SourceDeterministic {
		t.Errorf("source = %q", out.Source)
	}
	if perr := o.Probe(context.Background()); !IsOffline(perr) {
		t.Errorf("Probe = %v, want offline", perr)
	}
}

func TestOllamaMaxMessages(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	o := f.triager(t, func(op *OllamaOptions) { op.MaxMessages = 1 })
	in := testInput()
	in.Messages = append([]*model.Message{{MessageID: "m0", From: model.Address{Email: "bob@example.org"}, Subject: "Old", Text: "The very first message."}}, in.Messages...)
	if _, err := o.Triage(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	u := f.reqs[0].Messages[1].Content
	if strings.Contains(u, "The very first message.") || !strings.Contains(u, "[1 earlier message(s) omitted") || !strings.Contains(u, "hop on a call") {
		t.Errorf("max_thread_messages not applied:\n%s", u)
	}
}

// longThread is testInput with an old long message before the new short
// one: too long for the fake's num_ctx unless budgeted with its tokenizer.
func longThread() Input {
	in := testInput()
	in.Messages = append([]*model.Message{{
		MessageID: "m0", From: model.Address{Email: "bob@example.org"}, Subject: "Contract renewal",
		Text: strings.Repeat("Background on the renewal terms and history. ", 300),
	}}, in.Messages...)
	return in
}

// TestOllamaLearnsTokenizer: the fake's tokenizer counts about two
// tokens per token of EstimateTokens. The first answer's
// prompt_eval_count teaches mailsift that ratio, and a long thread after
// it is budgeted with it: one request that fills the budget (not the
// worst tokenizer's smaller one) and is never cut by the server.
func TestOllamaLearnsTokenizer(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	f.numCtx = 8192
	f.charsPerToken = 2
	o := f.triager(t, nil)
	if _, err := o.Triage(context.Background(), testInput()); err != nil {
		t.Fatal(err)
	}
	est := EstimateTokens(f.reqs[0].Messages[0].Content) + EstimateTokens(f.reqs[0].Messages[1].Content)
	want := float64(f.fakeTokens(f.reqs[0])) / float64(est)
	if got := o.Scale(); got != want || got < 1.5 || got > 2.5 {
		t.Fatalf("Scale() = %v, want %v (prompt_eval_count / estimate)", got, want)
	}
	out, err := o.Triage(context.Background(), longThread())
	if err != nil {
		t.Fatalf("Triage: %v", err)
	}
	if out.Attempts != 1 || f.calls.Load() != 2 || f.truncated.Load() != 0 {
		t.Fatalf("attempts %d, calls %d, truncated %d; want the long thread in one request that fits", out.Attempts, f.calls.Load(), f.truncated.Load())
	}
	budget := f.numCtx - 512
	if got := f.fakeTokens(f.reqs[1]); got > budget || got < budget*3/4 {
		t.Errorf("prompt of %d tokens, want at most the budget of %d and most of it", got, budget)
	}
	u := f.reqs[1].Messages[1].Content
	if !strings.Contains(u, "Can we hop on a call about the renewal?") || !strings.Contains(u, "trimmed") {
		t.Errorf("newest message not kept whole, or the old one not trimmed with a marker:\n%s", u)
	}
}

// TestOllamaFirstRequestFitsAnyTokenizer: before any answer, a long
// thread is budgeted for the worst tokenizer, so even the first request
// is not cut.
func TestOllamaFirstRequestFitsAnyTokenizer(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	f.numCtx = 8192
	o := f.triager(t, nil)
	out, err := o.Triage(context.Background(), longThread())
	if err != nil || out.Attempts != 1 || f.truncated.Load() != 0 || out.Source != SourceOllama {
		t.Fatalf("err %v, attempts %d, truncated %d; want one request that fits", err, out.Attempts, f.truncated.Load())
	}
}

// TestOllamaTruncatedPromptRefits: a scale learned too low (a KV-cache
// hit makes prompt_eval_count small) lets a prompt exceed num_ctx; the
// server cuts it from the front and answers prose with prompt_eval_count
// = num_ctx. The retry is budgeted for the worst tokenizer and fits, and
// its answer teaches the right scale.
func TestOllamaTruncatedPromptRefits(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	f.numCtx = 8192
	o := f.triager(t, nil)
	o.scale = 1
	out, err := o.Triage(context.Background(), longThread())
	if err != nil {
		t.Fatalf("Triage: %v", err)
	}
	if out.Attempts != 2 || f.calls.Load() != 2 || f.truncated.Load() != 1 {
		t.Fatalf("attempts %d, calls %d, truncated %d; want one cut request and a retry that fits", out.Attempts, f.calls.Load(), f.truncated.Load())
	}
	if sc := o.Scale(); sc < 3 {
		t.Errorf("Scale() = %v after an untruncated answer, want the fake's ~4", sc)
	}
}

func TestOllamaTruncatedAlwaysFallsBack(t *testing.T) {
	f := newFakeOllama(t, func(n int, req wireChat) (int, string) { return 200, chatAnswer(req, goodResult, -1) })
	f.numCtx = 1024 // smaller than the system prompt in the fake's tokens
	o := f.triager(t, nil)
	out, err := o.Triage(context.Background(), testInput())
	var e *Error
	if !asError(err, &e) || e.Kind != ErrTruncated || !strings.Contains(e.Msg, "num_ctx") {
		t.Fatalf("err = %v, want truncation error", err)
	}
	if f.calls.Load() != 1+maxShrinks || out.Source != SourceDeterministic {
		t.Errorf("calls = %d source %q", f.calls.Load(), out.Source)
	}
}

// TestOllamaNumPredict: a model that rambles until num_predict answers
// done_reason "length". Complete JSON followed by padding is accepted;
// cut JSON is retried once and then named as the cause.
func TestOllamaNumPredict(t *testing.T) {
	t.Run("complete json then whitespace", func(t *testing.T) {
		f := newFakeOllama(t, func(n int, req wireChat) (int, string) {
			return 200, chatAnswerDone(req, goodResult+strings.Repeat("\n \t", 200), -1, "length")
		})
		out, err := f.triager(t, nil).Triage(context.Background(), testInput())
		if err != nil || out.Source != SourceOllama || out.Attempts != 1 {
			t.Fatalf("err %v source %q attempts %d; want the answer accepted", err, out.Source, out.Attempts)
		}
	})
	t.Run("cut json", func(t *testing.T) {
		f := newFakeOllama(t, func(n int, req wireChat) (int, string) {
			return 200, chatAnswerDone(req, goodResult[:60], -1, "length")
		})
		out, err := f.triager(t, nil).Triage(context.Background(), testInput())
		var e *Error
		if !asError(err, &e) || e.Kind != ErrOffContract || !strings.Contains(e.Msg, "the model hit num_predict (512 tokens)") {
			t.Fatalf("err = %v, want the cause named", err)
		}
		if f.calls.Load() != 2 || out.Source != SourceDeterministic {
			t.Errorf("calls %d source %q", f.calls.Load(), out.Source)
		}
		if !strings.Contains(f.reqs[1].Messages[1].Content, "num_predict") {
			t.Errorf("retry does not say why the answer was rejected")
		}
	})
}

// TestOllamaSameOptionsAsDrafts: a request that differs in num_ctx or
// num_thread makes Ollama reload the model. Triage and drafts send the
// same load options and keep_alive, configured or default.
func TestOllamaSameOptionsAsDrafts(t *testing.T) {
	reply := `{"body":"Thursday works.","risk_flags":[],"cited_message_ids":[],"needs_human_approval":true}`
	for _, numCtx := range []int{4096, 0} {
		t.Run(fmt.Sprint("num_ctx ", numCtx), func(t *testing.T) {
			f := newFakeOllama(t, func(n int, req wireChat) (int, string) {
				if isDraftRequest(req) {
					return 200, chatAnswer(req, reply, -1)
				}
				return 200, chatAnswer(req, goodResult, -1)
			})
			if numCtx == 0 {
				f.numCtx = ollama.DefaultNumCtx
			}
			o := f.triager(t, func(op *OllamaOptions) { op.NumCtx = numCtx })
			if _, err := o.Triage(context.Background(), testInput()); err != nil {
				t.Fatal(err)
			}
			g, err := drafts.NewOllama(f.srv.URL, f.model, numCtx, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := testInput()
			if _, err := g.GenerateReply(context.Background(), drafts.GenerateRequest{Thread: &model.Thread{Messages: in.Messages}, Principal: in.Principal}); err != nil {
				t.Fatal(err)
			}
			if len(f.reqs) != 2 || !isDraftRequest(f.reqs[1]) {
				t.Fatalf("requests: %d, want a triage and a draft", len(f.reqs))
			}
			load := func(r wireChat) string {
				return fmt.Sprintf("num_ctx=%v num_thread=%v keep_alive=%s", r.Options["num_ctx"], r.Options["num_thread"], r.KeepAlive)
			}
			if a, b := load(f.reqs[0]), load(f.reqs[1]); a != b {
				t.Errorf("triage sends %s, drafts %s: the server reloads the model between them", a, b)
			}
		})
	}
}
