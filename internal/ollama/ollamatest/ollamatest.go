// Package ollamatest is a strict fake Ollama server for tests: it decodes
// /api/embed and /api/chat requests as the real server's JSON types do,
// rejects fields the real API does not have, answers a model it does not
// know with the real 404 shape ({"error":"model 'x' not found"}) and
// records what it was sent, so tests can assert batch sizes and options.
//
// Embeddings are deterministic: each word of a text (lower-cased, letters
// and digits) adds to a few hashed dimensions, and the vector is
// normalised, so texts sharing words are close and the fake needs no model.
// Synonyms map a word to another before hashing, so a test can make
// "invoice" and "bill" mean the same thing to the fake while FTS5 sees two
// different words.
package ollamatest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// Dim is the default length of the fake's embedding vectors.
const Dim = 64

// EmbedCall is one /api/embed request the fake received.
type EmbedCall struct {
	Model     string
	Inputs    []string
	KeepAlive json.RawMessage
	Options   map[string]any
}

// ChatCall is one /api/chat request the fake received.
type ChatCall struct {
	Model     string
	System    string
	User      string
	Format    json.RawMessage
	KeepAlive json.RawMessage
	Options   map[string]any
}

// Server is the fake. Set its fields before the first request.
type Server struct {
	*httptest.Server

	// EmbedModels are the embedding models the fake knows.
	EmbedModels []string
	// ChatModels are the chat models the fake knows.
	ChatModels []string
	// Synonyms maps a word to the word it embeds as.
	Synonyms map[string]string
	// Dims is the length of the vectors (0: Dim); real models have
	// hundreds (nomic-embed-text: 768).
	Dims int
	// Chat answers a /api/chat request with the assistant's content; nil
	// answers "{}".
	Chat func(call ChatCall) string
	// EmbedHook, when set, runs before an /api/embed answer; a non-nil
	// error fails the request with status 500 and its message (a model
	// that crashed).
	EmbedHook func(call EmbedCall) error

	t  testing.TB
	mu sync.Mutex
	// embeds and chats are the requests received, in order.
	embeds []EmbedCall
	chats  []ChatCall
}

// New starts a fake that knows the given embedding and chat models; it is
// closed when the test ends.
func New(t testing.TB, embedModels, chatModels []string) *Server {
	t.Helper()
	s := &Server{EmbedModels: embedModels, ChatModels: chatModels, t: t}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// EmbedCalls returns the /api/embed requests received so far.
func (s *Server) EmbedCalls() []EmbedCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbedCall(nil), s.embeds...)
}

// ChatCalls returns the /api/chat requests received so far.
func (s *Server) ChatCalls() []ChatCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatCall(nil), s.chats...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/version":
		io.WriteString(w, `{"version":"0.17.4"}`)
	case "/api/tags":
		var models []map[string]any
		for _, m := range append(append([]string(nil), s.ChatModels...), s.EmbedModels...) {
			models = append(models, map[string]any{"name": m, "model": m, "size": 1})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": models})
	case "/api/embed":
		s.embed(w, r)
	case "/api/chat":
		s.chat(w, r)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "404 page not found")
	}
}

// fail answers with Ollama's error shape.
func fail(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		s.t.Errorf("ollamatest: %s /api/embed with Content-Type %q, want a JSON POST", r.Method, r.Header.Get("Content-Type"))
	}
	// The fields of api.EmbedRequest as the server decodes them.
	var req struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		KeepAlive  json.RawMessage `json:"keep_alive"`
		Truncate   *bool           `json:"truncate"`
		Dimensions int             `json:"dimensions"`
		Options    map[string]any  `json:"options"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.t.Errorf("ollamatest: bad /api/embed body: %v", err)
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	var inputs []string
	var one string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		if err := json.Unmarshal(req.Input, &one); err != nil {
			fail(w, http.StatusBadRequest, "invalid input type")
			return
		}
		inputs = []string{one}
	}
	if !contains(s.EmbedModels, req.Model) {
		fail(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	call := EmbedCall{Model: req.Model, Inputs: inputs, KeepAlive: req.KeepAlive, Options: req.Options}
	s.mu.Lock()
	s.embeds = append(s.embeds, call)
	s.mu.Unlock()
	if s.EmbedHook != nil {
		if err := s.EmbedHook(call); err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	vecs := make([][]float32, len(inputs))
	for i, in := range inputs {
		vecs[i] = s.Vector(in)
	}
	json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs, "prompt_eval_count": len(inputs)})
}

// ChatMessage is one message of a /api/chat request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is Ollama's /api/chat request body as the real server
// decodes it (the fields of api.ChatRequest mailsift may send).
type ChatRequest struct {
	Model     string          `json:"model"`
	Messages  []ChatMessage   `json:"messages"`
	Stream    *bool           `json:"stream"`
	Format    json.RawMessage `json:"format"`
	KeepAlive json.RawMessage `json:"keep_alive"`
	Options   map[string]any  `json:"options"`
}

// DecodeChat decodes a /api/chat request body strictly: a field the real
// API does not have is an error, so a test's own fake catches a misspelt
// or invented field as the Server does.
func DecodeChat(body io.Reader) (ChatRequest, error) {
	var req ChatRequest
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	return req, err
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	req, err := DecodeChat(r.Body)
	if err != nil {
		s.t.Errorf("ollamatest: bad /api/chat body: %v", err)
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Stream == nil || *req.Stream {
		s.t.Errorf("ollamatest: /api/chat stream = %v, want false", req.Stream)
	}
	if !contains(s.ChatModels, req.Model) {
		fail(w, http.StatusNotFound, fmt.Sprintf("model \"%s\" not found, try pulling it first", req.Model))
		return
	}
	call := ChatCall{Model: req.Model, Format: req.Format, KeepAlive: req.KeepAlive, Options: req.Options}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			call.System += m.Content
		case "user":
			call.User += m.Content
		}
	}
	s.mu.Lock()
	s.chats = append(s.chats, call)
	s.mu.Unlock()
	content := "{}"
	if s.Chat != nil {
		content = s.Chat(call)
	}
	json.NewEncoder(w).Encode(map[string]any{
		"model": req.Model, "created_at": "2026-11-24T12:00:00Z",
		"message": map[string]string{"role": "assistant", "content": content},
		"done":    true, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5,
	})
}

// Vector is the fake's embedding of text.
func (s *Server) Vector(text string) []float32 {
	dim := s.Dims
	if dim <= 0 {
		dim = Dim
	}
	v := make([]float32, dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if syn, ok := s.Synonyms[w]; ok {
			w = syn
		}
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		for k := 0; k < 3; k++ {
			i := int(x % uint64(dim))
			x /= uint64(dim)
			if x&1 == 0 {
				v[i]++
			} else {
				v[i] -= 0.5
			}
			x >>= 1
		}
	}
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	if n == 0 {
		v[0] = 1
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
