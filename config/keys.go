package config

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// KeyActions lists the TUI actions the [keys] table may rebind, by the
// name the table uses. The TUI checks at start that it knows every one.
var KeyActions = []string{
	"up", "down", "top", "bottom", "half_down", "half_up", "next_section", "prev_section",
	"open", "back", "read", "urgent", "actionable", "informational", "low_priority",
	"retriage", "reply", "reply_all", "fold", "save", "search", "command", "help", "quit",
	"archive", "delete", "spam", "star", "move", "snooze", "undo",
	"select", "select_range", "select_section", "archive_older",
}

// DefaultFollowUpDays is how long a sent message waits for an answer
// before its thread shows in "Waiting for reply".
const DefaultFollowUpDays = 3

// FollowUp configures the "Waiting for reply" section.
type FollowUp struct {
	// Days is how many days after the user's last message a thread with
	// no answer shows as waiting; 0 turns the section off.
	Days int `toml:"days"`
}

// WantsFollowUp reports whether the account's threads may show in
// "Waiting for reply" (follow_up, true unless set to false).
func (a *Account) WantsFollowUp() bool { return a.FollowUp == nil || *a.FollowUp }

// decodeKeys reads the [keys] table: action = ["key", ...] (or one key
// as a string). Unknown action names were reported by reportUnknown.
func (d *decoder) decodeKeys(p toml.Primitive, cfg *Config) {
	var raw map[string]any
	if err := d.md.PrimitiveDecode(p, &raw); err != nil {
		d.errf("keys: must be a table; write [keys] on its own line followed by lines like archive = [\"e\"]")
		return
	}
	d.reportUnknown("keys", KeyActions)
	for name, v := range raw {
		if !isKeyAction(name) {
			continue
		}
		var keys []string
		switch x := v.(type) {
		case string:
			keys = []string{x}
		case []any:
			for i, e := range x {
				s, ok := e.(string)
				if !ok {
					d.errf("keys.%s[%d]: must be a string, got %s; write %s = [\"x\", \"ctrl+x\"]", name, i, typeName(e), name)
					return
				}
				keys = append(keys, s)
			}
		default:
			d.errf("keys.%s: must be a list of keys, got %s; write %s = [\"x\"]", name, typeName(v), name)
			continue
		}
		if len(keys) == 0 {
			d.errf("keys.%s: an empty list leaves the action without a key; give at least one, e.g. %s = [\"x\"]", name, name)
			continue
		}
		for _, k := range keys {
			if strings.TrimSpace(k) == "" || k != strings.TrimSpace(k) {
				d.errf("keys.%s: %q is not a key; write keys as the TUI names them: \"e\", \"#\", \"ctrl+d\", \"space\", \"enter\"", name, k)
			}
		}
		if cfg.Keys == nil {
			cfg.Keys = map[string][]string{}
		}
		cfg.Keys[name] = keys
	}
}

func isKeyAction(name string) bool {
	for _, a := range KeyActions {
		if a == name {
			return true
		}
	}
	return false
}

// decodeFollowUp reads the [follow_up] table.
func (d *decoder) decodeFollowUp(p toml.Primitive, cfg *Config) {
	var t struct {
		Days value `toml:"days"`
	}
	if !d.table("follow_up", p, &t) {
		return
	}
	f := d.fields("follow_up", followUpKeys)
	f.integer("days", t.Days, &cfg.FollowUp.Days)
	if cfg.FollowUp.Days < 0 {
		d.errf("follow_up.days: %d is negative; use a number of days, or 0 to turn \"Waiting for reply\" off", cfg.FollowUp.Days)
	}
}

var followUpKeys = []string{"days"}
