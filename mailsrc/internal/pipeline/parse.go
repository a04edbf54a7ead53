package pipeline

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"mailsift/model"
)

// Map applies f to every item on up to workers goroutines and returns
// the results in the order of items. It returns once every goroutine has
// ended.
func Map[T, R any](workers int, items []T, f func(T) R) []R {
	out := make([]R, len(items))
	workers = min(workers, len(items))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = f(items[i])
			}
		}()
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Stream applies parse to every item on workers goroutines and calls
// emit, from one goroutine, with each result as soon as it is ready (in
// no particular order). The first error emit returns, or ctx ending,
// stops every goroutine; Stream returns that error once all have ended.
func Stream[T, R any](ctx context.Context, workers int, items []T, parse func(T) R, emit func(R) error) error {
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan T)
	results := make(chan R, workers*4)
	g.Go(func() error {
		defer close(jobs)
		for _, it := range items {
			select {
			case jobs <- it:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	var parsers sync.WaitGroup
	for range workers {
		parsers.Add(1)
		g.Go(func() error {
			defer parsers.Done()
			for it := range jobs {
				r := parse(it)
				select {
				case results <- r:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		parsers.Wait()
		close(results)
		return nil
	})
	g.Go(func() error {
		for r := range results {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	})
	return g.Wait()
}

// Ahead parses one batch of a mailbox's messages while the caller
// fetches the next, and hands each parsed batch to a Writer in order.
// Call Wait before dropping it (a parse may still run after an error).
type Ahead struct {
	w       *Writer
	part    Part
	parsing chan []*model.Message // the previous batch, being parsed
}

// NewAhead returns an Ahead handing mailbox's messages to w as progress
// of phase (total: the phase's total for the mailbox, 0 if unknown).
func NewAhead(w *Writer, mailbox, phase string, total int) *Ahead {
	return &Ahead{w: w, part: Part{Mailbox: mailbox, Phase: phase, Total: total}}
}

// Push hands the batch being parsed to the writer and starts parse on
// its own goroutine.
func (a *Ahead) Push(parse func() []*model.Message) error {
	if err := a.Flush(); err != nil {
		return err
	}
	a.parsing = make(chan []*model.Message, 1)
	go func(ch chan<- []*model.Message) { ch <- parse() }(a.parsing)
	return nil
}

// Flush hands the batch being parsed, if any, to the writer, and
// returns the writer's first error.
func (a *Ahead) Flush() error {
	if a.parsing == nil {
		return a.w.Err()
	}
	msgs := <-a.parsing
	a.parsing = nil
	part := a.part
	part.N = len(msgs)
	return a.w.Put(msgs, part)
}

// Wait lets a parse still running end (after an error).
func (a *Ahead) Wait() {
	if a.parsing != nil {
		<-a.parsing
		a.parsing = nil
	}
}
