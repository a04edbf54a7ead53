// Package invite reads and writes the iCalendar objects of meeting
// invitations carried in mail (iMIP, RFC 6047; iTIP, RFC 5546): it parses
// a text/calendar part with github.com/emersion/go-ical into an Invite
// (method, UID, SEQUENCE, organizer, attendees with their PARTSTAT, start
// and end resolved through the part's own VTIMEZONE, RRULE) and builds the
// REPLY and COUNTER an attendee sends back.
//
// Calendar parts are mail, so untrusted: input is bounded in size, in
// nesting depth and in the number of attendees; a recurrence is expanded a
// bounded number of steps; an unknown time zone or a malformed property is
// recorded as a problem on the Invite instead of failing the whole part.
package invite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	ical "github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"
)

// MaxSize is the largest calendar part parsed; a larger one is refused.
const MaxSize = 1 << 20

// MaxDepth bounds the nesting of BEGIN/END components.
const MaxDepth = 8

// MaxAttendees bounds the attendees kept from one event.
const MaxAttendees = 500

// Methods of iTIP (RFC 5546 section 1.4) that mailsift reads.
const (
	MethodRequest = "REQUEST"
	MethodReply   = "REPLY"
	MethodCancel  = "CANCEL"
	MethodCounter = "COUNTER"
	MethodPublish = "PUBLISH"
)

// Participation statuses (RFC 5545 section 3.2.12) for VEVENT.
const (
	PartNeedsAction = "NEEDS-ACTION"
	PartAccepted    = "ACCEPTED"
	PartDeclined    = "DECLINED"
	PartTentative   = "TENTATIVE"
	PartDelegated   = "DELEGATED"
)

// ErrTooLarge is returned for a calendar part over MaxSize.
var ErrTooLarge = errors.New("invite: calendar part too large")

// Person is an organizer or an attendee.
type Person struct {
	// Email is the mailto: address, lower-cased; "" when the value is
	// not a mailto: URI.
	Email string
	// Name is the CN parameter.
	Name string
	// PartStat is the PARTSTAT parameter, upper-cased (attendees only;
	// NEEDS-ACTION when absent, as RFC 5545 defaults it).
	PartStat string
	// Role is the ROLE parameter (REQ-PARTICIPANT when absent).
	Role string
	// RSVP is the RSVP parameter.
	RSVP bool
}

// Optional reports whether the attendee's role says attendance is
// optional (OPT-PARTICIPANT or NON-PARTICIPANT).
func (p Person) Optional() bool {
	return p.Role == "OPT-PARTICIPANT" || p.Role == "NON-PARTICIPANT"
}

// Invite is one event of a calendar part, as mailsift uses it.
type Invite struct {
	// Method is the calendar's METHOD (REQUEST, REPLY, CANCEL, COUNTER,
	// PUBLISH, ...), upper-cased.
	Method string
	UID    string
	// Sequence is the SEQUENCE (0 when absent).
	Sequence int
	// RecurrenceID is set when the event is one occurrence of a series.
	RecurrenceID string
	Organizer    Person
	Attendees    []Person
	Summary      string
	Location     string
	Description  string
	// Status is the event's STATUS (CONFIRMED, TENTATIVE, CANCELLED).
	Status string
	// Start and End are the event's bounds. For an all-day event they
	// are midnights in UTC of the dates; for a floating time they are
	// the wall-clock time in UTC (see Floating).
	Start, End time.Time
	// AllDay is true when DTSTART is a DATE.
	AllDay bool
	// Floating is true when DTSTART has neither a zone nor a Z: it means
	// the same wall-clock time wherever the reader is.
	Floating bool
	// TZID is DTSTART's TZID parameter ("" for UTC, dates and floating).
	TZID string
	// RRule is the RRULE value as written ("" when none).
	RRule string
	// DTStamp is the DTSTAMP.
	DTStamp time.Time
	// Problems lists what was wrong but did not stop the parse.
	Problems []string

	rule *rrule.ROption
}

// Recurring reports whether the event repeats.
func (in *Invite) Recurring() bool { return in.RRule != "" }

// Duration is End - Start (0 when End is unknown).
func (in *Invite) Duration() time.Duration {
	if in.End.IsZero() || in.End.Before(in.Start) {
		return 0
	}
	return in.End.Sub(in.Start)
}

// Attendee returns the attendee with the address email (case-insensitive).
func (in *Invite) Attendee(email string) (Person, bool) {
	email = strings.ToLower(strings.TrimSpace(email))
	for _, a := range in.Attendees {
		if a.Email == email {
			return a, true
		}
	}
	return Person{}, false
}

// Parse reads a calendar part and returns its events that mailsift can
// use: each VEVENT with a UID. A part that is not iCalendar, too large,
// too deeply nested or without any such event is an error naming what is
// wrong. Problems of one event (an unknown TZID, an unreadable DTEND, a
// bad RRULE) are kept on that event instead.
func Parse(data []byte) ([]*Invite, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", ErrTooLarge, len(data), MaxSize)
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	cal, err := decode(data)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("invite: not an iCalendar object (truncated or empty)")
		}
		return nil, fmt.Errorf("invite: not an iCalendar object: %w", err)
	}
	if cal.Name != ical.CompCalendar {
		return nil, fmt.Errorf("invite: top component is %q, not VCALENDAR", cutText(cal.Name, 40))
	}
	method := strings.ToUpper(propText(cal.Props, ical.PropMethod))
	zones := readZones(cal.Component)
	var out []*Invite
	for _, c := range cal.Children {
		if c.Name != ical.CompEvent {
			continue
		}
		in := readEvent(c, method, zones)
		if in.UID == "" {
			continue
		}
		out = append(out, in)
	}
	if len(out) == 0 {
		return nil, errors.New("invite: the calendar holds no VEVENT with a UID")
	}
	return out, nil
}

// decode runs go-ical's decoder, turning a panic on malformed input (it
// indexes past the end of a content line such as "X;P=") into an error:
// calendar parts are mail, and mail must not crash the reader.
func decode(data []byte) (cal *ical.Calendar, err error) {
	defer func() {
		if r := recover(); r != nil {
			cal, err = nil, fmt.Errorf("malformed content line (%v)", r)
		}
	}()
	return ical.NewDecoder(bytes.NewReader(data)).Decode()
}

// Primary returns the event that stands for the part: the master event
// (without RECURRENCE-ID) when there is one, else the first.
func Primary(ins []*Invite) *Invite {
	for _, in := range ins {
		if in.RecurrenceID == "" {
			return in
		}
	}
	if len(ins) == 0 {
		return nil
	}
	return ins[0]
}

// checkDepth refuses a calendar nested deeper than MaxDepth, in one pass
// over the lines, before the recursive decoder sees it.
func checkDepth(data []byte) error {
	depth := 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		switch {
		case len(line) >= 6 && bytes.EqualFold(line[:6], []byte("BEGIN:")):
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("invite: components nested deeper than %d", MaxDepth)
			}
		case len(line) >= 4 && bytes.EqualFold(line[:4], []byte("END:")):
			depth--
		}
	}
	return nil
}

func readEvent(c *ical.Component, method string, zones map[string]*vtimezone) *Invite {
	in := &Invite{Method: method}
	p := c.Props
	in.UID = cutText(strings.TrimSpace(propText(p, ical.PropUID)), 250)
	if s := p.Get(ical.PropSequence); s != nil {
		n, err := strconv.Atoi(strings.TrimSpace(s.Value))
		if err != nil || n < 0 {
			in.problem("SEQUENCE %q is not a number; taken as 0", cutText(s.Value, 20))
		} else {
			in.Sequence = n
		}
	}
	if r := p.Get(ical.PropRecurrenceID); r != nil {
		in.RecurrenceID = cutText(r.Value, 40)
	}
	in.Summary = cutText(propText(p, ical.PropSummary), 500)
	in.Location = cutText(propText(p, ical.PropLocation), 500)
	in.Description = cutText(propText(p, ical.PropDescription), 8000)
	in.Status = strings.ToUpper(cutText(propText(p, ical.PropStatus), 20))
	if o := p.Get(ical.PropOrganizer); o != nil {
		in.Organizer = person(o)
	}
	for i, a := range p.Values(ical.PropAttendee) {
		if i >= MaxAttendees {
			in.problem("more than %d attendees; the rest ignored", MaxAttendees)
			break
		}
		in.Attendees = append(in.Attendees, person(&a))
	}
	if st := p.Get(ical.PropDateTimeStamp); st != nil {
		if t, _, err := resolveTime(st, zones); err == nil {
			in.DTStamp = t
		}
	}
	ds := p.Get(ical.PropDateTimeStart)
	if ds == nil {
		in.problem("no DTSTART")
		return in
	}
	start, kind, err := resolveTime(ds, zones)
	if err != nil {
		in.problem("DTSTART: %v", err)
		return in
	}
	in.Start = start
	in.AllDay = kind == kindDate
	in.Floating = kind == kindFloating
	if kind == kindZoned {
		in.TZID = cutText(ds.Params.Get(ical.ParamTimezoneID), 100)
	}
	if z := zoneProblem(ds, zones); z != "" {
		in.problem("%s", z)
	}
	switch {
	case p.Get(ical.PropDateTimeEnd) != nil:
		end, _, err := resolveTime(p.Get(ical.PropDateTimeEnd), zones)
		if err != nil {
			in.problem("DTEND: %v", err)
		} else {
			in.End = end
		}
	case p.Get(ical.PropDuration) != nil:
		d, err := p.Get(ical.PropDuration).Duration()
		if err != nil {
			in.problem("DURATION: %v", err)
		} else {
			in.End = start.Add(d)
		}
	case in.AllDay:
		in.End = start.AddDate(0, 0, 1)
	default:
		in.End = start
	}
	if !in.End.IsZero() && in.End.Before(in.Start) {
		in.problem("DTEND before DTSTART; end ignored")
		in.End = in.Start
	}
	if r := p.Get(ical.PropRecurrenceRule); r != nil {
		in.RRule = cutText(r.Value, 300)
		opt, err := p.RecurrenceRule()
		if err != nil {
			in.problem("RRULE: %v", err)
		} else {
			in.rule = opt
		}
	}
	return in
}

func (in *Invite) problem(format string, args ...any) {
	if len(in.Problems) < 20 {
		in.Problems = append(in.Problems, fmt.Sprintf(format, args...))
	}
}

// person reads an ORGANIZER or ATTENDEE property.
func person(p *ical.Prop) Person {
	out := Person{Name: cutText(p.Params.Get(ical.ParamCommonName), 200)}
	v := strings.TrimSpace(p.Value)
	if len(v) > 7 && strings.EqualFold(v[:7], "mailto:") {
		out.Email = strings.ToLower(cutText(strings.TrimSpace(v[7:]), 254))
	} else if e := p.Params.Get(ical.ParamEmail); e != "" {
		out.Email = strings.ToLower(cutText(e, 254))
	}
	out.PartStat = strings.ToUpper(p.Params.Get(ical.ParamParticipationStatus))
	if out.PartStat == "" {
		out.PartStat = PartNeedsAction
	}
	out.Role = strings.ToUpper(p.Params.Get(ical.ParamRole))
	if out.Role == "" {
		out.Role = "REQ-PARTICIPANT"
	}
	out.RSVP = strings.EqualFold(p.Params.Get(ical.ParamRSVP), "TRUE")
	return out
}

// propText is a text property's unescaped value ("" when absent; the raw
// value when its escapes are malformed).
func propText(p ical.Props, name string) string {
	pr := p.Get(name)
	if pr == nil {
		return ""
	}
	s, err := pr.Text()
	if err != nil {
		return pr.Value
	}
	return s
}

// cutText bounds s to n bytes on a rune boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
