package schedule

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"mailsift/internal/invite"
	"mailsift/mailsrc/rfc822"
	"mailsift/model"
)

// MessageInvite is a calendar part found in one message of the thread.
type MessageInvite struct {
	Message *model.Message
	Invite  *invite.Invite
}

// maxContent bounds one conv_history entry's content.
const maxContent = 2000

// MaxHistory bounds one attendee's conv_history: their newest messages
// (and the principal's to them) are kept, as triage keeps a thread's newest.
const MaxHistory = 20

// MaxThreadMessages is how many of a thread's newest messages the
// analysis reads with their bodies (the caller loads no more).
const MaxThreadMessages = 100

var (
	meetingWords = regexp.MustCompile(`(?i)\b(meet(ing)?|call|calendar|invit(e|ation)|reschedul\w*|schedul\w*|availab\w*|free (on|at)|slot|works for (me|you)|zoom|teams|google meet|catch up|sync)\b`)
	timeWords    = regexp.MustCompile(`(?i)\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week|this week|\d{1,2}(:\d{2})?\s?(am|pm)|\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2})\b`)
)

// Detect reports whether a thread coordinates a meeting: it carries a
// calendar invitation, reply, counter or cancellation, or its text speaks
// of meeting at a time (a meeting word and a day or time in one message).
func Detect(t *model.Thread, invites []MessageInvite) bool {
	if len(invites) > 0 {
		return true
	}
	msgs := t.Messages
	if len(msgs) > MaxThreadMessages {
		msgs = msgs[len(msgs)-MaxThreadMessages:]
	}
	for _, m := range msgs {
		text := m.Subject + "\n" + rfc822.StripQuotes(head(m.Body(), 8000))
		if meetingWords.MatchString(text) && timeWords.MatchString(text) {
			return true
		}
	}
	return false
}

// Latest returns the invitation that defines the meeting now: among the
// REQUEST and CANCEL parts of the UID seen last, the one with the highest
// SEQUENCE (later in the thread on a tie). Nil when there is none.
func Latest(invites []MessageInvite) *MessageInvite {
	var best *MessageInvite
	for i := range invites {
		mi := &invites[i]
		in := mi.Invite
		if in.Method != invite.MethodRequest && in.Method != invite.MethodCancel {
			continue
		}
		if best == nil || in.UID != best.Invite.UID || in.Sequence >= best.Invite.Sequence {
			best = mi
		}
	}
	return best
}

// BuildInputs builds the contract's <scheduling_operation> and one
// <coordination> per attendee from the thread, its calendar parts and the
// previous analysis (nil on the first run). Attendees are the latest
// invitation's (else the thread's participants), without the principal;
// is_internal means the principal's domain; is_optional comes from the
// invitation's ROLE and is left out when nothing says; conv_history holds
// each message from the attendee (inbound) and each from the principal to
// them (outbound), oldest first, quoted text removed, a calendar reply
// noted in the content.
func BuildInputs(t *model.Thread, invites []MessageInvite, principal model.Address, prev *State, now time.Time) (Operation, []Coordination) {
	me := strings.ToLower(principal.Email)
	myDomain := domainOf(me)
	op := Operation{Title: subjectTitle(t), Timezone: "UTC", Attendees: []OpAttendee{}}
	if len(t.Messages) > 0 {
		op.CreatedAt = isoTime(t.Messages[0].Date)
	}
	type att struct {
		email, name string
		optional    *bool
	}
	var atts []att
	seen := map[string]bool{me: true}
	add := func(email, name string, optional *bool) {
		email = strings.ToLower(strings.TrimSpace(email))
		if email == "" || seen[email] || len(atts) >= 50 {
			return
		}
		seen[email] = true
		atts = append(atts, att{email: email, name: name, optional: optional})
	}
	if li := Latest(invites); li != nil {
		in := li.Invite
		if in.Summary != "" {
			op.Title = in.Summary
		}
		op.Location = in.Location
		op.Duration = int(in.Duration() / time.Minute)
		if in.TZID != "" {
			op.Timezone = in.TZID
		} else if in.Floating {
			op.Timezone = "floating"
		}
		op.Date = DateRange{Start: isoTime(in.Start), End: isoTime(in.End)}
		if in.AllDay {
			op.Date = DateRange{Start: in.Start.Format("2006-01-02"), End: in.End.Format("2006-01-02")}
		}
		if in.Organizer.Email != me {
			add(in.Organizer.Email, in.Organizer.Name, ptr(false))
		}
		for _, a := range in.Attendees {
			add(a.Email, a.Name, ptr(a.Optional()))
		}
	} else {
		for _, m := range t.Messages {
			add(m.From.Email, m.From.Name, nil)
			for _, a := range append(append([]model.Address{}, m.To...), m.Cc...) {
				add(a.Email, a.Name, nil)
			}
		}
	}
	prevAtt := map[string]*AttendeeAnalysis{}
	prevFollow := map[string]*string{}
	if prev != nil {
		for _, a := range prev.Operation.Attendees {
			prevAtt[a.AttendeeEmail] = a.AttendeeAnalysis
		}
		for _, c := range prev.Coordinations {
			prevFollow[c.AttendeeEmail] = c.FollowupDate
		}
		op.EventAnalysis = prev.Operation.EventAnalysis
	}
	byMsg := map[*model.Message][]*invite.Invite{}
	for _, mi := range invites {
		byMsg[mi.Message] = append(byMsg[mi.Message], mi.Invite)
	}
	// Each message's own text is computed once, whatever the attendees.
	texts := map[*model.Message]string{}
	ownText := func(m *model.Message) string {
		if t, ok := texts[m]; ok {
			return t
		}
		t := strings.TrimSpace(rfc822.StripQuotes(head(m.Body(), 16*maxContent)))
		texts[m] = t
		return t
	}
	var coords []Coordination
	for _, a := range atts {
		internal := myDomain != "" && domainOf(a.email) == myDomain
		op.Attendees = append(op.Attendees, OpAttendee{AttendeeEmail: a.email, AttendeeName: a.name, IsInternal: internal,
			IsOptional: a.optional, AttendeeAnalysis: prevAtt[a.email]})
		co := Coordination{AttendeeEmail: a.email, AttendeeName: a.name, IsInternal: internal, IsOptional: a.optional,
			ConvHistory: []ConvEntry{}, FollowupDate: prevFollow[a.email], AttendeeAnalysis: prevAtt[a.email]}
		// Newest first up to MaxHistory, then put back in time order.
		for i := len(t.Messages) - 1; i >= 0 && len(co.ConvHistory) < MaxHistory; i-- {
			m := t.Messages[i]
			from := strings.ToLower(m.From.Email)
			switch {
			case from == a.email:
				co.ConvHistory = append(co.ConvHistory, ConvEntry{Direction: DirInbound, Email: a.email,
					Content: content(ownText(m), byMsg[m], a.email), Timestamp: isoTime(m.Date)})
			case from == me && addressed(m, a.email):
				co.ConvHistory = append(co.ConvHistory, ConvEntry{Direction: DirOutbound, Email: a.email,
					Content: content(ownText(m), byMsg[m], ""), Timestamp: isoTime(m.Date)})
			}
		}
		slices.Reverse(co.ConvHistory)
		coords = append(coords, co)
	}
	return op, coords
}

// content is a message's own text for conv_history, with the attendee's
// calendar answer noted first.
func content(own string, ins []*invite.Invite, attendee string) string {
	var notes []string
	for _, in := range ins {
		switch in.Method {
		case invite.MethodReply:
			if p, ok := in.Attendee(attendee); ok && attendee != "" {
				notes = append(notes, "[calendar reply: "+p.PartStat+"]")
			}
		case invite.MethodCounter:
			if attendee != "" {
				notes = append(notes, fmt.Sprintf("[calendar counter: proposes %s]", spanText(in.Start, in.End)))
			}
		case invite.MethodRequest:
			notes = append(notes, fmt.Sprintf("[calendar invitation: %s, sequence %d]", spanText(in.Start, in.End), in.Sequence))
			// The organizer's invitation carries their own answer (they
			// attend the meeting they call).
			if attendee != "" && attendee == in.Organizer.Email {
				st := invite.PartAccepted
				if p, ok := in.Attendee(attendee); ok && p.PartStat != invite.PartNeedsAction {
					st = p.PartStat
				}
				notes = append(notes, "[calendar reply: "+st+"]")
			}
		case invite.MethodCancel:
			notes = append(notes, "[calendar cancellation]")
		}
	}
	text := own
	if len(notes) > 0 {
		text = strings.Join(notes, " ") + "\n" + text
	}
	return head(text, maxContent)
}

func spanText(s, e time.Time) string {
	if e.IsZero() || !e.After(s) {
		return s.UTC().Format("2006-01-02 15:04") + " UTC"
	}
	if s.Format("2006-01-02") == e.Format("2006-01-02") {
		return s.UTC().Format("2006-01-02 15:04") + "-" + e.UTC().Format("15:04") + " UTC"
	}
	return s.UTC().Format("2006-01-02 15:04") + " – " + e.UTC().Format("2006-01-02 15:04") + " UTC"
}

func addressed(m *model.Message, email string) bool {
	for _, l := range [][]model.Address{m.To, m.Cc, m.Bcc} {
		for _, a := range l {
			if strings.EqualFold(a.Email, email) {
				return true
			}
		}
	}
	return false
}

func subjectTitle(t *model.Thread) string {
	s := t.Subject
	if s == "" && len(t.Messages) > 0 {
		s = t.Messages[0].Subject
	}
	for {
		l := strings.ToLower(s)
		switch {
		case strings.HasPrefix(l, "re:"), strings.HasPrefix(l, "aw:"), strings.HasPrefix(l, "fw:"):
			s = strings.TrimSpace(s[3:])
		case strings.HasPrefix(l, "fwd:"):
			s = strings.TrimSpace(s[4:])
		default:
			return head(s, 300)
		}
	}
}

func domainOf(email string) string {
	if i := strings.LastIndexByte(email, '@'); i >= 0 {
		return strings.ToLower(email[i+1:])
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

// head bounds s to n bytes on a rune boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
