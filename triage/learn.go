package triage

// Learning from the user: bucket overrides (1–4) and spam / not-spam marks
// become corrections per sender, domain and list; once the user has
// corrected the same list or sender twice, its future mail follows, with
// the reason shown ("you moved 3 threads from this list to low priority").

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
)

// Correction is one thing the user told mailsift about a thread: a bucket
// override (Category) and/or a spam or not-spam mark (Spam). Sender,
// Domain and ListID say whose mail it was; Thread is the thread's root
// Message-ID, so the correction outlives the store's thread ids.
type Correction struct {
	// ID is unique per correction (see CorrectionLog.Add).
	ID     string `json:"id"`
	Thread string `json:"thread"`
	// Sender is the address of the latest message from others, lower-case;
	// Domain its registrable domain; ListID the List-Id ("" outside list
	// mail).
	Sender string `json:"sender"`
	Domain string `json:"domain"`
	ListID string `json:"list_id,omitempty"`
	// Category is the bucket the user moved the thread to ("" for a mark
	// only); Spam is the user's spam (true) or not-spam (false) mark.
	Category string    `json:"category,omitempty"`
	Spam     *bool     `json:"spam,omitempty"`
	At       time.Time `json:"at"`
}

// CorrectionFor returns a correction of thread msgs (oldest first) for
// principal, naming the latest message from others (the last message
// when the principal wrote them all).
func CorrectionFor(msgs []*model.Message, principal model.Address) Correction {
	var c Correction
	if len(msgs) == 0 {
		return c
	}
	c.Thread = msgs[0].MessageID
	m := msgs[len(msgs)-1]
	for i := len(msgs) - 1; i >= 0; i-- {
		if !sameAddr(msgs[i].From.Email, principal.Email) {
			m = msgs[i]
			break
		}
	}
	c.Sender = strings.ToLower(strings.TrimSpace(m.From.Email))
	c.Domain = regDomain(domainOf(c.Sender))
	c.ListID = listID(m)
	return c
}

// listID returns the identifier of a List-Id header ("Name <id>" → id),
// lower-case, or "".
func listID(m *model.Message) string { return store.ListKey(m.Header("List-Id")) }

// Learning thresholds: corrections of distinct threads of the same list
// or sender that move its future mail, and of the same domain (a broader
// key: a colleague's mail is not a vendor's newsletter).
const (
	LearnMinSame   = 2
	LearnMinDomain = 3
)

// Learner applies the user's corrections to new triage. It is safe for
// concurrent use; Set replaces the corrections.
type Learner struct {
	mu  sync.RWMutex
	all []Correction
}

// NewLearner returns a learner over corrections (oldest first).
func NewLearner(cs []Correction) *Learner {
	l := &Learner{}
	l.Set(cs)
	return l
}

// Set replaces the learner's corrections (oldest first).
func (l *Learner) Set(cs []Correction) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append([]Correction(nil), cs...)
}

// Corrections returns a copy of the corrections (oldest first).
func (l *Learner) Corrections() []Correction {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return append([]Correction(nil), l.all...)
}

// learned is what the corrections say about one thread's mail.
type learned struct {
	category, categoryReason string
	spam                     *bool
	spamReason               string
}

// lookup finds what the user taught about mail like c: the first of list,
// sender and domain with enough corrections (of distinct threads, the
// thread's own included: the reason then explains its place too) decides.
//
// Buckets are not learned for a whole domain that is the principal's own:
// everyone at the user's organisation shares it, and where the user put
// one colleague's threads says nothing about another's.
func (l *Learner) lookup(c Correction, ownDomain string) learned {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out learned
	keys := []struct {
		what, value string
		min         int
		match       func(x Correction) bool
	}{
		{"this list", c.ListID, LearnMinSame, func(x Correction) bool { return x.ListID == c.ListID }},
		{"this sender", c.Sender, LearnMinSame, func(x Correction) bool { return x.Sender == c.Sender }},
		{"this domain", c.Domain, LearnMinDomain, func(x Correction) bool { return x.Domain == c.Domain }},
	}
	for _, k := range keys {
		if k.value == "" {
			continue
		}
		votes := map[string]int{}
		last := map[string]time.Time{}
		var spamYes, spamNo int
		for _, x := range l.all {
			if !k.match(x) {
				continue
			}
			if x.Category != "" {
				votes[x.Category]++
				last[x.Category] = x.At
			}
			if x.Spam != nil {
				if *x.Spam {
					spamYes++
				} else {
					spamNo++
				}
			}
		}
		if out.category == "" && (k.what != "this domain" || k.value != ownDomain) {
			if cat, n := topVote(votes, last); n >= k.min {
				out.category = cat
				out.categoryReason = fmt.Sprintf("you moved %d threads from %s to %s", n, k.what, cat)
			}
		}
		if out.spam == nil {
			switch {
			case spamYes >= k.min && spamYes > spamNo:
				t := true
				out.spam, out.spamReason = &t, fmt.Sprintf("you marked %d threads from %s as spam", spamYes, k.what)
			case spamNo >= k.min && spamNo > spamYes:
				f := false
				out.spam, out.spamReason = &f, fmt.Sprintf("you marked %d threads from %s as not spam", spamNo, k.what)
			}
		}
	}
	return out
}

// topVote returns the category with the most votes (the most recent on a
// tie) and its count.
func topVote(votes map[string]int, last map[string]time.Time) (string, int) {
	cats := make([]string, 0, len(votes))
	for c := range votes {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		if votes[cats[i]] != votes[cats[j]] {
			return votes[cats[i]] > votes[cats[j]]
		}
		return last[cats[i]].After(last[cats[j]])
	})
	if len(cats) == 0 {
		return "", 0
	}
	return cats[0], votes[cats[0]]
}

// apply changes o as the user taught for mail like thread msgs: a learned
// spam mark sets or clears is_spam (never is_phishing: a not-spam mark
// does not vouch for a lookalike sender), a learned bucket replaces the
// category of mail that is not quarantined. The reasons go to o.Learned.
func (l *Learner) apply(o *Outcome, msgs []*model.Message, principal model.Address) {
	if l == nil || o == nil || len(msgs) == 0 {
		return
	}
	lr := l.lookup(CorrectionFor(msgs, principal), regDomain(domainOf(principal.Email)))
	r := &o.Result
	if lr.spam != nil {
		switch {
		case *lr.spam && !r.IsSpam:
			r.IsSpam = true
			r.Category = contract.CategoryLowPriority
			r.ActionItems = []contract.ActionItem{}
			r.Draft = nil
			o.SpamReasons = append(o.SpamReasons, lr.spamReason)
			o.Learned = append(o.Learned, lr.spamReason)
		case !*lr.spam && r.IsSpam && !r.IsPhishing:
			r.IsSpam = false
			o.SpamReasons = nil
			o.Learned = append(o.Learned, lr.spamReason)
		case *lr.spam == r.IsSpam:
			o.Learned = append(o.Learned, lr.spamReason) // agrees: still a reason
		}
	}
	if lr.category != "" && !r.IsSpam && !r.IsPhishing && r.Category != lr.category {
		r.Category = lr.category
		if lr.category == contract.CategoryLowPriority || lr.category == contract.CategoryInformational {
			r.ActionItems = []contract.ActionItem{}
		}
		o.Learned = append(o.Learned, lr.categoryReason)
	} else if lr.category != "" && r.Category == lr.category {
		o.Learned = append(o.Learned, lr.categoryReason)
	}
	if len(o.Learned) > 0 {
		o.Extras.Route = routeFor(r)
	}
}

// routeFor is the route of a result after the user's corrections.
func routeFor(r *contract.Result) string {
	switch {
	case r.IsSpam || r.IsPhishing:
		return "quarantine"
	case r.Category == contract.CategoryUrgent:
		return "respond-now"
	case r.Category == contract.CategoryActionable:
		return "reply"
	case r.Category == contract.CategoryInformational:
		return "read"
	}
	return "read-later"
}
