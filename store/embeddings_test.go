package store

import (
	"context"
	"testing"
	"time"
)

func TestEmbeddingsLifecycle(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	put(t, s,
		mkMsg("a@x", "Invoice 42", at(0), body("please pay the invoice")),
		mkMsg("b@x", "Lunch", at(time.Hour), body("lunch on friday?")),
		mkMsg("c@x", "Envelope", at(2*time.Hour), envelopeOnly()),
	)
	src, err := s.MessagesToEmbed(ctx, "m1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(src) != 2 || src[0].Date.Before(src[1].Date) {
		t.Fatalf("MessagesToEmbed = %+v, want the two messages with a body, newest first", src)
	}
	if src[1].Text != "Subject: Invoice 42\nFrom: Alice alice@example.com\n\nplease pay the invoice" {
		t.Errorf("text = %q", src[1].Text)
	}
	var embs []Embedding
	for i, e := range src {
		embs = append(embs, Embedding{ID: e.ID, Hash: e.Hash, Vec: []float32{float32(i), 0.5, -1}})
	}
	if err := s.SaveEmbeddings(ctx, "m1", embs); err != nil {
		t.Fatal(err)
	}
	// Saving again replaces, never duplicates.
	if err := s.SaveEmbeddings(ctx, "m1", embs); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM embeddings`); n != 2 {
		t.Fatalf("%d embedding rows, want 2", n)
	}
	if left, _ := s.MessagesToEmbed(ctx, "m1", 10); len(left) != 0 {
		t.Errorf("after saving, %d messages still to embed", len(left))
	}
	done, pending, err := s.EmbeddingCounts(ctx, "m1")
	if err != nil || done != 2 || pending != 0 {
		t.Errorf("EmbeddingCounts = %d, %d, %v; want 2, 0", done, pending, err)
	}
	var got []Embedding
	if err := s.Embeddings(ctx, "m1", func(e Embedding) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Vec[0] != 0 || got[1].Vec[2] != -1 || got[0].ThreadID == 0 {
		t.Errorf("Embeddings = %+v", got)
	}

	// Another model: everything is to embed again, nothing of m1 counts.
	if left, _ := s.MessagesToEmbed(ctx, "m2", 10); len(left) != 2 {
		t.Errorf("with model m2, %d to embed, want 2", len(left))
	}
	n := 0
	s.Embeddings(ctx, "m2", func(Embedding) error { n++; return nil })
	if n != 0 {
		t.Errorf("m2 has %d vectors, want 0", n)
	}

	// A changed body needs a new vector.
	put(t, s, mkMsg("b@x", "Lunch", at(time.Hour), body("lunch moved to monday")))
	left, _ := s.MessagesToEmbed(ctx, "m1", 10)
	if len(left) != 1 || left[0].Hash == src[0].Hash || left[0].Text != "Subject: Lunch\nFrom: Alice alice@example.com\n\nlunch moved to monday" {
		t.Errorf("after a body change, to embed = %+v, want the new content of b", left)
	}

	// A deleted message takes its vector along, and saving one for it is skipped.
	if _, err := s.w.Exec(`DELETE FROM locations WHERE message = ?; DELETE FROM messages WHERE id = ?`, src[1].ID, src[1].ID); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveEmbeddings(ctx, "m1", embs[1:]); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM embeddings WHERE message = ?`, src[1].ID); n != 0 {
		t.Errorf("a deleted message has %d vectors", n)
	}
}

func TestSearchRankedOrderAndRange(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	put(t, s,
		mkMsg("old@x", "invoice invoice invoice", at(0), body("invoice invoice due")),
		mkMsg("new@x", "hello", at(48*time.Hour), body("one invoice mentioned")),
		mkMsg("none@x", "lunch", at(72*time.Hour), body("nothing here")),
	)
	hits, err := s.SearchRanked(ctx, RankedQuery{Query: "invoice"})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].MessageID != "old@x" {
		t.Fatalf("SearchRanked = %+v, want old@x (more matches) first, not the newest", hits)
	}
	hits, _ = s.SearchRanked(ctx, RankedQuery{Query: "invoice", Since: t0.Add(time.Hour)})
	if len(hits) != 1 || hits[0].MessageID != "new@x" {
		t.Errorf("with Since, hits = %+v, want new@x only", hits)
	}
	hits, _ = s.SearchRanked(ctx, RankedQuery{Query: "invoice", Until: t0.Add(time.Hour)})
	if len(hits) != 1 || hits[0].MessageID != "old@x" {
		t.Errorf("with Until, hits = %+v, want old@x only", hits)
	}
	maxID, _ := s.MaxMessageID(ctx)
	put(t, s, mkMsg("later@x", "invoice", at(96*time.Hour), body("invoice")))
	hits, _ = s.SearchRanked(ctx, RankedQuery{Query: "invoice", MaxID: maxID})
	if len(hits) != 2 {
		t.Errorf("with a snapshot, %d hits, want the 2 stored before it", len(hits))
	}
	byID, err := s.SearchHitsByID(ctx, []int64{hits[1].ID, 999, hits[0].ID}, "mentioned")
	if err != nil || len(byID) != 2 || byID[0].ID != hits[1].ID {
		t.Fatalf("SearchHitsByID = %+v, %v; want two hits in the order asked", byID, err)
	}
	if byID[0].Snippet != "one invoice mentioned" || byID[1].Snippet != "invoice invoice due" {
		t.Errorf("snippets = %q, %q", byID[0].Snippet, byID[1].Snippet)
	}
	bare, _ := s.SearchRanked(ctx, RankedQuery{Query: "invoice", MaxID: maxID, IDsOnly: true})
	if len(bare) != 2 || bare[0].Snippet != "" || bare[0].Subject != "" || bare[0].ID != hits[0].ID {
		t.Errorf("without snippets = %+v", bare)
	}
}
