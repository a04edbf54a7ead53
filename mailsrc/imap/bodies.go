package imap

import (
	"context"
	"fmt"

	"github.com/emersion/go-imap/v2"

	"mailsift/mailsrc"
	"mailsift/mailsrc/internal/pipeline"
	"mailsift/model"
)

// fetchBodies fills in missing bodies of one mailbox, newest first as
// the sink orders them, until none is missing. Three stages overlap: the
// connection fetches a batch while the previous one is parsed on all
// cores and the writer w stores parsed messages in group commits (see
// startWriter). Bodies still queued in w when this returns are stored by
// w (the caller syncs it).
func (s *Source) fetchBodies(ctx context.Context, c *conn, sink mailsrc.Sink, w *pipeline.Writer, mb mailboxInfo, progress func(mailsrc.Progress)) error {
	name := mb.name
	attempted := make(map[uint32]bool)
	if err := s.linkStoredBodies(ctx, sink, w, name); err != nil {
		return err
	}
	p := pipeline.NewAhead(w, name, "bodies", 0)
	defer p.Wait()
	// Bodies handed to the writer and not stored yet are still listed as
	// missing (newest first, and they are the newest); asking for more
	// than can be queued keeps the ones never fetched in view.
	window := 12*s.cfg.BodyBatchSize + 2*maxQueued
	for {
		locs, err := sink.MissingBodies(ctx, s.account, name, window)
		if err != nil {
			return fmt.Errorf("imap: missing bodies of %q: %w", name, err)
		}
		var todo []model.Location
		for _, l := range locs {
			if l.UID != 0 && !attempted[l.UID] {
				attempted[l.UID] = true
				todo = append(todo, l)
			}
		}
		if len(todo) == 0 {
			return p.Flush()
		}
		if c.selected != name {
			if _, err := s.selectMailbox(c, name, false); err != nil {
				return err
			}
		}
		uids := make([]imap.UID, len(todo))
		for i, l := range todo {
			uids[i] = imap.UID(l.UID)
		}
		sizes, err := s.sizes(c, name, uids)
		if err != nil {
			return err
		}
		for len(todo) > 0 {
			batch := todo[:s.batchLen(uids, sizes)]
			todo, uids = todo[len(batch):], uids[len(batch):]
			raws, gone, err := s.fetchRaw(c, name, batch)
			if err != nil {
				return err
			}
			if err := p.Flush(); err != nil {
				return err
			}
			if len(gone) > 0 {
				// Asked for but not returned: expunged meanwhile.
				if err := w.Do(func() error {
					if err := sink.RemoveLocations(ctx, gone); err != nil {
						return fmt.Errorf("imap: remove expunged from %q: %w", name, err)
					}
					return nil
				}); err != nil {
					return err
				}
			}
			if err := p.Push(func() []*model.Message { return s.parseAll(name, raws) }); err != nil {
				return err
			}
		}
		if err := p.Flush(); err != nil {
			return err
		}
	}
}

// linkStoredBodies links the copies in mailbox name of messages whose
// body is stored already (from a folder fetched before, or another label
// of the same Gmail message) instead of fetching them. Only when copies
// may be among the bodies still queued in w does it wait for w (a wait
// at every folder would stall the pipeline).
func (s *Source) linkStoredBodies(ctx context.Context, sink mailsrc.Sink, w *pipeline.Writer, name string) error {
	linker, ok := sink.(mailsrc.BodyLinker)
	if !ok {
		return nil
	}
	n, waiting, err := linker.LinkStoredBodies(ctx, s.account, name)
	if err == nil && waiting > 0 {
		if err := w.Sync(); err != nil {
			return err
		}
		var m int
		m, _, err = linker.LinkStoredBodies(ctx, s.account, name)
		n += m
	}
	if err != nil {
		return fmt.Errorf("imap: %w", err)
	}
	if n > 0 {
		s.log.Debug("bodies found stored in another folder", "mailbox", name, "count", n)
	}
	return nil
}
