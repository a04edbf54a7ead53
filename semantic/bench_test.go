package semantic

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"mailsift/store"
)

// BenchmarkIndexSearch times one brute-force search (top 100 by cosine,
// no filter) over 6k and 100k random 768-dimension vectors, the size of
// nomic-embed-text's.
func BenchmarkIndexSearch(b *testing.B) {
	for _, n := range []int{6000, 100000} {
		b.Run(map[int]string{6000: "6k", 100000: "100k"}[n], func(b *testing.B) {
			const dim = 768
			r := rand.New(rand.NewPCG(1, 2))
			x := NewIndex("bench")
			day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			batch := make([]store.Embedding, 0, 1000)
			for i := 0; i < n; i++ {
				v := make([]float32, dim)
				for j := range v {
					v[j] = r.Float32()*2 - 1
				}
				batch = append(batch, store.Embedding{ID: int64(i + 1), Date: day.Add(time.Duration(i) * time.Hour), Vec: v})
				if len(batch) == cap(batch) {
					if err := x.Put(batch...); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
			}
			if err := x.Put(batch...); err != nil {
				b.Fatal(err)
			}
			q := make([]float32, dim)
			for j := range q {
				q[j] = r.Float32()*2 - 1
			}
			durs := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				if _, err := x.Search(q, Filter{}, 100); err != nil {
					b.Fatal(err)
				}
				durs = append(durs, time.Since(t))
			}
			sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
			b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(durs[(len(durs)-1)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}
