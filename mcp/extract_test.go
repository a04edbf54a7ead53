package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtractToSchemaTool: with the model configured, extract_to_schema
// fills a built-in schema and a user schema from the config directory's
// schemas/, and answers not_found for an unknown schema. The model is a
// strict fake of Ollama's /api/chat that answers from the schema it got.
func TestExtractToSchemaTool(t *testing.T) {
	var formats []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
			t.Errorf("fake ollama: %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
			Stream   *bool           `json:"stream"`
			Format   json.RawMessage `json:"format"`
			Options  map[string]any  `json:"options"`
			Keep     json.RawMessage `json:"keep_alive"`
		}
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil || req.Stream == nil || *req.Stream || req.Model != "fake-model" {
			t.Errorf("fake ollama: %v %+v", err, req)
		}
		formats = append(formats, string(req.Format))
		content := `{"vendor":"Acme","total":120.5,"currency":"EUR"}`
		if strings.Contains(string(req.Format), "seat") {
			content = `{"seat":"12A"}`
		}
		b, _ := json.Marshal(map[string]any{"model": req.Model, "done": true, "message": map[string]string{"role": "assistant", "content": content}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	defer srv.Close()
	f := newFixture(t, "[triage]\noffline = false\n[ollama]\nhost = \""+srv.URL+"\"\nmodel = \"fake-model\"\n")
	if err := os.MkdirAll(filepath.Join(f.dir, "schemas"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.dir, "schemas", "ticket.json"), []byte(`{"type":"object","properties":{"seat":{"type":"string"},"gate":{"type":"string"}},"required":["seat"]}`), 0o600)
	inv := messageID("inv@acme.example")
	var out extractOut
	f.ok(ToolExtract, map[string]any{"message_id": inv, "schema_id": "invoice"}, &out)
	if out.Data["vendor"] != "Acme" || out.Confidence != 1 || len(out.ValidationErrors) != 0 || len(out.MissingFields) != 4 {
		t.Errorf("invoice = %+v", out)
	}
	f.ok(ToolExtract, map[string]any{"message_id": inv, "schema_id": "ticket"}, &out)
	if out.Data["seat"] != "12A" || strings.Join(out.MissingFields, ",") != "gate" {
		t.Errorf("ticket = %+v", out)
	}
	if e := f.fail(ToolExtract, map[string]any{"message_id": inv, "schema_id": "passport"}); e.Code != CodeNotFound || e.Details["path"] != "/schema_id" {
		t.Errorf("unknown schema: %+v", e)
	}
	if len(formats) != 2 || !strings.Contains(formats[0], `"invoice_number"`) {
		t.Errorf("model saw formats %v", formats)
	}
}
