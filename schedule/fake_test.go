package schedule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"mailsift/internal/ollama/ollamatest"
)

// fakeOllama is a strict httptest Ollama: it checks every request as
// mailsift must send it (model, no streaming, the output schema as
// format, temperature 0, triage's num_ctx and keep_alive, a system and a
// user message with both contract objects fenced) and answers from a
// script keyed by the attendee the request is about.
type fakeOllama struct {
	t      testing.TB
	srv    *httptest.Server
	model  string
	numCtx int
	mu     sync.Mutex
	reqs   []ollamatest.ChatRequest
	// answer returns the content for the attendee's request.
	answer func(attendee string) string
}

func newFake(t testing.TB, answer func(attendee string) string) *fakeOllama {
	f := &fakeOllama{t: t, model: "llama3.2:3b", numCtx: 4096, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOllama) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	req, err := ollamatest.DecodeChat(r.Body)
	if err != nil {
		f.t.Errorf("fake ollama: bad request body: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	attendee := f.check(req)
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	b, _ := json.Marshal(map[string]any{
		"model": req.Model, "created_at": "2026-11-24T10:00:00Z",
		"message": map[string]any{"role": "assistant", "content": f.answer(attendee)},
		"done":    true, "done_reason": "stop", "prompt_eval_count": 100, "eval_count": 42,
	})
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, string(b))
}

// check asserts what every request must carry and returns the attendee
// the request is about.
func (f *fakeOllama) check(req ollamatest.ChatRequest) string {
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
	_ = json.Unmarshal(OutputSchema(), &want)
	if a, b := mustJSON(got), mustJSON(want); !bytes.Equal(a, b) {
		t.Errorf("format is not the contract's output schema: %s", req.Format)
	}
	if v, ok := req.Options["temperature"].(float64); !ok || v != 0 {
		t.Errorf("options.temperature = %v, want 0", req.Options["temperature"])
	}
	if v, ok := req.Options["num_ctx"].(float64); !ok || int(v) != f.numCtx {
		t.Errorf("options.num_ctx = %v, want %d", req.Options["num_ctx"], f.numCtx)
	}
	var ka string
	if json.Unmarshal(req.KeepAlive, &ka) != nil || ka != "10m0s" {
		t.Errorf("keep_alive = %s, want triage's 10m0s", req.KeepAlive)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
		t.Fatalf("messages: want system + user, got %d", len(req.Messages))
	}
	user := req.Messages[1].Content
	if !strings.HasPrefix(user, "BEGIN UNTRUSTED-MAIL-") || !strings.Contains(user, "<scheduling_operation>") || !strings.Contains(user, "<coordination>") {
		t.Errorf("user prompt lacks the fenced contract objects:\n%s", user)
	}
	// The mail stays inside the fence: the system prompt quotes none.
	if strings.Contains(req.Messages[0].Content, "conv_history\":") {
		t.Errorf("system prompt holds input data")
	}
	i := strings.Index(user, "<coordination>")
	var co Coordination
	body := user[i+len("<coordination>"):]
	body = body[:strings.Index(body, "</coordination>")]
	if err := json.Unmarshal([]byte(body), &co); err != nil {
		t.Errorf("coordination is not JSON: %v", err)
	}
	return co.AttendeeEmail
}

func (f *fakeOllama) model_() *Model {
	m, err := NewModel(ModelOptions{Host: f.srv.URL, Model: f.model, NumCtx: f.numCtx, Timeout: 5 * time.Second})
	if err != nil {
		f.t.Fatal(err)
	}
	return m
}

func (f *fakeOllama) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// answerJSON renders a model answer.
func answerJSON(score int, eng, typ, sub, meta string, follow string) string {
	fd := "null"
	if follow != "" {
		fd = fmt.Sprintf("%q", follow)
	}
	return fmt.Sprintf(`{"attendee_analysis":{"score":%d,"reason":"r","engagement":%q,"next_action":{"type":%q,"subtype":%q,"metadata":%s},"suggested_alternative_times":[]},`+
		`"event_analysis":{"score":%d,"reason":"e","next_action":{"type":"Coordination in progress","subtype":"collecting_responses","metadata":{}}},"follow_up_date":%s}`,
		score, eng, typ, sub, meta, score, fd)
}
