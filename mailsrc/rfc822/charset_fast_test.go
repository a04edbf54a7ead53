package rfc822

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/emersion/go-message"
)

// TestASCIICompatibleCharsets: every charset name asciiCompatible accepts
// is known to the charset package and decodes ASCII to itself, so skipping
// the conversion for ASCII data changes nothing; seven-bit encodings and
// unknown names are refused (an unknown charset is still reported).
func TestASCIICompatibleCharsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ascii := make([]byte, 4096)
	for i := range ascii {
		ascii[i] = byte(rng.IntN(0x80))
	}
	names := []string{"iso-8859-1", "iso-8859-2", "iso-8859-15", "iso8859-1", "windows-1250", "windows-1252",
		"windows-1257", "cp1252", "koi8-r", "koi8-u", "latin1", "iso_8859-1", "l1"}
	for _, cs := range names {
		if !asciiCompatible(cs) {
			t.Errorf("asciiCompatible(%q) = false", cs)
		}
	}
	for cs := range asciiCharsets {
		r, err := message.CharsetReader(cs, bytes.NewReader(ascii))
		if err != nil {
			t.Errorf("listed charset %q is unknown to the charset package: %v", cs, err)
			continue
		}
		if out, err := io.ReadAll(r); err != nil || !bytes.Equal(out, ascii) {
			t.Errorf("listed charset %q does not decode ASCII to itself (err %v)", cs, err)
		}
	}
	for _, cs := range []string{"utf-7", "iso-2022-jp", "hz-gb-2312", "utf-16", "iso-8859-99"} {
		if asciiCompatible(cs) {
			t.Errorf("asciiCompatible(%q) = true for an encoding that rewrites ASCII or is unknown", cs)
		}
	}
	w0 := walker{}
	if got := w0.decodeCharset([]byte("plain"), "iso-8859-99", "1"); got != "plain" || len(w0.probs) == 0 {
		t.Errorf("decodeCharset(unknown charset) = %q, problems %q; want the text and the charset reported", got, w0.probs)
	}
	w := walker{}
	if got := w.decodeCharset([]byte("caf\xe9 +AGE-"), "iso-8859-1", "1"); got != "café +AGE-" {
		t.Errorf("decodeCharset(latin-1) = %q", got)
	}
	if got := w.decodeCharset([]byte("a \x1b$B$3$s\x1b(B"), "iso-2022-jp", "1"); got != "a こん" {
		t.Errorf("decodeCharset(iso-2022-jp) = %q, want the seven-bit text decoded", got)
	}
}
