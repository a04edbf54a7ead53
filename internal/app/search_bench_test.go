package app

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/mailsrc/maildir"
	"mailsift/semantic"
	"mailsift/store"
)

// searchBenchQueries are words a person types into `/` or an agent sends
// to search_inbox, cycled in order.
var searchBenchQueries = []string{
	"cheap mortgage rates", "linux kernel patch", "meeting tomorrow", "free money", "perl script error",
	"spam filter rules", "credit card offer", "python package", "debian upgrade problem", "razor",
	"conference registration", "nomatchxyz",
}

// corpusSearchStore returns the SpamAssassin corpus (scripts/fetch-corpus.sh)
// synced into a store with every message embedded by the strict fake at
// 768 dimensions (nomic-embed-text's size). It is built once and cached
// under $TMPDIR; delete the directory to rebuild.
func corpusSearchStore(b *testing.B, srv *ollamatest.Server) *store.Store {
	b.Helper()
	src := filepath.Join("..", "..", "testdata", "corpus", "maildir")
	if _, err := os.Stat(filepath.Join(src, "easy-ham-1")); err != nil {
		b.Skip("corpus absent: run scripts/fetch-corpus.sh to fetch testdata/corpus/maildir")
	}
	dir := filepath.Join(os.TempDir(), "mailsift-search-bench-v1")
	path := filepath.Join(dir, "mailsift.db")
	ctx := context.Background()
	_, statErr := os.Stat(path)
	st, err := store.Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if statErr == nil {
		return st
	}
	root := b.TempDir()
	// A copy: the maildir source moves files from new/ to cur/.
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	if err := maildir.New("corpus", root, nil).Sync(ctx, st, nil); err != nil {
		b.Fatal(err)
	}
	a := New(&config.Config{Ollama: config.Ollama{Host: srv.URL, EmbedModel: "bench-embed"}}, st, Options{})
	for {
		n, more, err := a.semantic().emb.Pass(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("embedded %d", n)
		if !more {
			return st
		}
	}
}

// BenchmarkSearchCorpus times App.Search (10 hits, as search_inbox's
// default) on the 6k-message corpus: lexical (no embed model), hybrid
// (query embedded by the local fake, vector scan, bm25 over any of the
// words, fusion, hit rows), and the vector scan alone.
func BenchmarkSearchCorpus(b *testing.B) {
	srv := ollamatest.New(b, []string{"bench-embed"}, nil)
	srv.Dims = 768
	st := corpusSearchStore(b, srv)
	ctx := context.Background()
	run := func(b *testing.B, a *App, want SearchMode) {
		durs := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t := time.Now()
			res, err := a.Search(ctx, SearchQuery{Text: searchBenchQueries[i%len(searchBenchQueries)]})
			if err != nil {
				b.Fatal(err)
			}
			if res.Mode != want {
				b.Fatalf("mode %s (%s), want %s", res.Mode, res.Reason, want)
			}
			durs = append(durs, time.Since(t))
		}
		reportP(b, durs)
	}
	b.Run("lexical", func(b *testing.B) {
		run(b, New(&config.Config{Ollama: config.Ollama{Host: srv.URL}}, st, Options{}), SearchLexical)
	})
	hybrid := New(&config.Config{Ollama: config.Ollama{Host: srv.URL, EmbedModel: "bench-embed"}}, st, Options{})
	if err := hybrid.semantic().load(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d vectors", hybrid.semantic().idx.Len())
	b.Run("hybrid", func(b *testing.B) { run(b, hybrid, SearchHybrid) })
	b.Run("query-embed", func(b *testing.B) { // the fake's round trip, not a real model's time
		durs := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t := time.Now()
			if _, err := hybrid.semantic().emb.EmbedQuery(ctx, searchBenchQueries[i%len(searchBenchQueries)]); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t))
		}
		reportP(b, durs)
	})
	b.Run("load-index", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			x := semantic.NewIndex("bench-embed")
			e, err := semantic.NewEmbedder(st, x, semantic.EmbedderOptions{Model: "bench-embed", Client: hybrid.semantic().emb.Client()})
			if err != nil {
				b.Fatal(err)
			}
			if err := e.Load(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("vector-scan", func(b *testing.B) {
		q := srv.Vector("cheap mortgage rates")
		durs := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t := time.Now()
			if _, err := hybrid.semantic().idx.Search(q, semantic.Filter{}, 100); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t))
		}
		reportP(b, durs)
	})
}

func reportP(b *testing.B, durs []time.Duration) {
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[(len(durs)-1)*95/100].Microseconds())/1000, "p95-ms")
}
