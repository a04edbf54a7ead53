package bayes

import (
	"reflect"
	"testing"
)

// TestDefaultWeightsShared checks that classifiers over the shipped model
// share the precomputed weights, that they equal a fresh computation, and
// that one classifier's marks do not leak into another.
func TestDefaultWeightsShared(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Skip(err)
	}
	fresh := &Classifier{base: m, user: &UserCounts{Tokens: map[string][2]int{}}}
	fresh.rebuild()
	c1, c2 := NewClassifier(m, nil), NewClassifier(m, &UserCounts{})
	for _, c := range []*Classifier{c1, c2} {
		if c.prior != fresh.prior || !reflect.DeepEqual(c.weights, fresh.weights) {
			t.Fatal("shared default weights differ from a fresh rebuild")
		}
	}
	toks := Tokenize("Meeting notes", "hello team, the notes from today's meeting are attached", "example.com")
	p0 := c2.SpamProbability(toks)
	for range 5 {
		c1.Learn(toks, true)
	}
	if got := c1.SpamProbability(toks); got <= p0 {
		t.Errorf("learning spam did not raise the score: %v -> %v", p0, got)
	}
	if got := c2.SpamProbability(toks); got != p0 {
		t.Errorf("another classifier's marks changed this one: %v -> %v", p0, got)
	}
	if got := NewClassifier(m, nil).SpamProbability(toks); got != p0 {
		t.Errorf("a new classifier sees earlier marks: %v -> %v", p0, got)
	}
}
