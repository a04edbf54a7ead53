// Package semantic holds mailsift's semantic index: one embedding vector
// per message, made by the configured Ollama embed model, searched by
// cosine similarity, and fused with the lexical (FTS5) ranking by
// reciprocal rank fusion. The vectors live in the store (store.Embedding);
// this package keeps them in memory for search (Index), keeps them current
// in the background (Embedder) and fuses rankings (Fuse).
//
// At one person's scale a brute-force scan over float32 vectors is fast
// enough (see BENCHMARKS.md: a few milliseconds for 6,000 messages), so
// there is no approximate index to build or keep in step.
package semantic

import (
	"container/heap"
	"fmt"
	"math"
	"sync"
	"time"

	"mailsift/store"
)

// Index is the in-memory copy of one model's vectors, safe for concurrent
// use. Vectors are normalised when added, so similarity is a dot product.
type Index struct {
	mu    sync.RWMutex
	model string
	dim   int
	ids   []int64
	dates []int64 // unix seconds, 0 = unknown
	vecs  []float32
	pos   map[int64]int
}

// NewIndex returns an empty index for model's vectors.
func NewIndex(model string) *Index {
	return &Index{model: model, pos: map[int64]int{}}
}

// Model returns the embed model the index holds vectors of.
func (x *Index) Model() string { return x.model }

// Len returns the number of vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// Put adds or replaces message vectors. All vectors of an index have the
// same length: the first one sets it, and a vector of another length is an
// error (the model changed without the index being rebuilt).
func (x *Index) Put(embs ...store.Embedding) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range embs {
		if len(e.Vec) == 0 {
			return fmt.Errorf("semantic: empty vector for message %d", e.ID)
		}
		if x.dim == 0 {
			x.dim = len(e.Vec)
		}
		if len(e.Vec) != x.dim {
			return fmt.Errorf("semantic: vector of %d dimensions for message %d, the index holds %d", len(e.Vec), e.ID, x.dim)
		}
		var date int64
		if !e.Date.IsZero() {
			date = e.Date.Unix()
		}
		i, ok := x.pos[e.ID]
		if !ok {
			i = len(x.ids)
			x.pos[e.ID] = i
			x.ids = append(x.ids, e.ID)
			x.dates = append(x.dates, date)
			x.vecs = append(x.vecs, make([]float32, x.dim)...)
		}
		x.dates[i] = date
		normalise(x.vecs[i*x.dim:(i+1)*x.dim], e.Vec)
	}
	return nil
}

// Delete removes the vectors of messages that are gone (the store drops
// their rows with the message); unknown ids are ignored.
func (x *Index) Delete(ids ...int64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, id := range ids {
		i, ok := x.pos[id]
		if !ok {
			continue
		}
		last := len(x.ids) - 1
		if i != last {
			x.ids[i], x.dates[i] = x.ids[last], x.dates[last]
			copy(x.vecs[i*x.dim:(i+1)*x.dim], x.vecs[last*x.dim:])
			x.pos[x.ids[i]] = i
		}
		x.ids, x.dates, x.vecs = x.ids[:last], x.dates[:last], x.vecs[:last*x.dim]
		delete(x.pos, id)
	}
}

// normalise writes v scaled to unit length into dst.
func normalise(dst, v []float32) {
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	inv := float32(1)
	if n > 0 {
		inv = float32(1 / math.Sqrt(n))
	}
	for i, f := range v {
		dst[i] = f * inv
	}
}

// Scored is a message and its similarity to a query.
type Scored struct {
	ID    int64
	Score float32
}

// Filter restricts a search: Since <= date < Until (zero: no bound) and,
// when MaxID is positive, messages stored up to that snapshot.
type Filter struct {
	Since, Until time.Time
	MaxID        int64
}

// Search returns the k messages most similar to q (by cosine), best
// first, among those the filter admits.
func (x *Index) Search(q []float32, f Filter, k int) ([]Scored, error) {
	n, err := x.Nearest(q, f, k)
	return n.Hits, err
}

// Neighbours are a query's nearest messages and how similar the query is
// to the messages searched as a whole, which says how far the nearest
// stand out (see Close).
type Neighbours struct {
	// Hits are the nearest messages, best first.
	Hits []Scored
	// N is how many messages up to the filter's MaxID there are, whatever
	// its time range; Mean and Std are the mean and standard deviation of
	// their similarity to the query. A narrow time range is so still
	// compared with the whole mailbox.
	N         int
	Mean, Std float64
}

// Nearest is Search with the similarity statistics of every message the
// filter admits.
func (x *Index) Nearest(q []float32, f Filter, k int) (Neighbours, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if k <= 0 || len(x.ids) == 0 {
		return Neighbours{}, nil
	}
	if len(q) != x.dim {
		return Neighbours{}, fmt.Errorf("semantic: query vector of %d dimensions, the index holds %d (model %s)", len(q), x.dim, x.model)
	}
	qn := make([]float32, len(q))
	normalise(qn, q)
	var lo, hi int64 = math.MinInt64, math.MaxInt64
	if !f.Since.IsZero() {
		lo = f.Since.Unix()
	}
	if !f.Until.IsZero() {
		hi = f.Until.Unix()
	}
	h := make(topK, 0, k)
	dim := x.dim
	var n int
	var sum, sumSq float64
	for i, id := range x.ids {
		if f.MaxID > 0 && id > f.MaxID {
			continue
		}
		s := dot(qn, x.vecs[i*dim:(i+1)*dim])
		n++
		sum += float64(s)
		sumSq += float64(s) * float64(s)
		if d := x.dates[i]; d < lo || d >= hi {
			continue
		}
		if len(h) < k {
			heap.Push(&h, Scored{ID: id, Score: s})
		} else if s > h[0].Score {
			h[0] = Scored{ID: id, Score: s}
			heap.Fix(&h, 0)
		}
	}
	out := Neighbours{Hits: make([]Scored, len(h)), N: n}
	for i := len(h) - 1; i >= 0; i-- {
		out.Hits[i] = heap.Pop(&h).(Scored)
	}
	if n > 0 {
		out.Mean = sum / float64(n)
		out.Std = math.Sqrt(max(0, sumSq/float64(n)-out.Mean*out.Mean))
	}
	return out, nil
}

// dot is the dot product of two vectors of the same length, four lanes at
// a time.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// topK is a min-heap of the best scores so far (ties: the lower id is
// the better, so results do not depend on insertion order).
type topK []Scored

func (h topK) Len() int { return len(h) }
func (h topK) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].ID > h[j].ID
}
func (h topK) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(v any)   { *h = append(*h, v.(Scored)) }
func (h *topK) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
