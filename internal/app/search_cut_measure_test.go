package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"mailsift/config"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/mailsrc/demo"
	"mailsift/mailsrc/maildir"
	"mailsift/semantic"
	"mailsift/store"
)

// This file measures the vector-only cut (semantic.Close) on the demo
// mailbox and the SpamAssassin corpus. No embed model runs in tests, so
// the fake embeds bags of words, and "close in meaning" is emulated by
// synonym groups: the fake embeds every word of a group as the group's
// first, so a message that holds a query's synonym but not its word is
// what only the vector side finds, and it is related; every other
// vector-only hit is not. Run with
//
//	MAILSIFT_MEASURE_CUT=1 go test -run TestMeasureVectorCut -v ./internal/app/
//
// (the corpus part needs scripts/fetch-corpus.sh).

// synonymGroups are words a model would put close together.
type synonymGroups [][]string

func (g synonymGroups) table() map[string]string {
	m := map[string]string{}
	for _, grp := range g {
		for _, w := range grp[1:] {
			m[w] = grp[0]
		}
	}
	return m
}

var demoSynonyms = synonymGroups{
	{"invoice", "bill", "receipt", "payment", "expense", "quote"},
	{"outage", "incident", "sev1", "downtime", "failing"},
	{"meeting", "sync", "invitation", "offsite"},
	{"database", "postgres", "cluster"},
	{"vacation", "holiday", "leave"},
	{"flight", "itinerary", "travel", "trip"},
	{"food", "lunch", "ramen", "tacos"},
	{"parcel", "shipped", "delivery", "package"},
}

var demoQueries = []string{"bill", "outage", "meeting", "database", "vacation", "flight", "food", "parcel",
	"bill from the contractor", "giraffe", "nomatchxyz"}

var corpusSynonyms = synonymGroups{
	{"mortgage", "loan", "refinance", "lender"},
	{"money", "cash", "dollars", "income"},
	{"meeting", "conference", "workshop"},
	{"error", "bug", "crash", "problem"},
	{"spam", "junk", "unsolicited"},
	{"upgrade", "update", "install"},
	{"python", "perl", "ruby"},
}

// cutSample is one vector-only hit: how far it stands out, and whether it
// is related to the query.
type cutSample struct {
	query   string
	rel, z  float64 // (s−mean)/(best−mean) and (s−mean)/std
	related bool
}

func TestMeasureVectorCut(t *testing.T) {
	if os.Getenv("MAILSIFT_MEASURE_CUT") == "" {
		t.Skip("a measurement, not a test: set MAILSIFT_MEASURE_CUT=1 to run it")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "demo.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := demo.New("demo", func() time.Time { return searchT0 }).Sync(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	reportCut(t, "demo", measureCut(t, st, demoSynonyms, demoQueries))

	src := filepath.Join("..", "..", "testdata", "corpus", "maildir")
	if _, err := os.Stat(filepath.Join(src, "easy-ham-1")); err != nil {
		t.Log("corpus absent: run scripts/fetch-corpus.sh for the corpus half")
		return
	}
	cst, err := store.Open(ctx, filepath.Join(t.TempDir(), "corpus.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cst.Close()
	if err := maildir.New("corpus", src, nil).Sync(ctx, cst, nil); err != nil {
		t.Fatal(err)
	}
	reportCut(t, "corpus", measureCut(t, cst, corpusSynonyms, searchBenchQueries))
}

// words splits text as the fake embedder does.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func measureCut(t *testing.T, st *store.Store, syn synonymGroups, queries []string) []cutSample {
	t.Helper()
	ctx := context.Background()
	table := syn.table()
	canon := func(w string) string {
		if c, ok := table[w]; ok {
			return c
		}
		return w
	}
	// The embedded texts, for the ground truth.
	src, err := st.MessagesToEmbed(ctx, "ground-truth", 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[int64]map[string]bool{}
	for _, s := range src {
		set := map[string]bool{}
		for _, w := range words(s.Text) {
			set[w] = true
		}
		texts[s.ID] = set
	}
	srv := ollamatest.New(t, []string{"emb"}, nil)
	srv.Dims = 768
	srv.Synonyms = table
	a := New(&config.Config{Ollama: config.Ollama{Host: srv.URL, EmbedModel: "emb"}}, st, Options{})
	for {
		_, more, err := a.semantic().emb.Pass(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
	}
	idx := a.semantic().idx
	if res, err := a.Search(ctx, SearchQuery{Text: queries[0], Limit: MaxSearchLimit}); err == nil {
		var subj []string
		for _, h := range res.Hits {
			subj = append(subj, h.Subject)
		}
		t.Logf("App.Search %q (%s): %d results: %q", queries[0], res.Mode, len(res.Hits), subj)
	} else {
		t.Fatal(err)
	}
	var out []cutSample
	for _, q := range queries {
		qw := words(q)
		lex, err := st.SearchRanked(ctx, store.RankedQuery{Query: strings.Join(strings.Fields(q), " OR "), Limit: lexicalDepth, IDsOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		isLex := map[int64]bool{}
		for _, h := range lex {
			isLex[h.ID] = true
		}
		nb, err := idx.Nearest(srv.Vector(q), semantic.Filter{}, vectorDepth)
		if err != nil {
			t.Fatal(err)
		}
		best := float64(nb.Hits[0].Score)
		nVecOnly, nRel, keptRel, keptUnrel := 0, 0, 0, 0
		for _, h := range nb.Hits {
			if isLex[h.ID] {
				continue
			}
			related := false
			for w := range texts[h.ID] {
				for _, x := range qw {
					if w != x && canon(w) == canon(x) {
						related = true
					}
				}
			}
			s := float64(h.Score)
			if z := (s - nb.Mean) / nb.Std; !related && z > 4 && os.Getenv("MAILSIFT_MEASURE_CUT") == "v" {
				var ws []string
				for w := range texts[h.ID] {
					ws = append(ws, w)
				}
				sort.Strings(ws)
				t.Logf("  unrelated z %.1f for %q: %d words: %.300s", z, q, len(ws), strings.Join(ws, " "))
			}
			out = append(out, cutSample{query: q, rel: (s - nb.Mean) / (best - nb.Mean), z: (s - nb.Mean) / nb.Std, related: related})
			nVecOnly++
			if related {
				nRel++
			}
			if semantic.DefaultClose.Keeps(h.Score, nb) {
				if related {
					keptRel++
				} else {
					keptUnrel++
				}
			}
		}
		t.Logf("%-28q messages %d, lexical %d, vector-only %d (related %d), kept by DefaultClose %d (related %d); best %.3f mean %.3f std %.3f",
			q, nb.N, len(lex), nVecOnly, nRel, keptRel+keptUnrel, keptRel, best, nb.Mean, nb.Std)
	}
	return out
}

func reportCut(t *testing.T, name string, samples []cutSample) {
	t.Helper()
	var rel, unrel []cutSample
	for _, s := range samples {
		if s.related {
			rel = append(rel, s)
		} else {
			unrel = append(unrel, s)
		}
	}
	pct := func(xs []cutSample, key func(cutSample) float64) string {
		if len(xs) == 0 {
			return "-"
		}
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = key(x)
		}
		sort.Float64s(v)
		return fmt.Sprintf("min %.2f p10 %.2f p50 %.2f p90 %.2f max %.2f", v[0], v[len(v)/10], v[len(v)/2], v[len(v)*9/10], v[len(v)-1])
	}
	t.Logf("%s: %d related vector-only hits: rel %s; z %s", name, len(rel), pct(rel, func(s cutSample) float64 { return s.rel }), pct(rel, func(s cutSample) float64 { return s.z }))
	t.Logf("%s: %d unrelated vector-only hits: rel %s; z %s", name, len(unrel), pct(unrel, func(s cutSample) float64 { return s.rel }), pct(unrel, func(s cutSample) float64 { return s.z }))
	for _, r := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
		for _, z := range []float64{2, 3, 3.5, 4, 5} {
			kr, ku := 0, 0
			for _, s := range samples {
				if s.rel >= r && s.z >= z {
					if s.related {
						kr++
					} else {
						ku++
					}
				}
			}
			t.Logf("%s: keep rel ≥ %.1f and z ≥ %.1f: related kept %d of %d, unrelated kept %d of %d", name, r, z, kr, len(rel), ku, len(unrel))
		}
	}
}
