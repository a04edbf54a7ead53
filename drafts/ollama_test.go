package drafts

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"mailsift/internal/ollama/ollamatest"
	"mailsift/model"
)

// TestOllamaGeneratorStrict runs the generator against a fake Ollama that
// rejects unknown request fields and answers with Ollama's error shapes.
func TestOllamaGeneratorStrict(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		wantErr string
	}{
		{name: "reply", status: 200, body: `{"model":"m","message":{"role":"assistant","content":"{\"body\":\"Friday works.\",\"risk_flags\":[],\"cited_message_ids\":[],\"needs_human_approval\":true}"},"done":true}`},
		{name: "model not pulled", status: 404, body: `{"error":"model \"llama3.2:3b\" not found, try pulling it first"}`, wantErr: `not found, try pulling it first`},
		{name: "broken json", status: 200, body: `{"model":"m","message":{`, wantErr: "decode answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				req, err := ollamatest.DecodeChat(r.Body)
				if err != nil || r.URL.Path != "/api/chat" {
					t.Errorf("fake ollama: %s: bad request body: %v", r.URL.Path, err)
				}
				if req.Stream == nil || *req.Stream || req.Model != "llama3.2:3b" || req.Options["num_ctx"] != float64(4096) || len(req.KeepAlive) == 0 {
					t.Errorf("request = %+v; want stream false, the model, num_ctx and keep_alive", req)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			g, err := NewOllama(srv.URL, "llama3.2:3b", 4096, nil)
			if err != nil {
				t.Fatal(err)
			}
			th := thread(&model.Message{MessageID: "a@x", From: bob, To: []model.Address{alice}, Subject: "Lunch", Text: "Friday?"})
			rep, err := g.GenerateReply(context.Background(), GenerateRequest{Thread: th, Principal: alice, ReplyTo: th.Messages[0]})
			if tt.wantErr == "" {
				if err != nil || rep.Body != "Friday works." {
					t.Fatalf("GenerateReply = %+v, %v", rep, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "drafts: ollama chat with llama3.2:3b") {
				t.Fatalf("err = %v, want it to name the model and contain %q", err, tt.wantErr)
			}
			var se api.StatusError
			if tt.status >= 400 && (!errors.As(err, &se) || se.StatusCode != tt.status) {
				t.Errorf("err = %#v, want an api.StatusError %d", err, tt.status)
			}
		})
	}
}
