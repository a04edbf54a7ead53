package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"mailsift/internal/app/event"
	"mailsift/internal/ollama"
	"mailsift/semantic"
	"mailsift/store"
)

// SearchQuery is one search of the mailbox, as every surface asks it (the
// TUI's `/`, MCP search_inbox).
type SearchQuery struct {
	// Text is words ("invoice from the contractor") or the store's search
	// syntax (from:, to:, subject:, body:, is:unread, "phrases", OR, NOT,
	// prefix*; after:/before: narrow the time range). Words are searched
	// by meaning and by text; syntax is searched by text only.
	Text string
	// Since and Until bound the message date: Since <= date < Until. A
	// zero time is no bound.
	Since, Until time.Time
	// Limit is the most hits returned (default 10, at most MaxSearchLimit).
	Limit int
	// Cursor continues a search from SearchResults.Next; "" starts it.
	Cursor string
	// Account, when not "", keeps the hits whose thread has a message
	// stored in that account (an MCP inbox); the others are dropped before
	// the hits are cut into pages, so pages stay full and in order.
	Account string
}

// ErrCursor is the error (wrapped) of a search given a cursor it cannot
// continue: one of another search, or of a search whose mode is gone.
var ErrCursor = errors.New("search: the cursor does not continue this search")

// MaxSearchLimit is the most hits one page holds.
const MaxSearchLimit = 200

// SearchMode says how a search was answered.
type SearchMode string

// The search modes.
const (
	// SearchHybrid fused vector similarity and FTS5 relevance.
	SearchHybrid SearchMode = "hybrid"
	// SearchLexical used FTS5 alone; SearchResults.Reason says why.
	SearchLexical SearchMode = "lexical"
)

// SearchHit is one message found.
type SearchHit struct {
	store.SearchHit
	// Score is the reciprocal-rank-fusion score (higher is better; the
	// lexical ranking alone in a lexical search).
	Score float64
	// LexicalRank and VectorRank are the hit's 1-based ranks in the FTS5
	// and the vector ranking (0: not in it).
	LexicalRank, VectorRank int
}

// SearchResults is one page of a search.
type SearchResults struct {
	Hits []SearchHit
	// Mode is how the search was answered.
	Mode SearchMode
	// Reason says why a search is lexical ("no embed model configured",
	// "Ollama not reachable: …"); "" for a hybrid search.
	Reason string
	// Next continues the search after this page; "" when there is no more.
	// Pages are taken from a snapshot of the store at the first page, so
	// mail arriving meanwhile does not shift them (while the first
	// embedding of a mailbox runs, vectors made meanwhile can still join
	// later pages).
	Next string
}

// searchState is the semantic side of search: the index, its embedder,
// and the last time the embed model could not be reached (so that search
// as you type does not wait on a dead server at every keystroke).
type searchState struct {
	once sync.Once
	idx  *semantic.Index
	emb  *semantic.Embedder
	off  string // why there is no semantic search at all ("" if there is)

	// onProgress, when set before Start, sees every pass of the
	// background embedder (tests wait on it).
	onProgress func(semantic.Progress)

	mu      sync.Mutex
	downAt  time.Time
	downWhy string
}

// vectorDepth is how many nearest messages by meaning are considered:
// every message has a nearest neighbour, so without a bound a search
// would list the whole mailbox. Of those, the ones the words do not match
// join only when they are close in meaning (closeHits).
const vectorDepth = 50

// lexicalDepth is how many text matches are ranked, the same for every
// page of a search so that the fused order, and so the pages, do not
// change as the pages go deeper; FTS5 scores every match to rank them
// anyway, so the bound costs little.
const lexicalDepth = 1000

// queryEmbedTimeout bounds embedding one query: a search waits for it.
const queryEmbedTimeout = 10 * time.Second

// downFor is how long a failed query embedding makes searches lexical
// before the model is asked again.
const downFor = 30 * time.Second

// semantic returns the search state, built on first use.
func (a *App) semantic() *searchState {
	s := &a.search
	s.once.Do(func() {
		m := a.cfg.Ollama.EmbedModel
		if m == "" {
			s.off = "no embed model configured (ollama.embed_model)"
			return
		}
		c, err := ollama.New(a.cfg.Ollama.Host, nil)
		if err != nil {
			s.off = err.Error()
			return
		}
		s.idx = semantic.NewIndex(m)
		s.emb, err = semantic.NewEmbedder(a.st, s.idx, semantic.EmbedderOptions{
			Model: m, Client: c, ChatOptions: ollama.ChatOptions{NumCtx: a.cfg.Ollama.NumCtx},
			Timeout: a.cfg.Ollama.Timeout, Logger: a.log,
		})
		if err != nil {
			s.off = err.Error()
		}
	})
	return s
}

// load fills the index from the store, once (Embedder.Load).
func (s *searchState) load(ctx context.Context) error { return s.emb.Load(ctx) }

// Embeds reports whether an embed model is configured, so RunEmbedder
// has work to do.
func (a *App) Embeds() bool { return a.semantic().emb != nil }

// RunEmbedder keeps the semantic index current until ctx ends: it loads
// the stored vectors, embeds the messages that have none by the
// configured embed model, then waits for wake (send on it after new mail
// arrives) before looking again. Each pass is reported on progress if it
// is not nil. Without an embed model it returns nil at once. A running
// Session does this itself; a surface without one (an MCP server) calls
// it to keep search by meaning current.
func (a *App) RunEmbedder(ctx context.Context, wake <-chan struct{}, progress chan<- semantic.Progress) error {
	st := a.semantic()
	if st.emb == nil {
		return nil
	}
	if err := st.load(ctx); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	err := st.emb.Run(ctx, wake, progress)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// startEmbedding runs the background embedder until ctx ends, woken by
// s.embedWake after each sync; a failure is reported once per message.
func (s *Session) startEmbedding(ctx context.Context) {
	st := s.app.semantic()
	if st.emb == nil {
		return
	}
	s.embedWake = make(chan struct{}, 1)
	progress := make(chan semantic.Progress, 4)
	s.goRun(func() {
		if err := s.app.RunEmbedder(ctx, s.embedWake, progress); err != nil && ctx.Err() == nil {
			s.send(ctx, event.Failure{Err: err})
		}
	})
	s.goRun(func() {
		told := ""
		for {
			select {
			case <-ctx.Done():
				return
			case p := <-progress:
				if st.onProgress != nil {
					st.onProgress(p)
				}
				if p.Err == nil || p.Err.Error() == told {
					continue
				}
				told = p.Err.Error()
				s.send(ctx, event.Failure{Err: fmt.Errorf("semantic search: %w; search is lexical until it works", p.Err)})
			}
		}
	})
}

// wakeEmbedding tells the embedder that new mail may be waiting.
func (s *Session) wakeEmbedding() {
	if s.embedWake == nil {
		return
	}
	select {
	case s.embedWake <- struct{}{}:
	default:
	}
}

// searchCursor is what SearchResults.Next encodes.
type searchCursor struct {
	Offset int        `json:"o"`
	MaxID  int64      `json:"m"`
	Mode   SearchMode `json:"k"`
	Query  uint64     `json:"q"`
}

// Search answers a search: by meaning and text fused with reciprocal rank
// fusion when an embed model is configured, reachable and has embedded
// mail, else by text alone, saying why. Words are searched both ways;
// a query using the search syntax is searched by text only (the syntax
// says exactly what to match). Hits are messages, best first.
func (a *App) Search(ctx context.Context, q SearchQuery) (SearchResults, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	q.Limit = min(q.Limit, MaxSearchLimit)
	text, since, until, syntax, err := splitQuery(q.Text, q.Since, q.Until)
	if err != nil {
		return SearchResults{}, err
	}
	if text == "" && since.IsZero() && until.IsZero() {
		return SearchResults{}, errors.New("search: empty query: give words, \"a phrase\", or operators like from:alice")
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return SearchResults{}, fmt.Errorf("search: the time range starts (%s) at or after it ends (%s)", since.Format(time.RFC3339), until.Format(time.RFC3339))
	}
	qhash := queryHash(q.Text, q.Account, since, until)
	cur := searchCursor{Query: qhash}
	if q.Cursor != "" {
		if cur, err = decodeCursor(q.Cursor); err != nil || cur.Query != qhash {
			return SearchResults{}, fmt.Errorf("%w: it belongs to another search; start again without it", ErrCursor)
		}
	} else if cur.MaxID, err = a.st.MaxMessageID(ctx); err != nil {
		return SearchResults{}, err
	}

	res := SearchResults{Mode: SearchLexical}
	var qvec []float32
	switch {
	case syntax:
		res.Reason = "the query uses search syntax"
	case text == "":
		res.Reason = "no words to compare"
	default:
		qvec, res.Reason = a.queryVector(ctx, text)
		if qvec != nil {
			res.Mode = SearchHybrid
		}
	}
	if cur.Mode != "" && cur.Mode != res.Mode {
		if cur.Mode == SearchLexical {
			res.Mode, res.Reason, qvec = SearchLexical, "the search started lexical", nil
		} else {
			return SearchResults{}, fmt.Errorf("%w: semantic search is no longer available (%s); start again without the cursor", ErrCursor, res.Reason)
		}
	}
	cur.Mode = res.Mode

	need := cur.Offset + q.Limit
	lexText := text
	if res.Mode == SearchHybrid {
		// Any of the words, ranked by bm25: the vector side carries the
		// meaning, the lexical side rewards the words themselves.
		lexText = strings.Join(strings.Fields(text), " OR ")
	}
	lex, err := a.st.SearchRanked(ctx, store.RankedQuery{Query: lexText, Since: since, Until: until, MaxID: cur.MaxID, Limit: lexicalDepth, IDsOnly: true})
	if err != nil {
		return SearchResults{}, err
	}
	lexIDs := make([]int64, len(lex))
	for i, h := range lex {
		lexIDs[i] = h.ID
	}
	rankings := [][]int64{lexIDs}
	if res.Mode == SearchHybrid {
		nb, err := a.semantic().idx.Nearest(qvec, semantic.Filter{Since: since, Until: until, MaxID: cur.MaxID}, vectorDepth)
		if err != nil {
			return SearchResults{}, fmt.Errorf("search: %w", err)
		}
		rankings = append(rankings, closeHits(nb, lexIDs))
	}
	fused := semantic.Fuse(rankings...)
	if q.Account != "" {
		if fused, err = a.inAccount(ctx, fused, q.Account, need); err != nil {
			return SearchResults{}, err
		}
	}
	if cur.Offset >= len(fused) {
		return res, nil
	}
	page := fused[cur.Offset:min(len(fused), need)]
	ids := make([]int64, len(page))
	for i, f := range page {
		ids[i] = f.ID
	}
	rows, err := a.st.SearchHitsByID(ctx, ids, lexText)
	if err != nil {
		return SearchResults{}, err
	}
	byID := make(map[int64]store.SearchHit, len(rows))
	for _, h := range rows {
		byID[h.ID] = h.SearchHit
	}
	var gone []int64
	for _, f := range page {
		h, ok := byID[f.ID]
		if !ok {
			gone = append(gone, f.ID) // deleted since it was indexed
			continue
		}
		sh := SearchHit{SearchHit: h, Score: f.Score, LexicalRank: f.Ranks[0]}
		if len(f.Ranks) > 1 {
			sh.VectorRank = f.Ranks[1]
		}
		res.Hits = append(res.Hits, sh)
	}
	if len(gone) > 0 && res.Mode == SearchHybrid {
		a.semantic().idx.Delete(gone...)
	}
	if need < len(fused) {
		cur.Offset = need
		res.Next = encodeCursor(cur)
	}
	return res, nil
}

// closeHits is the vector ranking that joins the fusion: the nearest
// messages that also match the words, and those that only the meaning
// finds when they are close enough (semantic.DefaultClose); without the
// cut every search would list vectorDepth messages, most of them
// unrelated. Ranks are positions among the kept hits.
func closeHits(nb semantic.Neighbours, lexIDs []int64) []int64 {
	lexical := make(map[int64]bool, len(lexIDs))
	for _, id := range lexIDs {
		lexical[id] = true
	}
	var ids []int64
	for _, h := range nb.Hits {
		if lexical[h.ID] || semantic.DefaultClose.Keeps(h.Score, nb) {
			ids = append(ids, h.ID)
		}
	}
	return ids
}

// accountChunk is how many fused hits inAccount checks per store query.
const accountChunk = 256

// inAccount keeps the fused hits whose thread has a message in account,
// in order, as far as need+1 of them (enough to know whether another
// page follows). The fused list is the same for every page of a search
// (one snapshot), so cutting the kept list by offset pages it stably.
func (a *App) inAccount(ctx context.Context, fused []semantic.Fused, account string, need int) ([]semantic.Fused, error) {
	var kept []semantic.Fused
	for start := 0; start < len(fused) && len(kept) <= need; start += accountChunk {
		part := fused[start:min(len(fused), start+accountChunk)]
		ids := make([]int64, len(part))
		for i, f := range part {
			ids[i] = f.ID
		}
		in, err := a.st.MessagesInThreadsOf(ctx, ids, account)
		if err != nil {
			return nil, fmt.Errorf("search in account %s: %w", account, err)
		}
		for _, f := range part {
			if in[f.ID] {
				kept = append(kept, f)
			}
		}
	}
	return kept, nil
}

// queryVector embeds a query, or says why it cannot.
func (a *App) queryVector(ctx context.Context, text string) ([]float32, string) {
	s := a.semantic()
	if s.off != "" {
		return nil, s.off
	}
	s.mu.Lock()
	downAt, why := s.downAt, s.downWhy
	s.mu.Unlock()
	if !downAt.IsZero() && a.now().Sub(downAt) < downFor {
		return nil, why
	}
	if err := s.load(ctx); err != nil {
		return nil, err.Error()
	}
	if s.idx.Len() == 0 {
		if err := s.emb.LastErr(); err != nil {
			return nil, "no mail embedded yet: " + err.Error()
		}
		return nil, fmt.Sprintf("no mail embedded yet by %s", s.idx.Model())
	}
	ectx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	v, err := s.emb.EmbedQuery(ectx, text)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "cancelled"
		}
		why := "embed model unavailable: " + err.Error()
		s.mu.Lock()
		s.downAt, s.downWhy = a.now(), why
		s.mu.Unlock()
		a.log.Warn("app: search is lexical", "err", err)
		return nil, why
	}
	s.mu.Lock()
	s.downAt, s.downWhy = time.Time{}, ""
	s.mu.Unlock()
	return v, ""
}

// splitQuery takes after:/before: out of a query into the time range
// (narrowing the one given) and reports whether the rest uses the search
// syntax: field operators, quotes, boolean operators, parentheses or a
// prefix*.
func splitQuery(text string, since, until time.Time) (rest string, s, u time.Time, syntax bool, err error) {
	s, u = since, until
	var words []string
	for _, w := range strings.Fields(text) {
		lw := strings.ToLower(w)
		if op, val, ok := strings.Cut(lw, ":"); ok && (op == "after" || op == "before") {
			d, perr := time.ParseInLocation("2006-01-02", strings.Trim(val, `"`), time.Local)
			if perr != nil {
				return "", s, u, false, fmt.Errorf("search: %s: want a date as YYYY-MM-DD", w)
			}
			if op == "after" && (s.IsZero() || d.After(s)) {
				s = d
			}
			if op == "before" && (u.IsZero() || d.Before(u)) {
				u = d
			}
			continue
		}
		if op, _, ok := strings.Cut(lw, ":"); ok {
			switch op {
			case "from", "to", "subject", "body", "is":
				syntax = true
			}
		}
		if strings.ContainsAny(w, `"()`) || strings.HasSuffix(w, "*") {
			syntax = true
		}
		switch w {
		case "AND", "OR", "NOT", "NEAR":
			syntax = true
		}
		words = append(words, w)
	}
	return strings.Join(words, " "), s, u, syntax, nil
}

func queryHash(text, account string, since, until time.Time) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d", text, account, since.Unix(), until.Unix())
	return h.Sum64()
}

func encodeCursor(c searchCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (searchCursor, error) {
	var c searchCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, err
	}
	if c.Offset < 0 || (c.Mode != SearchHybrid && c.Mode != SearchLexical) {
		return c, errors.New("bad cursor")
	}
	return c, nil
}
