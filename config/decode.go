package config

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// document is the shape of the config file. Each table stays a toml.Primitive
// until its kind is checked, so that a table of the wrong kind ([[principal]],
// account = "x") is reported by name while the other tables are still decoded.
type document struct {
	Principal toml.Primitive `toml:"principal"`
	Account   toml.Primitive `toml:"account"`
	Ollama    toml.Primitive `toml:"ollama"`
	Triage    toml.Primitive `toml:"triage"`
	Drafts    toml.Primitive `toml:"drafts"`
	Notify    toml.Primitive `toml:"notify"`
	Keys      toml.Primitive `toml:"keys"`
	FollowUp  toml.Primitive `toml:"follow_up"`
}

type principalTable struct {
	Name  value `toml:"name"`
	Email value `toml:"email"`
}

type accountTable struct {
	Name                  value `toml:"name"`
	Source                value `toml:"source"`
	SMTP                  value `toml:"smtp"`
	Sendmail              value `toml:"sendmail"`
	PasswordCmd           value `toml:"password_cmd"`
	Password              value `toml:"password"`
	Auth                  value `toml:"auth"`
	Folders               value `toml:"folders"`
	TLSInsecureSkipVerify value `toml:"tls_insecure_skip_verify"`
	From                  value `toml:"from"`
	Keyring               value `toml:"keyring"`
	OAuth2Provider        value `toml:"oauth2_provider"`
	OAuth2ClientID        value `toml:"oauth2_client_id"`
	OAuth2ClientSecretCmd value `toml:"oauth2_client_secret_cmd"`
	OAuth2Tenant          value `toml:"oauth2_tenant"`
	OAuth2AuthURL         value `toml:"oauth2_auth_url"`
	OAuth2TokenURL        value `toml:"oauth2_token_url"`
	OAuth2DeviceURL       value `toml:"oauth2_device_url"`
	OAuth2Scopes          value `toml:"oauth2_scopes"`
	FollowUp              value `toml:"follow_up"`
}

type ollamaTable struct {
	Host       value `toml:"host"`
	Model      value `toml:"model"`
	EmbedModel value `toml:"embed_model"`
	Parallel   value `toml:"parallel"`
	Timeout    value `toml:"timeout"`
	NumCtx     value `toml:"num_ctx"`
	Remote     value `toml:"remote"`
	PlainHTTP  value `toml:"allow_plain_http"`
}

type triageTable struct {
	Enabled           value `toml:"enabled"`
	Offline           value `toml:"offline"`
	TokenBudget       value `toml:"token_budget"`
	MaxThreadMessages value `toml:"max_thread_messages"`
}

type draftsTable struct {
	Tone         value `toml:"tone"`
	Length       value `toml:"length"`
	Signature    value `toml:"signature"`
	Language     value `toml:"language"`
	NeverPromise value `toml:"never_promise"`
	UndoSeconds  value `toml:"undo_seconds"`
	ApprovalTTL  value `toml:"approval_ttl"`
}

type notifyTable struct {
	NewMail value `toml:"new_mail"`
}

// Known keys per table, in file order, taken from the tables' toml tags: the
// "did you mean" suggestions and the list of known keys in errors use them.
var (
	topKeys       = tomlKeys[document]()
	principalKeys = tomlKeys[principalTable]()
	accountKeys   = tomlKeys[accountTable]()
	ollamaKeys    = tomlKeys[ollamaTable]()
	triageKeys    = tomlKeys[triageTable]()
	draftsKeys    = tomlKeys[draftsTable]()
	notifyKeys    = tomlKeys[notifyTable]()

	tableKeys = map[string][]string{
		"principal": principalKeys, "account": accountKeys, "ollama": ollamaKeys,
		"triage": triageKeys, "drafts": draftsKeys, "notify": notifyKeys, "keys": KeyActions, "follow_up": followUpKeys,
	}
)

func tomlKeys[T any]() []string {
	t := reflect.TypeFor[T]()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i] = t.Field(i).Tag.Get("toml")
	}
	return keys
}

// value is one key's raw TOML value as the library parsed it (string, int64,
// float64, bool, a date-time, []any or map[string]any). It stays raw so that a
// wrong type is reported with what was found (`got string "2"`) and so that
// decoding carries on past it to report every problem at once.
type value struct{ raw any }

// UnmarshalTOML implements toml.Unmarshaler; it never fails.
func (v *value) UnmarshalTOML(raw any) error {
	v.raw = raw
	return nil
}

// tomlArrayOfTables is how toml.MetaData.Type names a [[table]] array.
const tomlArrayOfTables = "ArrayHash"

// decodeInto applies a TOML document onto cfg, rejecting unknown keys and wrong types
// with errors that name the key.
func decodeInto(cfg *Config, data []byte) error {
	var doc document
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return fmt.Errorf("invalid TOML: %w", err)
	}
	d := decoder{md: &md}
	d.indexKeys()
	d.reportUnknown("", topKeys)

	if d.isSet("", "principal") {
		var t principalTable
		if d.table("principal", doc.Principal, &t) {
			f := d.fields("principal", principalKeys)
			f.str("name", t.Name, &cfg.Principal.Name)
			f.str("email", t.Email, &cfg.Principal.Email)
		}
	}
	if d.isSet("", "account") {
		for i, t := range d.accounts(doc.Account) {
			f := d.fields(fmt.Sprintf("account[%d]", i), accountKeys)
			var a Account
			f.str("name", t.Name, &a.Name)
			f.str("source", t.Source, &a.Source)
			f.str("smtp", t.SMTP, &a.SMTP)
			f.str("sendmail", t.Sendmail, &a.Sendmail)
			f.str("password_cmd", t.PasswordCmd, &a.PasswordCmd)
			f.str("password", t.Password, &a.PlainPassword)
			f.str("auth", t.Auth, &a.Auth)
			f.strs("folders", t.Folders, &a.Folders)
			f.boolean("tls_insecure_skip_verify", t.TLSInsecureSkipVerify, &a.TLSInsecureSkipVerify)
			f.str("from", t.From, &a.From)
			f.boolean("keyring", t.Keyring, &a.Keyring)
			f.str("oauth2_provider", t.OAuth2Provider, &a.OAuth2.Provider)
			f.str("oauth2_client_id", t.OAuth2ClientID, &a.OAuth2.ClientID)
			f.str("oauth2_client_secret_cmd", t.OAuth2ClientSecretCmd, &a.OAuth2.ClientSecretCmd)
			f.str("oauth2_tenant", t.OAuth2Tenant, &a.OAuth2.Tenant)
			f.str("oauth2_auth_url", t.OAuth2AuthURL, &a.OAuth2.AuthURL)
			f.str("oauth2_token_url", t.OAuth2TokenURL, &a.OAuth2.TokenURL)
			f.str("oauth2_device_url", t.OAuth2DeviceURL, &a.OAuth2.DeviceURL)
			f.strs("oauth2_scopes", t.OAuth2Scopes, &a.OAuth2.Scopes)
			if f.d.isSet(f.path, "follow_up") {
				var on bool
				f.boolean("follow_up", t.FollowUp, &on)
				a.FollowUp = &on
			}
			cfg.Accounts = append(cfg.Accounts, a)
		}
	}
	if d.isSet("", "ollama") {
		var t ollamaTable
		if d.table("ollama", doc.Ollama, &t) {
			f := d.fields("ollama", ollamaKeys)
			f.str("host", t.Host, &cfg.Ollama.Host)
			f.str("model", t.Model, &cfg.Ollama.Model)
			f.str("embed_model", t.EmbedModel, &cfg.Ollama.EmbedModel)
			f.integer("parallel", t.Parallel, &cfg.Ollama.Parallel)
			f.duration("timeout", t.Timeout, &cfg.Ollama.Timeout)
			f.integer("num_ctx", t.NumCtx, &cfg.Ollama.NumCtx)
			f.boolean("remote", t.Remote, &cfg.Ollama.Remote)
			f.boolean("allow_plain_http", t.PlainHTTP, &cfg.Ollama.AllowPlainHTTP)
		}
	}
	if d.isSet("", "triage") {
		var t triageTable
		if d.table("triage", doc.Triage, &t) {
			f := d.fields("triage", triageKeys)
			f.boolean("enabled", t.Enabled, &cfg.Triage.Enabled)
			f.boolean("offline", t.Offline, &cfg.Triage.Offline)
			f.integer("token_budget", t.TokenBudget, &cfg.Triage.TokenBudget)
			f.integer("max_thread_messages", t.MaxThreadMessages, &cfg.Triage.MaxThreadMessages)
		}
	}
	if d.isSet("", "drafts") {
		var t draftsTable
		if d.table("drafts", doc.Drafts, &t) {
			f := d.fields("drafts", draftsKeys)
			f.str("tone", t.Tone, &cfg.Drafts.Tone)
			f.str("length", t.Length, &cfg.Drafts.Length)
			f.str("signature", t.Signature, &cfg.Drafts.Signature)
			f.str("language", t.Language, &cfg.Drafts.Language)
			f.strs("never_promise", t.NeverPromise, &cfg.Drafts.NeverPromise)
			f.integer("undo_seconds", t.UndoSeconds, &cfg.Drafts.UndoSeconds)
			f.duration("approval_ttl", t.ApprovalTTL, &cfg.Drafts.ApprovalTTL)
		}
	}
	if d.isSet("", "notify") {
		var t notifyTable
		if d.table("notify", doc.Notify, &t) {
			f := d.fields("notify", notifyKeys)
			f.str("new_mail", t.NewMail, &cfg.Notify.NewMail)
		}
	}
	if d.isSet("", "keys") {
		d.decodeKeys(doc.Keys, cfg)
	}
	if d.isSet("", "follow_up") {
		d.decodeFollowUp(doc.FollowUp, cfg)
	}
	return d.err()
}

// decoder collects every problem in a document, in the order the tables are
// decoded.
type decoder struct {
	md   *toml.MetaData
	errs []string
	// set holds, per table path ("" for the top level, "principal",
	// "account[0]", ...), the key names the document sets, spelled exactly.
	set map[string]map[string]bool
	// unknown holds, per table path, the keys mailsift does not know.
	unknown map[string][]string
}

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

func (d *decoder) isSet(table, key string) bool { return d.set[table][key] }

// indexKeys files every key of the document under the table path it belongs
// to, and notes the ones mailsift does not know. md.Keys() keeps document
// order, so each [[account]] header in it starts the next account[i] (the
// library's keys name no array index).
//
// A key is unknown when its name is not spelled exactly as a known key. That
// covers every key md.Undecoded() lists, and also the ones the library decodes
// by matching a field's name with case ignored ("Source" fills source), which
// Undecoded() does not list. A key below an unknown one is reported at the
// first unknown component: [olama] and olama.model both report "olama".
func (d *decoder) indexKeys() {
	d.set = map[string]map[string]bool{}
	d.unknown = map[string][]string{}
	account := -1
	for _, k := range d.md.Keys() {
		if len(k) == 1 && k[0] == "account" {
			account++
		}
		table, name, known := "", k[0], topKeys
		if keys, ok := tableKeys[k[0]]; ok && len(k) > 1 {
			table, name, known = k[0], k[1], keys
			if table == "account" {
				table = fmt.Sprintf("account[%d]", account)
			}
		}
		d.mark("", k[0]) // a dotted key or [principal.x] sets principal implicitly
		d.mark(table, name)
		if !slices.Contains(known, name) {
			d.unknown[table] = append(d.unknown[table], name)
		}
	}
}

func (d *decoder) mark(table, key string) {
	if d.set[table] == nil {
		d.set[table] = map[string]bool{}
	}
	d.set[table][key] = true
}

// reportUnknown reports the unknown keys of the table at path, sorted, each
// with a suggestion from known when one is close.
func (d *decoder) reportUnknown(path string, known []string) {
	keys := d.unknown[path]
	sort.Strings(keys)
	for _, k := range slices.Compact(keys) {
		msg := fmt.Sprintf("unknown key %s", join(path, k))
		if s := suggest(k, known); s != "" {
			msg += fmt.Sprintf(" — did you mean %s?", s)
		} else {
			msg += fmt.Sprintf("; known keys here: %s", strings.Join(known, ", "))
		}
		d.errs = append(d.errs, msg)
	}
}

// table decodes the top-level table name into t, or reports that name is not
// a table. The fields of t never fail to decode, so any error is the kind.
func (d *decoder) table(name string, p toml.Primitive, t any) bool {
	if err := d.md.PrimitiveDecode(p, t); err != nil {
		d.errf("%s: must be a table; write [%s] on its own line followed by its keys", name, name)
		return false
	}
	return true
}

// accounts decodes the account array, or reports that it is not an array of
// tables (account = [], an array of inline tables and [account] are refused).
func (d *decoder) accounts(p toml.Primitive) []accountTable {
	var list []accountTable
	if d.md.Type("account") != tomlArrayOfTables || d.md.PrimitiveDecode(p, &list) != nil {
		d.errf("account: must be an array of tables; write each account as [[account]] followed by its keys")
		return nil
	}
	return list
}

// fields reports the unknown keys of the table at path and returns the
// setters for its known keys.
func (d *decoder) fields(path string, known []string) tableFields {
	d.reportUnknown(path, known)
	return tableFields{d: d, path: path}
}

// tableFields copies the keys of one table onto the Config, checking each type. A
// key the document does not set, spelled exactly, leaves the default.
type tableFields struct {
	d    *decoder
	path string
}

func (f tableFields) get(key string, v value) (any, bool) {
	return v.raw, f.d.isSet(f.path, key)
}

func (f tableFields) str(key string, v value, dst *string) {
	raw, ok := f.get(key, v)
	if !ok {
		return
	}
	s, ok := raw.(string)
	if !ok {
		f.d.errf("%s: must be a string, got %s; quote it: %s = \"...\"", join(f.path, key), typeName(raw), key)
		return
	}
	*dst = s
}

func (f tableFields) strs(key string, v value, dst *[]string) {
	raw, ok := f.get(key, v)
	if !ok {
		return
	}
	list, ok := raw.([]any)
	if !ok {
		f.d.errf("%s: must be a list of strings, got %s; write %s = [\"a\", \"b\"]", join(f.path, key), typeName(raw), key)
		return
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			f.d.errf("%s[%d]: must be a string, got %s", join(f.path, key), i, typeName(e))
			return
		}
		out = append(out, s)
	}
	*dst = out
}

func (f tableFields) boolean(key string, v value, dst *bool) {
	raw, ok := f.get(key, v)
	if !ok {
		return
	}
	b, ok := raw.(bool)
	if !ok {
		f.d.errf("%s: must be true or false (unquoted), got %s", join(f.path, key), typeName(raw))
		return
	}
	*dst = b
}

func (f tableFields) integer(key string, v value, dst *int) {
	raw, ok := f.get(key, v)
	if !ok {
		return
	}
	n, ok := raw.(int64)
	if !ok {
		f.d.errf("%s: must be a whole number (unquoted), got %s", join(f.path, key), typeName(raw))
		return
	}
	if int64(int(n)) != n {
		f.d.errf("%s: %d is out of range", join(f.path, key), n)
		return
	}
	*dst = int(n)
}

func (f tableFields) duration(key string, v value, dst *time.Duration) {
	raw, ok := f.get(key, v)
	if !ok {
		return
	}
	s, ok := raw.(string)
	if !ok {
		f.d.errf("%s: must be a duration string like \"90s\" or \"15m\", got %s", join(f.path, key), typeName(raw))
		return
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		f.d.errf("%s: %q is not a duration; use a string like \"90s\", \"2m\" or \"1h30m\"", join(f.path, key), s)
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
