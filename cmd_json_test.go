package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
)

// assertTerminalSafeJSON fails when JSON output holds, raw, anything a
// terminal could act on or hide, or when a decoded string still carries an
// escape sequence (as `jq -r` would print it).
func assertTerminalSafeJSON(t *testing.T, out string) {
	t.Helper()
	for _, r := range out {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
			unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) {
			t.Fatalf("JSON output holds raw %U: %q", r, out)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("invalid JSON line %q: %v", line, err)
		}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				if strings.ContainsAny(v, "\x1b\u009b\u009d\u202e\u3164") {
					t.Fatalf("decoded JSON string %q still holds an escape, bidi control or filler", v)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			case map[string]any:
				for k, e := range v {
					walk(k)
					walk(e)
				}
			}
		}
		walk(v)
	}
}

func TestJSONLinesEscapes(t *testing.T) {
	type item struct {
		Zeta  string         `json:"zeta"`
		Alpha string         `json:"alpha"`
		N     float64        `json:"n"`
		List  []any          `json:"list"`
		Map   map[string]int `json:"map"`
		Raw   json.RawMessage
	}
	var buf bytes.Buffer
	in := item{
		Zeta:  "a\u0085b\u202ec\x1b]52;c;QUFB\x07d\u3164e\u2028f<&>\"\\ 👩\u200d💻",
		Alpha: "plain",
		N:     1.5e300,
		List:  []any{true, nil, "x\u009b31my", 3},
		Map:   map[string]int{"k\u202e": 1},
		Raw:   json.RawMessage(`{"b":[1,{"c":"\u001b[2J"}],"a":-0.25}`),
	}
	if err := newJSONLines(&buf).Encode(in); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	want := `{"zeta":"abcde\nf<&>\"\\ 👩\u200d💻","alpha":"plain","n":1.5e+300,"list":[true,null,"xy",3],"map":{"k":1},"Raw":{"b":[1,{"c":""}],"a":-0.25}}` + "\n"
	if got != want {
		t.Fatalf("Encode =\n%s\nwant\n%s", got, want)
	}
	assertTerminalSafeJSON(t, got)
}

func TestAppendSafeString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\u0085b", `"a\u0085b"`},
		{"\u202egnp.exe", `"\u202egnp.exe"`},
		{"\x1b\x7f\x00", `"\u001b\u007f\u0000"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"\u3164\u115f\u034f\u2800", `"\u3164\u115f\u034f\u2800"`},
		{"x\U000e0041", `"x\udb40\udc41"`},
		{"\xff", `"\ufffd"`},
		{"Grüße <b>", `"Grüße <b>"`},
	}
	for _, tt := range tests {
		got := string(appendSafeString(nil, tt.in))
		if got != tt.want {
			t.Errorf("appendSafeString(%q) = %s, want %s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || (back != tt.in && tt.in != "\xff") {
			t.Errorf("appendSafeString(%q) = %s decodes to %q, %v", tt.in, got, back, err)
		}
	}
}

// TestJSONCommandsTerminalSafe runs every --json command on a store whose
// mail carries escape sequences, C1 and bidi controls and fillers.
func TestJSONCommandsTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	env := seedSearchStore(t, dir)
	for _, args := range [][]string{
		{"search", "invoice", "--json"},
		{"triage", "--offline", "--json"},
	} {
		r := runWith(t, env, "", append([]string{"--data-dir", dir}, args...)...)
		if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
			t.Fatalf("%v: %+v", args, r)
		}
		assertTerminalSafeJSON(t, r.stdout)
	}

	dir = t.TempDir()
	env, _ = seedOutbox(t, dir)
	for _, args := range [][]string{{"outbox", "--json"}, {"audit", "--json"}} {
		r := runWith(t, env, "", append([]string{"--data-dir", dir}, args...)...)
		if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
			t.Fatalf("%v: %+v", args, r)
		}
		assertTerminalSafeJSON(t, r.stdout)
	}
}
