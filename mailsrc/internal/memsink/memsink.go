// Package memsink is an in-memory mailsrc.Sink for the sources' tests and
// benchmarks: it records what a source stores, keyed by location.
package memsink

import (
	"context"
	"sync"

	"mailsift/model"
)

// Sink records what a source writes. Read its fields after Sync returns.
type Sink struct {
	mu        sync.Mutex
	Mailboxes map[string]model.Mailbox          // by name
	Msgs      map[model.Location]*model.Message // the last put at each location
	Flags     map[model.Location]model.Flags
	Puts      int   // messages put
	Batches   []int // messages per PutMessages call
	SetFlagsN int   // flag changes recorded
	Removed   int   // locations removed
}

// New returns an empty Sink.
func New() *Sink {
	return &Sink{
		Mailboxes: map[string]model.Mailbox{},
		Msgs:      map[model.Location]*model.Message{},
		Flags:     map[model.Location]model.Flags{},
	}
}

// MailboxState returns the state recorded with SetMailbox.
func (s *Sink) MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Mailboxes[mailbox].State, nil
}

// SetMailbox records a mailbox.
func (s *Sink) SetMailbox(ctx context.Context, mb model.Mailbox) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Mailboxes[mb.Name] = mb
	return nil
}

// ResetMailbox forgets the mailbox's locations.
func (s *Sink) ResetMailbox(ctx context.Context, account, mailbox string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for loc := range s.Msgs {
		if loc.Account == account && loc.Mailbox == mailbox {
			delete(s.Msgs, loc)
			delete(s.Flags, loc)
		}
	}
	return nil
}

// PutMessages records each message at its location.
func (s *Sink) PutMessages(ctx context.Context, msgs []*model.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Batches = append(s.Batches, len(msgs))
	for _, m := range msgs {
		s.Msgs[m.Loc] = m
		s.Flags[m.Loc] = m.Flags
		s.Puts++
	}
	return nil
}

// SetFlags records flags.
func (s *Sink) SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for loc, f := range flags {
		s.Flags[loc] = f
		s.SetFlagsN++
	}
	return nil
}

// RemoveLocations forgets locations.
func (s *Sink) RemoveLocations(ctx context.Context, locs []model.Location) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, loc := range locs {
		delete(s.Msgs, loc)
		delete(s.Flags, loc)
		s.Removed++
	}
	return nil
}

// Locations lists a mailbox's locations with their flags.
func (s *Sink) Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[model.Location]model.Flags{}
	for loc, f := range s.Flags {
		if loc.Account == account && loc.Mailbox == mailbox {
			out[loc] = f
		}
	}
	return out, nil
}

// MissingBodies reports none: these sources store whole messages.
func (s *Sink) MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error) {
	return nil, nil
}

// Count returns the number of stored messages per mailbox.
func (s *Sink) Count() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for loc := range s.Msgs {
		out[loc.Mailbox]++
	}
	return out
}

// BySubject returns a stored message with this subject, or nil.
func (s *Sink) BySubject(subject string) *model.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.Msgs {
		if m.Subject == subject {
			return m
		}
	}
	return nil
}
