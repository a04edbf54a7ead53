package app

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/model"
	"mailsift/semantic"
	"mailsift/store"
)

var searchT0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func searchStore(t *testing.T) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "mailsift.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	putSearchMsg(t, st, "inv@x", "Your invoice for October", "please pay the invoice by friday", 0)
	putSearchMsg(t, st, "bill@x", "Plumber bill", "the bill for the repair is attached", time.Hour)
	putSearchMsg(t, st, "lunch@x", "Lunch", "sandwiches at noon", 2*time.Hour)
	return st
}

func putSearchMsg(t *testing.T, st *store.Store, id, subj, body string, at time.Duration) {
	t.Helper()
	m := &model.Message{
		Loc: model.Location{Account: "a", Mailbox: "INBOX", Key: id}, MessageID: id,
		From: model.Address{Email: "bob@example.com"}, Subject: subj, Text: body, HasBody: true,
		Date: searchT0.Add(at), ContentHash: "h-" + id, Size: 10,
	}
	if err := st.PutMessages(context.Background(), []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
}

// fillerWords are unrelated to the test queries (no "the", "invoice",
// "bill" or "sandwiches").
var fillerWords = strings.Fields(`garden roses tomatoes kernel football weather harbour violin
	chess bicycle mountain glacier printer cactus lantern meadow orchid piano rocket saddle
	telescope umbrella volcano walrus yacht zebra anchor barley canyon dolphin falcon granite
	hammock iceberg jasmine kayak lagoon marble nectar oyster pepper quartz raven sapphire`)

// putFiller adds n unrelated messages dated days before the others, so
// that the mailbox has the spread of similarities a real one has.
func putFiller(t *testing.T, st *store.Store, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		var ws []string
		for k := 0; k < 6; k++ {
			ws = append(ws, fillerWords[(i*7+k*13)%len(fillerWords)])
		}
		putSearchMsg(t, st, fmt.Sprintf("filler%d@x", i), ws[0]+" "+ws[1], strings.Join(ws[2:], " "), -time.Duration(i+1)*24*time.Hour)
	}
}

func hitIDs(r SearchResults) string {
	var ids []string
	for _, h := range r.Hits {
		ids = append(ids, h.MessageID)
	}
	return strings.Join(ids, ",")
}

// TestSearchHybridAndLexical: with the embed model, a search for
// "invoice" also finds the plumber's bill (the fake embeds "bill" as
// "invoice"), ranked after the mail that matches both ways, and nothing
// else: the lunch mail and the unrelated filler are among the nearest by
// meaning but not close, so they are cut; a long mail that mentions the
// word once is listed although its meaning alone would be cut. Without
// the embed model only the words match and the results say why.
func TestSearchHybridAndLexical(t *testing.T) {
	ctx := context.Background()
	st := searchStore(t)
	const filler = 40
	putFiller(t, st, filler)
	long := strings.Join(fillerWords, " ") + " and an invoice somewhere " + strings.Join(fillerWords, " ")
	putSearchMsg(t, st, "long@x", "Notes", long, -100*24*time.Hour)
	srv := ollamatest.New(t, []string{"emb"}, nil)
	srv.Dims = 768 // a real embed model's size: the fake's hashing is as sparse as measured
	srv.Synonyms = map[string]string{"bill": "invoice"}

	cfg := &config.Config{Ollama: config.Ollama{Host: srv.URL, EmbedModel: "emb", NumCtx: 4096}}
	a := New(cfg, st, Options{})
	if _, _, err := a.semantic().emb.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := a.Search(ctx, SearchQuery{Text: "invoice"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != SearchHybrid || res.Reason != "" {
		t.Fatalf("mode = %s (%s), want hybrid", res.Mode, res.Reason)
	}
	// long@x matches the word and is near by meaning, so it fuses ahead
	// of bill@x, which only the meaning finds.
	if got := hitIDs(res); got != "inv@x,long@x,bill@x" {
		t.Errorf("hybrid hits = %s, want inv@x, long@x, bill@x and nothing unrelated", got)
	}
	// Without the cut the lunch mail and the filler would be listed: they
	// are among the nearest by meaning. And long@x is listed for its word
	// only: by meaning alone it would be cut.
	nb, err := a.semantic().idx.Nearest(srv.Vector("invoice"), semantic.Filter{}, vectorDepth)
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Hits) != 3+filler+1 {
		t.Fatalf("nearest = %d, want every message", len(nb.Hits))
	}
	for _, h := range nb.Hits {
		row, err := st.SearchHitsByID(ctx, []int64{h.ID}, "")
		if err != nil || len(row) != 1 {
			t.Fatal(row, err)
		}
		id := row[0].MessageID
		if keep := semantic.DefaultClose.Keeps(h.Score, nb); keep != (id == "inv@x" || id == "bill@x") {
			t.Errorf("%s (similarity %.3f, mean %.3f, std %.3f): kept by meaning = %v", id, h.Score, nb.Mean, nb.Std, keep)
		}
	}
	if h, b := res.Hits[0], res.Hits[len(res.Hits)-1]; h.LexicalRank != 1 || h.VectorRank == 0 || b.LexicalRank != 0 || b.VectorRank == 0 {
		t.Errorf("ranks = %+v / %+v", h, b)
	}
	// The query went to the embed model with the same options as the mail.
	calls := srv.EmbedCalls()
	last := calls[len(calls)-1]
	if len(last.Inputs) != 1 || last.Inputs[0] != "invoice" || string(last.KeepAlive) != string(calls[0].KeepAlive) || last.Options["num_ctx"] != calls[0].Options["num_ctx"] {
		t.Errorf("query request = %+v, first = %+v", last, calls[0])
	}

	// Pages of one hit each are the one-page answer, in order.
	var paged []string
	cursor := ""
	for i := 0; i < 10; i++ {
		p, err := a.Search(ctx, SearchQuery{Text: "invoice", Limit: 1, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, hitIDs(p))
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if got := strings.Join(paged, ","); got != hitIDs(res) {
		t.Errorf("paged = %s, one page = %s", got, hitIDs(res))
	}

	// A time range applies to both sides.
	res, _ = a.Search(ctx, SearchQuery{Text: "invoice", Since: searchT0.Add(30 * time.Minute), Until: searchT0.Add(90 * time.Minute)})
	if got := hitIDs(res); got != "bill@x" {
		t.Errorf("with a time range, hits = %s, want bill@x", got)
	}
	// Search syntax is lexical, and says so.
	res, _ = a.Search(ctx, SearchQuery{Text: "subject:invoice"})
	if res.Mode != SearchLexical || res.Reason != "the query uses search syntax" || hitIDs(res) != "inv@x" {
		t.Errorf("syntax search = %s %q %s", res.Mode, res.Reason, hitIDs(res))
	}
	// after:/before: are the time range, not syntax.
	res, _ = a.Search(ctx, SearchQuery{Text: "invoice after:2026-11-02"})
	if res.Mode != SearchHybrid || len(res.Hits) != 0 {
		t.Errorf("after: a later day = %s %s, want hybrid with no hits", res.Mode, hitIDs(res))
	}

	// A message deleted from the store leaves the results and the index.
	if err := st.RemoveLocations(ctx, []model.Location{{Account: "a", Mailbox: "INBOX", Key: "bill@x"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.CollectOrphans(ctx); err != nil {
		t.Fatal(err)
	}
	res2, err := a.Search(ctx, SearchQuery{Text: "invoice", Limit: 10})
	if err != nil || strings.Contains(hitIDs(res2), "bill@x") || a.semantic().idx.Len() != 2+filler+1 {
		t.Errorf("after deleting bill@x: hits %s (%s %q), %v, index %d; want it gone from both", hitIDs(res2), res2.Mode, res2.Reason, err, a.semantic().idx.Len())
	}

	// Without an embed model: lexical, saying why.
	plain := New(&config.Config{Ollama: config.Ollama{Host: srv.URL}}, st, Options{})
	res, err = plain.Search(ctx, SearchQuery{Text: "invoice"})
	if err != nil || res.Mode != SearchLexical || !strings.Contains(res.Reason, "no embed model") || hitIDs(res) != "inv@x,long@x" {
		t.Errorf("without embed model = %s %q %s %v", res.Mode, res.Reason, hitIDs(res), err)
	}
	if plain.Embeds() || plain.RunEmbedder(ctx, nil, nil) != nil {
		t.Errorf("without an embed model the embedder has work or fails")
	}
}

// TestSearchOllamaDown: the embed model configured but unreachable gives
// lexical results that say why.
func TestSearchOllamaDown(t *testing.T) {
	ctx := context.Background()
	st := searchStore(t)
	srv := ollamatest.New(t, []string{"emb"}, nil)
	a := New(&config.Config{Ollama: config.Ollama{Host: srv.URL, EmbedModel: "emb"}}, st, Options{})
	if _, _, err := a.semantic().emb.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	down := New(&config.Config{Ollama: config.Ollama{Host: dead, EmbedModel: "emb"}}, st, Options{})
	res, err := down.Search(ctx, SearchQuery{Text: "invoice"})
	if err != nil || res.Mode != SearchLexical || !strings.HasPrefix(res.Reason, "embed model unavailable") || hitIDs(res) != "inv@x" {
		t.Fatalf("Ollama down = %s %q %s %v", res.Mode, res.Reason, hitIDs(res), err)
	}
}

// TestSearchCursorIsStable pages one hit at a time while new mail
// arrives: the pages are those of the first page's snapshot.
func TestSearchCursorIsStable(t *testing.T) {
	ctx := context.Background()
	st := searchStore(t)
	a := New(&config.Config{}, st, Options{})
	p1, err := a.Search(ctx, SearchQuery{Text: "the", Limit: 1})
	if err != nil || len(p1.Hits) != 1 || p1.Next == "" {
		t.Fatalf("page 1 = %+v, %v", p1, err)
	}
	putSearchMsg(t, st, "new@x", "the newest", "the the the the", 3*time.Hour)
	p2, err := a.Search(ctx, SearchQuery{Text: "the", Limit: 1, Cursor: p1.Next})
	if err != nil || len(p2.Hits) != 1 || p2.Hits[0].MessageID == p1.Hits[0].MessageID || p2.Hits[0].MessageID == "new@x" {
		t.Fatalf("page 2 = %s, %v; want the other old message", hitIDs(p2), err)
	}
	if p2.Next != "" {
		t.Errorf("page 2 has a next page; the snapshot held two matches")
	}
	if _, err := a.Search(ctx, SearchQuery{Text: "other", Cursor: p1.Next}); err == nil {
		t.Error("a cursor of another search was accepted")
	}
	if _, err := a.Search(ctx, SearchQuery{Text: "the", Cursor: "garbage"}); err == nil {
		t.Error("a garbage cursor was accepted")
	}
	if _, err := a.Search(ctx, SearchQuery{}); err == nil {
		t.Error("an empty search was accepted")
	}
}
