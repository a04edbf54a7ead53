package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"

	"mailsift/internal/termsafe"
)

// jsonLines writes one JSON value per line for every --json command
// (search, triage, outbox, audit, sync). Output is meant for scripts, but
// it often ends up on a terminal (`| jq -r .subject`), so it is made safe
// twice over: every string, keys included, passes termsafe.Sanitize (escape
// sequences are removed with their payload, bidi controls and invisible
// fillers dropped, other controls shown as control pictures), and what
// remains that a terminal could act on or hide (C0, DEL, C1, U+2028,
// U+2029, format characters) is written as a \u escape, never raw.
type jsonLines struct{ w io.Writer }

func newJSONLines(w io.Writer) *jsonLines { return &jsonLines{w: w} }

// Encode writes v as one line of terminal-safe JSON.
func (j *jsonLines) Encode(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	out, err := safeJSON(raw)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	out = append(out, '\n')
	if _, err := j.w.Write(out); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// safeJSON re-encodes one JSON value token by token, keeping the order of
// object keys and the exact text of numbers, with every string sanitised
// and escaped by appendSafeString.
func safeJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object bool
		n      int // tokens written in this container (keys and values)
	}
	var stack []frame
	out := make([]byte, 0, len(raw)+16)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out = append(out, byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		// Separator before this token: ',' between items, ':' after a key.
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				out = append(out, ':')
			case top.n > 0:
				out = append(out, ',')
			}
			top.n++
		}
		switch t := tok.(type) {
		case json.Delim:
			out = append(out, byte(t))
			stack = append(stack, frame{object: t == '{'})
		case string:
			out = appendSafeString(out, termsafe.Sanitize(t))
		case json.Number:
			out = append(out, t...)
		case bool:
			out = strconv.AppendBool(out, t)
		case nil:
			out = append(out, "null"...)
		}
	}
}

// appendSafeString appends s as a JSON string in which nothing a terminal
// could interpret or hide appears raw: C0 controls, DEL, C1 controls,
// U+2028, U+2029, format characters (bidi controls among them) and the
// other default-ignorable code points are \u escapes. HTML characters stay
// as they are (unlike encoding/json's default).
func appendSafeString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				out = append(out, '\\', c)
			case c == '\n':
				out = append(out, '\\', 'n')
			case c == '\t':
				out = append(out, '\\', 't')
			case c == '\r':
				out = append(out, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, `\ufffd`...)
			i++
			continue
		}
		if needsEscape(r) {
			out = appendUEscape(out, r)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return append(out, '"')
}

// needsEscape reports non-ASCII characters written as \u escapes.
func needsEscape(r rune) bool {
	return r <= 0x9f || r == 0x2028 || r == 0x2029 ||
		unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) ||
		r == 0x2800 || r == 0x16fe4
}

// appendUEscape appends r as \uXXXX, or as a UTF-16 surrogate pair of
// escapes above U+FFFF.
func appendUEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		r -= 0x10000
		out = appendUEscape(out, 0xd800+(r>>10))
		return appendUEscape(out, 0xdc00+(r&0x3ff))
	}
	return fmt.Appendf(out, `\u%04x`, r)
}
