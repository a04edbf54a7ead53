package snooze

import (
	"strings"
	"testing"
	"time"
)

func TestPresetsAndParse(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	now := time.Date(2026, 11, 24, 13, 20, 0, 0, berlin) // a Tuesday
	ps := Presets(now)
	want := []time.Time{
		time.Date(2026, 11, 24, 17, 0, 0, 0, berlin),
		time.Date(2026, 11, 25, 8, 0, 0, 0, berlin),
		time.Date(2026, 11, 30, 8, 0, 0, 0, berlin),
	}
	for i, p := range ps {
		if !p.At.Equal(want[i]) {
			t.Errorf("preset %q = %v, want %v", p.Label, p.At, want[i])
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2026-12-01 09:30", time.Date(2026, 12, 1, 9, 30, 0, 0, berlin)},
		{"2026-12-01", time.Date(2026, 12, 1, 8, 0, 0, 0, berlin)},
		{"17:30", time.Date(2026, 11, 24, 17, 30, 0, 0, berlin)},
		{"9:00", time.Date(2026, 11, 25, 9, 0, 0, 0, berlin)},
		{"tomorrow 9:15", time.Date(2026, 11, 25, 9, 15, 0, 0, berlin)},
		{"Fri 14:00", time.Date(2026, 11, 27, 14, 0, 0, 0, berlin)},
		{"tuesday", time.Date(2026, 12, 1, 8, 0, 0, 0, berlin)},
		{"3h", now.Add(3 * time.Hour)},
		{"2d", now.Add(48 * time.Hour)},
	} {
		got, err := Parse(tc.in, now)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if err == nil && got.Location() != berlin {
			t.Errorf("Parse(%q) is in %v, want the user's zone", tc.in, got.Location())
		}
	}
	for _, bad := range []string{"", "soon", "25:00", "tomorrow noonish", "0h"} {
		if _, err := Parse(bad, now); err == nil || !strings.Contains(err.Error(), "type e.g.") {
			t.Errorf("Parse(%q) error = %v, want one saying what to type", bad, err)
		}
	}
}
