package semantic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mailsift/internal/ollama"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/model"
	"mailsift/store"
)

// TestFuseIsReciprocalRankFusion pins the fused order and scores on two
// rankings whose tops disagree: the item both rank high wins, which
// neither ranking alone puts first.
func TestFuseIsReciprocalRankFusion(t *testing.T) {
	lexical := []int64{1, 2, 3, 5}
	vector := []int64{4, 3, 2, 6}
	got := Fuse(lexical, vector)
	wantIDs := []int64{2, 3, 1, 4, 5, 6}
	if len(got) != len(wantIDs) {
		t.Fatalf("Fuse = %+v, want %d items", got, len(wantIDs))
	}
	for i, id := range wantIDs {
		if got[i].ID != id {
			t.Fatalf("Fuse order = %v, want %v (lexical alone: %v, vector alone: %v)", ids(got), wantIDs, lexical, vector)
		}
	}
	if w := 1.0/62 + 1.0/63; math.Abs(got[0].Score-w) > 1e-12 || got[0].Ranks[0] != 2 || got[0].Ranks[1] != 3 {
		t.Errorf("item 2 = %+v, want score 1/62+1/63 and ranks [2 3]", got[0])
	}
	if w := 1.0 / 61; math.Abs(got[2].Score-w) > 1e-12 || got[2].Ranks[1] != 0 {
		t.Errorf("item 1 = %+v, want score 1/61, not in the vector ranking", got[2])
	}
	// One ranking alone is that ranking.
	if one := Fuse(vector); fmt.Sprint(ids(one)) != fmt.Sprint(vector) {
		t.Errorf("Fuse(vector) = %v, want %v", ids(one), vector)
	}
	// A repeated id counts once, at its best rank.
	if rep := Fuse([]int64{7, 7, 8}); len(rep) != 2 || math.Abs(rep[0].Score-1.0/61) > 1e-12 || rep[1].Ranks[0] != 3 {
		t.Errorf("Fuse with a repeat = %+v", rep)
	}
}

func ids(fs []Fused) []int64 {
	out := make([]int64, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func TestIndexSearch(t *testing.T) {
	x := NewIndex("m")
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	must(t, x.Put(
		store.Embedding{ID: 1, Date: day, Vec: []float32{1, 0, 0}},
		store.Embedding{ID: 2, Date: day.Add(24 * time.Hour), Vec: []float32{3, 3, 0}}, // not unit length
		store.Embedding{ID: 3, Date: day.Add(48 * time.Hour), Vec: []float32{0, 0, 1}},
	))
	got, err := x.Search([]float32{2, 0, 0}, Filter{}, 2)
	if err != nil || len(got) != 2 || got[0].ID != 1 || got[1].ID != 2 {
		t.Fatalf("Search = %+v, %v; want 1 then 2", got, err)
	}
	if math.Abs(float64(got[1].Score)-math.Sqrt(0.5)) > 1e-6 {
		t.Errorf("cosine of 2 = %v, want √½", got[1].Score)
	}
	got, _ = x.Search([]float32{1, 0, 0}, Filter{Since: day.Add(time.Hour), Until: day.Add(48 * time.Hour)}, 5)
	if len(got) != 1 || got[0].ID != 2 {
		t.Errorf("with a time range, Search = %+v, want 2 only", got)
	}
	got, _ = x.Search([]float32{1, 0, 0}, Filter{MaxID: 2}, 5)
	if len(got) != 2 {
		t.Errorf("with MaxID 2, Search = %+v, want 2 hits", got)
	}
	// Replacing a vector moves it.
	must(t, x.Put(store.Embedding{ID: 3, Date: day, Vec: []float32{1, 0.1, 0}}))
	got, _ = x.Search([]float32{1, 0, 0}, Filter{}, 1)
	if x.Len() != 3 || got[0].ID != 1 {
		t.Errorf("after replacing 3: len %d, top %+v", x.Len(), got)
	}
	// Deleting moves the last vector into the hole; the rest still match.
	x.Delete(1, 42)
	got, _ = x.Search([]float32{1, 0, 0}, Filter{}, 5)
	if x.Len() != 2 || len(got) != 2 || got[0].ID != 3 || got[1].ID != 2 {
		t.Errorf("after deleting 1: len %d, hits %+v; want 3 then 2", x.Len(), got)
	}
	if _, err := x.Search([]float32{1, 0}, Filter{}, 1); err == nil {
		t.Error("a query of another length was accepted")
	}
	if err := x.Put(store.Embedding{ID: 9, Vec: []float32{1}}); err == nil {
		t.Error("a vector of another length was accepted")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// testStore opens a store holding n messages with bodies, one a minute.
func testStore(t *testing.T, n int) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"), &store.Options{Principal: model.Address{Email: "me@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	addMessages(t, st, 0, n)
	return st
}

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func addMessages(t *testing.T, st *store.Store, from, to int) {
	t.Helper()
	var msgs []*model.Message
	for i := from; i < to; i++ {
		id := fmt.Sprintf("m%d@example.com", i)
		text := fmt.Sprintf("message number %d about topic %d", i, i%7)
		sum := sha256.Sum256([]byte(id + text))
		msgs = append(msgs, &model.Message{
			Loc:       model.Location{Account: "a", Mailbox: "INBOX", Key: id},
			MessageID: id, From: model.Address{Name: "Sender", Email: "s@example.com"},
			To:   []model.Address{{Email: "me@example.com"}},
			Date: t0.Add(time.Duration(i) * time.Minute), Subject: fmt.Sprintf("subject %d", i),
			Text: text, HasBody: true, Size: 100, ContentHash: hex.EncodeToString(sum[:]),
		})
	}
	if err := st.PutMessages(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
}

func newEmbedder(t *testing.T, st *store.Store, srv *ollamatest.Server, modelName string) (*Embedder, *Index) {
	t.Helper()
	c, err := ollama.New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := NewIndex(modelName)
	e, err := NewEmbedder(st, idx, EmbedderOptions{Model: modelName, Client: c, Batch: 32})
	if err != nil {
		t.Fatal(err)
	}
	return e, idx
}

func countVectors(t *testing.T, st *store.Store, modelName string) int {
	t.Helper()
	n := 0
	if err := st.Embeddings(context.Background(), modelName, func(store.Embedding) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestEmbedderResumesWithoutDuplicates interrupts a first run in its
// second batch (the model fails and the context ends, as when the process
// is killed), then runs a fresh embedder on the same store: it embeds
// exactly what the first left, and every message ends with one vector.
func TestEmbedderResumesWithoutDuplicates(t *testing.T) {
	const total = 80
	st := testStore(t, total)
	srv := ollamatest.New(t, []string{"emb"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	srv.EmbedHook = func(ollamatest.EmbedCall) error {
		calls++
		if calls == 2 {
			cancel()
			return errors.New("killed")
		}
		return nil
	}
	e1, _ := newEmbedder(t, st, srv, "emb")
	if _, _, err := e1.Pass(ctx); err == nil {
		t.Fatal("the interrupted pass reported no error")
	}
	first := srv.EmbedCalls()
	if len(first) != 2 || len(first[0].Inputs) != 32 || len(first[1].Inputs) != 32 {
		t.Fatalf("first run sent %d requests, want two of 32 texts", len(first))
	}
	if n := countVectors(t, st, "emb"); n != 32 {
		t.Fatalf("after the interruption %d vectors stored, want the first batch's 32", n)
	}

	srv.EmbedHook = nil
	e2, idx := newEmbedder(t, st, srv, "emb")
	must(t, e2.Load(context.Background()))
	if idx.Len() != 32 {
		t.Fatalf("Load put %d vectors in the index, want 32", idx.Len())
	}
	n, more, err := e2.Pass(context.Background())
	if err != nil || more || n != total-32 {
		t.Fatalf("resumed pass = %d, %v, %v; want %d, false, nil", n, more, err, total-32)
	}
	saved := map[string]bool{}
	for _, in := range first[0].Inputs {
		saved[in] = true
	}
	seen := map[string]bool{}
	for _, c := range srv.EmbedCalls()[2:] {
		if len(c.Inputs) < 32 && len(c.Inputs) != (total-32)%32 {
			t.Errorf("a batch of %d texts; batches are 32 but the last", len(c.Inputs))
		}
		for _, in := range c.Inputs {
			if saved[in] || seen[in] {
				t.Errorf("text embedded twice: %q", in)
			}
			seen[in] = true
		}
	}
	if len(seen) != total-32 {
		t.Errorf("resumed run embedded %d texts, want %d", len(seen), total-32)
	}
	if n := countVectors(t, st, "emb"); n != total || idx.Len() != total {
		t.Errorf("%d vectors stored, %d indexed; want %d each", n, idx.Len(), total)
	}

	// A changed embed model embeds everything again, replacing the rows.
	before := len(srv.EmbedCalls())
	srv.EmbedModels = append(srv.EmbedModels, "emb2")
	e3, _ := newEmbedder(t, st, srv, "emb2")
	if n, _, err := e3.Pass(context.Background()); err != nil || n != total {
		t.Fatalf("pass with a new model = %d, %v; want %d", n, err, total)
	}
	for _, c := range srv.EmbedCalls()[before:] {
		if c.Model != "emb2" {
			t.Errorf("request for %s after the model changed", c.Model)
		}
	}
	if countVectors(t, st, "emb") != 0 || countVectors(t, st, "emb2") != total {
		t.Errorf("after re-embedding, old model has %d, new %d vectors", countVectors(t, st, "emb"), countVectors(t, st, "emb2"))
	}
}

// TestEmbedderRunFollowsNewMail runs the background loop: it embeds what
// is stored, then new mail after a wake, and reports a missing model.
func TestEmbedderRunFollowsNewMail(t *testing.T) {
	st := testStore(t, 40)
	srv := ollamatest.New(t, []string{"emb"}, nil)
	e, idx := newEmbedder(t, st, srv, "emb")
	ctx, cancel := context.WithCancel(context.Background())
	wake := make(chan struct{}, 1)
	progress := make(chan Progress)
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, wake, progress) }()
	if p := <-progress; p.Err != nil || p.Embedded != 40 || p.Indexed != 40 {
		t.Fatalf("first progress = %+v, want 40 embedded", p)
	}
	addMessages(t, st, 40, 45)
	wake <- struct{}{}
	if p := <-progress; p.Err != nil || p.Embedded != 5 || p.Indexed != 45 {
		t.Fatalf("after new mail, progress = %+v, want 5 more", p)
	}
	if idx.Len() != 45 {
		t.Errorf("index holds %d, want 45", idx.Len())
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}

	// The model is not pulled: the pass says so.
	e2, _ := newEmbedder(t, st, srv, "missing")
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() { done <- e2.Run(ctx2, wake, progress) }()
	if p := <-progress; p.Err == nil || p.Embedded != 0 {
		t.Fatalf("with a missing model, progress = %+v, want an error", p)
	} else if want := "embed model missing is not pulled (run: ollama pull missing): embed with missing: 404 Not Found: model 'missing' not found"; !strings.Contains(p.Err.Error(), want) {
		t.Errorf("error %q does not say %q", p.Err, want)
	}
	if err := e2.LastErr(); err == nil || !strings.Contains(err.Error(), "ollama pull missing") {
		t.Errorf("LastErr = %v", err)
	}
	cancel2()
	<-done
}
