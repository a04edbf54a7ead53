package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"mailsift/model"
)

// Familiarity is what the mailbox says about the people who write to the
// principal: whom the principal wrote to and whose mail the principal
// read. Triage takes a sender the user wrote to or reads as one whose
// bulk mail is wanted (triage.Senders). Addresses are lower-cased.
type Familiarity struct {
	// WrittenTo counts the principal's messages addressed to each
	// address (To, Cc, Bcc), over the newest addressbookSentScan of them.
	WrittenTo map[string]int
	// Read counts each sender's messages the principal has read (\Seen),
	// not deleted, not marked $Junk and outside the Junk and Trash
	// mailboxes: mail the user opened and kept.
	Read map[string]int
	// ReadLists counts the read messages (as Read) of each mailing list,
	// by its List-Id identifier (see ListKey).
	ReadLists map[string]int
	// Domains are the domains of the WrittenTo addresses, sorted: the
	// organisations the principal corresponds with.
	Domains []string
	// Colleagues are the display names (normalizeName) of the people
	// who write from the principal's own domain, the principal excepted.
	Colleagues map[string]bool
}

// Colleague reports whether name (a display name) is the name of someone
// who writes from the principal's own domain. It implements
// triage.Colleagues.
func (f *Familiarity) Colleague(name string) bool {
	if f == nil {
		return false
	}
	n := normalizeName(name)
	return n != "" && f.Colleagues[n]
}

// normalizeName returns a person's display name as Familiarity compares
// it: lower case, its words sorted ("Raman, Priya" and "Priya Raman"
// are one name), "" for a name of fewer than two words.
func normalizeName(name string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return unicode.IsSpace(r) || r == ',' || r == '"' || r == '\'' || r == '(' || r == ')'
	})
	if len(words) < 2 {
		return ""
	}
	slices.Sort(words)
	return strings.Join(words, " ")
}

// WrittenDomains returns Domains. It implements triage.Correspondents.
func (f *Familiarity) WrittenDomains() []string {
	if f == nil {
		return nil
	}
	return f.Domains
}

// ListKey returns the identifier of a List-Id header value ("Name <id>"
// → id), lower-cased: the key of Familiarity.ReadLists.
func ListKey(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.LastIndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			v = v[i+1 : i+j]
		}
	}
	return strings.ToLower(strings.TrimSpace(v))
}

// ListRead returns how many messages of the list with List-Id value (or
// identifier) id the principal read. It implements triage.Senders.
func (f *Familiarity) ListRead(id string) int {
	if f == nil {
		return 0
	}
	return f.ReadLists[ListKey(id)]
}

// Familiar returns how many messages the principal wrote to email and
// how many of email's messages the principal read. It implements
// triage.Senders.
func (f *Familiarity) Familiar(email string) (written, read int) {
	if f == nil {
		return 0, 0
	}
	e := strings.ToLower(strings.TrimSpace(email))
	return f.WrittenTo[e], f.Read[e]
}

// Familiarity reads what the store says about senders: the principal's
// sent mail and the read flags of everyone else's. Without a principal
// (Options.Principal) nothing is written to anyone.
func (s *Store) Familiarity(ctx context.Context) (*Familiarity, error) {
	f := &Familiarity{WrittenTo: map[string]int{}, Read: map[string]int{}, ReadLists: map[string]int{}}
	err := s.eachSent(ctx, func(recipients [3][]model.Address, _ time.Time) {
		seen := map[string]bool{} // one message counts once per address
		for _, as := range recipients {
			for _, a := range as {
				if e := strings.ToLower(strings.TrimSpace(a.Email)); e != "" && e != s.principal && !seen[e] {
					seen[e] = true
					f.WrittenTo[e]++
				}
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("store: familiar senders: %w", err)
	}
	// A message read in two folders counts once; mail in Junk or Trash,
	// deleted or marked $Junk was looked at and thrown away, not kept.
	rows, err := s.r.QueryContext(ctx, `SELECT l.message, m.from_email, COALESCE(json_extract(m.headers_json, '$."List-Id"[0]'), '') FROM locations l
		JOIN messages m ON m.id = l.message
		LEFT JOIN mailboxes mb ON mb.account = l.account AND mb.name = l.mailbox
		WHERE l.seen = 1 AND l.deleted = 0 AND l.keywords NOT LIKE '%"$Junk"%'
		AND COALESCE(mb.role, '') NOT IN ('junk', 'trash')`)
	if err != nil {
		return nil, fmt.Errorf("store: familiar senders: %w", err)
	}
	defer rows.Close()
	counted := map[int64]bool{}
	for rows.Next() {
		var id int64
		var e, list string
		if err := rows.Scan(&id, &e, &list); err != nil {
			return nil, fmt.Errorf("store: familiar senders: %w", err)
		}
		if counted[id] {
			continue
		}
		counted[id] = true
		if e = strings.ToLower(e); e != "" && e != s.principal {
			f.Read[e]++
		}
		if k := ListKey(list); k != "" {
			f.ReadLists[k]++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: familiar senders: %w", err)
	}
	if err := s.colleagues(ctx, f); err != nil {
		return nil, err
	}
	domains := map[string]bool{}
	for e := range f.WrittenTo {
		if _, d, ok := strings.Cut(e, "@"); ok && d != "" {
			domains[d] = true
		}
	}
	f.Domains = slices.Sorted(maps.Keys(domains))
	return f, nil
}

// colleagues fills f.Colleagues with the names of the senders writing
// from the principal's domain.
func (s *Store) colleagues(ctx context.Context, f *Familiarity) error {
	f.Colleagues = map[string]bool{}
	_, domain, ok := strings.Cut(s.principal, "@")
	if !ok || domain == "" {
		return nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT from_name FROM messages WHERE from_email LIKE ? ESCAPE '\' AND from_email <> ?`,
		"%@"+likeEscape(domain), s.principal)
	if err != nil {
		return fmt.Errorf("store: colleagues: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("store: colleagues: %w", err)
		}
		if n := normalizeName(name); n != "" {
			f.Colleagues[n] = true
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: colleagues: %w", err)
	}
	return nil
}

// likeEscape escapes the LIKE wildcards of s for a pattern with ESCAPE '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
