// Package snooze computes snooze times: the picker's presets and typed
// dates and times, in the user's time zone (the zone of the now passed in).
package snooze

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Preset is one choice of the snooze picker.
type Preset struct {
	Label string
	At    time.Time
}

// morning is when "tomorrow morning" and "next week" start.
const morning = 8

// Presets returns the picker's presets relative to now, in now's
// time zone (the user's): later today (in three hours, on the hour),
// tomorrow morning (8:00), next week (Monday 8:00).
func Presets(now time.Time) []Preset {
	later := now.Add(3 * time.Hour).Truncate(time.Hour)
	if later.Before(now.Add(3 * time.Hour)) {
		later = later.Add(time.Hour)
	}
	y, m, d := now.Date()
	tomorrow := time.Date(y, m, d+1, morning, 0, 0, 0, now.Location())
	days := (8 - int(now.Weekday())) % 7
	if days == 0 {
		days = 7
	}
	nextWeek := time.Date(y, m, d+days, morning, 0, 0, 0, now.Location())
	return []Preset{
		{Label: "later today", At: later},
		{Label: "tomorrow morning", At: tomorrow},
		{Label: "next week", At: nextWeek},
	}
}

// Parse reads a typed snooze time in now's time zone:
// "2026-12-01 09:00", "2026-12-01" (8:00 that day), "17:30" (today, or
// tomorrow when that has passed), "tomorrow 9:00", a weekday ("fri",
// "friday 14:00": the next one), or a delay ("3h", "2d", "90m").
func Parse(s string, now time.Time) (time.Time, error) {
	in := strings.ToLower(strings.Join(strings.Fields(s), " "))
	bad := fmt.Errorf("%q is not a time; type e.g. 2026-12-01 09:00, 2026-12-01, 17:30, tomorrow 9:00, fri 14:00, 3h or 2d", s)
	if in == "" {
		return time.Time{}, bad
	}
	loc := now.Location()
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, in, loc); err == nil {
			if layout == "2006-01-02" {
				t = t.Add(morning * time.Hour)
			}
			return t, nil
		}
	}
	if n := len(in); n >= 2 && strings.ContainsRune("mhdw", rune(in[n-1])) {
		if v, err := strconv.Atoi(in[:n-1]); err == nil && v > 0 {
			unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[in[n-1]]
			return now.Add(time.Duration(v) * unit), nil
		}
	}
	day, clock, _ := strings.Cut(in, " ")
	y, m, d := now.Date()
	base := time.Date(y, m, d, 0, 0, 0, 0, loc)
	hour, minute := morning, 0
	parseClock := func(c string) bool {
		t, err := time.Parse("15:04", c)
		if err != nil {
			if t, err = time.Parse("15", c); err != nil {
				return false
			}
		}
		hour, minute = t.Hour(), t.Minute()
		return true
	}
	switch {
	case clock == "" && parseClock(day):
		t := base.Add(time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute)
		if !t.After(now) {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	case day == "today" || day == "tomorrow":
		if clock != "" && !parseClock(clock) {
			return time.Time{}, bad
		}
		if day == "tomorrow" {
			base = base.AddDate(0, 0, 1)
		}
		return base.Add(time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute), nil
	}
	for wd := time.Sunday; wd <= time.Saturday; wd++ {
		name := strings.ToLower(wd.String())
		if day != name && day != name[:3] {
			continue
		}
		if clock != "" && !parseClock(clock) {
			return time.Time{}, bad
		}
		ahead := (int(wd) - int(now.Weekday()) + 7) % 7
		if ahead == 0 {
			ahead = 7
		}
		return base.AddDate(0, 0, ahead).Add(time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute), nil
	}
	return time.Time{}, bad
}
