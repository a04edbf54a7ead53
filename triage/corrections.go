package triage

// The user's corrections live in a small append-only JSON-lines file in
// the data directory, beside the store and not inside it: deleting or
// rebuilding the store (a new schema, a fresh sync) keeps what the user
// taught. Each line is a correction or an undo of one.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// CorrectionsFile is the corrections file's name in the data directory.
const CorrectionsFile = "corrections.jsonl"

// correctionLine is one line of the file: a correction, or an undo of the
// correction with id Undo.
type correctionLine struct {
	Correction
	Undo string `json:"undo,omitempty"`
}

// CorrectionLog is the corrections file. It is safe for concurrent use
// within a process.
type CorrectionLog struct {
	path string
	mu   sync.Mutex
}

// OpenCorrections returns the log at path (the file is created by the
// first Add).
func OpenCorrections(path string) *CorrectionLog { return &CorrectionLog{path: path} }

// Path is the file's path.
func (l *CorrectionLog) Path() string { return l.path }

// Load returns the live corrections, oldest first: undone ones dropped,
// and of several corrections of one thread only the latest kept (a
// thread moved twice counts once, where it went last). A line that does
// not parse is skipped (a hand edit must not lose the rest).
func (l *CorrectionLog) Load() ([]Correction, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("corrections: %w", err)
	}
	var all []Correction
	undone := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var cl correctionLine
		if json.Unmarshal(sc.Bytes(), &cl) != nil {
			continue
		}
		if cl.Undo != "" {
			undone[cl.Undo] = true
			continue
		}
		if cl.ID != "" {
			all = append(all, cl.Correction)
		}
	}
	latest := map[string]int{} // thread -> index of its latest live correction
	for i, c := range all {
		if !undone[c.ID] {
			latest[c.Thread] = i
		}
	}
	var out []Correction
	for i, c := range all {
		if !undone[c.ID] && latest[c.Thread] == i {
			out = append(out, c)
		}
	}
	return out, nil
}

// Add appends c with a new id (and At, when zero) and returns it.
func (l *CorrectionLog) Add(c Correction) (Correction, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return c, fmt.Errorf("corrections: id: %w", err)
	}
	c.ID = hex.EncodeToString(b[:])
	if c.At.IsZero() {
		c.At = time.Now()
	}
	return c, l.append(correctionLine{Correction: c})
}

// Undo appends an undo of the correction with id.
func (l *CorrectionLog) Undo(id string) error {
	return l.append(correctionLine{Undo: id, Correction: Correction{At: time.Now()}})
}

func (l *CorrectionLog) append(cl correctionLine) error {
	line, err := json.Marshal(cl)
	if err != nil {
		return fmt.Errorf("corrections: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("corrections: %w", err)
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("corrections: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("corrections: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("corrections: %w", err)
	}
	return f.Close()
}
