package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mailsift/config"
	"mailsift/internal/app"
	"mailsift/mirror"
	"mailsift/store"
)

// corpusServer serves the SpamAssassin corpus (scripts/fetch-corpus.sh,
// 6,046 messages) as one inbox: every message is copied into a Maildir's
// INBOX so list_threads has the whole corpus open.
func corpusServer(b *testing.B) (*Server, *sdk.ClientSession) {
	b.Helper()
	src := filepath.Join("..", "testdata", "corpus", "maildir")
	if _, err := os.Stat(filepath.Join(src, "easy-ham-1")); err != nil {
		b.Skip("corpus absent: run scripts/fetch-corpus.sh to fetch testdata/corpus/maildir")
	}
	dir := b.TempDir()
	md := filepath.Join(dir, "Mail")
	for _, d := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(md, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		n++
		out, err := os.Create(filepath.Join(md, "cur", fmt.Sprintf("%d.corpus%d:2,S", 1000000+n, n)))
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "config.toml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf("[principal]\nemail = %q\n[triage]\noffline = true\n[[account]]\nname = \"work\"\nsource = \"maildir://%s\"\n", principal, md)), 0o600)
	cfg, err := config.Load(config.LoadOptions{Path: cfgPath, DataDir: dir, Env: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "mailsift.db"), &store.Options{Principal: cfg.Principal.Address()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	acct := &cfg.Accounts[0]
	st.EnsureAccount(ctx, acct.Name, acct.Src.Redacted())
	s, err := mirror.Open(acct, mirror.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := mirror.Sync(ctx, st, acct.Name, s, nil); err != nil {
		b.Fatal(err)
	}
	s.Close()
	a := app.New(cfg, st, app.Options{})
	eng, closeEng := a.Drafts(ctx, app.DraftOptions{})
	b.Cleanup(closeEng)
	srv, err := New(Options{App: a, Approvals: a.Approvals(eng)})
	if err != nil {
		b.Fatal(err)
	}
	return srv, connectBench(b, srv)
}

func connectBench(b *testing.B, srv *Server) *sdk.ClientSession {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	ct, stt := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, stt, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// reportPercentiles adds p50 and p95 in milliseconds.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	if len(ds) == 0 {
		return
	}
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
}

func benchCall(b *testing.B, cs *sdk.ClientSession, name string, args func(i int) map[string]any) {
	ctx := context.Background()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args(i)})
		ds = append(ds, time.Since(t))
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %s", name, err, text(res))
		}
	}
	b.StopTimer()
	reportPercentiles(b, ds)
}

// BenchmarkListThreadsCorpus: list_threads (50 newest threads, and the
// page after a cursor) on the 6k corpus, through the go-sdk client and
// JSON-RPC, with the tool call recorded in the audit log.
func BenchmarkListThreadsCorpus(b *testing.B) {
	_, cs := corpusServer(b)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolListThreads, Arguments: map[string]any{"inbox_id": "work"}})
	if err != nil || res.IsError {
		b.Fatal(err)
	}
	next := res.StructuredContent.(map[string]any)["next_cursor"].(string)
	benchCall(b, cs, ToolListThreads, func(i int) map[string]any {
		if i%2 == 1 {
			return map[string]any{"inbox_id": "work", "cursor": next}
		}
		return map[string]any{"inbox_id": "work"}
	})
}

// BenchmarkSearchInboxCorpus: lexical search_inbox (top 10; the app
// layer's search, no embed model configured) on the 6k corpus, rotating
// common and rare words and a phrase.
func BenchmarkSearchInboxCorpus(b *testing.B) {
	_, cs := corpusServer(b)
	qs := []string{"money", "linux", `"click here"`, "meeting", "free", "razor", "python", "unsubscribe"}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolSearchInbox, Arguments: map[string]any{"inbox_id": "work", "query": qs[0]}})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError || res.Meta["search_mode"] != "lexical" {
		b.Fatalf("search_inbox: %s %v, want a lexical answer", text(res), res.Meta)
	}
	benchCall(b, cs, ToolSearchInbox, func(i int) map[string]any {
		return map[string]any{"inbox_id": "work", "query": qs[i%len(qs)], "top_k": 10}
	})
}

// BenchmarkInitializeToFirstAnswer: a new client session (initialize
// handshake) and its first tool call answered, on the 6k corpus.
func BenchmarkInitializeToFirstAnswer(b *testing.B) {
	srv, _ := corpusServer(b)
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		ct, stt := sdk.NewInMemoryTransports()
		ss, err := srv.SDK().Connect(ctx, stt, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolListThreads, Arguments: map[string]any{"inbox_id": "work", "limit": 10}})
		ds = append(ds, time.Since(t))
		if err != nil || res.IsError {
			b.Fatal(err)
		}
		cs.Close()
		ss.Close()
		cancel()
	}
	b.StopTimer()
	reportPercentiles(b, ds)
}
