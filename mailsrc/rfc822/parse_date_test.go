package rfc822

import (
	"net/mail"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// dateCases are Date values of the canonical form and near misses: every
// one rfc5322Date accepts must give net/mail.ParseDate's time exactly
// (instant, zone name and offset).
var dateCases = []string{
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 02 Jan 2006 15:04:05 +0000",
	"2 Jan 2006 15:04:05 +0130",
	"  Tue, 10 Sep 2002 08:01:02 -0500 (CDT)",
	"Tue, 10 Sep 2002 08:01:02 -0500 (added by postmaster@example.com)",
	"Tue, 10 Sep 2002 08:01:02 -0500 (CDT",
	"Tue, 10 Sep 2002 08:01:02 -0500 ((CDT))",
	"Tue, 10 Sep 2002 08:01:02 -0500 trailing",
	"Tue, 10 Sep 2002 08:01:02 +-0500",
	"Tue, 10 Sep 02 08:01:02 -0500",
	"Tue, 10 Sep 2002 08:01 -0500",
	"Tue, 10 Sep 2002 08:01:02 EDT",
	"Tue, 10 Sep 2002 08:01:02",
	"Tuesday, 10 Sep 2002 08:01:02 -0500",
	"Xyz, 10 Sep 2002 08:01:02 -0500",
	"Tue, 31 Feb 2002 08:01:02 -0500",
	"Tue, 10 Sep 2002 25:01:02 -0500",
	"Tue,  10 Sep 2002 08:01:02 -0500",
	"Tue, 10 Sep 2002 08:01:02 -05",
	"Tue, 10 Sep 2002 08:01:02 -0500\r\n (x)",
	"10 Sep 2002 08:01:02 +1400",
	"",
	"-0500",
}

func checkRFC5322Date(t *testing.T, v string) bool {
	t.Helper()
	got, ok := rfc5322Date(v)
	if !ok {
		return false
	}
	want, err := mail.ParseDate(v)
	if err != nil {
		t.Errorf("rfc5322Date(%q) = %v, but net/mail rejects it: %v", v, got, err)
		return true
	}
	if !got.Equal(want) || got.String() != want.String() {
		t.Errorf("rfc5322Date(%q) = %v, net/mail.ParseDate = %v", v, got, want)
	}
	return true
}

func TestRFC5322DateMatchesNetMail(t *testing.T) {
	accepted := 0
	for _, v := range dateCases {
		if checkRFC5322Date(t, v) {
			accepted++
		}
	}
	if accepted < 6 {
		t.Errorf("rfc5322Date accepted %d of the canonical cases, want at least 6", accepted)
	}
	// The canonical form goes the fast way; a parseDate result is the same
	// either way.
	for _, v := range []string{"Mon, 2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 +0130 (X)"} {
		if _, ok := rfc5322Date(v); !ok {
			t.Errorf("rfc5322Date(%q) not accepted", v)
		}
	}
	// RFC 5322's obsolete zone names have offsets (Go's parser gives a
	// name it does not know offset zero).
	for v, want := range map[string]time.Time{
		"Tue, 10 Sep 2002 08:01:02 EDT":         time.Date(2002, 9, 10, 12, 1, 2, 0, time.UTC),
		"Tue, 10 Sep 2002 08:01:02 PST":         time.Date(2002, 9, 10, 16, 1, 2, 0, time.UTC),
		"Tue, 10 Sep 2002 08:01:02 GMT":         time.Date(2002, 9, 10, 8, 1, 2, 0, time.UTC),
		"Tue, 10 Sep 2002 08:01:02 -0400 (EDT)": time.Date(2002, 9, 10, 12, 1, 2, 0, time.UTC),
	} {
		if got, ok := parseDate(v); !ok || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", v, got, ok, want.UTC())
		}
	}
}

// TestRFC5322DateCorpus: on every Date header of the corpus the fast
// path agrees with net/mail, and takes nearly all of them.
func TestRFC5322DateCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "corpus", "maildir", "*", "cur", "*"))
	if len(files) == 0 {
		if os.Getenv("MAILSIFT_REQUIRE_CORPUS") == "1" {
			t.Fatal("corpus not fetched: run scripts/fetch-corpus.sh (MAILSIFT_REQUIRE_CORPUS=1)")
		}
		t.Skip("corpus not fetched: run scripts/fetch-corpus.sh")
	}
	n, fast := 0, 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, _, _, _, err := splitMessage(raw)
		if err != nil || h.Get("Date") == "" {
			continue
		}
		n++
		if checkRFC5322Date(t, h.Get("Date")) {
			fast++
		}
	}
	if fast < n*9/10 {
		t.Errorf("fast path took %d of %d corpus dates, want at least 90 %%", fast, n)
	}
	t.Logf("%d of %d corpus dates took the fast path", fast, n)
}
