package maildir

import (
	"context"
	"sync"

	"mailsift/model"
)

// memSink is an in-memory mailsrc.Sink for tests and benchmarks.
type memSink struct {
	mu        sync.Mutex
	mailboxes map[string]model.Mailbox
	msgs      map[model.Location]*model.Message
	flags     map[model.Location]model.Flags
	puts      int
	batches   []int // messages per PutMessages call
	setFlags  int
	removed   int
}

func newMemSink() *memSink {
	return &memSink{
		mailboxes: map[string]model.Mailbox{},
		msgs:      map[model.Location]*model.Message{},
		flags:     map[model.Location]model.Flags{},
	}
}

func (s *memSink) MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mailboxes[mailbox].State, nil
}

func (s *memSink) SetMailbox(ctx context.Context, mb model.Mailbox) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mailboxes[mb.Name] = mb
	return nil
}

func (s *memSink) ResetMailbox(ctx context.Context, account, mailbox string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for loc := range s.msgs {
		if loc.Account == account && loc.Mailbox == mailbox {
			delete(s.msgs, loc)
			delete(s.flags, loc)
		}
	}
	return nil
}

func (s *memSink) PutMessages(ctx context.Context, msgs []*model.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, len(msgs))
	for _, m := range msgs {
		s.msgs[m.Loc] = m
		s.flags[m.Loc] = m.Flags
		s.puts++
	}
	return nil
}

func (s *memSink) SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for loc, f := range flags {
		s.flags[loc] = f
		s.setFlags++
	}
	return nil
}

func (s *memSink) RemoveLocations(ctx context.Context, locs []model.Location) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, loc := range locs {
		delete(s.msgs, loc)
		delete(s.flags, loc)
		s.removed++
	}
	return nil
}

func (s *memSink) Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[model.Location]model.Flags{}
	for loc, f := range s.flags {
		if loc.Account == account && loc.Mailbox == mailbox {
			out[loc] = f
		}
	}
	return out, nil
}

func (s *memSink) MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error) {
	return nil, nil
}

// count returns the number of stored messages per mailbox.
func (s *memSink) count() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for loc := range s.msgs {
		out[loc.Mailbox]++
	}
	return out
}
