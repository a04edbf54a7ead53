package invite

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	ical "github.com/emersion/go-ical"
)

// ProdID is the PRODID of the calendars mailsift writes.
const ProdID = "-//mailsift//mailsift//EN"

// Answer is what the user says to an invitation.
type Answer struct {
	// PartStat is ACCEPTED, TENTATIVE or DECLINED.
	PartStat string
	// Comment is an optional note to the organizer (COMMENT).
	Comment string
	// Start and End, when set, propose a new time: the answer is then a
	// COUNTER instead of a REPLY.
	Start, End time.Time
}

// Counter reports whether the answer proposes a new time.
func (a Answer) Counter() bool { return !a.Start.IsZero() }

// Build returns the iTIP object that answers the invitation in for the
// attendee me, at now (DTSTAMP): a METHOD:REPLY (RFC 5546 section 3.2.3)
// carrying the organizer, the attendee with the answer's PARTSTAT, the
// UID, SEQUENCE and the event's times; or a METHOD:COUNTER (section 3.2.7)
// with the proposed DTSTART/DTEND in UTC. Only a REQUEST is answered, and
// only by one of its attendees.
func Build(in *Invite, me string, a Answer, now time.Time) (method string, data []byte, err error) {
	if in == nil || in.Method != MethodRequest {
		return "", nil, errors.New("invite: only an invitation (METHOD:REQUEST) can be answered")
	}
	if in.Organizer.Email == "" {
		return "", nil, errors.New("invite: the invitation names no organizer to answer")
	}
	att, ok := in.Attendee(me)
	if !ok {
		return "", nil, fmt.Errorf("invite: %s is not an attendee of this invitation", me)
	}
	switch a.PartStat {
	case PartAccepted, PartTentative, PartDeclined:
	default:
		return "", nil, fmt.Errorf("invite: answer %q is not ACCEPTED, TENTATIVE or DECLINED", a.PartStat)
	}
	method = MethodReply
	if a.Counter() {
		method = MethodCounter
		if !a.End.After(a.Start) {
			return "", nil, errors.New("invite: the proposed end is not after its start")
		}
	}
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, ProdID)
	cal.Props.SetText(ical.PropMethod, method)
	ev := ical.NewEvent()
	ev.Props.SetText(ical.PropUID, in.UID)
	ev.Props.SetDateTime(ical.PropDateTimeStamp, now.UTC())
	seq := ical.NewProp(ical.PropSequence)
	seq.Value = strconv.Itoa(in.Sequence)
	ev.Props.Set(seq)
	if in.RecurrenceID != "" {
		ev.Props.Set(&ical.Prop{Name: ical.PropRecurrenceID, Params: ical.Params{}, Value: in.RecurrenceID})
	}
	org := ical.NewProp(ical.PropOrganizer)
	org.Value = "mailto:" + in.Organizer.Email
	if in.Organizer.Name != "" {
		org.Params.Set(ical.ParamCommonName, paramSafe(in.Organizer.Name))
	}
	ev.Props.Set(org)
	ap := ical.NewProp(ical.PropAttendee)
	ap.Value = "mailto:" + att.Email
	ap.Params.Set(ical.ParamParticipationStatus, a.PartStat)
	if att.Name != "" {
		ap.Params.Set(ical.ParamCommonName, paramSafe(att.Name))
	}
	ev.Props.Set(ap)
	if in.Summary != "" {
		ev.Props.SetText(ical.PropSummary, oneLine(in.Summary))
	}
	start, end := in.Start, in.End
	if a.Counter() {
		start, end = a.Start.UTC(), a.End.UTC()
	}
	switch {
	case a.Counter() || !in.AllDay && !in.Floating:
		ev.Props.SetDateTime(ical.PropDateTimeStart, start.UTC())
		if !end.IsZero() {
			ev.Props.SetDateTime(ical.PropDateTimeEnd, end.UTC())
		}
	case in.AllDay:
		ev.Props.SetDate(ical.PropDateTimeStart, start)
		if !end.IsZero() {
			ev.Props.SetDate(ical.PropDateTimeEnd, end)
		}
	default: // floating: the same wall clock, still floating
		ev.Props.Set(&ical.Prop{Name: ical.PropDateTimeStart, Params: ical.Params{}, Value: start.Format(layoutLocal)})
		if !end.IsZero() {
			ev.Props.Set(&ical.Prop{Name: ical.PropDateTimeEnd, Params: ical.Params{}, Value: end.Format(layoutLocal)})
		}
	}
	if c := strings.TrimSpace(a.Comment); c != "" {
		ev.Props.SetText(ical.PropComment, cutText(c, 1000))
	}
	cal.Children = append(cal.Children, ev.Component)
	var b bytes.Buffer
	if err := ical.NewEncoder(&b).Encode(cal); err != nil {
		return "", nil, fmt.Errorf("invite: encode %s: %w", method, err)
	}
	return method, Fold(b.Bytes()), nil
}

// Fold folds content lines longer than 75 octets (RFC 5545 section 3.1)
// without splitting a UTF-8 sequence; lines end in CRLF.
func Fold(data []byte) []byte {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\r\n")) {
		body := bytes.TrimSuffix(line, []byte("\r\n"))
		if len(body) == 0 && len(line) == 0 {
			continue
		}
		limit := 75
		for len(body) > limit {
			cut := limit
			for cut > 0 && !utf8.RuneStart(body[cut]) {
				cut--
			}
			out.Write(body[:cut])
			out.WriteString("\r\n ")
			body = body[cut:]
			limit = 74 // the leading space counts
		}
		out.Write(body)
		out.WriteString("\r\n")
	}
	return out.Bytes()
}

// paramSafe makes a display name fit a parameter value: no quotes, no
// controls, one line.
func paramSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '"' || r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return cutText(s, 200)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
