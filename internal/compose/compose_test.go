package compose

import (
	"os"
	"path/filepath"
	"testing"

	"mailsift/model"
)

func TestCompletePath(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"report-2026.pdf", "report-2025.pdf", ".hidden"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "photos"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, matches := CompletePath(dir + "/rep")
	if got != dir+"/report-202" || len(matches) != 2 {
		t.Fatalf("CompletePath(rep) = %q %v", got, matches)
	}
	if got, _ := CompletePath(dir + "/ph"); got != dir+"/photos/" {
		t.Fatalf("CompletePath(ph) = %q, want the directory with a slash", got)
	}
	if _, m := CompletePath(dir + "/"); len(m) != 3 {
		t.Fatalf("hidden files offered without a dot: %v", m)
	}
}

func TestFormatReadsBack(t *testing.T) {
	as := []model.Address{{Name: "Builder, Bob", Email: "bob@example.com"}, {Email: "dana@example.org"}, {Name: `Eve "E" \ X`, Email: "eve@example.com"}, {Name: "Zoë", Email: "zoe@example.com"}}
	back, err := ParseAddresses("To", FormatAddresses(as))
	if err != nil || len(back) != len(as) {
		t.Fatalf("ParseAddresses(FormatAddresses) = %+v, %v from %q", back, err, FormatAddresses(as))
	}
	for i := range as {
		if back[i] != as[i] {
			t.Errorf("address %d = %+v, want %+v (via %q)", i, back[i], as[i], FormatAddresses(as))
		}
	}
}

func TestParseAddressesNamesTheBadPart(t *testing.T) {
	if _, err := ParseAddresses("Cc", "a@example.com, b@"); err == nil || err.Error() != `Cc: "b@" is not a mail address; write it as name@example.com or Name <name@example.com>, separated by commas` {
		t.Fatalf("ParseAddresses = %v", err)
	}
	if as, err := ParseAddresses("To", "  ,"); err != nil || as != nil {
		t.Fatalf("an empty list = %v, %v", as, err)
	}
}
