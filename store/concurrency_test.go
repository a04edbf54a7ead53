package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
)

func TestConcurrentReadersWhileWriting(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	const batches, per = 20, 10
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := s.ListThreads(ctx, SectionUntriaged, 0, 50); err != nil {
					errs <- err
					return
				}
				if _, err := s.SectionCounts(ctx); err != nil {
					errs <- err
					return
				}
				if _, err := s.Search(ctx, "status", 10); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// A second writer path at the same time: triage saves on threads that exist.
	for b := 0; b < batches; b++ {
		var msgs []*model.Message
		for i := 0; i < per; i++ {
			n := b*per + i
			opts := []msgOpt{at(time.Duration(n) * time.Minute), body(fmt.Sprintf("status update %d", n))}
			if n%2 == 1 {
				opts = append(opts, inReplyTo(fmt.Sprintf("c%d@x", n-1)))
			}
			msgs = append(msgs, mkMsg(fmt.Sprintf("c%d@x", n), fmt.Sprintf("Topic %d", n/2), opts...))
		}
		put(t, s, msgs...)
		ids, err := s.ThreadsNeedingTriage(ctx, "k", 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if err := s.SaveTriage(ctx, TriageRecord{ThreadID: id, CacheKey: "k",
				Result: contract.Result{Category: contract.CategoryInformational}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("reader: %v", err)
	}
	checkSectionCounts(t, s)
	counts, err := s.SectionCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != batches*per/2 {
		t.Fatalf("threads = %d, want %d", total, batches*per/2)
	}
	if counts[SectionInformational] != batches {
		t.Fatalf("informational = %d, want %d", counts[SectionInformational], batches)
	}
}
