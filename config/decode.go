package config

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Known keys per table, used for strict decoding and "did you mean" suggestions.
var (
	topKeys       = []string{"principal", "account", "ollama", "triage", "drafts"}
	principalKeys = []string{"name", "email"}
	accountKeys   = []string{"name", "source", "smtp", "sendmail", "password_cmd", "password", "auth", "folders", "tls_insecure_skip_verify", "from"}
	ollamaKeys    = []string{"host", "model", "embed_model", "parallel", "timeout", "num_ctx"}
	triageKeys    = []string{"enabled", "offline", "token_budget", "max_thread_messages"}
	draftsKeys    = []string{"tone", "length", "signature", "language", "never_promise", "undo_seconds", "approval_ttl"}
)

// decodeInto applies a TOML document onto cfg, rejecting unknown keys and wrong types
// with errors that name the key.
func decodeInto(cfg *Config, data []byte) error {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return fmt.Errorf("invalid TOML: %w", err)
	}
	d := decoder{}
	d.unknown(raw, "", topKeys)

	if t, ok := d.table(raw, "principal"); ok {
		d.unknown(t, "principal", principalKeys)
		d.str(t, "principal", "name", &cfg.Principal.Name)
		d.str(t, "principal", "email", &cfg.Principal.Email)
	}
	if v, ok := raw["account"]; ok {
		list, ok := v.([]map[string]any)
		if !ok {
			d.errf("account: must be an array of tables; write each account as [[account]] followed by its keys")
		}
		for i, t := range list {
			p := fmt.Sprintf("account[%d]", i)
			d.unknown(t, p, accountKeys)
			var a Account
			d.str(t, p, "name", &a.Name)
			d.str(t, p, "source", &a.Source)
			d.str(t, p, "smtp", &a.SMTP)
			d.str(t, p, "sendmail", &a.Sendmail)
			d.str(t, p, "password_cmd", &a.PasswordCmd)
			d.str(t, p, "password", &a.PlainPassword)
			d.str(t, p, "auth", &a.Auth)
			d.strs(t, p, "folders", &a.Folders)
			d.boolean(t, p, "tls_insecure_skip_verify", &a.TLSInsecureSkipVerify)
			d.str(t, p, "from", &a.From)
			cfg.Accounts = append(cfg.Accounts, a)
		}
	}
	if t, ok := d.table(raw, "ollama"); ok {
		d.unknown(t, "ollama", ollamaKeys)
		d.str(t, "ollama", "host", &cfg.Ollama.Host)
		d.str(t, "ollama", "model", &cfg.Ollama.Model)
		d.str(t, "ollama", "embed_model", &cfg.Ollama.EmbedModel)
		d.integer(t, "ollama", "parallel", &cfg.Ollama.Parallel)
		d.duration(t, "ollama", "timeout", &cfg.Ollama.Timeout)
		d.integer(t, "ollama", "num_ctx", &cfg.Ollama.NumCtx)
	}
	if t, ok := d.table(raw, "triage"); ok {
		d.unknown(t, "triage", triageKeys)
		d.boolean(t, "triage", "enabled", &cfg.Triage.Enabled)
		d.boolean(t, "triage", "offline", &cfg.Triage.Offline)
		d.integer(t, "triage", "token_budget", &cfg.Triage.TokenBudget)
		d.integer(t, "triage", "max_thread_messages", &cfg.Triage.MaxThreadMessages)
	}
	if t, ok := d.table(raw, "drafts"); ok {
		d.unknown(t, "drafts", draftsKeys)
		d.str(t, "drafts", "tone", &cfg.Drafts.Tone)
		d.str(t, "drafts", "length", &cfg.Drafts.Length)
		d.str(t, "drafts", "signature", &cfg.Drafts.Signature)
		d.str(t, "drafts", "language", &cfg.Drafts.Language)
		d.strs(t, "drafts", "never_promise", &cfg.Drafts.NeverPromise)
		d.integer(t, "drafts", "undo_seconds", &cfg.Drafts.UndoSeconds)
		d.duration(t, "drafts", "approval_ttl", &cfg.Drafts.ApprovalTTL)
	}
	return d.err()
}

type decoder struct{ errs []string }

func (d *decoder) errf(format string, args ...any) {
	d.errs = append(d.errs, fmt.Sprintf(format, args...))
}

func (d *decoder) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(d.errs, "\n"))
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// unknown reports keys of t that are not in known, with a suggestion when one is close.
func (d *decoder) unknown(t map[string]any, prefix string, known []string) {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if contains(known, k) {
			continue
		}
		msg := fmt.Sprintf("unknown key %s", join(prefix, k))
		if s := suggest(k, known); s != "" {
			msg += fmt.Sprintf(" — did you mean %s?", s)
		} else {
			msg += fmt.Sprintf("; known keys here: %s", strings.Join(known, ", "))
		}
		d.errs = append(d.errs, msg)
	}
}

func (d *decoder) table(raw map[string]any, key string) (map[string]any, bool) {
	v, ok := raw[key]
	if !ok {
		return nil, false
	}
	t, ok := v.(map[string]any)
	if !ok {
		d.errf("%s: must be a table; write [%s] on its own line followed by its keys", key, key)
		return nil, false
	}
	return t, true
}

func (d *decoder) str(t map[string]any, prefix, key string, dst *string) {
	v, ok := t[key]
	if !ok {
		return
	}
	s, ok := v.(string)
	if !ok {
		d.errf("%s: must be a string, got %s; quote it: %s = \"...\"", join(prefix, key), typeName(v), key)
		return
	}
	*dst = s
}

func (d *decoder) strs(t map[string]any, prefix, key string, dst *[]string) {
	v, ok := t[key]
	if !ok {
		return
	}
	list, ok := v.([]any)
	if !ok {
		d.errf("%s: must be a list of strings, got %s; write %s = [\"a\", \"b\"]", join(prefix, key), typeName(v), key)
		return
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			d.errf("%s[%d]: must be a string, got %s", join(prefix, key), i, typeName(e))
			return
		}
		out = append(out, s)
	}
	*dst = out
}

func (d *decoder) boolean(t map[string]any, prefix, key string, dst *bool) {
	v, ok := t[key]
	if !ok {
		return
	}
	b, ok := v.(bool)
	if !ok {
		d.errf("%s: must be true or false (unquoted), got %s", join(prefix, key), typeName(v))
		return
	}
	*dst = b
}

func (d *decoder) integer(t map[string]any, prefix, key string, dst *int) {
	v, ok := t[key]
	if !ok {
		return
	}
	n, ok := v.(int64)
	if !ok {
		d.errf("%s: must be a whole number (unquoted), got %s", join(prefix, key), typeName(v))
		return
	}
	if int64(int(n)) != n {
		d.errf("%s: %d is out of range", join(prefix, key), n)
		return
	}
	*dst = int(n)
}

func (d *decoder) duration(t map[string]any, prefix, key string, dst *time.Duration) {
	v, ok := t[key]
	if !ok {
		return
	}
	s, ok := v.(string)
	if !ok {
		d.errf("%s: must be a duration string like \"90s\" or \"15m\", got %s", join(prefix, key), typeName(v))
		return
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		d.errf("%s: %q is not a duration; use a string like \"90s\", \"2m\" or \"1h30m\"", join(prefix, key), s)
		return
	}
	*dst = dur
}

func typeName(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case int64:
		return fmt.Sprintf("number %d", x)
	case float64:
		return fmt.Sprintf("number %g", x)
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	default:
		return fmt.Sprintf("%T", v)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// suggest returns the known key closest to k, if it is close enough to be a typo.
func suggest(k string, known []string) string {
	best, bestD := "", 1<<30
	for _, c := range known {
		if d := editDistance(strings.ToLower(k), c); d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(k) <= 4 {
		limit = 1
	}
	if bestD <= limit || (strings.HasPrefix(best, strings.ToLower(k)) && len(k) >= 3) ||
		strings.TrimSuffix(strings.ToLower(k), "s") == best {
		return best
	}
	return ""
}

// editDistance is the optimal string alignment distance: insertions, deletions,
// substitutions and adjacent transpositions each cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
