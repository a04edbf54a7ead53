package links

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const phishRaw = "From: Bank <service@bank.example>\r\nSubject: Verify\r\nMIME-Version: 1.0\r\n" +
	"Content-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
	"Log in at https://bank.example/login. Or www.bank.example/help\r\n--b\r\n" +
	"Content-Type: text/html; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
	"<p>Gr=FC=DFe! <a href=3D\"https://evil.example/steal\">https://www.bank.example/login</a>\r\n" +
	"<a href=3D\"https://bank.example/login\">bank.example</a> <a href=3D\"https://help.bank.example/x\">bank.example</a>\r\n" +
	"<a href=3D\"javascript:alert(1)\">click here</a> <a href=3D\"#top\">top</a>\r\n" +
	"<a href=3D\"https://t.example/r?u=3D1\"><img src=3D\"x.png\" alt=3D\"paypal.com\"></a></p>\r\n--b--\r\n"

func TestFromRawListsAndMarksMismatches(t *testing.T) {
	got, htmlPart, err := FromRaw([]byte(phishRaw))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(htmlPart), "Grüße") {
		t.Errorf("HTML part not decoded to UTF-8: %q", htmlPart)
	}
	want := []Link{
		{Text: "https://www.bank.example/login", URL: "https://evil.example/steal", Mismatch: true, Openable: true},
		{Text: "bank.example", URL: "https://bank.example/login", Openable: true},
		{Text: "bank.example", URL: "https://help.bank.example/x", Openable: true},
		{Text: "click here", URL: "javascript:alert(1)"},
		{Text: "paypal.com", URL: "https://t.example/r?u=1", Mismatch: true, Openable: true},
		{Text: "www.bank.example/help", URL: "www.bank.example/help"},
	}
	if len(got) != len(want) {
		t.Fatalf("FromRaw = %d links %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("link %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestOpenableRefusesOtherSchemes(t *testing.T) {
	for u, want := range map[string]bool{
		"https://example.com/a": true, "http://example.com": true, "mailto:a@example.com": true,
		"file:///etc/passwd": false, "javascript:alert(1)": false, "data:text/html,x": false,
		"https://example.com/\x1b[2J": false, "https://exa mple.com": false, "https:///nohost": false,
		"https://example.com/\u202e": false,
	} {
		if got := Openable(u); got != want {
			t.Errorf("Openable(%q) = %v, want %v", u, got, want)
		}
	}
}

func TestWriteHTMLIsPrivateAndBlocksRemoteContent(t *testing.T) {
	path, dir, err := WriteHTML(t.TempDir(), []byte(`<img src="https://tracker.example/p.gif"><script>x()</script>`))
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	if filepath.Dir(path) != dir {
		t.Errorf("file %s not in %s", path, dir)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "<!DOCTYPE html>\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'") {
		t.Errorf("no CSP in front of the mail's HTML:\n%s", b)
	}
}

func TestSweepRemovesOldCopiesOnly(t *testing.T) {
	tmp := t.TempDir()
	_, oldDir, err := WriteHTML(tmp, []byte("old"))
	if err != nil {
		t.Fatal(err)
	}
	_, newDir, err := WriteHTML(tmp, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "mailsift-html-notours")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	for _, d := range []string{oldDir, other} {
		if err := os.Chtimes(d, past, past); err != nil {
			t.Fatal(err)
		}
	}
	if n := Sweep(tmp, time.Now().Add(-2*time.Minute)); n != 1 {
		t.Fatalf("Sweep removed %d, want 1", n)
	}
	for d, want := range map[string]bool{oldDir: false, newDir: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", d, err == nil, want)
		}
	}
}
