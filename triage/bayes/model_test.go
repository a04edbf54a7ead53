package bayes

import (
	"bytes"
	"math"
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
	fresh.rebuildAll()
	c1, c2 := NewClassifier(m, nil), NewClassifier(m, &UserCounts{})
	for _, c := range []*Classifier{c1, c2} {
		if c.prior != fresh.prior || !reflect.DeepEqual(c.weights, fresh.weights) {
			t.Fatal("shared default weights differ from a fresh rebuild")
		}
	}
	toks := Tokenize("Meeting notes", "hello team, the notes from today's meeting are attached", "example.com")
	p0 := c2.SpamProbability(toks)
	u := &UserCounts{SpamDocs: 5, SpamTotal: 5 * len(toks), Tokens: map[string][2]int{}}
	for _, tok := range toks {
		v := u.Tokens[tok]
		v[0] += 5
		u.Tokens[tok] = v
	}
	_, shared := c1.Table()
	c1.SetUser(u)
	if got := c1.SpamProbability(toks); got <= p0 {
		t.Errorf("learning spam did not raise the score: %v -> %v", p0, got)
	}
	if _, tab := c1.Table(); tab == shared {
		t.Error("a classifier with marks still scores with the shared table")
	}
	if got := c2.SpamProbability(toks); got != p0 {
		t.Errorf("another classifier's marks changed this one: %v -> %v", p0, got)
	}
	if got := NewClassifier(m, nil).SpamProbability(toks); got != p0 {
		t.Errorf("a new classifier sees earlier marks: %v -> %v", p0, got)
	}
	// Taking the marks back returns to the shared shipped weights.
	c1.SetUser(nil)
	if _, tab := c1.Table(); tab != shared || c1.SpamProbability(toks) != p0 {
		t.Error("after SetUser(nil) the classifier does not score with the shipped weights")
	}
}

// TestAlpha checks that a model's smoothing is what its weights use, that
// an unset Alpha means Laplace's add-one, and that Write and Read keep it.
func TestAlpha(t *testing.T) {
	m := &Model{SpamDocs: 1, HamDocs: 1, SpamTotal: 1, HamTotal: 2, Threshold: 0.9,
		Tokens: map[string][2]int{"offer": {1, 0}, "patch": {0, 2}}}
	// Token "offer": log((1+a)/(1+2a)) - log(a/(2+2a)).
	want := func(a float64) float64 {
		return (math.Log(1+a) - math.Log(1+2*a)) - (math.Log(a) - math.Log(2+2*a))
	}
	for _, a := range []float64{0, 1, 0.5} {
		m.Alpha = a
		c := NewClassifier(m, nil)
		wa := a
		if a == 0 {
			wa = DefaultAlpha
		}
		if got := c.weights["offer"]; math.Abs(got-want(wa)) > 1e-12 {
			t.Errorf("alpha %v: weight of offer %v, want %v", a, got, want(wa))
		}
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.Alpha != 0.5 {
		t.Errorf("alpha after Write and Read: %v, want 0.5", r.Alpha)
	}
}
