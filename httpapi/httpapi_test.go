package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage"
)

func newServer(t *testing.T, token string, maxBody int64) (*httptest.Server, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte("[principal]\nemail = \"me@example.org\"\n[triage]\noffline = true\n[[account]]\nname = \"w\"\nsource = \"maildir://"+dir+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: cfgPath, DataDir: dir, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := app.New(cfg, st, app.Options{})
	srv := httptest.NewServer(Handler(Options{App: a, Triager: triage.NewOffline(nil), Token: token, MaxBody: maxBody}))
	t.Cleanup(srv.Close)
	return srv, st
}

func do(t *testing.T, method, url, ctype, auth, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

const single = `{"schema_version":"1.0","payload":{"kind":"single","principal":{"email":"me@example.org"},
"message":{"message_id":"m1","from":{"email":"bob@example.com"},"subject":"Invoice","body":"Please pay the invoice by Friday."}}}`

// TestTriageEndpoint: a contract request gets a contract response; an
// off-contract one 400 with the field path; an oversized one 413; a wrong
// content type 415; other methods and paths do not answer.
func TestTriageEndpoint(t *testing.T) {
	srv, st := newServer(t, "", 4096)
	code, body := do(t, "POST", srv.URL+"/v1/triage", "application/json; charset=utf-8", "", single)
	if code != 200 {
		t.Fatalf("triage = %d %s", code, body)
	}
	if _, err := contract.ParseResponse(body); err != nil {
		t.Errorf("answer is not a contract v1.0 response: %v\n%s", err, body)
	}
	cases := []struct {
		name, ctype, body string
		code              int
		path              string
	}{
		{"unknown field", "application/json", strings.Replace(single, `"subject"`, `"subjekt"`, 1), 400, "payload.message.subjekt"},
		{"bad kind", "application/json", strings.Replace(single, `"single"`, `"one"`, 1), 400, "payload.kind"},
		{"not JSON", "application/json", "{", 400, ""},
		{"too large", "application/json", `{"pad":"` + strings.Repeat("x", 5000) + `"}`, 413, ""},
		{"text", "text/plain", single, 415, ""},
		{"no type", "", single, 415, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := do(t, "POST", srv.URL+"/v1/triage", c.ctype, "", c.body)
			var e Error
			if err := json.Unmarshal(body, &e); err != nil || code != c.code || e.Code == "" || e.Message == "" {
				t.Fatalf("= %d %s, want %d with {code, message}", code, body, c.code)
			}
			if c.path != "" && e.Details["path"] != c.path {
				t.Errorf("path = %v (%s), want %s", e.Details["path"], e.Message, c.path)
			}
		})
	}
	if code, _ := do(t, "GET", srv.URL+"/v1/triage", "", "", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/triage = %d, want 405", code)
	}
	if code, body := do(t, "GET", srv.URL+"/healthz", "", "", ""); code != 200 || !strings.Contains(string(body), "ok") {
		t.Errorf("healthz = %d %s", code, body)
	}
	calls, err := st.ToolCalls(context.Background(), 10)
	if err != nil || len(calls) != 4 || calls[0].ConnectorID != "rest" {
		t.Errorf("tool calls = %+v, %v; want the 4 triage requests that reached parsing, from rest", calls, err)
	}
}

// TestTokenRequired: with a token, /v1/ answers only the right bearer;
// /healthz stays open.
func TestTokenRequired(t *testing.T) {
	srv, _ := newServer(t, "s3cret-token-0123456789abcdef0123456789", 0)
	for _, auth := range []string{"", "Bearer wrong", "s3cret-token-0123456789abcdef0123456789", "Bearer s3cret-token-0123456789abcdef012345678"} {
		if code, _ := do(t, "POST", srv.URL+"/v1/triage", "application/json", auth, single); code != 401 {
			t.Errorf("auth %q = %d, want 401", auth, code)
		}
		if code, _ := do(t, "GET", srv.URL+"/v1/approvals", "", auth, ""); code != 401 {
			t.Errorf("approvals with auth %q = %d, want 401", auth, code)
		}
	}
	if code, body := do(t, "POST", srv.URL+"/v1/triage", "application/json", "Bearer s3cret-token-0123456789abcdef0123456789", single); code != 200 {
		t.Errorf("right token = %d %s", code, body)
	}
	code, body := do(t, "GET", srv.URL+"/v1/approvals", "", "Bearer s3cret-token-0123456789abcdef0123456789", "")
	if code != 200 || strings.TrimSpace(string(body)) != `{"approvals":[]}` {
		t.Errorf("approvals = %d %s", code, body)
	}
	if code, _ := do(t, "GET", srv.URL+"/healthz", "", "", ""); code != 200 {
		t.Errorf("healthz without token = %d", code)
	}
}
