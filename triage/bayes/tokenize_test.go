package bayes

import (
	"reflect"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	got := Tokenize("Re: WIN $1000000 NOW", "Hello WORLD, a b cc 12345678 Ünïcode café 1234.\nsupercalifragilisticexpialidocious-extra", "Example.COM")
	want := []string{"s:re", "s:win", "s:$1000000", "s:now", "hello", "world", "cc", "#num", "ünïcode", "café", "1234", "d:example.com"}
	// "supercalifragilisticexpialidocious" is longer than 24 bytes; "extra" stays.
	want = append(want[:len(want)-1], "extra", "d:example.com")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tokenize = %q\nwant       %q", got, want)
	}
}

func BenchmarkAppendWords2KB(b *testing.B) {
	s := strings.Repeat("Hello Alice, please review the attached Q3 numbers by Friday; thanks! ", 30)[:2048]
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		AppendWords(nil, s, "")
	}
}

func BenchmarkCalibrateByteLoop2KB(b *testing.B) {
	s := strings.Repeat("Hello Alice, please review the attached Q3 numbers by Friday; thanks! ", 30)[:2048]
	b.SetBytes(int64(len(s)))
	n := 0
	for b.Loop() {
		for i := 0; i < len(s); i++ {
			if s[i] == 'a' {
				n++
			}
		}
	}
	_ = n
}

// TestEachWordMatchesLowerFirst checks the one-pass ASCII scan against
// lower-casing the whole text first and scanning rune by rune.
func TestEachWordMatchesLowerFirst(t *testing.T) {
	words := func(each func(string, func(string)), s string) []string {
		var out []string
		each(s, func(w string) { out = append(out, w) })
		return out
	}
	lowerFirst := func(s string, fn func(string)) { eachLowerWord(strings.ToLower(s), fn) }
	cases := []string{
		"", "A", "AB", "Hello WORLD, MiXeD cAsE $5 $ABC 12345 1234 A1B2C3 12ab AB12345678",
		"THISWORDISEXACTLY24BYTES THISWORDISLONGERTHAN24BYTES x",
		"Caf\u00e9 OLÉ naïve", "KELVIN \u212a sign: \u212aelvin", "\u0130stanbul \u0130I",
		"bad \xff\xfe UTF-8 WORDS\xffHERE", "ends with CAPS", "trailing digits 99999",
		"ÀÉÎ upper non-ASCII then ASCII TAIL", "mid\u00adword soft-hyphen", "tab\tSEP\nline\r\nCRLF",
	}
	for _, c := range cases {
		if got, want := words(EachWord, c), words(lowerFirst, c); !reflect.DeepEqual(got, want) {
			t.Errorf("EachWord(%q) = %q, want %q", c, got, want)
		}
	}
	// Every split point of a mixed string: the switch to the Unicode scan
	// may happen inside a word.
	s := "Über GROSSE Straße ÆON Ωmega ABCé déJÀ 2024ÉTÉ $Prix 12345é"
	for i := range len(s) + 1 {
		c := "Prefix WORDS " + s[i:]
		if got, want := words(EachWord, c), words(lowerFirst, c); !reflect.DeepEqual(got, want) {
			t.Errorf("EachWord(%q) = %q, want %q", c, got, want)
		}
	}
}
