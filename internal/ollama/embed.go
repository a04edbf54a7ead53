package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/ollama/ollama/api"
)

// MinEmbedBatch is the fewest texts an embedding caller should send in one
// /api/embed request when it has that many waiting: the server embeds a
// list in one pass, so small batches waste round trips.
const MinEmbedBatch = 32

// ApplyEmbed sets an embed request's num_ctx and keep_alive from o
// (defaults filled in), the same way Apply does for a chat request, so
// every embedding request keeps the embed model loaded with the same
// options.
func (o ChatOptions) ApplyEmbed(req *api.EmbedRequest) {
	o = o.Normalized()
	if req.Options == nil {
		req.Options = map[string]any{}
	}
	req.Options["num_ctx"] = o.NumCtx
	delete(req.Options, "num_thread")
	req.KeepAlive = &api.Duration{Duration: o.KeepAlive}
}

// Embed posts texts to /api/embed as one list input and returns one vector
// per text, in order. An empty list returns nil without a request. An
// error status is an api.StatusError with Ollama's message (a missing
// model is 404 "model 'x' not found"); an answer with a different number
// of vectors than texts, or vectors of different lengths, is an error.
func (c *Client) Embed(ctx context.Context, req *api.EmbedRequest, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	r := *req
	r.Input = texts
	body, err := json.Marshal(&r)
	if err != nil {
		return nil, fmt.Errorf("ollama: encode embed request: %w", err)
	}
	data, err := c.do(ctx, http.MethodPost, "/api/embed", body)
	if err != nil {
		return nil, err
	}
	var er api.EmbedResponse
	if err := json.Unmarshal(data, &er); err != nil {
		return nil, fmt.Errorf("ollama: decode embed answer %q: %w", head(data, 80), err)
	}
	if len(er.Embeddings) != len(texts) {
		return nil, fmt.Errorf("ollama: embed with %s: %d vectors for %d texts", req.Model, len(er.Embeddings), len(texts))
	}
	dim := len(er.Embeddings[0])
	for i, v := range er.Embeddings {
		if len(v) == 0 || len(v) != dim {
			return nil, fmt.Errorf("ollama: embed with %s: vector %d has %d dimensions, want %d", req.Model, i, len(v), dim)
		}
	}
	return er.Embeddings, nil
}
