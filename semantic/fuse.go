package semantic

import "sort"

// RRFK is the rank constant of reciprocal rank fusion: the 60 of Cormack,
// Clarke and Büttcher (2009), which keeps one ranking's first place from
// outweighing agreement between rankings.
const RRFK = 60

// Fused is one item of a fused ranking: its summed reciprocal ranks and
// its 1-based rank in each input ranking (0: not in it).
type Fused struct {
	ID    int64
	Score float64
	Ranks []int
}

// Fuse combines rankings (each a list of ids, best first) by reciprocal
// rank fusion: an item scores the sum over the rankings holding it of
// 1/(RRFK + rank). Ties keep the order of the first ranking that holds the
// items, then the second, and so on, so the result is deterministic. An id
// repeated within one ranking counts at its best rank.
func Fuse(rankings ...[]int64) []Fused {
	byID := map[int64]*Fused{}
	var order []int64 // first-seen order: ranking by ranking, rank by rank
	for r, list := range rankings {
		for i, id := range list {
			f := byID[id]
			if f == nil {
				f = &Fused{ID: id, Ranks: make([]int, len(rankings))}
				byID[id] = f
				order = append(order, id)
			}
			if f.Ranks[r] != 0 {
				continue
			}
			f.Ranks[r] = i + 1
			f.Score += 1 / float64(RRFK+i+1)
		}
	}
	out := make([]Fused, len(order))
	for i, id := range order {
		out[i] = *byID[id]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}
