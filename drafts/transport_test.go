package drafts

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/model"
)

func TestSMTPAuthLogin(t *testing.T) {
	srv := startSMTP(t, &smtpBackend{user: "alice", pass: "pw-123"}, "starttls")
	tr := srv.transport("starttls")
	tr.Auth = "login"
	if err := tr.Send(context.Background(), ticketFor(t, "Subject: x\r\n\r\nx\r\n", "alice@example.com", "bob@example.com"), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if m := srv.be.messages(); len(m) != 1 || m[0].User != "alice" || !m[0].TLS {
		t.Errorf("received = %+v", m)
	}
	tr.Auth = "cram-md5"
	err := tr.Send(context.Background(), ticketFor(t, "x\r\n", "alice@example.com", "bob@example.com"), func() error { return nil })
	var perm *PermanentError
	if !errors.As(err, &perm) || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("unsupported mechanism = %v", err)
	}
}

func TestSendmailTransport(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fake-sendmail")
	// Records its arguments and stdin; exits with $FAKE_EXIT.
	os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \""+dir+"/args\"\ncat > \""+dir+"/stdin\"\nexit ${FAKE_EXIT:-0}\n"), 0o755)
	raw := []byte("Subject: hi\r\n\r\nbody\r\n")
	tk := ticketFor(t, string(raw), "alice@example.com", "bob@example.com", "hidden@example.com")
	committed := false
	tr := &Sendmail{Command: script + " -t"}
	if err := tr.Send(context.Background(), tk, func() error { committed = true; return nil }); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	in, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	if string(args) != "-oi\n-f\nalice@example.com\n--\nbob@example.com\nhidden@example.com\n" || string(in) != string(raw) || !committed {
		t.Errorf("sendmail got args %q stdin %q committed %v", args, in, committed)
	}
	for code, wantPerm := range map[string]bool{"75": false, "1": true} {
		t.Setenv("FAKE_EXIT", code)
		err := tr.Send(context.Background(), tk, func() error { return nil })
		var perm *PermanentError
		if err == nil || errors.As(err, &perm) != wantPerm || !strings.Contains(err.Error(), "status "+code) {
			t.Errorf("exit %s: err = %v, permanent want %v", code, err, wantPerm)
		}
	}
}

func TestOllamaGenerator(t *testing.T) {
	var reqs []map[string]any
	answers := []string{`{"body": "not quite"}`, `{"body":"Friday works.","risk_flags":[],"cited_message_ids":["a@x"],"needs_human_approval":true}`}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(b, &req)
		reqs = append(reqs, req)
		content := answers[0]
		if len(reqs) > 1 {
			content = answers[1]
		}
		json.NewEncoder(w).Encode(map[string]any{"model": "m", "message": map[string]any{"role": "assistant", "content": content}, "done": true})
	}))
	defer srv.Close()
	g, err := NewOllama(srv.URL, "llama3.2:3b", 4096, nil)
	if err != nil {
		t.Fatal(err)
	}
	th := thread(&model.Message{MessageID: "a@x", From: bob, To: []model.Address{alice}, Subject: "Lunch", Text: "Friday?"})
	d, err := Generate(context.Background(), th, alice, Policy{}, &GenerateOptions{Generator: g})
	if err != nil {
		t.Fatal(err)
	}
	if d.Source != "ollama" || d.Body != "Friday works." || len(reqs) != 2 {
		t.Fatalf("draft = %q %q after %d requests (off-schema answer must be retried once)", d.Source, d.Body, len(reqs))
	}
	if reqs[0]["stream"] != false || reqs[0]["format"] == nil || reqs[0]["model"] != "llama3.2:3b" {
		t.Errorf("request = %v; want stream false, a JSON schema format and the model", reqs[0])
	}
	if _, err := NewOllama("not a url", "m", 0, nil); err == nil {
		t.Errorf("bad host accepted")
	}
}
