package rfc822

import (
	"encoding/base64"
	"fmt"
	"mailsift/internal/testproc"
	"slices"
	"strings"
	"testing"

	"github.com/emersion/go-message"
)

// nestedMultipart builds a message whose body is depth multiparts nested
// in each other around one leaf part.
func nestedMultipart(depth int, leafHeader, leafBody string) []byte {
	var sb strings.Builder
	sb.WriteString("From: a@example.com\r\nTo: b@example.com\r\nSubject: nested\r\nDate: Mon, 3 Nov 2025 10:00:00 +0000\r\nMIME-Version: 1.0\r\n")
	for i := range depth {
		fmt.Fprintf(&sb, "Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n", i, i)
	}
	sb.WriteString(leafHeader + "\r\n\r\n" + leafBody + "\r\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&sb, "--b%d--\r\n", i)
	}
	return []byte(sb.String())
}

// nestedRFC822 builds a message forwarding a message forwarding ... depth
// times, around one text body.
func nestedRFC822(depth int, body string) []byte {
	var sb strings.Builder
	for i := range depth {
		fmt.Fprintf(&sb, "From: a%d@example.com\r\nSubject: level %d\r\nContent-Type: message/rfc822\r\n\r\n", i, i)
	}
	sb.WriteString("From: z@example.com\r\nSubject: leaf\r\n\r\n" + body)
	return []byte(sb.String())
}

func base64Lines(n int) string {
	enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("attachment data ", n/16)))
	var sb strings.Builder
	for len(enc) > 76 {
		sb.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	sb.WriteString(enc)
	return sb.String()
}

// TestParseNestedMemory: nested MIME must not copy the body once per
// level (a 5 MB message nested 39 deep allocated 416 MB). Allocation is
// bounded by a small multiple of the input whatever the depth.
func TestParseNestedMemory(t *testing.T) {
	const size = 5 << 20
	text := strings.Repeat("some text in a deeply nested part\r\n", size/35)
	tests := []struct {
		name string
		raw  []byte
	}{
		{"multipart 39 deep, text leaf", nestedMultipart(39, "Content-Type: text/plain; charset=utf-8", text)},
		{"multipart 39 deep, base64 attachment", nestedMultipart(39, "Content-Type: application/pdf\r\nContent-Transfer-Encoding: base64", base64Lines(size*3/4))},
		{"rfc822 39 deep", nestedRFC822(39, text)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := testproc.AllocatedBytes(func() { _, err = Parse(tt.raw) })
			if err != nil {
				t.Fatalf("Parse = %v", err)
			}
			t.Logf("Parse allocated %.1f MB for %.1f MB of input", float64(n)/(1<<20), float64(len(tt.raw))/(1<<20))
			if limit := uint64(8 * len(tt.raw)); n > limit {
				t.Errorf("Parse allocated %d MB for %d MB of input, want at most %d MB", n>>20, len(tt.raw)>>20, limit>>20)
			}
		})
	}
}

// TestParseDecodeLimit: past the per-message decoding limit parts are
// listed but not decoded, a problem says so, and the message still parses.
func TestParseDecodeLimit(t *testing.T) {
	raw := nestedMultipart(3, "Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable", strings.Repeat("caf=C3=A9 ", 1000))
	h, _, body, _, err := splitMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	w := walker{limit: 1000}
	w.walk(message.Header{Header: h}, body, "", 0)
	if len(w.text) != 0 {
		t.Errorf("walk with limit 1000 kept %d text block(s), want none", len(w.text))
	}
	if !slices.ContainsFunc(w.probs, func(p string) bool { return strings.Contains(p, "left undecoded") }) {
		t.Errorf("walk with limit 1000: problems %q, want one saying the part was left undecoded", w.probs)
	}
	w = walker{}
	w.walk(message.Header{Header: h}, body, "", 0)
	if len(w.text) != 1 || !strings.Contains(w.text[0], "café") {
		t.Errorf("walk without limit: text %d block(s), want the decoded text", len(w.text))
	}
}

// TestBase64Size: counting the decoded size agrees with decoding.
func TestBase64Size(t *testing.T) {
	for _, in := range []string{"", "QQ==", "QUJD", "QUJDRA", "Q", "QU JD\r\nRA==", "QQ==QQ", "QQ=!", "QUJD=\n=", "****"} {
		out, bad := decodeBase64([]byte(in))
		n, nbad := base64Size([]byte(in))
		if n != len(out) || nbad != bad {
			t.Errorf("base64Size(%q) = %d, %v; decodeBase64 gives %d, %v", in, n, nbad, len(out), bad)
		}
	}
}
