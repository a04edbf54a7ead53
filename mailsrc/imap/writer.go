package imap

import (
	"context"
	"fmt"
	"time"

	"mailsift/mailsrc"
	"mailsift/mailsrc/internal/pipeline"
	"mailsift/model"
)

// Writer batching: a writer stores everything that arrived while it
// stored the previous batch (group commit), so SQLite and the connection
// work at the same time and transactions grow when SQLite is the slower
// side. A batch is stored once minBatch messages wait, or the oldest has
// waited storeDelay (a slow link still shows mail soon). At most
// maxQueued messages (or maxQueuedBytes of raw mail) wait besides the
// batch being stored; then Put blocks, and a queue full by bytes is
// handed over at once.
const (
	minBatch       = 100
	maxQueued      = 1000
	maxQueuedBytes = 64 << 20
	storeDelay     = 300 * time.Millisecond
)

// startWriter starts the writer of one phase of a sync, for the whole
// account: it stores messages from its own goroutine, so that the
// connection keeps fetching while SQLite writes. stage ("new mail" or
// "bodies") names it in errors; progress is reported per mailbox and
// phase. The caller stops it.
func (s *Source) startWriter(ctx context.Context, sink mailsrc.Sink, stage string, progress func(mailsrc.Progress)) *pipeline.Writer {
	return pipeline.Start(ctx, pipeline.Config{
		Limits: pipeline.Limits{
			MinBatch:       minBatch,
			MaxQueued:      maxQueued,
			MaxQueuedBytes: maxQueuedBytes,
			Delay:          storeDelay,
		},
		Store: sink.PutMessages,
		Bytes: func(m *model.Message) int { return len(m.Raw) },
		StoreError: func(msgs []*model.Message, err error) error {
			return fmt.Errorf("imap: store %s of %q: %w", stage, msgs[0].Loc.Mailbox, err)
		},
		Progress: progress,
		Account:  s.account,
		Log:      s.log,
		Stage:    stage,
	})
}

// put hands messages of mailbox to w, counted as progress of phase
// (total: the phase's total for the mailbox, 0 if unknown).
func put(w *pipeline.Writer, mailbox, phase string, total int, msgs []*model.Message) error {
	return w.Put(msgs, pipeline.Part{Mailbox: mailbox, Phase: phase, N: len(msgs), Total: total})
}
