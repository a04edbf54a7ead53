package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/model"
	"mailsift/semantic"
	"mailsift/store"
)

// TestMCPBackgroundEmbedsAfterSync: with an embed model, `mailsift mcp`
// starts the embedder after the handshake and wakes it once its start-up
// sync is done, so mail that sync brought in is embedded (search_inbox
// finds it by meaning) without another trigger; nothing runs before the
// handshake, and everything ends with the context.
func TestMCPBackgroundEmbedsAfterSync(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fake := ollamatest.New(t, []string{"emb"}, nil)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(key, text string) {
		t.Helper()
		m := &model.Message{Loc: model.Location{Account: "work", Mailbox: "INBOX", Key: key}, MessageID: key + "@example.com",
			From: model.Address{Email: "bob@example.com"}, Subject: text, Text: text, HasBody: true,
			Date: time.Date(2025, 11, 3, 10, 0, 0, 0, time.UTC), ContentHash: key, Size: int64(len(text))}
		if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
			t.Fatal(err)
		}
	}
	put("old", "The quarterly figures are attached.")
	a := app.New(&config.Config{Ollama: config.Ollama{Host: fake.URL, EmbedModel: "emb"}}, st, app.Options{})

	initialized, syncGo := make(chan struct{}), make(chan struct{})
	progress := make(chan semantic.Progress)
	wait := mcpBackground(ctx, a, initialized, func(context.Context) {
		<-syncGo // the sync brings new mail once the first pass is done
		put("new", "The invoice for October.")
	}, progress)
	next := func() semantic.Progress {
		t.Helper()
		guard := time.NewTimer(30 * time.Second)
		defer guard.Stop()
		select {
		case p := <-progress:
			if p.Err != nil {
				t.Fatalf("embedding pass: %v", p.Err)
			}
			return p
		case <-guard.C:
			t.Fatal("no embedding pass")
		}
		return semantic.Progress{}
	}
	if n := len(fake.EmbedCalls()); n != 0 {
		t.Fatalf("%d embed requests before the handshake", n)
	}
	close(initialized)
	if p := next(); p.Indexed != 1 {
		t.Fatalf("first pass indexed %d, want the stored message", p.Indexed)
	}
	close(syncGo)
	if p := next(); p.Embedded != 1 || p.Indexed != 2 {
		t.Fatalf("after the sync: embedded %d, indexed %d; want the synced message too", p.Embedded, p.Indexed)
	}
	res, err := a.Search(ctx, app.SearchQuery{Text: "invoice"})
	if err != nil || res.Mode != app.SearchHybrid || len(res.Hits) == 0 || res.Hits[0].MessageID != "new@example.com" {
		t.Errorf("search after the sync = %+v, %v; want hybrid with the synced message first", res, err)
	}
	cancel()
	wait()
}
