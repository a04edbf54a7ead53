package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"mailsift/config"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/semantic"
	"mailsift/store"
)

// TestSessionEmbedsSyncedMail: a running session embeds what a sync
// brings in, in the background, and App.Search answers by meaning then.
func TestSessionEmbedsSyncedMail(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	root := t.TempDir()
	for _, d := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	mails := []struct{ id, subject, body string }{
		{"b1", "Plumber", "The bill for the repair is attached."},
		{"l1", "Lunch", "Sandwiches at noon?"},
		{"r1", "Report", "All green this week."},
	}
	for i, m := range mails {
		raw := fmt.Sprintf("From: Bob <bob@example.com>\r\nTo: me@example.org\r\nSubject: %s\r\nMessage-ID: <%s@example.com>\r\n"+
			"Date: Mon, 3 Nov 2025 1%d:00:00 +0000\r\n\r\n%s\r\n", m.subject, m.id, i, m.body)
		if err := os.WriteFile(filepath.Join(root, "cur", fmt.Sprintf("500%d.%s.host:2,S", i, m.id)), []byte(raw), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := ollamatest.New(t, []string{"emb"}, nil)
	srv.Synonyms = map[string]string{"bill": "invoice"}
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	cfgText := fmt.Sprintf("[principal]\nemail = \"me@example.org\"\n\n[ollama]\nhost = %q\nembed_model = \"emb\"\n\n[triage]\noffline = true\n\n[[account]]\nname = \"mail\"\nsource = \"maildir://%s\"\n", srv.URL, root)
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: cfgPath, DataDir: dir, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(dir, "mailsift.db"), &store.Options{Principal: cfg.Principal.Address()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := New(cfg, st, Options{})
	passes := make(chan semantic.Progress, 16)
	a.search.onProgress = func(p semantic.Progress) { passes <- p }
	s, err := a.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		s.Wait()
	}()
	go func() { // the session's events must be read
		for {
			select {
			case <-s.Events():
			case <-ctx.Done():
				return
			}
		}
	}()
	indexed := 0
	for indexed < len(mails) {
		p := <-passes
		if p.Err != nil {
			t.Fatalf("embedding pass failed: %v", p.Err)
		}
		indexed = p.Indexed
	}
	res, err := a.Search(ctx, SearchQuery{Text: "invoice"})
	if err != nil || res.Mode != SearchHybrid || len(res.Hits) == 0 || res.Hits[0].MessageID != "b1@example.com" {
		t.Fatalf("Search(invoice) = %+v, %v; want the plumber's bill first, by meaning", res, err)
	}
	for _, c := range srv.EmbedCalls()[:1] {
		if len(c.Inputs) != len(mails) {
			t.Errorf("first embed request held %d texts, want all %d in one batch", len(c.Inputs), len(mails))
		}
	}
}
