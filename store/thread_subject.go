package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"mailsift/model"
)

// Joins by subject, independent of arrival order.
//
// A message's reference component is the set of messages linked to it
// by Message-ID through References and In-Reply-To, in either direction
// and transitively (JWZ grouping; assignThread keeps each one in a single
// thread). A message without references, with a normalised subject, a
// date and a sender, is linked by subject to one message: the latest
// message before it (by date, then Message-ID: of two messages of the
// same second, the one whose Message-ID sorts first comes first) outside
// its own reference component, with the same normalised subject, dated
// at most subjectWindow before it, whose reference component has the
// sender in the From, To or Cc of one of its messages (Reply-To does not count: it is
// the sender's claim, not a party of the conversation). Without that
// condition anyone could put a message, and later a reply draft, into a
// private thread by copying its subject; a stranger's look-alike that
// lists a participant in Cc can draw that participant's later message,
// when it is the latest, but never merges with the thread itself. A
// thread is a connected component of the reference and subject links.
//
// Both links are a function of the stored messages, not of the order
// they arrived in: a reply stored before its parent, a parent that
// arrives after a later message without references, a message that
// becomes the latest match of an earlier one, all end in the same
// grouping. subjectJoins keeps the threads so after each PutMessages
// batch: it re-groups the threads the batch touched together with every
// thread a subject link may lead to or come from, and moves messages
// (merging, or when a message's latest match changed, splitting threads)
// where the grouping differs from the stored one.

// subjMsg is one message as subjectJoins reads it.
type subjMsg struct {
	id, thread, date int64
	mid, norm, from  string
	to, cc           string // JSON lists of model.Address
	refs             []string
	hasRefs          bool
}

// subjectJoins re-groups the threads PutMessages grew (w.grown) and the
// threads subject links may join them with, then moves messages where
// the stored threads differ from that grouping.
func (w *writer) subjectJoins() error {
	if len(w.grown) == 0 {
		return nil
	}
	pending := sortedKeys(w.grown)
	w.grown = nil
	region := map[int64]bool{}
	var msgs []*subjMsg
	for len(pending) > 0 {
		for _, t := range pending {
			region[t] = true
		}
		loaded, err := w.loadSubjMsgs(pending)
		if err != nil {
			return err
		}
		msgs = append(msgs, loaded...)
		next := map[int64]bool{}
		if err := w.subjectNeighbours(loaded, region, next); err != nil {
			return err
		}
		pending = sortedKeys(next)
	}
	return w.regroup(msgs)
}

// grow records that PutMessages added a message to thread t, threaded
// one again in it or merged into it.
func (w *writer) grow(t int64) {
	if w.b == nil {
		return
	}
	if w.grown == nil {
		w.grown = map[int64]bool{}
	}
	w.grown[t] = true
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys(m map[int64]bool) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// loadSubjMsgs reads the messages of threads, with their references.
func (w *writer) loadSubjMsgs(threads []int64) ([]*subjMsg, error) {
	rows, err := w.query(`SELECT id, thread_id, message_id, norm_subject, date, from_email, to_json, cc_json
		FROM messages WHERE thread_id IN (SELECT value FROM json_each(?))`, mustJSON(threads))
	if err != nil {
		return nil, err
	}
	var out []*subjMsg
	byID := map[int64]*subjMsg{}
	ids := []int64{}
	for rows.Next() {
		m := &subjMsg{}
		if err := rows.Scan(&m.id, &m.thread, &m.mid, &m.norm, &m.date, &m.from, &m.to, &m.cc); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, m)
		byID[m.id] = m
		ids = append(ids, m.id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err = w.query(`SELECT message, ref FROM message_refs WHERE message IN (SELECT value FROM json_each(?))`, mustJSON(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ref string
		if err := rows.Scan(&id, &ref); err != nil {
			return nil, err
		}
		if m := byID[id]; m != nil {
			m.refs = append(m.refs, ref)
			m.hasRefs = true
		}
	}
	return out, rows.Err()
}

// subjectNeighbours adds to next the threads outside region and next
// holding a message a subject link may join with one of loaded: the same
// normalised subject, dated within subjectWindow of it, one of the two
// without references.
func (w *writer) subjectNeighbours(loaded []*subjMsg, region, next map[int64]bool) error {
	win := int64(subjectWindow.Seconds())
	type span struct{ lo, hi int64 }
	byNorm := map[string][]*subjMsg{}
	spans := map[string]span{}
	for _, m := range loaded {
		if m.norm == "" || m.date == 0 {
			continue
		}
		byNorm[m.norm] = append(byNorm[m.norm], m)
		sp, ok := spans[m.norm]
		if !ok {
			sp = span{m.date, m.date}
		}
		spans[m.norm] = span{min(sp.lo, m.date), max(sp.hi, m.date)}
	}
	if len(spans) == 0 {
		return nil
	}
	keys := make([]string, 0, len(spans))
	for k := range spans {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	args := make([][3]any, len(keys))
	for i, k := range keys {
		args[i] = [3]any{k, spans[k].lo - win, spans[k].hi + win}
	}
	rows, err := w.query(`SELECT m.thread_id, m.norm_subject, m.date,
		EXISTS(SELECT 1 FROM message_refs r WHERE r.message = m.id)
		FROM json_each(?) j JOIN messages m ON m.norm_subject = json_extract(j.value, '$[0]')
			AND m.date BETWEEN json_extract(j.value, '$[1]') AND json_extract(j.value, '$[2]')
		WHERE m.norm_subject <> '' AND m.thread_id IS NOT NULL`, mustJSON(args))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var thread, date int64
		var norm string
		var hasRefs bool
		if err := rows.Scan(&thread, &norm, &date, &hasRefs); err != nil {
			return err
		}
		if region[thread] || next[thread] {
			continue
		}
		for _, a := range byNorm[norm] {
			if (!a.hasRefs || !hasRefs) && date >= a.date-win && date <= a.date+win {
				next[thread] = true
				break
			}
		}
	}
	return rows.Err()
}

// before reports whether message a comes before message b by date, then
// Message-ID, then id.
func before(a, b *subjMsg) bool {
	if a.date != b.date {
		return a.date < b.date
	}
	if a.mid != b.mid {
		return a.mid < b.mid
	}
	return a.id < b.id
}

// unionFind is a disjoint-set forest over 0..n-1.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u unionFind) union(a, b int) {
	if ra, rb := u.find(a), u.find(b); ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}

// regroup computes the grouping of msgs (whole threads, closed under
// reference and subject links) and moves messages where their threads
// differ from it.
func (w *writer) regroup(msgs []*subjMsg) error {
	n := len(msgs)
	if n == 0 {
		return nil
	}
	// Reference components: messages joined through the Message-IDs
	// they carry and refer to.
	refs := newUnionFind(n)
	node := map[string]int{}
	link := func(i int, id string) {
		if j, ok := node[id]; ok {
			refs.union(i, j)
		} else {
			node[id] = i
		}
	}
	for i, m := range msgs {
		link(i, m.mid)
		for _, r := range m.refs {
			link(i, r)
		}
	}
	// Participants of each reference component, read when first needed.
	parts := map[int]map[string]bool{}
	members := map[int][]int{}
	for i := range msgs {
		r := refs.find(i)
		members[r] = append(members[r], i)
	}
	participants := func(comp int) (map[string]bool, error) {
		if p := parts[comp]; p != nil {
			return p, nil
		}
		p := map[string]bool{}
		for _, i := range members[comp] {
			m := msgs[i]
			p[addrKey(m.from)] = true
			for _, list := range [2]string{m.to, m.cc} {
				var as []model.Address
				if err := json.Unmarshal([]byte(list), &as); err != nil {
					return nil, fmt.Errorf("message %d recipients: %w", m.id, err)
				}
				for _, a := range as {
					p[addrKey(a.Email)] = true
				}
			}
		}
		parts[comp] = p
		return p, nil
	}
	// Candidates by subject, latest first.
	byNorm := map[string][]int{}
	for i, m := range msgs {
		if m.norm != "" && m.date != 0 {
			byNorm[m.norm] = append(byNorm[m.norm], i)
		}
	}
	for _, list := range byNorm {
		slices.SortFunc(list, func(a, b int) int {
			if c := cmp.Compare(msgs[b].date, msgs[a].date); c != 0 {
				return c
			}
			if c := cmp.Compare(msgs[b].mid, msgs[a].mid); c != 0 {
				return c
			}
			return cmp.Compare(msgs[b].id, msgs[a].id)
		})
	}
	win := int64(subjectWindow.Seconds())
	groups := slices.Clone(refs)
	for i, m := range msgs {
		sender := addrKey(m.from)
		if m.hasRefs || m.norm == "" || m.date == 0 || sender == "" {
			continue
		}
		own := refs.find(i)
		for _, j := range byNorm[m.norm] {
			c := msgs[j]
			if before(m, c) {
				// Not after m: the same date counts as before when
				// its Message-ID sorts first.
				continue
			}
			if m.date-c.date > win {
				break
			}
			comp := refs.find(j)
			if comp == own {
				continue
			}
			p, err := participants(comp)
			if err != nil {
				return err
			}
			if p[sender] {
				groups.union(i, j)
				break
			}
		}
	}
	return w.moveToGroups(msgs, groups)
}

// moveToGroups moves msgs into threads matching groups: each group keeps
// the lowest thread id among its messages' threads that no larger group
// kept, or gets a new thread. A thread whose messages all go to one
// other thread is merged into it.
func (w *writer) moveToGroups(msgs []*subjMsg, groups unionFind) error {
	byGroup := map[int][]int{}
	threadsOf := map[int]map[int64]bool{}
	groupsOf := map[int64]map[int]bool{}
	size := map[int64]int{} // messages per thread
	for i, m := range msgs {
		g := groups.find(i)
		byGroup[g] = append(byGroup[g], i)
		if threadsOf[g] == nil {
			threadsOf[g] = map[int64]bool{}
		}
		threadsOf[g][m.thread] = true
		if groupsOf[m.thread] == nil {
			groupsOf[m.thread] = map[int]bool{}
		}
		groupsOf[m.thread][g] = true
		size[m.thread]++
	}
	same := true
	for _, ts := range threadsOf {
		for t := range ts {
			same = same && len(ts) == 1 && len(groupsOf[t]) == 1
		}
	}
	if same {
		return nil
	}
	order := make([]int, 0, len(byGroup))
	for g := range byGroup {
		order = append(order, g)
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(len(byGroup[b]), len(byGroup[a])); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	taken := map[int64]bool{}
	for _, g := range order {
		keep := int64(0)
		for _, t := range sortedKeys(threadsOf[g]) {
			if !taken[t] {
				keep = t
				break
			}
		}
		if keep == 0 {
			m := msgs[byGroup[g][0]]
			var err error
			if keep, err = w.createThread("", m.norm, m.date); err != nil {
				return err
			}
			w.slowThread(keep)
		}
		taken[keep] = true
		// Per thread, how many of its messages this group takes.
		moving := map[int64][]int{}
		for _, i := range byGroup[g] {
			if t := msgs[i].thread; t != keep {
				moving[t] = append(moving[t], i)
			}
		}
		for _, t := range sortedKeys(keysOf(moving)) {
			is := moving[t]
			if len(is) == size[t] && !taken[t] {
				if w.newThreads[keep] != nil && w.newThreads[t] == nil {
					// A stored thread goes into one created by this
					// batch: its aggregates and section are computed from
					// the database.
					w.slowThread(keep)
					delete(w.fresh, keep)
				}
				if err := w.mergeThread(keep, t); err != nil {
					return err
				}
				taken[t] = true
				continue
			}
			for _, i := range is {
				m := msgs[i]
				if _, err := w.exec(`UPDATE messages SET thread_id = ? WHERE id = ?`, keep, m.id); err != nil {
					return err
				}
				if err := w.bumpLatest(keep, m.date); err != nil {
					return err
				}
				if w.b != nil {
					if r := w.b.msgs[m.id]; r != nil {
						r.thread = keep
					}
				}
			}
			w.slowThread(keep)
			w.slowThread(t)
			if w.newThreads[keep] != nil && w.newThreads[t] == nil {
				delete(w.fresh, keep)
			}
			w.dirty[keep], w.dirty[t] = true, true
		}
	}
	return nil
}

// keysOf returns the set of m's keys.
func keysOf[V any](m map[int64]V) map[int64]bool {
	out := make(map[int64]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
