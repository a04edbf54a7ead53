package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"mailsift/mailops"
	"mailsift/model"
)

// This file is the pure half of the `:` command line, implementing the
// mail-operations contract: parsing a command into an operation with
// filters and a target, and resolving the target against the last list or
// search candidates. It does no IO; the model runs the searches.

// Op is a command-line operation, named after the contract's operations.
type Op string

// The operations of the command line. Each maps to the contract's
// operation named in its comment.
const (
	OpList     Op = "list"     // listEmails
	OpOpen     Op = "open"     // getEmailById / getLatestEmail
	OpReply    Op = "reply"    // replyPreview (the draft flow confirms)
	OpReplyAll Op = "replyall" // replyPreview to all recipients
	OpRead     Op = "read"     // markAsRead
	OpUnread   Op = "unread"   // markAsUnread
)

// Filters are the contract's list filters: from, to, subjectContains,
// textContains, read state and maxResults.
type Filters struct {
	From    []string
	To      []string
	Subject []string
	Text    []string
	// Unread is nil for any read state, else the wanted state.
	Unread *bool
	// Limit is maxResults; 0 means the default.
	Limit int
}

// Empty reports whether no filter is set (Limit aside).
func (f Filters) Empty() bool {
	return len(f.From) == 0 && len(f.To) == 0 && len(f.Subject) == 0 && len(f.Text) == 0 && f.Unread == nil
}

// Query renders the filters in the store's search syntax.
func (f Filters) Query() string {
	var parts []string
	add := func(prefix string, vals []string) {
		for _, v := range vals {
			parts = append(parts, prefix+quoteTerm(v))
		}
	}
	add("from:", f.From)
	add("to:", f.To)
	add("subject:", f.Subject)
	add("", f.Text)
	if f.Unread != nil && *f.Unread {
		parts = append(parts, "is:unread")
	}
	return strings.Join(parts, " ")
}

// quoteTerm quotes a search term that contains spaces or quotes.
func quoteTerm(s string) string {
	if strings.ContainsAny(s, " \t\"") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// Command is one parsed command line.
type Command struct {
	Op      Op
	Filters Filters
	// Index is the contract's selectionIndex: 1-based row of the last
	// list; 0 when the command names no row.
	Index int
	// Latest picks the newest match instead of asking ("open latest from bob").
	Latest bool
	// Body is what a reply should say, in the user's words as the model
	// passed them on (the contract's body); "" lets the drafts engine
	// write the reply.
	Body string
	// MessageID targets the thread of one message by its Message-ID (the
	// contract's messageId, as the user gave it).
	MessageID string
	// Confirm goes from the draft straight to the confirm screen once the
	// draft is ready (the contract's replyConfirm); the send still needs y
	// there.
	Confirm bool
}

// HasTarget reports whether the command names something to act on.
func (c Command) HasTarget() bool {
	return c.Index > 0 || c.Latest || c.MessageID != "" || !c.Filters.Empty()
}

// DefaultListLimit is the number of rows `:list` shows without limit:N.
const DefaultListLimit = 50

// commandHelp is shown when a command line cannot be parsed.
const commandHelp = "commands: list [from:x] [to:x] [subject:x] [text] [unread|read] [limit:N] · open N|latest …|<message-id> · reply N · replyall N · read N · unread N"

// ParseCommand parses a command line (without the leading ':').
//
// Targets and filters accept both `from:bob` and the spoken form
// `from bob`; quoted phrases ("weekly report") stay one term.
func ParseCommand(line string) (Command, error) {
	toks, err := tokenize(line)
	if err != nil {
		return Command{}, err
	}
	if len(toks) == 0 {
		return Command{}, errors.New("empty command; " + commandHelp)
	}
	var c Command
	switch strings.ToLower(toks[0]) {
	case "list", "ls", "l":
		c.Op = OpList
	case "open", "o", "show":
		c.Op = OpOpen
	case "reply", "re":
		c.Op = OpReply
	case "replyall", "reply-all", "ra":
		c.Op = OpReplyAll
	case "read":
		c.Op = OpRead
	case "unread":
		c.Op = OpUnread
	default:
		return Command{}, fmt.Errorf("%w %q; %s", errUnknownCommand, toks[0], commandHelp)
	}
	rest := toks[1:]
	if c.Op == OpReply && len(rest) > 0 && strings.EqualFold(rest[0], "all") {
		c.Op, rest = OpReplyAll, rest[1:]
	}
	for i := 0; i < len(rest); i++ {
		t := rest[i]
		lt := strings.ToLower(t)
		next := func() (string, bool) {
			if i+1 < len(rest) {
				i++
				return rest[i], true
			}
			return "", false
		}
		switch {
		case isNumber(t) && c.Op != OpList && c.Index == 0 && c.Filters.Empty() && !c.Latest:
			n, _ := strconv.Atoi(t)
			if n < 1 {
				return Command{}, fmt.Errorf("row %d: rows are numbered from 1", n)
			}
			c.Index = n
		case c.Op != OpList && c.MessageID == "" && len(t) > 2 && strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && strings.Contains(t, "@"):
			c.MessageID = t[1 : len(t)-1]
		case lt == "latest" || lt == "newest" || lt == "last":
			c.Latest = true
		case lt == "unread":
			v := true
			c.Filters.Unread = &v
		case lt == "read" || lt == "seen":
			v := false
			c.Filters.Unread = &v
		case strings.HasPrefix(lt, "limit:"):
			n, err := strconv.Atoi(t[len("limit:"):])
			if err != nil || n < 1 {
				return Command{}, fmt.Errorf("bad %q: limit takes a positive number, e.g. limit:20", t)
			}
			c.Filters.Limit = n
		case strings.HasPrefix(lt, "from:"), strings.HasPrefix(lt, "to:"), strings.HasPrefix(lt, "subject:"), strings.HasPrefix(lt, "text:"):
			k, v, _ := strings.Cut(t, ":")
			if v == "" {
				var ok bool
				if v, ok = next(); !ok {
					return Command{}, fmt.Errorf("%s: needs a value, e.g. %s:bob", k, strings.ToLower(k))
				}
			}
			c.Filters.add(strings.ToLower(k), v)
		case (lt == "from" || lt == "to" || lt == "subject") && i+1 < len(rest):
			v, _ := next()
			c.Filters.add(lt, v)
		case lt == "email" || lt == "emails" || lt == "mail" || lt == "message" || lt == "the":
			// filler words of the spoken form ("open the latest email from bob")
		default:
			c.Filters.Text = append(c.Filters.Text, t)
		}
	}
	if c.Op != OpList && !c.HasTarget() {
		return Command{}, fmt.Errorf("%s: which thread? give a row number of the last list (%s 3), latest, or a filter (%s from bob)", c.Op, c.Op, c.Op)
	}
	return c, nil
}

func (f *Filters) add(k, v string) {
	switch k {
	case "from":
		f.From = append(f.From, v)
	case "to":
		f.To = append(f.To, v)
	case "subject":
		f.Subject = append(f.Subject, v)
	default:
		f.Text = append(f.Text, v)
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// tokenize splits on whitespace, keeping "quoted phrases" (and from:"a b")
// together without their quotes.
func tokenize(s string) ([]string, error) {
	var toks []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
			have = true
		case unicode.IsSpace(r) && !inQuote:
			if have {
				toks = append(toks, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQuote {
		return nil, errors.New(`unterminated quote: close the phrase with "`)
	}
	if have {
		toks = append(toks, cur.String())
	}
	return toks, nil
}

// ListItem is one numbered row of a command-line list or a candidate of
// a disambiguation: a thread with what identifies it to the user.
type ListItem struct {
	ThreadID int64
	From     model.Address
	Subject  string
	Date     time.Time
	Unread   bool
}

// Resolution is the outcome of resolving a command's target.
type Resolution struct {
	// ThreadID is the resolved thread, when exactly one matched.
	ThreadID int64
	// Candidates are the matches to ask the user about (disambiguation),
	// newest first, when several matched and the command did not say latest.
	Candidates []ListItem
}

// ErrNoMatch is returned when a target matches no thread.
var ErrNoMatch = errors.New("no thread matches")

// ResolveIndex returns the thread at 1-based row index of the last list.
func ResolveIndex(index int, last []ListItem) (int64, error) {
	if len(last) == 0 {
		return 0, fmt.Errorf("row %d: there is no list yet; run :list first", index)
	}
	if index < 1 || index > len(last) {
		return 0, fmt.Errorf("row %d: the last list has rows 1–%d", index, len(last))
	}
	return last[index-1].ThreadID, nil
}

// Candidates turns search results (newest first, possibly several per
// thread) into one item per thread, keeping the read-state filter the
// search syntax cannot express, up to limit items (0: DefaultListLimit).
func Candidates(items []ListItem, f Filters, limit int) []ListItem {
	if limit <= 0 {
		limit = DefaultListLimit
	}
	seen := make(map[int64]int, len(items))
	var out []ListItem
	for _, it := range items {
		if j, ok := seen[it.ThreadID]; ok {
			// A thread is unread if any matching message is.
			out[j].Unread = out[j].Unread || it.Unread
			continue
		}
		seen[it.ThreadID] = len(out)
		out = append(out, it)
	}
	if f.Unread != nil {
		kept := out[:0]
		for _, it := range out {
			if it.Unread == *f.Unread {
				kept = append(kept, it)
			}
		}
		out = kept
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Pick resolves a fuzzy target from its candidates (newest first): none is
// ErrNoMatch, one is that thread, several are returned for the user to
// choose from, unless latest asks for the newest. It never guesses.
func Pick(cands []ListItem, latest bool) (Resolution, error) {
	switch {
	case len(cands) == 0:
		return Resolution{}, ErrNoMatch
	case len(cands) == 1:
		return Resolution{ThreadID: cands[0].ThreadID}, nil
	case latest:
		best := cands[0]
		for _, c := range cands[1:] {
			if c.Date.After(best.Date) {
				best = c
			}
		}
		return Resolution{ThreadID: best.ThreadID}, nil
	default:
		return Resolution{Candidates: cands}, nil
	}
}

// errUnknownCommand is ParseCommand's error for a first word that names
// no command: a sentence goes to the model instead.
var errUnknownCommand = errors.New("unknown command")

// functionWords are words of a sentence that no filter means: a command
// line holding one as a filter value or search word is plain language
// ("reply to the latest mail from Dana" is not a reply to mail sent to
// "the").
var functionWords = map[string]bool{
	"the": true, "a": true, "an": true, "to": true, "from": true, "of": true, "for": true, "about": true,
	"me": true, "my": true, "mine": true, "all": true, "that": true, "this": true, "these": true, "those": true,
	"with": true, "and": true, "or": true, "is": true, "are": true, "was": true, "it": true, "its": true,
	"please": true, "mail": true, "mails": true, "email": true, "emails": true, "message": true, "messages": true,
	"one": true, "ones": true, "which": true, "who": true, "i": true, "you": true, "can": true, "could": true,
	"would": true, "sent": true, "got": true, "received": true, "by": true, "in": true, "on": true, "as": true,
	"them": true, "him": true, "her": true, "say": true, "saying": true, "tell": true, "ask": true,
}

// IsPlainLanguage reports whether a command line is a sentence for the
// model rather than a structured command: its first word is no command,
// or what ParseCommand made of it holds words of a sentence as filter
// values or search words, or a reply is addressed in the spoken form
// ("reply to Dana" means Dana's mail, not mail sent to Dana).
func IsPlainLanguage(line string) bool {
	toks, err := tokenize(line)
	if err != nil || len(toks) == 0 {
		return false
	}
	c, err := ParseCommand(line)
	if errors.Is(err, errUnknownCommand) {
		return len(toks) > 1 // one unknown word is a mistyped command
	}
	if err != nil {
		return false // a structured command with a mistake: its error helps more
	}
	if (c.Op == OpReply || c.Op == OpReplyAll) && len(toks) > 1 && strings.EqualFold(toks[1], "to") {
		return true
	}
	f := c.Filters
	for _, vals := range [][]string{f.From, f.To, f.Subject, f.Text} {
		for _, v := range vals {
			if functionWords[strings.ToLower(v)] {
				return true
			}
		}
	}
	return false
}

// CommandFromArgs turns the contract's args (as the model proposed them
// and mailops validated them) into a command line's Command, or says why
// the product cannot do it yet.
func CommandFromArgs(a mailops.Args) (Command, error) {
	var c Command
	switch a.Operation {
	case mailops.ListEmails:
		c.Op = OpList
	case mailops.GetLatestEmail:
		c.Op, c.Latest = OpOpen, true
	case mailops.GetEmailByID:
		c.Op = OpOpen
	case mailops.ReplyPreview:
		c.Op = OpReply
	case mailops.ReplyConfirm:
		c.Op, c.Confirm = OpReply, true
	case mailops.MarkAsRead:
		c.Op = OpRead
	case mailops.MarkAsUnread:
		c.Op = OpUnread
	case mailops.SendPreview, mailops.SendConfirm:
		return Command{}, errors.New("a new message is not a command: it opens the compose screen (c)")
	case mailops.Unsupported:
		what := a.Requested
		if what == "" {
			what = "that"
		}
		return Command{}, fmt.Errorf("%q is not available yet; the : line can list, open, reply to, write and mark mail read or unread", what)
	default:
		return Command{}, fmt.Errorf("operation %q is not available", a.Operation)
	}
	c.MessageID = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(a.MessageID), "<"), ">")
	if c.Op == OpReply {
		c.Body = strings.TrimSpace(a.Body)
	}
	c.Index = a.SelectionIndex
	if a.Filters != nil {
		f := a.Filters
		if v := strings.TrimSpace(f.From); v != "" {
			c.Filters.From = []string{v}
		}
		if v := strings.TrimSpace(f.To); v != "" {
			c.Filters.To = []string{v}
		}
		if v := strings.TrimSpace(f.SubjectContains); v != "" {
			c.Filters.Subject = []string{stemTerm(v)}
		}
		if v := strings.TrimSpace(f.TextContains); v != "" {
			c.Filters.Text = []string{stemTerm(v)}
		}
		for _, l := range f.LabelIDs {
			switch strings.ToUpper(l) {
			case "UNREAD":
				v := true
				c.Filters.Unread = &v
			case "INBOX":
			default:
				return Command{}, fmt.Errorf("label %q is not available; filters are who from, to, subject, words and unread", l)
			}
		}
		c.Filters.Limit = f.MaxResults
		if f.MaxResults == 1 && c.Op != OpList {
			c.Latest = true
		}
	}
	if c.Op != OpList && !c.HasTarget() {
		return Command{}, fmt.Errorf("%s: which mail? say a number of the list or who it is from", c.Op)
	}
	return c, nil
}

// stemTerm makes one word a prefix search that also matches its singular
// or plural ("invoices" → invoice*), since the search index does not stem;
// a phrase stays as written.
func stemTerm(v string) string {
	if strings.ContainsAny(v, " \t\"*") {
		return v
	}
	r := []rune(v)
	for _, ch := range r {
		if !unicode.IsLetter(ch) && !unicode.IsDigit(ch) {
			return v
		}
	}
	lv := strings.ToLower(v)
	if len(r) > 3 && strings.HasSuffix(lv, "s") && !strings.HasSuffix(lv, "ss") {
		r = r[:len(r)-1]
	}
	return string(r) + "*"
}
