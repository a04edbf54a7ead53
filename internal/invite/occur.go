package invite

import (
	"time"

	"github.com/teambition/rrule-go"
)

// MaxSteps bounds how many occurrences of a recurring event are looked at:
// a rule such as FREQ=SECONDLY;COUNT=1000000000 costs no more than this.
const MaxSteps = 1000

// Span is one occurrence's start and end.
type Span struct{ Start, End time.Time }

// Occurrences returns the event's occurrences that overlap [from, to),
// looking at no more than MaxSteps of them. A non-recurring event is its
// one span; a recurring one follows its RRULE (FREQ DAILY, WEEKLY with
// BYDAY, MONTHLY, YEARLY; INTERVAL, COUNT, UNTIL); any other rule yields
// the first occurrence only.
func (in *Invite) Occurrences(from, to time.Time) []Span {
	if in.Start.IsZero() {
		return nil
	}
	d := in.Duration()
	if in.AllDay && d == 0 {
		d = 24 * time.Hour
	}
	var out []Span
	add := func(s time.Time) {
		e := s.Add(d)
		if s.Before(to) && (e.After(from) || (d == 0 && !s.Before(from))) {
			out = append(out, Span{s, e})
		}
	}
	r := in.rule
	if r == nil {
		add(in.Start)
		return out
	}
	interval := max(r.Interval, 1)
	count := 0
	emit := func(s time.Time) bool {
		if !r.Until.IsZero() && s.After(r.Until) {
			return false
		}
		count++
		if r.Count > 0 && count > r.Count {
			return false
		}
		add(s)
		return !s.After(to)
	}
	switch r.Freq {
	case rrule.DAILY, rrule.MONTHLY, rrule.YEARLY:
		for i := 0; i < MaxSteps; i++ {
			var s time.Time
			switch r.Freq {
			case rrule.DAILY:
				s = in.Start.AddDate(0, 0, i*interval)
			case rrule.MONTHLY:
				s = in.Start.AddDate(0, i*interval, 0)
			default:
				s = in.Start.AddDate(i*interval, 0, 0)
			}
			if !emit(s) {
				break
			}
		}
	case rrule.WEEKLY:
		days := map[time.Weekday]bool{}
		for _, wd := range r.Byweekday {
			days[time.Weekday((wd.Day()+1)%7)] = true
		}
		if len(days) == 0 {
			days[in.Start.Weekday()] = true
		}
		// Walk day by day through the weeks the interval selects.
		weekStart := in.Start.AddDate(0, 0, -int(in.Start.Weekday()))
		steps := 0
	weeks:
		for w := 0; steps < MaxSteps; w += interval {
			for dd := 0; dd < 7 && steps < MaxSteps; dd++ {
				s := weekStart.AddDate(0, 0, 7*w+dd)
				if s.Before(in.Start) || !days[s.Weekday()] {
					continue
				}
				steps++
				if !emit(s) {
					break weeks
				}
			}
			if w > MaxSteps*7 {
				break
			}
		}
	default:
		add(in.Start)
	}
	return out
}

// Overlaps reports whether two spans share time.
func (s Span) Overlaps(o Span) bool {
	return s.Start.Before(o.End) && o.Start.Before(s.End)
}
