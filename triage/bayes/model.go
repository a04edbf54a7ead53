package bayes

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// Model is a trained multinomial naive Bayes model: per-token counts in
// spam and ham, over a vocabulary cut to the most informative tokens.
type Model struct {
	// Source says what the model was trained on, for doctor and reports.
	Source string `json:"source"`
	// SpamDocs and HamDocs count training messages per class.
	SpamDocs int `json:"spam_docs"`
	HamDocs  int `json:"ham_docs"`
	// SpamTotal and HamTotal count token occurrences per class (kept
	// vocabulary only).
	SpamTotal int `json:"spam_total"`
	HamTotal  int `json:"ham_total"`
	// Tokens maps a token to its [spam, ham] occurrence counts.
	Tokens map[string][2]int `json:"tokens"`
	// Threshold is the spam probability at or above which a message is spam.
	Threshold float64 `json:"threshold"`
	// Alpha is the additive (Laplace / Lidstone) smoothing of the token
	// counts; 0 means DefaultAlpha.
	Alpha float64 `json:"alpha,omitempty"`
}

// smoothing returns m.Alpha, or DefaultAlpha when it is not set.
func (m *Model) smoothing() float64 {
	if m.Alpha > 0 {
		return m.Alpha
	}
	return DefaultAlpha
}

// Read decodes a gzipped JSON model.
func Read(r io.Reader) (*Model, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("bayes: read model: %w", err)
	}
	defer zr.Close()
	var m Model
	if err := json.NewDecoder(zr).Decode(&m); err != nil {
		return nil, fmt.Errorf("bayes: decode model: %w", err)
	}
	if m.SpamDocs == 0 || m.HamDocs == 0 || len(m.Tokens) == 0 {
		return nil, errors.New("bayes: model is empty")
	}
	if m.Threshold <= 0 || m.Threshold >= 1 {
		m.Threshold = 0.9
	}
	return &m, nil
}

// Write encodes the model as gzipped JSON.
func (m *Model) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(zw).Encode(m); err != nil {
		return fmt.Errorf("bayes: encode model: %w", err)
	}
	return zw.Close()
}

// UserCounts are the user's own spam / not-spam marks, added on top of
// the shipped model.
type UserCounts struct {
	SpamDocs  int               `json:"spam_docs"`
	HamDocs   int               `json:"ham_docs"`
	SpamTotal int               `json:"spam_total"`
	HamTotal  int               `json:"ham_total"`
	Tokens    map[string][2]int `json:"tokens"`
}

// DefaultAlpha is the smoothing of a model that does not set Alpha:
// Laplace's add-one.
const DefaultAlpha = 1.0

// Classifier scores messages with a base model plus the user's marks.
// It is safe for concurrent use.
type Classifier struct {
	base *Model
	mu   sync.RWMutex
	user *UserCounts
	// weights caches each base token's log-likelihood ratio while the
	// user's totals are unchanged (rebuilt by SetUser).
	weights map[string]float64
	// table holds the same weights for hashed lookups (Table).
	table *Table
	prior float64
}

// NewClassifier returns a classifier over base with the user's marks
// (nil for none).
func NewClassifier(base *Model, user *UserCounts) *Classifier {
	if user == nil {
		user = &UserCounts{}
	}
	if user.Tokens == nil {
		user.Tokens = map[string][2]int{}
	}
	c := &Classifier{base: base, user: user}
	c.rebuild()
	return c
}

// SetUser replaces the user's marks the classifier adds to its base model
// (nil for none) and recomputes the weights: the way to take a mark back
// is to set the counts of the marks that remain. Tables returned by Table
// before keep the old weights.
func (c *Classifier) SetUser(user *UserCounts) {
	if user == nil {
		user = &UserCounts{}
	}
	if user.Tokens == nil {
		user.Tokens = map[string][2]int{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.user = user
	c.rebuild()
}

// Empty reports whether u holds no marks.
func (u *UserCounts) Empty() bool {
	return u == nil || u.SpamDocs == 0 && u.HamDocs == 0 && u.SpamTotal == 0 && u.HamTotal == 0 && len(u.Tokens) == 0
}

// defaultWeights are the weights of the shipped model without user marks,
// computed once.
var defaultWeights = sync.OnceValue(func() sharedWeights {
	m, err := Default()
	if err != nil {
		return sharedWeights{}
	}
	c := &Classifier{base: m, user: &UserCounts{Tokens: map[string][2]int{}}}
	c.rebuildAll()
	return sharedWeights{c.prior, c.weights, c.table}
})

// sharedWeights are the read-only weights classifiers over the shipped
// model share.
type sharedWeights struct {
	prior   float64
	weights map[string]float64
	table   *Table
}

// rebuild recomputes the cached weights; c.mu must be held for writing
// (or c not yet shared).
func (c *Classifier) rebuild() {
	b, u := c.base, c.user
	if u.Empty() {
		if m, err := Default(); err == nil && m == b {
			if d := defaultWeights(); d.table != nil {
				// The shipped model without marks: every classifier shares
				// one read-only weight map (rebuild never modifies a map
				// in place).
				c.prior, c.weights, c.table = d.prior, d.weights, d.table
				return
			}
		}
	}
	c.rebuildAll()
}

// rebuildAll computes the weights of the base model and the user's marks.
func (c *Classifier) rebuildAll() {
	b, u := c.base, c.user
	alpha := b.smoothing()
	vocab := float64(len(b.Tokens) + len(u.Tokens))
	spamDen := math.Log(float64(b.SpamTotal+u.SpamTotal) + alpha*vocab)
	hamDen := math.Log(float64(b.HamTotal+u.HamTotal) + alpha*vocab)
	c.prior = math.Log(float64(b.SpamDocs+u.SpamDocs)) - math.Log(float64(b.HamDocs+u.HamDocs))
	w := make(map[string]float64, len(b.Tokens)+len(u.Tokens))
	add := func(t string, cnt [2]int) {
		s := float64(cnt[0]) + alpha
		h := float64(cnt[1]) + alpha
		w[t] = (math.Log(s) - spamDen) - (math.Log(h) - hamDen)
	}
	for t, bc := range b.Tokens {
		uc := u.Tokens[t]
		add(t, [2]int{bc[0] + uc[0], bc[1] + uc[1]})
	}
	for t, uc := range u.Tokens {
		if _, ok := b.Tokens[t]; !ok {
			add(t, uc)
		}
	}
	c.weights = w
	c.table = NewTable(w)
}

// Threshold is the spam probability at or above which a message is spam.
func (c *Classifier) Threshold() float64 { return c.base.Threshold }

// SpamProbability returns P(spam | tokens) in [0,1]. Tokens outside the
// vocabulary (base or user) are ignored.
func (c *Classifier) SpamProbability(tokens []string) float64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	score := c.prior
	for _, t := range tokens {
		score += c.weights[t] // 0 for tokens outside the vocabulary
	}
	// logistic of the log-odds, guarded against overflow
	if score > 40 {
		return 1
	}
	if score < -40 {
		return 0
	}
	return 1 / (1 + math.Exp(-score))
}

// Coverage returns the share of tokens the classifier has a weight for
// (1 for no tokens): how much of a message the score rests on.
func (c *Classifier) Coverage(tokens []string) float64 {
	if len(tokens) == 0 {
		return 1
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	known := 0
	for _, t := range tokens {
		if _, ok := c.weights[t]; ok {
			known++
		}
	}
	return float64(known) / float64(len(tokens))
}

// Table returns the current prior log-odds and the per-token weights as
// a Table, for streaming scoring with EachToken: the prior plus every
// token's weight, summed in the order of Tokenize, is the log-odds that
// Probability turns into what SpamProbability returns. The table is never
// modified after it is returned: SetUser builds a new one.
func (c *Classifier) Table() (prior float64, t *Table) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.prior, c.table
}

// Probability turns a summed log-odds score into P(spam).
func Probability(score float64) float64 {
	if score > 40 {
		return 1
	}
	if score < -40 {
		return 0
	}
	return 1 / (1 + math.Exp(-score))
}

// Marked reports whether the classifier holds user marks (SetUser).
func (c *Classifier) Marked() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return !c.user.Empty()
}

// Base returns the shipped model (read-only).
func (c *Classifier) Base() *Model { return c.base }
