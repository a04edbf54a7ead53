package ui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"mailsift/internal/app/event"
	"mailsift/model/contract"
	"mailsift/store"
)

// TestLocateMovedThreadDeepInSection checks that the cursor follows a
// thread that triage moves into the middle of a long section, found by
// the binary search on the section order.
func TestLocateMovedThreadDeepInSection(t *testing.T) {
	var msgs []fx
	triage := map[string]store.TriageRecord{}
	for i := range 700 {
		id := fmt.Sprintf("m%d@x", i)
		// Same timestamp for pairs, so the id tie-break matters too.
		msgs = append(msgs, fx{id: id, subject: fmt.Sprintf("subject %d", i), body: "b", from: me, ago: time.Duration(i/2) * time.Minute})
		if i != 351 {
			triage[id] = store.TriageRecord{Source: "ollama", Model: "m", Result: contract.Result{Category: contract.CategoryActionable, Summary: "s"}}
		}
	}
	s := newFixtureStore(t, msgs, triage)
	d := newDriver(t, Options{Store: s}, 100, 30)
	d.keys("G") // the one untriaged thread
	if d.current() != "subject 351" || d.currentSection() != "Not yet triaged" {
		t.Fatalf("cursor on %q in %q", d.current(), d.currentSection())
	}
	saveTriage(t, s, "m351@x", store.TriageRecord{Source: "ollama", Model: "m", Result: contract.Result{Category: contract.CategoryActionable, Summary: "s"}})
	d.send(event.ThreadsChanged{})
	if d.current() != "subject 351" || d.currentSection() != "Actionable" {
		t.Fatalf("after triage cursor on %q in %q, want subject 351 in Actionable", d.current(), d.currentSection())
	}
	// The index matches the store's order.
	rows, err := s.ListThreads(context.Background(), store.SectionActionable, d.m.inbox.cursorIdx, 1)
	if err != nil || len(rows) != 1 || rows[0].Subject != "subject 351" {
		t.Fatalf("cursor index %d holds %+v", d.m.inbox.cursorIdx, rows)
	}
	if d.m.inbox.cursorIdx < 300 {
		t.Errorf("cursor index %d: expected deep in the section", d.m.inbox.cursorIdx)
	}
}
