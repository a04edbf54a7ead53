package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"mailsift/internal/ollama/ollamatest"
)

func TestEmbedListInput(t *testing.T) {
	srv := ollamatest.New(t, []string{"nomic-embed-text"}, nil)
	c, err := New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = fmt.Sprintf("message %d about invoices", i)
	}
	req := &api.EmbedRequest{Model: "nomic-embed-text"}
	ChatOptions{NumCtx: 4096, KeepAlive: 7 * time.Minute}.ApplyEmbed(req)
	vecs, err := c.Embed(context.Background(), req, texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if want := srv.Vector(texts[i]); !equal(v, want) {
			t.Fatalf("vector %d is not the fake's embedding of text %d (order lost?)", i, i)
		}
	}
	calls := srv.EmbedCalls()
	if len(calls) != 1 || len(calls[0].Inputs) != 40 {
		t.Fatalf("calls = %d, want one request with all 40 texts as a list", len(calls))
	}
	if got := string(calls[0].KeepAlive); got != `"7m0s"` {
		t.Errorf("keep_alive = %s, want \"7m0s\"", got)
	}
	if n, _ := calls[0].Options["num_ctx"].(float64); n != 4096 {
		t.Errorf("options = %v, want num_ctx 4096", calls[0].Options)
	}
	if req.Input != nil {
		t.Errorf("Embed changed the caller's request: input = %v", req.Input)
	}
}

func TestEmbedModelNotFound(t *testing.T) {
	srv := ollamatest.New(t, []string{"nomic-embed-text"}, nil)
	c, _ := New(srv.URL, nil)
	_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "x"}, []string{"hello"})
	wantStatus(404, "model 'x' not found")(t, err)
}

func TestEmbedEmptyListSendsNothing(t *testing.T) {
	srv := ollamatest.New(t, []string{"m"}, nil)
	c, _ := New(srv.URL, nil)
	vecs, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "m"}, nil)
	if err != nil || vecs != nil || len(srv.EmbedCalls()) != 0 {
		t.Fatalf("Embed(nil) = %v, %v with %d calls; want nothing sent", vecs, err, len(srv.EmbedCalls()))
	}
}

// TestEmbedBadAnswers checks that an answer that does not fit the request
// is an error, not vectors attributed to the wrong texts.
func TestEmbedBadAnswers(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
	}{
		{"too few vectors", `{"model":"m","embeddings":[[1,0]]}`, "1 vectors for 2 texts"},
		{"ragged vectors", `{"model":"m","embeddings":[[1,0],[1]]}`, "vector 1 has 1 dimensions, want 2"},
		{"not json", `<html>`, "decode embed answer"},
		{"error with success status", `{"error":"the runner crashed"}`, "the runner crashed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := strictServer(t, nil)
			srv.Config.Handler = embedOnly(tt.body)
			c := newClient(t, srv, nil)
			_, err := c.Embed(context.Background(), &api.EmbedRequest{Model: "m"}, []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// embedOnly answers every /api/embed request with body.
func embedOnly(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req api.EmbedRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/api/embed" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Write([]byte(body))
	})
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
