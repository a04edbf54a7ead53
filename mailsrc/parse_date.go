package mailsrc

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

// parseDate parses a Date header value leniently.
func parseDate(v string) (time.Time, bool) {
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
	return time.Time{}, false
}

// fixZoneName maps zone names net/mail does not know to offsets and
// title-cases month and day names.
func fixZoneName(s string) string {
	zones := map[string]string{
		"UT": "+0000", "UTC": "+0000", "GMT": "+0000", "Z": "+0000",
		"EST": "-0500", "EDT": "-0400", "CST": "-0600", "CDT": "-0500",
		"MST": "-0700", "MDT": "-0600", "PST": "-0800", "PDT": "-0700",
		"CET": "+0100", "CEST": "+0200", "BST": "+0100", "IST": "+0530",
		"JST": "+0900", "KST": "+0900", "HKT": "+0800", "SGT": "+0800",
		"AEST": "+1000", "EET": "+0200", "EEST": "+0300", "MET": "+0100",
	}
	f := strings.Fields(s)
	for i, w := range f {
		up := strings.ToUpper(w)
		if z, ok := zones[up]; ok {
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
