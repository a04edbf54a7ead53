package ui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"mailsift/internal/app"
	"mailsift/store"
)

// fakeSearcher answers like app.Search: a mode, a reason and hits.
type fakeSearcher struct {
	mu     sync.Mutex
	asked  []app.SearchQuery
	mode   app.SearchMode
	reason string
	hits   []store.SearchHit
}

func (f *fakeSearcher) Search(ctx context.Context, q app.SearchQuery) (app.SearchResults, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, q)
	res := app.SearchResults{Mode: f.mode, Reason: f.reason}
	for _, h := range f.hits {
		res.Hits = append(res.Hits, app.SearchHit{SearchHit: h})
	}
	return res, nil
}

// TestSearchUsesSearcher: `/` asks the app's search (the one MCP uses)
// and says how it answered.
func TestSearchUsesSearcher(t *testing.T) {
	s := newFixtureStore(t, fixtureMessages(), fixtureTriage())
	lunch := threadID(t, s, "lunch1@x")
	fs := &fakeSearcher{mode: app.SearchHybrid, hits: []store.SearchHit{{ThreadID: lunch, MessageID: "lunch1@x", Subject: "Lunch tomorrow?", Snippet: "ramen"}}}
	d := newDriver(t, Options{Store: s, Searcher: fs}, 100, 30)
	d.keys("/")
	d.typeText("noodles")
	if len(fs.asked) == 0 || fs.asked[len(fs.asked)-1].Text != "noodles" || fs.asked[len(fs.asked)-1].Limit != searchLimit {
		t.Fatalf("searcher asked %+v", fs.asked)
	}
	if v := d.view(); !strings.Contains(v, "1 results for noodles · hybrid") || !strings.Contains(v, "Lunch tomorrow?") {
		t.Fatalf("search view:\n%s", v)
	}
	d.keys("enter")
	if d.m.screen != stateThread || d.m.thread.id != lunch {
		t.Fatalf("enter opened %d", d.m.thread.id)
	}
	d.keys("esc")
	fs.mode, fs.reason = app.SearchLexical, "no embed model configured (ollama.embed_model)"
	d.typeText("s")
	if v := d.view(); !strings.Contains(v, "· lexical: no embed model configured") {
		t.Fatalf("lexical search does not say why:\n%s", v)
	}
}
