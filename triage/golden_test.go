package triage

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"mailsift/mailsrc/demo"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestDemoMailboxDeterministicGolden pins the whole deterministic outcome
// (result, extras, reasons and every signal) of each demo thread, so that
// a refactor of the scanner or the signals cannot change a triage
// unnoticed. Run with -update after an intended change and review the diff.
func TestDemoMailboxDeterministicGolden(t *testing.T) {
	threads := demoThreads(t)
	keys := make([]string, 0, len(threads))
	for k := range threads {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	a := NewAnalyzer(nil)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	for _, k := range keys {
		o := a.Deterministic(threads[k], demo.Principal())
		if err := enc.Encode(struct {
			Thread  string
			Outcome *Outcome
		}{k, o}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("testdata", "demo_deterministic.golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run DeterministicGolden -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		gl, wl := bytes.Split(buf.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("deterministic outcomes differ from %s at line %d:\n got %s\nwant %s", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("deterministic outcomes differ from %s in length: %d lines, want %d", path, len(gl), len(wl))
	}
}
