package rfc822

import (
	"net/mail"
	"regexp"
	"strings"
	"time"
)

// dateLayouts are tried, in order, after net/mail's RFC 5322 parser fails.
var dateLayouts = [...]string{
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04 -0700",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 06 15:04:05 MST",
	"2 Jan 06 15:04:05 -0700",
	"Mon, 2 January 2006 15:04:05 -0700",
	"Mon Jan 2 15:04:05 2006",
	"Mon Jan 2 15:04:05 MST 2006",
	"Mon Jan 2 15:04:05 -0700 2006",
	"Monday, January 2, 2006 15:04:05 -0700",
	"Monday, 2 January 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05",
	"2 Jan 2006 15:04:05",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05",
	"01/02/2006 15:04:05",
	"Mon, 2 Jan 2006",
	"2 Jan 2006",
}

var (
	dateComment = regexp.MustCompile(`\([^)]*\)`)
	dateSpaces  = regexp.MustCompile(`\s+`)
	// A numeric zone without sign ("0200") or with a colon ("+02:00").
	dateZoneColon = regexp.MustCompile(`([+-]\d\d):(\d\d)$`)
)

// rfc5322Date parses the form nearly all mail carries, "[Mon, ]2 Jan 2006
// 15:04:05 -0700" with an optional plain comment after the zone, with the
// one time layout it matches. The result is net/mail.ParseDate's (the same
// zone split, the same layout), but ParseDate tries up to 24 layouts in
// turn and every failed try allocates an error: on the SpamAssassin corpus
// those were a sixth of all the bytes parsing allocated. Anything else
// reports false and goes the long way.
func rfc5322Date(v string) (time.Time, bool) {
	s := strings.TrimLeft(v, " \t")
	if strings.ContainsAny(s, "\r\n") {
		return time.Time{}, false
	}
	i := strings.IndexAny(s, "+-")
	if i < 0 || len(s) < i+5 {
		return time.Time{}, false
	}
	date, rest := s[:i+5], strings.Trim(s[i+5:], " \t")
	if rest != "" && (len(rest) < 2 || rest[0] != '(' || rest[len(rest)-1] != ')' ||
		strings.ContainsAny(rest[1:len(rest)-1], "()\\")) {
		return time.Time{}, false
	}
	layout := "2 Jan 2006 15:04:05 -0700"
	if len(date) > 5 && date[3] == ',' {
		layout = "Mon, " + layout
	}
	t, err := time.Parse(layout, date)
	return t, err == nil
}

// parseDate parses a Date header value leniently.
func parseDate(v string) (time.Time, bool) {
	t, ok := parseDateRaw(v)
	if ok {
		t = knownZone(t)
	}
	// Y2K-era clients wrote year-1900 as "0102" for 2002.
	if ok && t.Year() >= 100 && t.Year() < 200 {
		t = t.AddDate(1900, 0, 0)
	}
	return t, ok
}

func parseDateRaw(v string) (time.Time, bool) {
	if t, ok := rfc5322Date(v); ok {
		return t, true
	}
	if t, err := mail.ParseDate(v); err == nil {
		return t, true
	}
	s := dateComment.ReplaceAllString(v, " ")
	s = strings.ReplaceAll(s, ",", ", ")
	s = dateSpaces.ReplaceAllString(strings.TrimSpace(s), " ")
	s = strings.ReplaceAll(s, " ,", ",")
	s = dateZoneColon.ReplaceAllString(s, "$1$2")
	s = strings.TrimSuffix(s, ".")
	for _, cand := range []string{s, fixZoneName(s)} {
		if t, err := mail.ParseDate(cand); err == nil {
			return t, true
		}
		for _, l := range dateLayouts {
			if t, err := time.Parse(l, cand); err == nil {
				return t, true
			}
		}
	}
	return regexDate(s)
}

var (
	dateDMY = regexp.MustCompile(`(\d{1,2})\s+([A-Za-z]{3})[A-Za-z]*\.?\s+(\d{2,4})\s+(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?(?:\.\d+)?\s*([AaPp][Mm])?\s*([+-]*\d{3,5}|[A-Za-z][A-Za-z ]*)?`)
	dateYMD = regexp.MustCompile(`(\d{4})[/-](\d{1,2})[/-](\d{1,2})\s+(?:[A-Za-z]+\s+)?(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?\s*([AaPp][Mm])?\s*([+-]*\d{3,5}|[A-Za-z][A-Za-z ]*)?`)
	months  = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
	// longZones maps Windows-style zone names seen in old mail.
	longZones = map[string]int{
		"eastern daylight time": -4 * 60, "eastern standard time": -5 * 60,
		"central daylight time": -5 * 60, "central standard time": -6 * 60,
		"mountain daylight time": -6 * 60, "mountain standard time": -7 * 60, "us mountain standard time": -7 * 60,
		"pacific daylight time": -7 * 60, "pacific standard time": -8 * 60,
		"greenwich standard time": 0, "gmt standard time": 0, "gmt daylight time": 60,
		"w. europe standard time": 60, "w. europe daylight time": 120, "romance standard time": 60,
		"arabian standard time": 4 * 60, "india standard time": 330, "tokyo standard time": 9 * 60,
	}
)

// regexDate is the last resort: pick day, month, year, time and zone out
// of anything that looks like a date.
func regexDate(s string) (time.Time, bool) {
	var year, day, hh, mm, ss int
	var mon time.Month
	var ampm, zone string
	if g := dateDMY.FindStringSubmatch(s); g != nil {
		m, ok := months[strings.ToLower(g[2])]
		if !ok {
			return time.Time{}, false
		}
		day, mon, year = atoi(g[1]), m, atoi(g[3])
		hh, mm, ss, ampm, zone = atoi(g[4]), atoi(g[5]), atoi(g[6]), g[7], g[8]
	} else if g := dateYMD.FindStringSubmatch(s); g != nil {
		year, mon, day = atoi(g[1]), time.Month(atoi(g[2])), atoi(g[3])
		hh, mm, ss, ampm, zone = atoi(g[4]), atoi(g[5]), atoi(g[6]), g[7], g[8]
	} else {
		return time.Time{}, false
	}
	if year < 100 {
		if year < 70 {
			year += 2000
		} else {
			year += 1900
		}
	}
	switch strings.ToLower(ampm) {
	case "pm":
		if hh < 12 {
			hh += 12
		}
	case "am":
		if hh == 12 {
			hh = 0
		}
	}
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, false
	}
	return time.Date(year, mon, day, hh, mm, ss, 0, zoneOf(zone)), true
}

// zoneOf reads "+0200", "+-0500", "0530" or a zone name; unknown is UTC.
func zoneOf(z string) *time.Location {
	z = strings.TrimSpace(z)
	if z == "" {
		return time.UTC
	}
	if off, ok := longZones[strings.ToLower(z)]; ok {
		return time.FixedZone(z, off*60)
	}
	sign := 1
	digits := strings.TrimLeft(z, "+-")
	if strings.Contains(z[:len(z)-len(digits)], "-") {
		sign = -1
	}
	if len(digits) == 4 {
		h, m := atoi(digits[:2]), atoi(digits[2:])
		if h <= 14 && m < 60 {
			return time.FixedZone("", sign*(h*3600+m*60))
		}
	}
	if t, err := time.Parse("MST", strings.ToUpper(z)); err == nil {
		return t.Location()
	}
	return time.UTC
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return n
		}
		n = n*10 + int(c-'0')
		if n > 1e6 {
			return n
		}
	}
	return n
}

// namedZones are the zone names seen in Date headers: RFC 5322's obsolete
// US zones and common others, as numeric zones.
var namedZones = map[string]string{
	"UT": "+0000", "UTC": "+0000", "GMT": "+0000", "Z": "+0000",
	"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
	"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
	"CET": "+0100", "CEST": "+0200", "BST": "+0100", "IST": "+0530",
	"JST": "+0900", "KST": "+0900", "HKT": "+0800", "SGT": "+0800",
	"AEST": "+1000", "EET": "+0200", "EEST": "+0300", "MET": "+0100",
}

// knownZone gives a time parsed with a zone name Go did not know (it keeps
// the name with offset zero) that zone's offset: "08:01:02 EDT" is
// 12:01:02 UTC, not 08:01:02.
func knownZone(t time.Time) time.Time {
	name, off := t.Zone()
	z, ok := namedZones[strings.ToUpper(name)]
	if off != 0 || !ok || z == "+0000" {
		return t
	}
	zt, err := time.Parse("-0700", z)
	if err != nil {
		return t
	}
	_, zoff := zt.Zone()
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.FixedZone(name, zoff))
}

// fixZoneName maps zone names net/mail does not know to offsets and
// title-cases month and day names.
func fixZoneName(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		up := strings.ToUpper(w)
		if z, ok := namedZones[up]; ok {
			f[i] = z
			continue
		}
		if len(w) >= 3 && strings.ToUpper(w) == w && w[0] >= 'A' && w[0] <= 'Z' {
			f[i] = w[:1] + strings.ToLower(w[1:])
		}
	}
	// Keep only the first zone-looking token after the time.
	out := f[:0]
	seenZone := false
	for _, w := range f {
		isZone := len(w) == 5 && (w[0] == '+' || w[0] == '-')
		if isZone {
			if seenZone {
				continue
			}
			seenZone = true
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}
