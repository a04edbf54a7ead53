package store

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"mailsift/model"
)

// addressbookSchema indexes messages by sender so the address book can read
// the principal's own messages without scanning every message.
const addressbookSchema = `
CREATE INDEX messages_from_nocase ON messages(from_email COLLATE NOCASE, date);
`

// Correspondent is one person the address book offers for completion.
type Correspondent struct {
	Address model.Address
	// Sent counts the principal's messages addressed to them (To, Cc, Bcc).
	Sent int
	// Received counts their messages in the store (capped by the scan).
	Received int
	// Last is when the principal last wrote to them (zero: never).
	Last time.Time
	// Score ranks completions: messages written to them, each weighted by
	// how recent it is (a half-life of 90 days), plus a small weight for
	// the mail they sent.
	Score float64
}

// Address book limits: how many of the principal's messages and of the
// received messages are read to rank correspondents.
const (
	addressbookSentScan     = 20000
	addressbookReceivedScan = 5000
	addressbookHalfLife     = 90 * 24 * time.Hour
)

// Correspondents returns the people the principal wrote to, ranked by how
// often and how recently (Score), followed by people who wrote to the
// principal but were never written to. now is the reference time for
// recency. The principal (Options.Principal) is left out. The list holds
// every known person; filter it with MatchCorrespondents.
func (s *Store) Correspondents(ctx context.Context, now time.Time) ([]Correspondent, error) {
	byEmail := map[string]*Correspondent{}
	get := func(a model.Address) *Correspondent {
		e := strings.ToLower(strings.TrimSpace(a.Email))
		if e == "" || !strings.Contains(e, "@") || e == s.principal {
			return nil
		}
		c := byEmail[e]
		if c == nil {
			c = &Correspondent{Address: model.Address{Name: strings.TrimSpace(a.Name), Email: strings.TrimSpace(a.Email)}}
			byEmail[e] = c
		}
		if c.Address.Name == "" {
			c.Address.Name = strings.TrimSpace(a.Name)
		}
		return c
	}
	err := s.eachSent(ctx, func(recipients [3][]model.Address, when time.Time) {
		weight := math.Pow(0.5, math.Max(0, now.Sub(when).Hours())/addressbookHalfLife.Hours())
		for _, as := range recipients {
			for _, a := range as {
				if c := get(a); c != nil {
					c.Sent++
					c.Score += weight
					if when.After(c.Last) {
						c.Last = when
					}
				}
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("store: address book: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT from_name, from_email FROM messages ORDER BY date DESC LIMIT ?`, addressbookReceivedScan)
	if err != nil {
		return nil, fmt.Errorf("store: address book: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a model.Address
		if err := rows.Scan(&a.Name, &a.Email); err != nil {
			return nil, fmt.Errorf("store: address book: %w", err)
		}
		if c := get(a); c != nil {
			c.Received++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: address book: %w", err)
	}
	out := make([]Correspondent, 0, len(byEmail))
	for _, c := range byEmail {
		// Someone only ever heard from ranks below anyone written to.
		c.Score += 0.001 * math.Min(float64(c.Received), 100)
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return strings.ToLower(out[i].Address.Email) < strings.ToLower(out[j].Address.Email)
	})
	return out, nil
}

// MatchCorrespondents returns up to limit entries of the ranked list whose
// address or a word of whose name starts with prefix (case-insensitive),
// in rank order. An empty prefix matches nothing.
func MatchCorrespondents(list []Correspondent, prefix string, limit int) []Correspondent {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if p == "" {
		return nil
	}
	var out []Correspondent
	for _, c := range list {
		if len(out) >= limit {
			break
		}
		if correspondentMatches(c, p) {
			out = append(out, c)
		}
	}
	return out
}

func correspondentMatches(c Correspondent, p string) bool {
	e := strings.ToLower(c.Address.Email)
	if strings.HasPrefix(e, p) {
		return true
	}
	if _, dom, ok := strings.Cut(e, "@"); ok && strings.HasPrefix(dom, p) {
		return true
	}
	name := strings.ToLower(c.Address.Name)
	if strings.HasPrefix(name, p) {
		return true
	}
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '"' || r == '\'' }) {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// eachSent calls fn with the To, Cc and Bcc addresses and the date of
// each of the principal's messages, newest first, up to
// addressbookSentScan of them (none without a principal).
func (s *Store) eachSent(ctx context.Context, fn func(recipients [3][]model.Address, when time.Time)) error {
	if s.principal == "" {
		return nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT to_json, cc_json, bcc_json, date FROM messages
		WHERE from_email = ? COLLATE NOCASE ORDER BY date DESC LIMIT ?`, s.principal, addressbookSentScan)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var to, cc, bcc string
		var date int64
		if err := rows.Scan(&to, &cc, &bcc, &date); err != nil {
			return err
		}
		var rs [3][]model.Address
		for i, js := range []string{to, cc, bcc} {
			decodeInto(js, &rs[i])
		}
		fn(rs, time.Unix(date, 0))
	}
	return rows.Err()
}
