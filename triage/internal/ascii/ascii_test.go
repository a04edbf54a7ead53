package ascii

import (
	"strings"
	"testing"
)

func TestLower(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := byte(c)
		if c < 0x80 {
			want = strings.ToLower(string(rune(c)))[0]
		}
		if got := Lower(byte(c)); got != want {
			t.Errorf("Lower(%#x) = %#x, want %#x", c, got, want)
		}
		if got, want := IsLetter(byte(c)), c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'; got != want {
			t.Errorf("IsLetter(%#x) = %v, want %v", c, got, want)
		}
	}
}

func TestLowerString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""}, {"Hello WORLD", "hello world"}, {"ÉTÉ Ok", "ÉtÉ ok"}, {"K\u212a", "k\u212a"},
	} {
		if got := LowerString(tt.in); got != tt.want || len(got) != len(tt.in) {
			t.Errorf("LowerString(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := string(AppendLower([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendLower(x, %q) = %q, want %q", tt.in, got, "x"+tt.want)
		}
	}
}
