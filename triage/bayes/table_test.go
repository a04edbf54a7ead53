package bayes

import (
	"strings"
	"testing"
)

// TestEachTokenWords checks each Word EachToken passes: its hash is Hash
// of its token, Is accepts the token and rejects near misses, and Len is
// the token's length; on ASCII, mixed-case, long-number, non-ASCII and
// invalid UTF-8 text.
func TestEachTokenWords(t *testing.T) {
	texts := []string{
		"Hello WORLD, MiXeD cAsE $5 $ABC 12345 1234 A1B2C3 12ab AB12345678 exactly8 exactly16exactly16 abcdefghijklmnopqrstuvwx",
		"Caf\u00e9 OLÉ naïve Über GROSSE Straße \u212Aelvin \u0130stanbul ΣΊΣΥΦΟΣ ١٢٣٤٥ ١٢",
		"bad \xff\xfe UTF-8 WORDS\xffHERE",
	}
	n := 0
	for _, s := range texts {
		EachToken(s, func(w Word) {
			n++
			tok := w.String()
			if w.Hash != Hash(tok) {
				t.Errorf("EachToken(%q): hash of %q is %x, want %x", s, tok, w.Hash, Hash(tok))
			}
			if !w.Is(tok) || w.Len() != len(tok) {
				t.Errorf("EachToken(%q): word %q (raw %q): Is(token) = false or Len %d", s, tok, w.Raw, w.Len())
			}
			for _, miss := range []string{tok + "x", tok[:len(tok)-1] + "#", strings.ToUpper(tok), "x" + tok[1:]} {
				if miss != tok && w.Is(miss) {
					t.Errorf("EachToken(%q): word %q Is(%q)", s, tok, miss)
				}
			}
		})
	}
	if n < 25 {
		t.Fatalf("only %d words scanned", n)
	}
	if HashPrefixed("s:", "word") != Hash("s:word") || HashPrefixed("d:", "") != Hash("d:") {
		t.Error("HashPrefixed differs from Hash of the concatenation")
	}
}

// TestTable checks Table lookups against the map it was built from, for
// present and absent keys, prefixed lookups and odd keys.
func TestTable(t *testing.T) {
	m := map[string]float64{"": 7, strings.Repeat("x", 70000): 8, "#num": 9, "kelvin": 10, "ünï": 11,
		"supercalifragil": 12, "straßenbahnhöfe": 13, "exactly8": 14, "exactly9x": 15, "exactly9y": 16}
	for i := range 5000 {
		w := strings.Repeat(string(rune('a'+i%26)), 1+i%30) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		m[w] = float64(i) + 0.5
		m["s:"+w] = -float64(i)
	}
	tab := NewTable(m)
	for k, want := range m {
		if got := tab.WeightOf(k); got != want {
			t.Fatalf("WeightOf(%.20q) = %v, want %v", k, got, want)
		}
		if got := tab.WeightPrefixed("s:", k, HashPrefixed("s:", k)); got != m["s:"+k] {
			t.Fatalf("WeightPrefixed(s:, %.20q) = %v, want %v", k, got, m["s:"+k])
		}
	}
	for _, k := range []string{"absent", "s:absent", "zz", strings.Repeat("x", 69999)} {
		if got := tab.WeightOf(k); got != 0 {
			t.Errorf("WeightOf(%.20q) = %v, want 0", k, got)
		}
	}
	// Words of a text find the same weights as their tokens.
	got := map[string]float64{}
	EachToken("AAAAAAAAAAAAAAAAAAAAAAAAA BB bbbbbbbbbbbbbbbbbbbbbbbbb 1234567 \u212Aelvin ÜNÏ Absent SuperCaliFragil "+
		"STRASSENBAHN Straßenbahnhöfe exactly8 EXACTLY9X exactly9z exactly9 supercalifragilX", func(w Word) {
		got[w.String()] = tab.Weight(w)
	})
	want := map[string]float64{"bb": m["bb"], "#num": 9, "kelvin": 10, "ünï": 11, "absent": 0, "supercalifragil": 12,
		"strassenbahn": 0, "straßenbahnhöfe": 13, "exactly8": 14, "exactly9x": 15, "exactly9z": 0, "exactly9": 0, "supercalifragilx": 0}
	if len(got) != len(want) {
		t.Fatalf("words %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("Weight(%q) = %v, want %v", k, got[k], v)
		}
	}
}

// TestEachTokenRandom compares EachWord (EachToken's one scan) with
// lower-casing the whole text first and scanning rune by rune, on random
// texts mixing ASCII, capitals, digits, runes that lower-case to other
// lengths or to ASCII, non-letters and invalid UTF-8.
func TestEachTokenRandom(t *testing.T) {
	pieces := []string{"a", "B", "z", "Q", "7", "0", "$", " ", ".", "-", "\n", "é", "É", "ß", "\u212a", "\u0130", "Σ", "ς",
		"١", "٣", "\u00a0", "\u2028", "\xff", "\xc3", "日", "ǅ", "ab", "CD", "12345", "xyzzy"}
	rnd := uint64(1)
	next := func(n int) int {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return int(rnd>>33) % n
	}
	words := func(each func(string, func(string)), s string) []string {
		var out []string
		each(s, func(w string) { out = append(out, w) })
		return out
	}
	lowerFirst := func(s string, fn func(string)) { eachLowerWord(strings.ToLower(s), fn) }
	for range 20000 {
		var sb strings.Builder
		for range next(40) {
			sb.WriteString(pieces[next(len(pieces))])
		}
		s := sb.String()
		got, want := words(EachWord, s), words(lowerFirst, s)
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("EachWord(%q) = %q, want %q", s, got, want)
		}
	}
}
