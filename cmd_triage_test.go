package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"mailsift/model/contract"
	"mailsift/triage"
)

const contractThread = `{"schema_version":"1.0","payload":{"kind":"thread","principal":{"name":"Alice Example","email":"alice@example.com"},"thread_id":"thread-42","messages":[
{"message_id":"msg-1","thread_id":"thread-42","from":{"name":"Bob","email":"bob@example.com"},"to":[{"name":"Alice","email":"alice@example.com"}],"date":"2026-05-30T09:00:00Z","subject":"Contract renewal","body":"Can we hop on a call about the renewal?"},
{"message_id":"msg-2","thread_id":"thread-42","from":{"name":"Alice","email":"alice@example.com"},"to":[{"name":"Bob","email":"bob@example.com"}],"date":"2026-05-30T10:00:00Z","subject":"Re: Contract renewal","body":"Sure, does Thursday 2pm work?"}]}}`

// fakeOllamaServer answers /api/version, /api/tags (with models) and
// /api/chat (with result).
func fakeOllamaServer(t *testing.T, models []string, result string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			io.WriteString(w, `{"version":"0.17.4"}`)
		case "/api/tags":
			var ms []map[string]string
			for _, m := range models {
				ms = append(ms, map[string]string{"name": m, "model": m})
			}
			json.NewEncoder(w).Encode(map[string]any{"models": ms})
		case "/api/chat":
			var req struct {
				Model    string                     `json:"model"`
				Messages []struct{ Content string } `json:"messages"`
			}
			json.NewDecoder(r.Body).Decode(&req)
			n := 0
			for _, m := range req.Messages {
				n += triage.EstimateTokens(m.Content)
			}
			json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "message": map[string]string{"role": "assistant", "content": result}, "done": true, "prompt_eval_count": n})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func deadHost(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

func TestTriageRequest(t *testing.T) {
	modelResult := `{"category":"actionable","is_spam":false,"is_phishing":false,"summary":"Bob wants a renewal call; Alice proposed Thursday 2pm.","action_items":[{"description":"Confirm Thursday 2pm call","due_hint":null}],"draft":null}`
	tests := []struct {
		name        string
		host        string
		args        []string
		wantSummary string // "" = any
		wantStderr  string
	}{
		{name: "offline", host: deadHost(t), args: []string{"--offline"}},
		{name: "model", host: fakeOllamaServer(t, []string{"llama3.2:3b"}, modelResult), wantSummary: "Bob wants a renewal call; Alice proposed Thursday 2pm."},
		{name: "ollama down", host: deadHost(t), wantStderr: "Ollama not reachable at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"OLLAMA_HOST": tt.host}
			r := runWith(t, env, contractThread, append([]string{"triage", "--request", "-"}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
			resp, err := contract.ParseResponse([]byte(r.stdout))
			if err != nil {
				t.Fatalf("stdout is not a v1.0 response: %v\n%s", err, r.stdout)
			}
			if resp.RequestKind != contract.KindThread {
				t.Errorf("request_kind = %q", resp.RequestKind)
			}
			if tt.wantSummary != "" && resp.Result.Summary != tt.wantSummary {
				t.Errorf("summary = %q, want the model's %q", resp.Result.Summary, tt.wantSummary)
			}
			if !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", r.stderr, tt.wantStderr)
			}
		})
	}
}

func TestTriageRequestInvalid(t *testing.T) {
	r := runWith(t, nil, `{"schema_version":"1.0","payload":{"kind":"thread","principal":{"email":"a@b.co"},"thread_id":"t","messages":[]}}`, "triage", "--request", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "payload.messages") || r.stdout != "" {
		t.Errorf("empty thread: %+v", r)
	}
	r = runWith(t, nil, "", "triage", "--request", "/nonexistent/req.json")
	if r.code != 1 || !strings.Contains(r.stderr, "/nonexistent/req.json") {
		t.Errorf("missing file: %+v", r)
	}
}

func TestTriageDemoJSON(t *testing.T) {
	env := map[string]string{"OLLAMA_HOST": deadHost(t)}
	r := runWith(t, env, "", "--demo", "triage", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "offline triage: Ollama not reachable") || strings.Count(r.stderr, "not reachable") != 1 {
		t.Errorf("offline notice should appear exactly once: %s", r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) < 30 {
		t.Fatalf("%d JSON lines, want one per demo thread", len(lines))
	}
	for i, l := range lines {
		if _, err := contract.ParseResponse([]byte(l)); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
}

func TestDoctorOllama(t *testing.T) {
	r := runWith(t, map[string]string{"OLLAMA_HOST": fakeOllamaServer(t, []string{"other:1b"}, "")}, "", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "llama3.2:3b is not pulled") || !strings.Contains(r.stdout, "fix: run `ollama pull llama3.2:3b`") {
		t.Errorf("model missing: %+v", r)
	}
	r = runWith(t, map[string]string{"OLLAMA_HOST": fakeOllamaServer(t, []string{"llama3.2:3b"}, "")}, "", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "Ollama 0.17.4") || !strings.Contains(r.stdout, "llama3.2:3b is pulled") {
		t.Errorf("all good: %+v", r)
	}
	host := deadHost(t)
	r = runWith(t, map[string]string{"OLLAMA_HOST": host}, "", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, fmt.Sprintf("Ollama not reachable at %s", host)) || !strings.Contains(r.stdout, "ollama serve") {
		t.Errorf("ollama down: %+v", r)
	}
}

func TestDoctorStore(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"OLLAMA_HOST": fakeOllamaServer(t, []string{"llama3.2:3b"}, "")}
	// A real store passes.
	r := runWith(t, env, "", "--data-dir", dir, "--demo", "triage", "--offline")
	if r.code != 0 {
		t.Fatalf("triage: %+v", r)
	}
	r = runWith(t, env, "", "--data-dir", dir, "--demo", "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "integrity ok") {
		t.Errorf("healthy store: %+v", r)
	}
	// A file that is not a database fails, with a fix.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "demo.db"), []byte(strings.Repeat("not a database ", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runWith(t, env, "", "--data-dir", bad, "--demo", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL store") || !strings.Contains(r.stdout, "fix:") {
		t.Errorf("damaged store: %+v", r)
	}
}

// lineWriter collects what is written and signals each write.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *lineWriter) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
}

// TestTriageJSONStreamsAndCancel: `triage --json` prints each result as
// it is saved, while the run goes on, and a cancelled run keeps what it
// printed. The fake model answers three requests and then never again, so
// the run cannot end before the test cancels it.
func TestTriageJSONStreamsAndCancel(t *testing.T) {
	modelResult := `{"category":"actionable","is_spam":false,"is_phishing":false,"summary":"s","action_items":[],"draft":null}`
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			io.WriteString(w, `{"version":"0.17.4"}`)
		case "/api/tags":
			io.WriteString(w, `{"models":[{"name":"llama3.2:3b","model":"llama3.2:3b"}]}`)
		case "/api/chat":
			io.Copy(io.Discard, r.Body) // then the server notices the client going away
			if calls.Add(1) > 3 {
				<-r.Context().Done()
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"model": "llama3.2:3b", "message": map[string]string{"role": "assistant", "content": modelResult}, "done": true, "done_reason": "stop", "prompt_eval_count": 100})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	home := t.TempDir()
	env := map[string]string{"OLLAMA_HOST": srv.URL, "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data")}
	out := &lineWriter{wrote: make(chan struct{}, 1)}
	var errb bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--demo", "triage", "--json"}, strings.NewReader(""), out, &errb, func(k string) string { return env[k] })
	}()
	for len(out.lines()) < 3 || out.lines()[0] == "" {
		select {
		case <-out.wrote:
		case code := <-exit:
			t.Fatalf("run ended (exit %d) before it was cancelled; stderr %s", code, errb.String())
		}
	}
	cancel()
	if code := <-exit; code == 0 {
		t.Errorf("cancelled run exited 0")
	}
	lines := out.lines()
	if len(lines) < 3 || len(lines) >= 30 {
		t.Fatalf("%d lines printed by the cancelled run, want those finished before the cancel", len(lines))
	}
	for i, l := range lines {
		if _, err := contract.ParseResponse([]byte(l)); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, l)
		}
	}
}
