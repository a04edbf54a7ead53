package invite

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func load(t *testing.T, name string) *Invite {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	ins, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s) = %v", name, err)
	}
	return Primary(ins)
}

func utc(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseShapes(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		method    string
		uid       string
		seq       int
		organizer string
		start     time.Time
		end       time.Time
		allDay    bool
		floating  bool
		recurring bool
		attendees int
		problem   string // a substring of one problem, "" for none
	}{
		{name: "google", file: "google.ics", method: "REQUEST", uid: "0k3v9b2q1c7m8n5p4r6s@google.com", organizer: "priya.shah@contoso.example",
			start: utc("2026-12-03 15:00"), end: utc("2026-12-03 15:45"), attendees: 3},
		// W. Europe Standard Time is not an IANA name: its VTIMEZONE
		// (CET, UTC+1 in December) defines it.
		{name: "outlook windows tzid", file: "outlook.ics", method: "REQUEST", seq: 2, organizer: "hans.becker@fabrikam.example",
			uid:   "040000008200E00074C5B7101A82E00800000000A0C1D2E3F4A5DA01000000000000000010000000",
			start: utc("2026-12-07 09:00"), end: utc("2026-12-07 10:00"), attendees: 2},
		{name: "apple quoted params", file: "apple.ics", method: "REQUEST", uid: "9F3C1E2A-4B5D-4C6E-8F70-1A2B3C4D5E6F", organizer: "sam@rivera.example",
			start: utc("2026-12-10 14:30"), end: utc("2026-12-10 15:00"), attendees: 2},
		{name: "recurring", file: "recurring.ics", method: "REQUEST", uid: "standup-2026@northwind.example", organizer: "jamie.lee@northwind.example",
			start: utc("2026-11-30 09:30"), end: utc("2026-11-30 09:45"), recurring: true, attendees: 1},
		{name: "all day", file: "allday.ics", method: "REQUEST", uid: "offsite-2026@northwind.example", organizer: "jamie.lee@northwind.example",
			start: utc("2026-12-15 00:00"), end: utc("2026-12-17 00:00"), allDay: true, attendees: 1},
		{name: "floating", file: "floating.ics", method: "REQUEST", uid: "lunch-42@example.org", organizer: "bob@example.org",
			start: utc("2026-12-04 12:30"), end: utc("2026-12-04 13:30"), floating: true, attendees: 1},
		// The VTIMEZONE named Europe/Berlin says +05:30: the calendar's
		// own definition wins and the disagreement is reported.
		{name: "vtimezone disagrees with name", file: "mismatch.ics", method: "REQUEST", uid: "mismatch-1@odd.example", organizer: "ravi@odd.example",
			start: utc("2026-12-04 06:30"), end: utc("2026-12-04 07:30"), attendees: 1, problem: "IANA zone of that name says UTC+01:00"},
		{name: "unknown tzid", file: "unknown_tz.ics", method: "REQUEST", uid: "unknown-tz@odd.example", organizer: "ravi@odd.example",
			start: utc("2026-12-04 12:00"), end: utc("2026-12-04 13:00"), floating: true, attendees: 1, problem: `unknown TZID "Mars/Olympus_Mons"`},
		{name: "cancel", file: "cancel.ics", method: "CANCEL", uid: "0k3v9b2q1c7m8n5p4r6s@google.com", seq: 1, organizer: "priya.shah@contoso.example",
			start: utc("2026-12-03 15:00"), end: utc("2026-12-03 15:45"), attendees: 1},
		{name: "reply", file: "reply.ics", method: "REPLY", seq: 2, organizer: "hans.becker@fabrikam.example",
			uid:   "040000008200E00074C5B7101A82E00800000000A0C1D2E3F4A5DA01000000000000000010000000",
			start: utc("2026-12-07 09:00"), end: utc("2026-12-07 10:00"), attendees: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := load(t, tt.file)
			if in.Method != tt.method || in.UID != tt.uid || in.Sequence != tt.seq || in.Organizer.Email != tt.organizer {
				t.Errorf("Parse = method %q uid %q seq %d organizer %q, want %q %q %d %q", in.Method, in.UID, in.Sequence,
					in.Organizer.Email, tt.method, tt.uid, tt.seq, tt.organizer)
			}
			if !in.Start.Equal(tt.start) || !in.End.Equal(tt.end) {
				t.Errorf("Parse times = %v – %v, want %v – %v", in.Start, in.End, tt.start, tt.end)
			}
			if in.AllDay != tt.allDay || in.Floating != tt.floating || in.Recurring() != tt.recurring {
				t.Errorf("Parse allDay/floating/recurring = %v/%v/%v, want %v/%v/%v", in.AllDay, in.Floating, in.Recurring(),
					tt.allDay, tt.floating, tt.recurring)
			}
			if len(in.Attendees) != tt.attendees {
				t.Errorf("Parse attendees = %d, want %d", len(in.Attendees), tt.attendees)
			}
			got := strings.Join(in.Problems, "; ")
			if tt.problem == "" && got != "" || tt.problem != "" && !strings.Contains(got, tt.problem) {
				t.Errorf("Parse problems = %q, want %q", got, tt.problem)
			}
		})
	}
}

func TestParseAttendeeDetails(t *testing.T) {
	in := load(t, "google.ics")
	a, ok := in.Attendee("Alex.Morgan@Northwind.example")
	if !ok || a.PartStat != PartNeedsAction || !a.RSVP || a.Optional() {
		t.Errorf("attendee alex = %+v, %v", a, ok)
	}
	j, _ := in.Attendee("jamie.lee@northwind.example")
	if !j.Optional() || j.Name != "Jamie Lee" {
		t.Errorf("attendee jamie = %+v, want optional with CN", j)
	}
	if !strings.Contains(in.Description, "please bring the Q1 numbers.\n\nJoin with Google Meet") {
		t.Errorf("description unfolded/unescaped wrong: %q", in.Description)
	}
	r := load(t, "reply.ics")
	if l, _ := r.Attendee("lena.vogel@fabrikam.example"); l.PartStat != PartTentative {
		t.Errorf("reply PARTSTAT = %q", l.PartStat)
	}
	out := load(t, "outlook.ics")
	if out.Summary != "Liefervertrag – Abstimmung" || out.TZID != "W. Europe Standard Time" {
		t.Errorf("outlook summary/tzid = %q / %q", out.Summary, out.TZID)
	}
}

func TestParseRejects(t *testing.T) {
	deep := "BEGIN:VCALENDAR\r\n" + strings.Repeat("BEGIN:X\r\n", 50) + strings.Repeat("END:X\r\n", 50) + "END:VCALENDAR\r\n"
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "not an iCalendar object"},
		{"not ical", "hello world\r\n", "not an iCalendar object"},
		{"truncated", "BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:x\r\n", "not an iCalendar object"},
		{"no event", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n", "no VEVENT with a UID"},
		{"too deep", deep, "nested deeper"},
		{"vcard", "BEGIN:VCARD\r\nFN:x\r\nEND:VCARD\r\n", "VCALENDAR"},
		{"too large", strings.Repeat("x", MaxSize+1), "too large"},
		// go-ical panics on a parameter without value at the end of a line.
		{"param without value", "BEGIN:VCALENDAR\r\nX;P=\r\nEND:VCALENDAR\r\n", "malformed content line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func TestParseBadFieldsKept(t *testing.T) {
	data := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:u1\r\nSEQUENCE:many\r\n" +
		"DTSTART:2026120\r\nSUMMARY:Bad times\r\nRRULE:FREQ=FORTNIGHTLY\r\nORGANIZER:mailto:o@x.example\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	ins, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	in := ins[0]
	if in.Summary != "Bad times" || in.Organizer.Email != "o@x.example" {
		t.Errorf("fields lost: %+v", in)
	}
	p := strings.Join(in.Problems, "; ")
	for _, want := range []string{"SEQUENCE", "DTSTART"} {
		if !strings.Contains(p, want) {
			t.Errorf("problems %q lack %s", p, want)
		}
	}
}

func TestOccurrencesBounded(t *testing.T) {
	in := load(t, "recurring.ics")
	spans := in.Occurrences(utc("2026-11-30 00:00"), utc("2026-12-07 00:00"))
	if len(spans) != 3 { // Mon, Wed, Fri
		t.Fatalf("Occurrences = %d, want 3: %v", len(spans), spans)
	}
	if !spans[1].Start.Equal(utc("2026-12-02 09:30")) {
		t.Errorf("second occurrence = %v", spans[1].Start)
	}
	// COUNT=30 ends the series: nothing in the far future.
	if got := in.Occurrences(utc("2027-06-01 00:00"), utc("2027-07-01 00:00")); len(got) != 0 {
		t.Errorf("after COUNT: %v", got)
	}
	huge := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:h\r\nDTSTART:20261201T100000Z\r\n" +
		"DTEND:20261201T110000Z\r\nRRULE:FREQ=DAILY;COUNT=1000000000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	ins, err := Parse([]byte(huge))
	if err != nil {
		t.Fatal(err)
	}
	got := ins[0].Occurrences(utc("2026-01-01 00:00"), utc("9999-01-01 00:00"))
	if len(got) != MaxSteps {
		t.Errorf("huge RRULE expanded to %d spans, want the bound %d", len(got), MaxSteps)
	}
}

func TestBuildReplyRFC5546(t *testing.T) {
	in := load(t, "outlook.ics")
	now := utc("2026-11-24 14:00")
	method, data, err := Build(in, "alex.morgan@northwind.example", Answer{PartStat: PartAccepted}, now)
	if err != nil {
		t.Fatal(err)
	}
	if method != MethodReply {
		t.Errorf("method = %s", method)
	}
	s := strings.ReplaceAll(string(data), "\r\n ", "") // unfolded
	for _, want := range []string{
		"BEGIN:VCALENDAR\r\n", "METHOD:REPLY\r\n", "VERSION:2.0\r\n", "PRODID:" + ProdID + "\r\n",
		"ORGANIZER;CN=Hans Becker:mailto:hans.becker@fabrikam.example\r\n",
		"ATTENDEE;CN=Alex Morgan;PARTSTAT=ACCEPTED:mailto:alex.morgan@northwind.example\r\n",
		"UID:040000008200E00074C5B7101A82E00800000000A0C1D2E3F4A5DA01000000000000000010000000\r\n",
		"SEQUENCE:2\r\n", "DTSTAMP:20261124T140000Z\r\n", "DTSTART:20261207T090000Z\r\n", "END:VCALENDAR\r\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("REPLY lacks %q:\n%s", want, s)
		}
	}
	// Only the answering attendee: never the others' PARTSTAT.
	if strings.Contains(s, "lena.vogel") {
		t.Errorf("REPLY names another attendee:\n%s", s)
	}
	for _, line := range strings.Split(string(data), "\r\n") {
		if len(line) > 75 {
			t.Errorf("line over 75 octets: %q", line)
		}
	}
	// The reply parses back as the same event.
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	b := back[0]
	if b.Method != MethodReply || b.UID != in.UID || b.Sequence != 2 || !b.Start.Equal(in.Start) {
		t.Errorf("round trip = %+v", b)
	}
	if a, _ := b.Attendee("alex.morgan@northwind.example"); a.PartStat != PartAccepted {
		t.Errorf("round trip PARTSTAT = %q", a.PartStat)
	}
}

func TestBuildCounterAndRefusals(t *testing.T) {
	in := load(t, "google.ics")
	now := utc("2026-11-24 14:00")
	method, data, err := Build(in, "alex.morgan@northwind.example",
		Answer{PartStat: PartTentative, Start: utc("2026-12-04 16:00"), End: utc("2026-12-04 16:45"), Comment: "Thursday is full"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if method != MethodCounter || !bytes.Contains(data, []byte("METHOD:COUNTER\r\n")) ||
		!bytes.Contains(data, []byte("DTSTART:20261204T160000Z\r\n")) || !bytes.Contains(data, []byte("COMMENT:Thursday is full\r\n")) {
		t.Errorf("COUNTER:\n%s", data)
	}
	if _, _, err := Build(in, "stranger@example.org", Answer{PartStat: PartAccepted}, now); err == nil {
		t.Error("a non-attendee answered")
	}
	if _, _, err := Build(load(t, "cancel.ics"), "alex.morgan@northwind.example", Answer{PartStat: PartAccepted}, now); err == nil {
		t.Error("a CANCEL was answered")
	}
	if _, _, err := Build(in, "alex.morgan@northwind.example", Answer{PartStat: "MAYBE"}, now); err == nil {
		t.Error("an unknown PARTSTAT was accepted")
	}
	allday := load(t, "allday.ics")
	_, data, err = Build(allday, "alex.morgan@northwind.example", Answer{PartStat: PartDeclined}, now)
	if err != nil || !bytes.Contains(data, []byte("DTSTART;VALUE=DATE:20261215\r\n")) {
		t.Errorf("all-day REPLY (%v):\n%s", err, data)
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range []string{"google.ics", "outlook.ics", "apple.ics", "mismatch.ics"} {
		b, _ := os.ReadFile(filepath.Join("testdata", n))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ins, err := Parse(data)
		if err != nil {
			return
		}
		for _, in := range ins {
			_ = in.Occurrences(utc("2026-01-01 00:00"), utc("2027-01-01 00:00"))
		}
	})
}

// BenchmarkParseOutlook measures parsing an Outlook invitation with its
// VTIMEZONE (the zone resolved per DTSTART/DTEND).
func BenchmarkParseOutlook(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "outlook.ics"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
