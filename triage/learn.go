package triage

// Learning from the user: bucket overrides (1–4) and spam / not-spam marks
// become corrections per sender, domain and list; once the user has
// corrected the same list or sender twice, its future mail follows, with
// the reason shown ("you moved 3 threads from this list to low priority").

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"mailsift/model"
	"mailsift/model/contract"
	"mailsift/store"
	"mailsift/triage/bayes"
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
	Category string `json:"category,omitempty"`
	Spam     *bool  `json:"spam,omitempty"`
	// Tokens are the spam score's words of the message a spam or
	// not-spam mark judged (see MarkTokens), with their counts: the
	// learned score learns them, and they are kept with the mark so that
	// it outlives the store (and the mail) it was made on.
	Tokens map[string]int `json:"tokens,omitempty"`
	At     time.Time      `json:"at"`
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
	m := judged(msgs, principal)
	c.Sender = strings.ToLower(strings.TrimSpace(m.From.Email))
	c.Domain = regDomain(domainOf(c.Sender))
	c.ListID = listID(m)
	return c
}

// judged returns the message of thread msgs (oldest first) a correction
// is about: the latest message from others, or the last message when the
// principal wrote them all. It is the message the spam score judges.
func judged(msgs []*model.Message, principal model.Address) *model.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if !sameAddr(msgs[i].From.Email, principal.Email) {
			return msgs[i]
		}
	}
	return msgs[len(msgs)-1]
}

// MarkTokens returns the spam score's words (with their counts) of the
// message of thread msgs a spam or not-spam mark judges: the subject,
// the body up to the length the score reads and the sender's domain,
// as bayes.Tokenize writes them. Nil for no messages.
func MarkTokens(msgs []*model.Message, principal model.Address) map[string]int {
	if len(msgs) == 0 {
		return nil
	}
	m := judged(msgs, principal)
	body := m.Body()
	if len(body) > maxAnalyzed {
		body = body[:maxAnalyzed]
	}
	out := map[string]int{}
	for _, t := range bayes.Tokenize(m.Subject, body, domainOf(m.From.Email)) {
		out[t]++
	}
	return out
}

// userCounts sums the tokens of the spam and not-spam marks among cs
// into the counts the learned score adds to the shipped model: each mark
// is one message of its class.
func userCounts(cs []Correction) *bayes.UserCounts {
	u := &bayes.UserCounts{Tokens: map[string][2]int{}}
	for _, c := range cs {
		if c.Spam == nil || len(c.Tokens) == 0 {
			continue
		}
		i := 1
		if *c.Spam {
			i = 0
			u.SpamDocs++
		} else {
			u.HamDocs++
		}
		for t, n := range c.Tokens {
			if n <= 0 {
				continue
			}
			v := u.Tokens[t]
			v[i] += n
			u.Tokens[t] = v
			if *c.Spam {
				u.SpamTotal += n
			} else {
				u.HamTotal += n
			}
		}
	}
	return u
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
//
// The words of the marked messages also teach the learned spam score
// (Classifier): a newsletter marked not spam lowers the score of mail
// that reads like it, from any sender. Set recomputes it from the marks
// it is given, so a mark taken back is unlearned.
type Learner struct {
	mu  sync.RWMutex
	all []Correction
	// spam is the shipped spam model plus the marks' words (nil when the
	// binary has no model); marked lists the ids of the marks it holds.
	spam   *bayes.Classifier
	marked []string
}

// NewLearner returns a learner over corrections (oldest first).
func NewLearner(cs []Correction) *Learner {
	l := &Learner{}
	if m, err := bayes.Default(); err == nil {
		l.spam = bayes.NewClassifier(m, nil)
	}
	l.Set(cs)
	return l
}

// Set replaces the learner's corrections (oldest first) and, when the
// marks with words among them changed, the learned spam score's counts.
func (l *Learner) Set(cs []Correction) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append([]Correction(nil), cs...)
	var marked []string
	for _, c := range cs {
		if c.Spam != nil && len(c.Tokens) > 0 {
			marked = append(marked, c.ID+"/"+strconv.FormatBool(*c.Spam))
		}
	}
	if l.spam != nil && !slices.Equal(marked, l.marked) {
		l.spam.SetUser(userCounts(cs))
		l.marked = marked
	}
}

// Classifier returns the learned spam score: the shipped model plus the
// words of the user's marks (nil when the binary has no model). It stays
// the same classifier for the learner's life; Set updates it.
func (l *Learner) Classifier() *bayes.Classifier {
	if l == nil {
		return nil
	}
	return l.spam
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
