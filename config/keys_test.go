package config

import (
	"slices"
	"strings"
	"testing"
)

func TestKeysAndFollowUp(t *testing.T) {
	const head = "[principal]\nemail = \"a@example.com\"\n[[account]]\nsource = \"demo://\"\nfollow_up = false\n"
	cfg, err := load(t, head+"[keys]\narchive = [\"a\", \"ctrl+a\"]\nundo = \"U\"\n[follow_up]\ndays = 5\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Keys["archive"]; !slices.Equal(got, []string{"a", "ctrl+a"}) {
		t.Errorf("keys.archive = %v", got)
	}
	if got := cfg.Keys["undo"]; !slices.Equal(got, []string{"U"}) {
		t.Errorf("keys.undo = %v", got)
	}
	if cfg.FollowUp.Days != 5 || cfg.Accounts[0].WantsFollowUp() {
		t.Errorf("follow_up = %+v, account wants it: %v", cfg.FollowUp, cfg.Accounts[0].WantsFollowUp())
	}
	def, err := load(t, "[principal]\nemail = \"a@example.com\"\n[[account]]\nsource = \"demo://\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.FollowUp.Days != DefaultFollowUpDays || !def.Accounts[0].WantsFollowUp() || def.Keys != nil {
		t.Errorf("defaults: follow_up %+v, wants %v, keys %v", def.FollowUp, def.Accounts[0].WantsFollowUp(), def.Keys)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"unknown action", "[keys]\narchiv = [\"e\"]\n", "unknown key keys.archiv — did you mean archive?"},
		{"wrong type", "[keys]\narchive = 3\n", "keys.archive: must be a list of keys"},
		{"empty list", "[keys]\nstar = []\n", "keys.star: an empty list"},
		{"blank key", "[keys]\nstar = [\" \"]\n", `keys.star: " " is not a key`},
		{"negative days", "[follow_up]\ndays = -1\n", "follow_up.days: -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, "[principal]\nemail = \"a@example.com\"\n"+tc.text, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}
