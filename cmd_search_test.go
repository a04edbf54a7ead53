package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/store"
)

// seedSearchStore writes two messages into the store the CLI will open for
// --data-dir dir and returns the environment to run with.
func seedSearchStore(t *testing.T, dir string) map[string]string {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_DATA_HOME": filepath.Join(home, "data")}
	g := &globals{DataDir: dir, Env: func(k string) string { return env[k] }}
	cfg, err := g.loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, storePath(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)
	msgs := []*model.Message{
		{Loc: model.Location{Account: "demo", Mailbox: "INBOX", Key: "1"}, MessageID: "1@x", ContentHash: "h1", HasBody: true,
			From: model.Address{Name: "Bob \x1b[31mEvil\u202e\u3164", Email: "bob@example.com"}, Subject: "Invoice \u009b31moverdue\u202e", Date: d,
			Text: "please pay the invoice \x1b]52;c;aGk=\x07today"},
		{Loc: model.Location{Account: "demo", Mailbox: "INBOX", Key: "2"}, MessageID: "2@x", ContentHash: "h2", HasBody: true,
			From: model.Address{Email: "carol@example.com"}, Subject: "Invoice paid", Date: d.Add(48 * time.Hour),
			Text: "the invoice was paid", Flags: model.Flags{Seen: true}},
	}
	if err := st.PutMessages(ctx, msgs); err != nil {
		t.Fatal(err)
	}
	return env
}

func TestSearchCommand(t *testing.T) {
	dir := t.TempDir()
	env := seedSearchStore(t, dir)

	r := runWith(t, env, "", "--data-dir", dir, "search", "invoice")
	if r.code != 0 {
		t.Fatalf("search: %+v", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "Invoice paid") || !strings.Contains(lines[2], "Invoice overdue") {
		t.Fatalf("search output not newest first with snippets:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "\x1b") || strings.Contains(r.stdout, "aGk=") {
		t.Fatalf("search output contains a terminal escape: %q", r.stdout)
	}
	if !strings.HasPrefix(lines[2], "*") || strings.HasPrefix(lines[0], "*") {
		t.Errorf("unread marker wrong:\n%s", r.stdout)
	}

	r = runWith(t, env, "", "search", "from:carol", "--json", "--data-dir", dir)
	if r.code != 0 {
		t.Fatalf("search --json: %+v", r)
	}
	var hit searchHitJSON
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &hit); err != nil {
		t.Fatalf("--json output %q: %v", r.stdout, err)
	}
	if hit.MessageID != "2@x" || hit.From.Email != "carol@example.com" || hit.Unread || hit.ThreadID == 0 || hit.Date == "" {
		t.Errorf("json hit = %+v", hit)
	}

	r = runWith(t, env, "", "search", "from:bob", "--json", "--data-dir", dir)
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &hit); err != nil {
		t.Fatalf("--json output %q: %v", r.stdout, err)
	}
	if !strings.Contains(hit.Snippet, "invoice") || strings.ContainsAny(hit.Snippet, "\x1b\x07") || strings.Contains(hit.Snippet, "aGk=") {
		t.Errorf("json snippet %q: want the text without the escape sequence and its payload", hit.Snippet)
	}

	r = runWith(t, env, "", "--data-dir", dir, "search", "invoice", "--json", "--limit", "1")
	if n := strings.Count(r.stdout, "\n"); r.code != 0 || n != 1 {
		t.Errorf("--limit 1 printed %d lines: %+v", n, r)
	}
}

func TestSearchCommandErrors(t *testing.T) {
	dir := t.TempDir()
	env := seedSearchStore(t, dir)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no query", []string{"search"}, 2, "missing QUERY"},
		{"bad quote", []string{"search", `"unclosed`}, 1, "unbalanced quote"},
		{"bad limit", []string{"search", "x", "--limit", "0"}, 2, "--limit must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runWith(t, env, "", append([]string{"--data-dir", dir}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("code %d stderr %q, want %d and %q", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
	r := runWith(t, nil, "", "--data-dir", t.TempDir(), "search", "x")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "mailsift sync") {
		t.Errorf("missing store: %+v", r)
	}
}
