package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"mailsift/config"
	"mailsift/internal/ollama/ollamatest"
	"mailsift/model"
)

// TestSearchAccount: SearchQuery.Account keeps the hits whose thread has
// a message in that account, in the fused order, in full pages, hybrid
// as lexical; a cursor of one account does not continue another's.
func TestSearchAccount(t *testing.T) {
	ctx := context.Background()
	st := searchStore(t) // account "a": inv@x, bill@x, lunch@x
	for i, id := range []string{"b-inv@x", "b-bill@x"} {
		m := &model.Message{Loc: model.Location{Account: "b", Mailbox: "INBOX", Key: id}, MessageID: id,
			From: model.Address{Email: "dana@example.com"}, Subject: "Another invoice", Text: "an invoice and a bill",
			HasBody: true, Date: searchT0.Add(time.Duration(3+i) * time.Hour), ContentHash: "h-" + id, Size: 10}
		if err := st.PutMessages(ctx, []*model.Message{m}); err != nil {
			t.Fatal(err)
		}
	}
	srv := ollamatest.New(t, []string{"emb"}, nil)
	srv.Synonyms = map[string]string{"bill": "invoice"}
	a := New(&config.Config{Ollama: config.Ollama{Host: srv.URL, EmbedModel: "emb"}}, st, Options{})
	if _, _, err := a.semantic().emb.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"invoice", "subject:invoice OR body:bill"} {
		all, err := a.Search(ctx, SearchQuery{Text: text, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, acct := range []string{"a", "b"} {
			var want []string
			for _, h := range all.Hits {
				if strings.HasPrefix(h.MessageID, "b-") == (acct == "b") {
					want = append(want, h.MessageID)
				}
			}
			one, err := a.Search(ctx, SearchQuery{Text: text, Limit: 50, Account: acct})
			if err != nil || hitIDs(one) != strings.Join(want, ",") || one.Mode != all.Mode || len(want) == 0 {
				t.Errorf("%q in %s = %s (%s), %v; want %s", text, acct, hitIDs(one), one.Mode, err, strings.Join(want, ","))
			}
			var paged []string
			cur := ""
			for i := 0; i < 10; i++ {
				p, err := a.Search(ctx, SearchQuery{Text: text, Limit: 1, Account: acct, Cursor: cur})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Hits) != 1 {
					t.Errorf("%q in %s: page %d holds %d hits, want 1", text, acct, i, len(p.Hits))
				}
				paged = append(paged, hitIDs(p))
				if cur = p.Next; cur == "" {
					break
				}
			}
			if got := strings.Join(paged, ","); got != hitIDs(one) {
				t.Errorf("%q in %s paged = %s, one page = %s", text, acct, got, hitIDs(one))
			}
		}
	}
	const two = "subject:invoice OR body:bill" // two hits in account a
	p, err := a.Search(ctx, SearchQuery{Text: two, Limit: 1, Account: "a"})
	if err != nil || p.Next == "" {
		t.Fatalf("first page: %v, next %q", err, p.Next)
	}
	if _, err := a.Search(ctx, SearchQuery{Text: two, Limit: 1, Account: "b", Cursor: p.Next}); !errors.Is(err, ErrCursor) {
		t.Errorf("a cursor of account a in b: %v, want ErrCursor", err)
	}
}
