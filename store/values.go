package store

import (
	"encoding/json"
	"time"
)

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

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
