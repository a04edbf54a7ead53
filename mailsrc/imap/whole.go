package imap

import (
	"slices"
	"time"

	"github.com/emersion/go-imap/v2"

	"mailsift/mailsrc/internal/pipeline"
	"mailsift/model"
)

// fetchWhole fetches whole messages of uids (ascending) newest batch
// first, parsed on all cores while the next batch is fetched, and hands
// them to w. It stops once the rest, at the rate measured so far
// (fetching, parsing and the writer keeping up), would take longer than
// the budget, and returns how many of the newest uids it handled.
func (s *Source) fetchWhole(c *conn, w *pipeline.Writer, name string, uids []imap.UID) (int, error) {
	p := pipeline.NewAhead(w, name, "messages", len(uids))
	defer p.Wait()
	start := s.now()
	newest := slices.Clone(uids)
	slices.Reverse(newest)
	sizes, err := s.sizes(c, name, newest)
	if err != nil {
		return 0, err
	}
	done := 0
	for done < len(newest) {
		if done > 0 {
			perMsg := float64(s.now().Sub(start)) / float64(done)
			if time.Duration(perMsg*float64(len(newest)-done)) > s.cfg.WholeBudget {
				break
			}
		}
		batch := newest[done : done+s.batchLen(newest[done:], sizes)]
		locs := make([]model.Location, len(batch))
		for i, u := range batch {
			locs[i] = loc(s.account, name, u)
		}
		// A message not returned was expunged since the search: it was
		// never stored, so there is nothing to remove.
		raws, _, err := s.fetchRaw(c, name, locs)
		if err != nil {
			return done, err
		}
		if err := p.Push(func() []*model.Message { return s.parseAll(name, raws) }); err != nil {
			return done, err
		}
		done += len(batch)
	}
	return done, p.Flush()
}
