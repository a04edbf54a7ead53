package bayes

import (
	"bytes"
	"embed"
	"errors"
	"sync"
)

//go:embed data
var shipped embed.FS

// ErrNoModel is returned by Default when the binary was built without a
// trained model (see data/README.md).
var ErrNoModel = errors.New("bayes: no shipped spam model (run go run ./triage/bayes/train)")

// defaultModel decodes the shipped model once; the result is read-only.
var defaultModel = sync.OnceValues(func() (*Model, error) {
	b, err := shipped.ReadFile("data/model.json.gz")
	if err != nil {
		return nil, ErrNoModel
	}
	return Read(bytes.NewReader(b))
})

// Default returns the shipped model. Callers must not modify it.
func Default() (*Model, error) { return defaultModel() }
