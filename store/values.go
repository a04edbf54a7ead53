package store

import (
	"encoding/json"
	"time"

	"mailsift/model"
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

func nonNilAddrs(a []model.Address) []model.Address {
	if a == nil {
		return []model.Address{}
	}
	return a
}

func nonNilStrings(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

func nonNilAtt(a []model.Attachment) []model.Attachment {
	if a == nil {
		return []model.Attachment{}
	}
	return a
}
