package invite

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	ical "github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"
)

// timeKind says how a DATE-TIME was anchored.
type timeKind int

const (
	kindUTC timeKind = iota
	kindZoned
	kindFloating
	kindDate
)

// vtimezone is one VTIMEZONE: its STANDARD and DAYLIGHT observances.
type vtimezone struct {
	id  string
	obs []observance
}

// observance is one STANDARD or DAYLIGHT block: from its onset (DTSTART,
// wall clock, repeating by its yearly RRULE) the offset is offsetTo.
type observance struct {
	start    time.Time // wall clock as a UTC time
	offsetTo int       // seconds east of UTC
	rule     *rrule.ROption
}

const (
	layoutDate     = "20060102"
	layoutLocal    = "20060102T150405"
	layoutUTC      = "20060102T150405Z"
	maxZones       = 32
	maxObservances = 16
)

// readZones collects the calendar's VTIMEZONEs by TZID.
func readZones(cal *ical.Component) map[string]*vtimezone {
	zones := map[string]*vtimezone{}
	for _, c := range cal.Children {
		if c.Name != ical.CompTimezone || len(zones) >= maxZones {
			continue
		}
		id := strings.TrimSpace(propText(c.Props, ical.PropTimezoneID))
		if id == "" {
			continue
		}
		z := &vtimezone{id: id}
		for _, o := range c.Children {
			if (o.Name != ical.CompTimezoneStandard && o.Name != ical.CompTimezoneDaylight) || len(z.obs) >= maxObservances {
				continue
			}
			ds := o.Props.Get(ical.PropDateTimeStart)
			to := o.Props.Get(ical.PropTimezoneOffsetTo)
			if ds == nil || to == nil {
				continue
			}
			st, err := time.ParseInLocation(layoutLocal, strings.TrimSpace(ds.Value), time.UTC)
			if err != nil {
				continue
			}
			off, err := parseOffset(to.Value)
			if err != nil {
				continue
			}
			ob := observance{start: st, offsetTo: off}
			if opt, err := o.Props.RecurrenceRule(); err == nil && opt != nil && opt.Freq == rrule.YEARLY {
				ob.rule = opt
			}
			z.obs = append(z.obs, ob)
		}
		if len(z.obs) > 0 {
			zones[id] = z
		}
	}
	return zones
}

// parseOffset reads a UTC-OFFSET such as +0100, -0530 or +013045.
func parseOffset(s string) (int, error) {
	s = strings.TrimSpace(s)
	if len(s) != 5 && len(s) != 7 || (s[0] != '+' && s[0] != '-') {
		return 0, fmt.Errorf("offset %q is not like +0100", cutText(s, 12))
	}
	h, err1 := strconv.Atoi(s[1:3])
	m, err2 := strconv.Atoi(s[3:5])
	sec := 0
	var err3 error
	if len(s) == 7 {
		sec, err3 = strconv.Atoi(s[5:7])
	}
	if err1 != nil || err2 != nil || err3 != nil || h > 23 || m > 59 || sec > 59 {
		return 0, fmt.Errorf("offset %q is not like +0100", s)
	}
	off := h*3600 + m*60 + sec
	if s[0] == '-' {
		off = -off
	}
	return off, nil
}

// offsetAt returns the zone's offset for a wall-clock time (given as a UTC
// time holding the wall-clock fields): the offset of the observance whose
// latest onset is not after it.
func (z *vtimezone) offsetAt(wall time.Time) int {
	best := time.Time{}
	off, found := 0, false
	earliest := time.Time{}
	for _, o := range z.obs {
		if earliest.IsZero() || o.start.Before(earliest) {
			earliest, off = o.start, o.offsetTo
		}
	}
	for _, o := range z.obs {
		for _, on := range o.onsets(wall.Year()) {
			if on.After(wall) {
				continue
			}
			if !found || on.After(best) {
				best, off, found = on, o.offsetTo, true
			}
		}
	}
	return off
}

// onsets are the observance's onsets in year and the year before (at most
// two per year: a bounded amount of work whatever the rule says).
func (o observance) onsets(year int) []time.Time {
	if o.rule == nil {
		return []time.Time{o.start}
	}
	var out []time.Time
	for y := year - 1; y <= year; y++ {
		if y < o.start.Year() {
			continue
		}
		on, ok := yearlyOnset(o.rule, o.start, y)
		if !ok {
			continue
		}
		if !o.rule.Until.IsZero() && on.After(o.rule.Until.Add(24*time.Hour)) {
			continue
		}
		out = append(out, on)
	}
	if len(out) == 0 {
		out = append(out, o.start)
	}
	return out
}

// yearlyOnset evaluates the common shapes of a VTIMEZONE rule in year y:
// BYMONTH with BYDAY (the n-th or last weekday) or BYMONTHDAY.
func yearlyOnset(r *rrule.ROption, start time.Time, y int) (time.Time, bool) {
	if len(r.Bymonth) != 1 {
		return time.Time{}, false
	}
	month := time.Month(r.Bymonth[0])
	h, mi, s := start.Clock()
	switch {
	case len(r.Byweekday) == 1:
		wd := r.Byweekday[0]
		n := wd.N()
		if n == 0 {
			n = 1
		}
		want := time.Weekday((wd.Day() + 1) % 7) // rrule: MO=0; time: Sunday=0
		if n > 0 {
			d := time.Date(y, month, 1, h, mi, s, 0, time.UTC)
			for d.Weekday() != want {
				d = d.AddDate(0, 0, 1)
			}
			d = d.AddDate(0, 0, 7*(n-1))
			return d, d.Month() == month
		}
		d := time.Date(y, month+1, 1, h, mi, s, 0, time.UTC).AddDate(0, 0, -1)
		for d.Weekday() != want {
			d = d.AddDate(0, 0, -1)
		}
		d = d.AddDate(0, 0, 7*(n+1))
		return d, d.Month() == month
	case len(r.Bymonthday) == 1 && r.Bymonthday[0] > 0:
		d := time.Date(y, month, r.Bymonthday[0], h, mi, s, 0, time.UTC)
		return d, d.Month() == month
	}
	return time.Time{}, false
}

// resolveTime reads a DATE or DATE-TIME property: a DATE is midnight UTC
// of the day, a UTC time is itself, a TZID time goes through the
// calendar's own VTIMEZONE of that id (which defines the zone, whatever
// its name), else the IANA zone of that name; a time with an unknown TZID
// or none is floating (its wall clock read as UTC).
func resolveTime(p *ical.Prop, zones map[string]*vtimezone) (time.Time, timeKind, error) {
	v := strings.TrimSpace(p.Value)
	if strings.EqualFold(p.Params.Get(ical.ParamValue), "DATE") || len(v) == len(layoutDate) {
		t, err := time.ParseInLocation(layoutDate, v, time.UTC)
		if err != nil {
			return time.Time{}, 0, fmt.Errorf("date %q is not like 20261124", cutText(v, 30))
		}
		return t, kindDate, nil
	}
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		t, err := time.ParseInLocation(layoutUTC, strings.ToUpper(v), time.UTC)
		if err != nil {
			return time.Time{}, 0, fmt.Errorf("time %q is not like 20261124T150000Z", cutText(v, 30))
		}
		return t, kindUTC, nil
	}
	wall, err := time.ParseInLocation(layoutLocal, v, time.UTC)
	if err != nil {
		return time.Time{}, 0, fmt.Errorf("time %q is not like 20261124T150000", cutText(v, 30))
	}
	tzid := strings.TrimSpace(p.Params.Get(ical.ParamTimezoneID))
	if tzid == "" {
		return wall, kindFloating, nil
	}
	if z, ok := zones[tzid]; ok {
		return wall.Add(-time.Duration(z.offsetAt(wall)) * time.Second), kindZoned, nil
	}
	if loc, ok := ianaZone(tzid); ok {
		return time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, loc).UTC(), kindZoned, nil
	}
	return wall, kindFloating, nil
}

// ianaZone loads an IANA zone by name, refusing names that are not one
// (time.LoadLocation would read a path).
func ianaZone(name string) (*time.Location, bool) {
	if name == "" || len(name) > 64 || strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// zoneProblem says what is doubtful about a DATE-TIME's zone: a TZID
// known neither from the calendar nor as an IANA name, or a VTIMEZONE
// whose offset disagrees with the IANA zone of the same name.
func zoneProblem(p *ical.Prop, zones map[string]*vtimezone) string {
	tzid := strings.TrimSpace(p.Params.Get(ical.ParamTimezoneID))
	v := strings.TrimSpace(p.Value)
	if tzid == "" || len(v) != len(layoutLocal) {
		return ""
	}
	z, inCal := zones[tzid]
	loc, iana := ianaZone(tzid)
	switch {
	case !inCal && !iana:
		return fmt.Sprintf("unknown TZID %q (no VTIMEZONE, not an IANA zone): the time is shown as written", cutText(tzid, 64))
	case inCal && iana:
		wall, err := time.ParseInLocation(layoutLocal, v, time.UTC)
		if err != nil {
			return ""
		}
		_, ianaOff := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), 0, 0, loc).Zone()
		if calOff := z.offsetAt(wall); calOff != ianaOff {
			return fmt.Sprintf("VTIMEZONE %q says UTC%s but the IANA zone of that name says UTC%s; the calendar's VTIMEZONE is used",
				cutText(tzid, 64), fmtOffset(calOff), fmtOffset(ianaOff))
		}
	}
	return ""
}

func fmtOffset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("%s%02d:%02d", sign, sec/3600, sec%3600/60)
}
