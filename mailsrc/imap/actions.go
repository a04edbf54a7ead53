package imap

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/emersion/go-imap/v2"

	"mailsift/mailsrc"
	"mailsift/model"
)

var _ mailsrc.Mover = (*Source)(nil)

// moveGroup is the moves of one source mailbox to one destination.
type moveGroup struct {
	from, to string
	role     model.Role
	expunge  bool
	moves    []model.Move
}

// MoveMessages applies moves, one command per source and destination
// mailbox: UID MOVE (RFC 6851) when the server has MOVE or IMAP4rev2,
// else UID COPY, UID STORE +FLAGS \Deleted and UID EXPUNGE (RFC 4315; a
// plain EXPUNGE only on a server without UIDPLUS). Permanent deletes are
// UID STORE \Deleted and UID EXPUNGE. A destination that does not exist
// (TRYCREATE) is created and the move tried again. The new UIDs come from
// COPYUID (UIDPLUS); without it a result has no key and the next sync
// finds the copies.
func (s *Source) MoveMessages(ctx context.Context, moves []model.Move) ([]model.MoveResult, error) {
	groups := map[[3]string]*moveGroup{}
	var order [][3]string
	var results []model.MoveResult
	for _, m := range moves {
		if m.From.Account != s.account {
			return nil, fmt.Errorf("imap: move for account %q sent to account %q", m.From.Account, s.account)
		}
		if m.From.UID == 0 {
			// Never synced from this server (no UID): nothing to move there.
			results = append(results, model.MoveResult{ID: m.ID, Gone: true})
			continue
		}
		k := [3]string{m.From.Mailbox, m.To, strconv.FormatBool(m.Expunge)}
		g := groups[k]
		if g == nil {
			g = &moveGroup{from: m.From.Mailbox, to: m.To, role: m.ToRole, expunge: m.Expunge}
			groups[k] = g
			order = append(order, k)
		}
		g.moves = append(g.moves, m)
	}
	var refused *mailsrc.RefusedError
	err := s.withConn(ctx, func(c *conn) error {
		for _, k := range order {
			g := groups[k]
			res, err := s.applyGroup(c, g)
			results = append(results, res...)
			if err != nil && isServerError(err) {
				// Refused for good (a tagged NO): give these up, go on.
				if refused == nil {
					refused = &mailsrc.RefusedError{Err: err}
				}
				for _, m := range g.moves {
					refused.IDs = append(refused.IDs, m.ID)
				}
				continue
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && refused != nil {
		return results, refused
	}
	return results, err
}

// applyGroup runs one group's commands on c.
func (s *Source) applyGroup(c *conn, g *moveGroup) ([]model.MoveResult, error) {
	if _, err := s.selectMailbox(c, g.from, false); err != nil {
		var ie *imap.Error
		if errors.As(err, &ie) && (ie.Code == imap.ResponseCodeNonExistent || ie.Code == imap.ResponseCodeTryCreate) {
			// The source mailbox is gone, and the copies with it.
			out := make([]model.MoveResult, len(g.moves))
			for i, m := range g.moves {
				out[i] = model.MoveResult{ID: m.ID, Gone: true}
			}
			return out, nil
		}
		return nil, err
	}
	var set imap.UIDSet
	for _, m := range g.moves {
		set.AddNum(imap.UID(m.From.UID))
	}
	if g.expunge {
		if err := s.deleteUIDs(c, set); err != nil {
			return nil, fmt.Errorf("imap: delete %d messages in %q: %w", len(g.moves), g.from, err)
		}
		out := make([]model.MoveResult, len(g.moves))
		for i, m := range g.moves {
			out[i] = model.MoveResult{ID: m.ID}
		}
		return out, nil
	}
	src, dst, err := s.moveUIDs(c, set, g.to)
	var ie *imap.Error
	if errors.As(err, &ie) && ie.Code == imap.ResponseCodeTryCreate {
		if cerr := c.c.Create(g.to, nil).Wait(); cerr != nil {
			return nil, fmt.Errorf("imap: create %q for a move: %w", g.to, cerr)
		}
		s.log.Info("imap: created mailbox for a move", "mailbox", g.to, "role", g.role)
		src, dst, err = s.moveUIDs(c, set, g.to)
	}
	if err != nil {
		return nil, fmt.Errorf("imap: move %d messages from %q to %q: %w", len(g.moves), g.from, g.to, err)
	}
	return mapMoved(g.moves, src, dst), nil
}

// mapMoved pairs each move with its new UID from COPYUID: the n-th source
// UID went to the n-th destination UID (RFC 4315). A source UID missing
// from COPYUID was not there (expunged meanwhile). Without COPYUID the
// results carry no UID.
func mapMoved(moves []model.Move, src, dst imap.UIDSet) []model.MoveResult {
	out := make([]model.MoveResult, len(moves))
	srcNums, ok1 := src.Nums()
	dstNums, ok2 := dst.Nums()
	known := ok1 && ok2 && len(srcNums) == len(dstNums) && len(srcNums) > 0
	to := make(map[imap.UID]imap.UID, len(srcNums))
	if known {
		for i, u := range srcNums {
			to[u] = dstNums[i]
		}
	}
	for i, m := range moves {
		out[i] = model.MoveResult{ID: m.ID}
		if !known {
			continue
		}
		if u, ok := to[imap.UID(m.From.UID)]; ok {
			out[i].UID = uint32(u)
		} else {
			out[i].Gone = true
		}
	}
	return out
}

// moveUIDs moves set from the selected mailbox to mailbox and returns
// the COPYUID source and destination sets (empty without UIDPLUS).
func (s *Source) moveUIDs(c *conn, set imap.UIDSet, mailbox string) (src, dst imap.UIDSet, err error) {
	if c.has(imap.CapMove) || c.has(imap.CapIMAP4rev2) {
		data, err := c.c.Move(set, mailbox).Wait()
		if err != nil {
			return nil, nil, err
		}
		src, _ = data.SourceUIDs.(imap.UIDSet)
		dst, _ = data.DestUIDs.(imap.UIDSet)
		return src, dst, nil
	}
	data, err := c.c.Copy(set, mailbox).Wait()
	if err != nil {
		return nil, nil, err
	}
	if err := s.deleteUIDs(c, set); err != nil {
		// The copy exists: report it so it is not copied twice; the
		// originals are removed by the next sync's pass or a retry.
		s.log.Warn("imap: copied but could not remove the originals", "err", err)
	}
	return data.SourceUIDs, data.DestUIDs, nil
}

// deleteUIDs flags set \Deleted in the selected mailbox and expunges
// exactly those messages (UID EXPUNGE), or every \Deleted message where
// the server lacks UIDPLUS.
func (s *Source) deleteUIDs(c *conn, set imap.UIDSet) error {
	store := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
	if err := c.c.Store(set, store, nil).Close(); err != nil {
		return err
	}
	if c.has(imap.CapUIDPlus) || c.has(imap.CapIMAP4rev2) {
		return c.c.UIDExpunge(set).Close()
	}
	return c.c.Expunge().Close()
}

// sortMoves orders moves by ID (tests).
func sortMoves(ms []model.MoveResult) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
}
