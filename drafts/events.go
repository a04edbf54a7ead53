package drafts

import (
	"context"
	"time"

	"mailsift/store"
)

// Event reports an outbox item's state after the engine worked on it. The
// engine sends one on Options.Events after each change it makes (and after
// filing a sent message in Sent, when the state stays sent), so surfaces
// follow sends without polling the outbox.
type Event struct {
	ID        int64
	State     store.OutboxState
	MessageID string
	// Err is the last error of a failed or unknown item.
	Err string
	// NextAttempt is when a failed item is retried (zero: it is not).
	NextAttempt time.Time
}

// publish reads outbox item id and reports its state on Options.Events.
func (e *Engine) publish(ctx context.Context, id int64) {
	if e.opt.Events == nil {
		return
	}
	it, err := e.st.OutboxItem(ctx, id)
	if err != nil {
		e.log.Warn("drafts: read outbox item for its event", "outbox", id, "err", err)
		return
	}
	e.publishItem(ctx, it)
}

// publishItem reports its state on Options.Events.
func (e *Engine) publishItem(ctx context.Context, it *store.OutboxItem) {
	if e.opt.Events == nil || it == nil {
		return
	}
	ev := Event{ID: it.ID, State: it.State, MessageID: it.MessageID, Err: it.LastError, NextAttempt: it.NextAttemptAt}
	select {
	case e.opt.Events <- ev:
	case <-ctx.Done():
	}
}

// publishSettled reports the items crash recovery left failed or unknown,
// so a surface learns of them without waiting for their next attempt.
func (e *Engine) publishSettled(ctx context.Context) {
	if e.opt.Events == nil {
		return
	}
	items, err := e.st.OutboxItems(ctx, store.OutboxFailed, store.OutboxUnknown)
	if err != nil {
		e.log.Warn("drafts: list recovered outbox items", "err", err)
		return
	}
	for i := range items {
		e.publishItem(ctx, &items[i])
	}
}
