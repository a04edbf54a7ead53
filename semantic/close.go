package semantic

// Close decides which of a query's nearest messages are close enough in
// meaning to be listed when the words themselves do not match them.
// Every message has a nearest neighbour, so the nearest k are not all
// related; and what cosine similarity means depends on the model (one
// model's unrelated mail scores 0.4, another's 0), so the rule compares a
// hit with the messages searched rather than with a fixed number: a hit
// counts by how far it rises above their mean similarity. A rule of that
// form does not change when a model's similarities are shifted or scaled.
type Close struct {
	// Margin: a hit is kept when it rises above the mean at least this
	// fraction of what the best hit does (1 keeps only hits as close as
	// the best, 0 any hit above the mean).
	Margin float64
	// Floor: a hit is kept only when it rises above the mean by at least
	// this many standard deviations of the similarities, so that when
	// nothing is about the query the best of the unrelated is not kept
	// for being the best. It applies from MinN messages on: in a smaller
	// mailbox no hit can stand that far out (in n samples none lies more
	// than (n−1)/√n deviations from the mean), so there the margin alone
	// decides.
	Floor float64
	// MinN is the fewest messages whose similarities say what is typical.
	MinN int
}

// DefaultClose is the rule search uses, chosen by measurement on the
// demo mailbox and the SpamAssassin corpus (README, "Search and plain
// language"; internal/app TestMeasureVectorCut).
var DefaultClose = Close{Margin: 0.5, Floor: 3.5, MinN: 30}

// Keeps reports whether a hit of similarity score among the neighbours
// nb (their Hits best first, with the statistics of everything searched)
// is close enough to keep.
func (c Close) Keeps(score float32, nb Neighbours) bool {
	if len(nb.Hits) == 0 || nb.Std <= 0 {
		return false
	}
	lift := float64(score) - nb.Mean
	best := float64(nb.Hits[0].Score) - nb.Mean
	if lift < c.Margin*best {
		return false
	}
	return nb.N < c.MinN || lift >= c.Floor*nb.Std
}
