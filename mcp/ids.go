package mcp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/mail"
	"strconv"
	"strings"
	"time"
)

// Ids are opaque to clients: a thread is "thr-<n>", a message
// "msg-<base64url of its Message-ID>", an inbox the account's name.

func threadID(id int64) string { return "thr-" + strconv.FormatInt(id, 10) }

func parseThreadID(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(s, "thr-"), 10, 64)
	if !strings.HasPrefix(s, "thr-") || err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

func messageID(mid string) string {
	return "msg-" + base64.RawURLEncoding.EncodeToString([]byte(mid))
}

func parseMessageID(s string) (string, bool) {
	if !strings.HasPrefix(s, "msg-") {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(s, "msg-"))
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}

// rfc3339 formats a time for the contract (UTC, seconds); the zero time
// becomes the Unix epoch so the field stays a valid date-time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format(time.RFC3339)
}

// validEmail reports whether s is a bare addr-spec a JSON Schema "email"
// format accepts.
func validEmail(s string) bool {
	if s == "" || len(s) > 254 || strings.ContainsAny(s, " <>\"\\\t\r\n") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1 && !strings.HasPrefix(s[at+1:], ".") && !strings.HasSuffix(s, ".")
}

// cursor is a list_threads page key bound to the query it continues.
type cursor struct {
	Latest int64  `json:"l"`
	ID     int64  `json:"i"`
	Query  string `json:"q"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursor, bool) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.ID <= 0 {
		return c, false
	}
	return c, true
}

// queryKey fingerprints the filters of a paged query, so a cursor is not
// applied to another query.
func queryKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
