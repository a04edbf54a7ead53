package store

import (
	"database/sql"
	"encoding/json"
	"time"
)

// mustJSON encodes v as JSON ("null" if it cannot be encoded).
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// nullable maps "" to SQL NULL.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// boolInt stores a bool as 0 or 1.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unixOrZero stores a time as Unix seconds, 0 for the zero time.
func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// jsonList returns the JSON array of v: "[]", never "null", for an empty
// or nil slice.
func jsonList[T any](v []T) string {
	if len(v) == 0 {
		return "[]"
	}
	return mustJSON(v)
}

// ms encodes a time as stored: Unix milliseconds, 0 for the zero time.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS decodes a time stored by ms, in UTC.
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// decodeInto decodes the stored JSON s into v, leaving v as it is when s
// is empty; errors are ignored (the store reads back JSON it wrote).
func decodeInto(s string, v any) {
	if s != "" {
		_ = json.Unmarshal([]byte(s), v)
	}
}

// scanIDs reads a one-column result of ids and closes rows.
func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
