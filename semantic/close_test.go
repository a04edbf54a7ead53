package semantic

import (
	"math"
	"testing"
	"time"

	"mailsift/store"
)

// neighbours builds Neighbours from similarities (best first) and the
// statistics of the whole mailbox.
func neighbours(mean, std float64, scores ...float32) Neighbours {
	nb := Neighbours{N: 100, Mean: mean, Std: std}
	for i, s := range scores {
		nb.Hits = append(nb.Hits, Scored{ID: int64(i + 1), Score: s})
	}
	return nb
}

func TestCloseKeeps(t *testing.T) {
	c := Close{Margin: 0.5, Floor: 3.5, MinN: 30}
	small := neighbours(0.1, 0.2, 0.5, 0.35, 0.2)
	small.N = 3
	for _, tc := range []struct {
		name  string
		nb    Neighbours
		score float32
		want  bool
	}{
		{"the best, standing out", neighbours(0, 0.05, 0.6, 0.4), 0.6, true},
		{"near the best", neighbours(0, 0.05, 0.6, 0.4), 0.4, true},
		{"under half the best's lift", neighbours(0, 0.05, 0.6, 0.25), 0.25, false},
		{"the best of unrelated mail: not above the floor", neighbours(0, 0.05, 0.15, 0.14), 0.15, false},
		{"a model whose unrelated mail scores 0.4", neighbours(0.4, 0.03, 0.7, 0.6), 0.6, true},
		{"the same, under the floor", neighbours(0.4, 0.03, 0.5, 0.49), 0.49, false},
		{"no spread at all", neighbours(0.3, 0, 0.3), 0.3, false},
		{"a tiny mailbox: the margin alone, kept", small, 0.35, true},
		{"a tiny mailbox: the margin alone, cut", small, 0.2, false},
		{"no hits", Neighbours{}, 0.9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Keeps(tc.score, tc.nb); got != tc.want {
				t.Errorf("Keeps(%.2f, mean %.2f std %.2f best %.2f) = %v, want %v", tc.score, tc.nb.Mean, tc.nb.Std, tc.nb.Hits[0].Score, got, tc.want)
			}
		})
	}
}

// TestCloseIgnoresScale: a model whose similarities are another's shifted
// and scaled keeps the same hits.
func TestCloseIgnoresScale(t *testing.T) {
	scores := []float32{0.62, 0.55, 0.41, 0.30, 0.22, 0.12, 0.05}
	nb := neighbours(0.02, 0.08, scores...)
	shifted := neighbours(0.02*0.5+0.4, 0.08*0.5)
	for _, s := range scores {
		shifted.Hits = append(shifted.Hits, Scored{ID: int64(len(shifted.Hits) + 1), Score: s*0.5 + 0.4})
	}
	kept := 0
	for i, s := range scores {
		a, b := DefaultClose.Keeps(s, nb), DefaultClose.Keeps(shifted.Hits[i].Score, shifted)
		if a != b {
			t.Errorf("similarity %.2f: kept %v, shifted and scaled %v", s, a, b)
		}
		if a {
			kept++
		}
	}
	if kept == 0 || kept == len(scores) {
		t.Errorf("kept %d of %d: the case does not tell the rule apart from all or nothing", kept, len(scores))
	}
}

// TestNearestStatistics: the mean and deviation cover the whole snapshot,
// whatever the time range, and the hits only the range.
func TestNearestStatistics(t *testing.T) {
	x := NewIndex("m")
	vecs := [][]float32{{1, 0}, {0, 1}, {1, 1}, {-1, 0}}
	for i, v := range vecs {
		if err := x.Put(store.Embedding{ID: int64(i + 1), Date: t0.Add(time.Duration(i) * 24 * time.Hour), Vec: v}); err != nil {
			t.Fatal(err)
		}
	}
	nb, err := x.Nearest([]float32{1, 0}, Filter{Since: t0.Add(3 * 24 * time.Hour)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	sims := []float64{1, 0, math.Sqrt(0.5), -1}
	var mean, sq float64
	for _, s := range sims {
		mean += s / 4
		sq += s * s / 4
	}
	std := math.Sqrt(sq - mean*mean)
	if nb.N != 4 || math.Abs(nb.Mean-mean) > 1e-6 || math.Abs(nb.Std-std) > 1e-6 {
		t.Errorf("Nearest stats = n %d mean %.4f std %.4f, want 4 %.4f %.4f", nb.N, nb.Mean, nb.Std, mean, std)
	}
	if len(nb.Hits) != 1 || nb.Hits[0].ID != 4 {
		t.Errorf("hits in the range = %+v, want message 4 only", nb.Hits)
	}
	nb, _ = x.Nearest([]float32{1, 0}, Filter{MaxID: 2}, 10)
	if nb.N != 2 || len(nb.Hits) != 2 {
		t.Errorf("up to id 2: n %d hits %d, want 2 and 2", nb.N, len(nb.Hits))
	}
}
