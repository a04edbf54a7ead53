package bayes

// Hashing and the weight table: the per-word hot path of scoring. The
// tokenizer (EachToken) hashes each word as it scans it, and Table looks
// the word up by that hash with an exact key comparison, so a lookup
// costs no allocation and no second pass over the word's bytes.

// Hash mixes a token's bytes packed eight to a 64-bit word (a short
// dependency chain per byte, so that the scan stays fast), then
// finalises with multiply-xorshift rounds.
const (
	hashSeed  = 0x243F6A8885A308D3
	hashPrime = 0x9E3779B97F4A7C15
	hashMix   = 0xBF58476D1CE4E5B9
)

// Hash returns the hash of a token that EachToken passes with it.
func Hash(s string) uint64 { return HashPrefixed("", s) }

// HashPrefixed returns Hash(prefix + s) without building the string.
func HashPrefixed(prefix, s string) uint64 {
	h, x, n := uint64(hashSeed), uint64(0), uint32(0)
	for _, part := range [2]string{prefix, s} {
		for i := 0; i < len(part); i++ {
			if n != 0 && n&7 == 0 {
				h, x = (h^x)*hashPrime, 0
			}
			x |= uint64(part[i]) << (8 * (n & 7))
			n++
		}
	}
	return hashSum(h, x, n)
}

// hashSum finalises a hash from the state (h, x) after n bytes.
func hashSum(h, x uint64, n uint32) uint64 {
	h = (h ^ x ^ uint64(n)<<56) * hashPrime
	h ^= h >> 31
	h *= hashMix
	h ^= h >> 29
	return h
}

// hashNum and headNum are Hash("#num") and headOf("#num"), the token long
// numbers collapse to.
var hashNum, headNum = Hash("#num"), headOf("#num")

// headOf packs the first 8 bytes of s little-endian, as Word.head.
func headOf(s string) uint64 {
	var x uint64
	for i := 0; i < len(s) && i < 8; i++ {
		x |= uint64(s[i]) << (8 * i)
	}
	return x
}

// Table maps tokens to weights: an open-addressing hash table over the
// hashes EachToken computes. It is read-only once built and safe for
// concurrent use.
type Table struct {
	slots []slot
	shift uint   // index = hash >> shift
	keys  string // all keys, concatenated
	// odd holds the keys a slot cannot describe (empty or > 64 KiB).
	odd map[string]float64
}

// slot is one table entry; n == 0 marks an empty slot. head is the
// key's first 8 bytes (headOf): keys of up to 8 bytes compare without
// reading t.keys.
type slot struct {
	w    float64
	head uint64
	off  uint32
	n    uint32
}

// NewTable builds a table of the weights in m.
func NewTable(m map[string]float64) *Table {
	size := 16
	for size < 2*len(m)+1 { // load factor <= 0.5
		size *= 2
	}
	shift := uint(64)
	for s := size; s > 1; s >>= 1 {
		shift--
	}
	t := &Table{slots: make([]slot, size), shift: shift}
	total := 0
	for k := range m {
		total += len(k)
	}
	keys := make([]byte, 0, total)
	mask := uint64(size - 1)
	for k, w := range m {
		if len(k) == 0 || len(k) > 0xffff || len(keys)+len(k) > 1<<32-1 {
			if t.odd == nil {
				t.odd = map[string]float64{}
			}
			t.odd[k] = w
			continue
		}
		h := Hash(k)
		i := h >> shift
		for t.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = slot{w: w, head: headOf(k), off: uint32(len(keys)), n: uint32(len(k))}
		keys = append(keys, k...)
	}
	t.keys = string(keys)
	return t
}

// Weight returns the weight of word w's token (0 for tokens outside the
// table).
func (t *Table) Weight(w Word) float64 {
	if w.n == 0 || w.n > 0xffff {
		return t.odd[w.String()]
	}
	mask := uint64(len(t.slots) - 1)
	for i := w.Hash >> t.shift; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.n == 0 {
			return 0
		}
		if s.head != w.head || s.n != w.n {
			continue
		}
		if w.n <= 8 {
			return s.w // head holds the whole token
		}
		k := t.keys[s.off : s.off+s.n]
		if w.kind == wordRaw && w.Raw[8:] == k[8:] || w.kind != wordRaw && w.Is(k) {
			return s.w
		}
	}
}

// WeightPrefixed returns the weight of token prefix+w, whose Hash is h
// (HashPrefixed(prefix, w)), without building the string.
func (t *Table) WeightPrefixed(prefix, w string, h uint64) float64 {
	n := len(prefix) + len(w)
	if n == 0 || n > 0xffff {
		return t.odd[prefix+w]
	}
	mask := uint64(len(t.slots) - 1)
	for i := h >> t.shift; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.n == 0 {
			return 0
		}
		if int(s.n) == n {
			k := t.keys[s.off : s.off+s.n]
			if k[:len(prefix)] == prefix && k[len(prefix):] == w {
				return s.w
			}
		}
	}
}

// WeightOf returns the weight of token tok (0 for tokens outside the
// table).
func (t *Table) WeightOf(tok string) float64 { return t.WeightPrefixed("", tok, Hash(tok)) }
