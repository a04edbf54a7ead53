package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mailsift/internal/ollama/ollamatest"
	"mailsift/mirror"
	"mailsift/model"
	"mailsift/semantic"
)

// embedAll runs the app's background embedder, as `mailsift mcp` does,
// until the test ends, and returns once it has indexed n messages.
func (f *fixture) embedAll(n int) {
	f.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	progress := make(chan semantic.Progress)
	done := make(chan error, 1)
	go func() { done <- f.app.RunEmbedder(ctx, nil, progress) }()
	f.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			f.t.Errorf("embedder: %v", err)
		}
	})
	guard, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	for {
		select {
		case p := <-progress:
			if p.Err != nil {
				f.t.Fatalf("embedding pass failed: %v", p.Err)
			}
			if p.Indexed >= n {
				return
			}
		case err := <-done:
			f.t.Fatalf("embedder ended before indexing %d messages: %v", n, err)
		case <-guard.Done():
			f.t.Fatalf("no embedding pass indexed %d messages", n)
		}
	}
}

// search calls search_inbox with a cursor in the request _meta (as the
// tool's description tells a client to) and checks the answer against
// the output schema.
func (f *fixture) search(args map[string]any, cursor string) (searchOut, sdk.Meta) {
	f.t.Helper()
	p := &sdk.CallToolParams{Name: ToolSearchInbox, Arguments: args}
	if cursor != "" {
		p.Meta = sdk.Meta{"cursor": cursor}
	}
	res, err := f.cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		f.t.Fatalf("search_inbox(%v, cursor %q): %v %s", args, cursor, err, text(res))
	}
	var out searchOut
	f.decodeValid(ToolSearchInbox, res, &out)
	return out, res.Meta
}

// searchAll walks every page of a search, top_k at a time, and returns
// the message ids in order.
func (f *fixture) searchAll(args map[string]any) []string {
	f.t.Helper()
	var ids []string
	cur := ""
	for i := 0; i < 20; i++ {
		out, meta := f.search(args, cur)
		for _, r := range out.Results {
			ids = append(ids, r.MessageID)
		}
		next, _ := meta["next_cursor"].(string)
		if next == "" {
			return ids
		}
		cur = next
	}
	f.t.Fatalf("search %v: more than 20 pages", args)
	return nil
}

func resultIDs(out searchOut) []string {
	var ids []string
	for _, r := range out.Results {
		ids = append(ids, r.MessageID)
	}
	return ids
}

// TestSearchInboxHybridFindsByMeaning: with an embed model (the strict
// fake, which embeds "receipt" as "invoice") search_inbox is hybrid and
// a word that appears in no message finds the invoice by meaning; its
// pages, top_k at a time, are the one-page answer in order. Without an
// embed model the same word finds nothing, lexically, and says why.
func TestSearchInboxHybridFindsByMeaning(t *testing.T) {
	fake := ollamatest.New(t, []string{"emb"}, nil)
	fake.Synonyms = map[string]string{"receipt": "invoice"}
	f := newFixture(t, fmt.Sprintf("\n[ollama]\nhost = %q\nembed_model = \"emb\"\n", fake.URL))
	f.embedAll(len(fixtureMail))

	args := map[string]any{"inbox_id": "work", "query": "receipt"}
	out, meta := f.search(args, "")
	if meta["search_mode"] != "hybrid" || meta["lexical_reason"] != nil {
		t.Fatalf("_meta = %v, want search_mode hybrid and no lexical_reason", meta)
	}
	if len(out.Results) == 0 || out.Results[0].MessageID != messageID("inv@acme.example") ||
		out.Results[0].ThreadID != f.threadOf("inv@acme.example") {
		t.Fatalf("receipt = %+v, want the invoice first", out.Results)
	}
	one := strings.Join(resultIDs(out), " ")
	if got := strings.Join(f.searchAll(map[string]any{"inbox_id": "work", "query": "receipt", "top_k": 2}), " "); got != one {
		t.Errorf("pages of 2 = %s, one page = %s", got, one)
	}
	// The query reached the fake as one embed request of the query alone.
	calls := fake.EmbedCalls()
	if last := calls[len(calls)-1]; len(last.Inputs) != 1 || last.Inputs[0] != "receipt" || last.Model != "emb" {
		t.Errorf("last embed request = %+v, want the query", last)
	}
	// The search syntax is lexical, and says why.
	_, meta = f.search(map[string]any{"inbox_id": "work", "query": "subject:invoice"}, "")
	if meta["search_mode"] != "lexical" || meta["lexical_reason"] != "the query uses search syntax" {
		t.Errorf("syntax search _meta = %v", meta)
	}

	plain := newFixture(t, "")
	out, meta = plain.search(args, "")
	if meta["search_mode"] != "lexical" || !strings.Contains(fmt.Sprint(meta["lexical_reason"]), "no embed model") || len(out.Results) != 0 {
		t.Errorf("without an embed model: %+v %v, want no results, lexical, saying why", out.Results, meta)
	}
}

// TestSearchInboxInboxAndCursors: with two accounts, search_inbox keeps
// to the inbox asked for, its pages are full and in order, a cursor
// stays on its snapshot while new mail arrives, and a cursor of another
// search (another inbox, or made up) is an invalid_argument.
func TestSearchInboxInboxAndCursors(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "Home")
	writeMaildir(t, home, map[string]string{
		"cur/2000.h:2,S": "From: Dana <dana@example.com>\r\nTo: me@example.org\r\nSubject: Garden figures\r\n" +
			"Message-ID: <garden@example.com>\r\nDate: Fri, 07 Nov 2025 10:00:00 +0000\r\n\r\nThe figures for the garden budget.\r\n",
		"cur/2001.h:2,S": "From: Dana <dana@example.com>\r\nTo: me@example.org\r\nSubject: Pond\r\n" +
			"Message-ID: <pond@example.com>\r\nDate: Sat, 08 Nov 2025 10:00:00 +0000\r\n\r\nPond figures too.\r\n",
	})
	f := newFixture(t, fmt.Sprintf("\n[[account]]\nname = \"home\"\nsource = \"maildir://%s\"\n", home))
	acct := &f.cfg.Accounts[1]
	if err := f.st.EnsureAccount(ctx, acct.Name, acct.Src.Redacted()); err != nil {
		t.Fatal(err)
	}
	src, err := mirror.Open(acct, mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := mirror.Sync(ctx, f.st, acct.Name, src, nil); err != nil {
		t.Fatal(err)
	}
	src.Close()

	work := strings.Join(f.searchAll(map[string]any{"inbox_id": "work", "query": "figures", "top_k": 1}), " ")
	if want := messageID("q2@example.com") + " " + messageID("q1@example.com"); work != want {
		t.Errorf("work pages = %s, want %s: q2 (the shorter text ranks first) then q1, one a page", work, want)
	}
	homeOut, _ := f.search(map[string]any{"inbox_id": "home", "query": "figures"}, "")
	if got := strings.Join(resultIDs(homeOut), " "); len(homeOut.Results) != 2 || !strings.Contains(got, messageID("garden@example.com")) ||
		!strings.Contains(got, messageID("pond@example.com")) {
		t.Errorf("home = %s, want the garden and pond mail only", got)
	}

	// The first page of work, then mail arrives in work: the walk goes
	// on over the mail that was there, and a new search sees the new one.
	args := map[string]any{"inbox_id": "work", "query": "figures", "top_k": 1}
	first, meta := f.search(args, "")
	next, _ := meta["next_cursor"].(string)
	if next == "" || len(first.Results) != 1 {
		t.Fatalf("first page %+v, _meta %v: want one hit and a cursor", first.Results, meta)
	}
	m := &model.Message{Loc: model.Location{Account: "work", Mailbox: "INBOX", Key: "late"}, MessageID: "late@example.com",
		From: model.Address{Email: "bob@example.com"}, To: []model.Address{{Email: principal}}, Subject: "More figures",
		Text: "Late figures, figures and figures.", HasBody: true, Date: time.Date(2025, 11, 9, 0, 0, 0, 0, time.UTC), ContentHash: "late", Size: 40}
	if err := f.st.PutMessages(ctx, []*model.Message{m}); err != nil {
		t.Fatal(err)
	}
	second, meta := f.search(args, next)
	if got := strings.Join(append(resultIDs(first), resultIDs(second)...), " "); got != work || meta["next_cursor"] != nil {
		t.Errorf("pages around new mail = %s (_meta %v), want %s and the end", got, meta, work)
	}
	if got := f.searchAll(args); len(got) != 3 {
		t.Errorf("a new search = %v, want the new mail too", got)
	}

	// A cursor of the home search does not continue the work search.
	_, hm := f.search(map[string]any{"inbox_id": "home", "query": "figures", "top_k": 1}, "")
	homeNext, _ := hm["next_cursor"].(string)
	if homeNext == "" {
		t.Fatalf("home first page _meta = %v, want a cursor", hm)
	}
	for _, c := range []string{homeNext, "bogus"} {
		res, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: ToolSearchInbox, Arguments: args, Meta: sdk.Meta{"cursor": c}})
		if err != nil || !res.IsError || !strings.Contains(text(res), `"path":"/_meta/cursor"`) || !strings.Contains(text(res), CodeInvalidArgument) {
			t.Errorf("cursor %q: %v %s, want invalid_argument at /_meta/cursor", c, err, text(res))
		}
	}
}
