package imap

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"mailsift/mailsrc"
	"mailsift/model"
)

// fakeSink is an in-memory mailsrc.Sink with the store's semantics:
// locations keyed by model.Location, an envelope put never erases a
// stored body, a body put fills it in.
type fakeSink struct {
	mu        sync.Mutex
	boxes     map[string]model.Mailbox // by account + "\x00" + name
	msgs      map[model.Location]*model.Message
	envPuts   map[model.Location]int
	bodyPuts  map[model.Location]int
	resets    int
	bodyFirst []model.Location // body put before any envelope put
	putErr    error
}

var _ mailsrc.Sink = (*fakeSink)(nil)

func newFakeSink() *fakeSink {
	return &fakeSink{
		boxes:    make(map[string]model.Mailbox),
		msgs:     make(map[model.Location]*model.Message),
		envPuts:  make(map[model.Location]int),
		bodyPuts: make(map[model.Location]int),
	}
}

func boxKey(account, name string) string { return account + "\x00" + name }

func (f *fakeSink) MailboxState(ctx context.Context, account, mailbox string) (model.MailboxState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.boxes[boxKey(account, mailbox)].State, nil
}

func (f *fakeSink) SetMailbox(ctx context.Context, mb model.Mailbox) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.boxes[boxKey(mb.Account, mb.Name)] = mb
	return nil
}

func (f *fakeSink) ResetMailbox(ctx context.Context, account, mailbox string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets++
	for l := range f.msgs {
		if l.Account == account && l.Mailbox == mailbox {
			delete(f.msgs, l)
		}
	}
	mb := f.boxes[boxKey(account, mailbox)]
	mb.State = model.MailboxState{}
	f.boxes[boxKey(account, mailbox)] = mb
	return nil
}

func (f *fakeSink) PutMessages(ctx context.Context, msgs []*model.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.putErr != nil {
		return f.putErr
	}
	for _, m := range msgs {
		if m.Loc.UID == 0 || m.Loc.Key != fmt.Sprint(m.Loc.UID) {
			return fmt.Errorf("fake sink: bad location %+v", m.Loc)
		}
		cp := *m
		if m.HasBody {
			if f.envPuts[m.Loc] == 0 {
				f.bodyFirst = append(f.bodyFirst, m.Loc)
			}
			f.bodyPuts[m.Loc]++
			f.msgs[m.Loc] = &cp
			continue
		}
		f.envPuts[m.Loc]++
		if old := f.msgs[m.Loc]; old != nil && old.HasBody {
			old.Flags = m.Flags
			continue
		}
		f.msgs[m.Loc] = &cp
	}
	return nil
}

func (f *fakeSink) SetFlags(ctx context.Context, flags map[model.Location]model.Flags) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for l, fl := range flags {
		if m := f.msgs[l]; m != nil {
			m.Flags = fl
		}
	}
	return nil
}

func (f *fakeSink) RemoveLocations(ctx context.Context, locs []model.Location) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range locs {
		delete(f.msgs, l)
	}
	return nil
}

func (f *fakeSink) Locations(ctx context.Context, account, mailbox string) (map[model.Location]model.Flags, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[model.Location]model.Flags)
	for l, m := range f.msgs {
		if l.Account == account && l.Mailbox == mailbox {
			out[l] = m.Flags
		}
	}
	return out, nil
}

func (f *fakeSink) MissingBodies(ctx context.Context, account, mailbox string, limit int) ([]model.Location, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ms []*model.Message
	for l, m := range f.msgs {
		if l.Account == account && l.Mailbox == mailbox && !m.HasBody {
			ms = append(ms, m)
		}
	}
	sort.Slice(ms, func(i, j int) bool {
		if !ms[i].Date.Equal(ms[j].Date) {
			return ms[i].Date.After(ms[j].Date)
		}
		return ms[i].Loc.UID > ms[j].Loc.UID
	})
	var out []model.Location
	for _, m := range ms {
		if len(out) == limit {
			break
		}
		out = append(out, m.Loc)
	}
	return out, nil
}

// inBox returns the messages of one mailbox by UID.
func (f *fakeSink) inBox(account, mailbox string) map[uint32]*model.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[uint32]*model.Message)
	for l, m := range f.msgs {
		if l.Account == account && l.Mailbox == mailbox {
			cp := *m
			out[l.UID] = &cp
		}
	}
	return out
}

func (f *fakeSink) mailbox(account, name string) (model.Mailbox, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	mb, ok := f.boxes[boxKey(account, name)]
	return mb, ok
}

func (f *fakeSink) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.msgs)
}
