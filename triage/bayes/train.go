package bayes

import (
	"math"
	"sort"
)

// Doc is one labelled training message, already tokenized.
type Doc struct {
	Tokens []string
	Spam   bool
}

// Train builds a model from docs, keeping the topN tokens by information
// gain (document presence vs class). Tokens seen in fewer than minDF
// documents are dropped first.
func Train(docs []Doc, topN, minDF int, source string) *Model {
	type stat struct {
		df    [2]int // documents containing the token: spam, ham
		count [2]int // occurrences
	}
	stats := map[string]*stat{}
	var nSpam, nHam int
	seen := map[string]bool{}
	for _, d := range docs {
		cls := 1
		if d.Spam {
			cls = 0
			nSpam++
		} else {
			nHam++
		}
		clear(seen)
		for _, t := range d.Tokens {
			s := stats[t]
			if s == nil {
				s = &stat{}
				stats[t] = s
			}
			s.count[cls]++
			if !seen[t] {
				seen[t] = true
				s.df[cls]++
			}
		}
	}
	n := float64(nSpam + nHam)
	h := func(p float64) float64 {
		if p <= 0 || p >= 1 {
			return 0
		}
		return -p*math.Log2(p) - (1-p)*math.Log2(1-p)
	}
	hc := h(float64(nSpam) / n)
	type scored struct {
		tok string
		ig  float64
	}
	var all []scored
	for t, s := range stats {
		df := s.df[0] + s.df[1]
		if df < minDF {
			continue
		}
		pt := float64(df) / n
		withSpam := float64(s.df[0]) / float64(df)
		var withoutSpam float64
		if rest := n - float64(df); rest > 0 {
			withoutSpam = (float64(nSpam) - float64(s.df[0])) / rest
		}
		ig := hc - (pt*h(withSpam) + (1-pt)*h(withoutSpam))
		all = append(all, scored{t, ig})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].ig != all[j].ig {
			return all[i].ig > all[j].ig
		}
		return all[i].tok < all[j].tok
	})
	if len(all) > topN {
		all = all[:topN]
	}
	m := &Model{Source: source, SpamDocs: nSpam, HamDocs: nHam, Tokens: make(map[string][2]int, len(all)), Threshold: 0.9}
	for _, sc := range all {
		s := stats[sc.tok]
		m.Tokens[sc.tok] = s.count
		m.SpamTotal += s.count[0]
		m.HamTotal += s.count[1]
	}
	return m
}

// Score holds precision and recall of spam detection on a labelled set.
type Score struct {
	TP, FP, TN, FN int
}

// Precision is TP/(TP+FP).
func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is TP/(TP+FN).
func (s Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Evaluate scores c on docs at its threshold.
func Evaluate(c *Classifier, docs []Doc) Score {
	var s Score
	th := c.Threshold()
	for _, d := range docs {
		spam := c.SpamProbability(d.Tokens) >= th
		switch {
		case spam && d.Spam:
			s.TP++
		case spam && !d.Spam:
			s.FP++
		case !spam && d.Spam:
			s.FN++
		default:
			s.TN++
		}
	}
	return s
}
