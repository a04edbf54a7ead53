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
