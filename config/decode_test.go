package config

import (
	"strings"
	"testing"
	"time"
)

// TestDecodeErrorsExact pins the full text of decoding errors: which keys are
// reported, in what order, with which suggestion, path and line. The wants
// were produced by the hand-written map walker this decoder replaced.
func TestDecodeErrorsExact(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // "" for no error
	}{
		{"typo in account key", "[[account]]\nsourc = \"x\"\n", "unknown key account[0].sourc — did you mean source?"},
		{"unknown table", "[olama]\nmodel = \"x\"\n", "unknown key olama — did you mean ollama?"},
		{"unknown dotted table", "olama.model = \"x\"\n", "unknown key olama — did you mean ollama?"},
		{"unknown empty table", "[olama]\n", "unknown key olama — did you mean ollama?"},
		{"unknown key without suggestion", "[drafts]\nzzzzzz = 1\n", "unknown key drafts.zzzzzz; known keys here: tone, length, signature, language, never_promise, undo_seconds, approval_ttl"},
		{"three type errors in order", "[ollama]\nparallel = \"2\"\ntimeout = 120\nnum_ctx = 1.5\n", "ollama.parallel: must be a whole number (unquoted), got string \"2\"\nollama.timeout: must be a duration string like \"90s\" or \"15m\", got number 120\nollama.num_ctx: must be a whole number (unquoted), got number 1.5"},
		{"timeout not a duration", "[ollama]\ntimeout = \"soon\"\n", "ollama.timeout: \"soon\" is not a duration; use a string like \"90s\", \"2m\" or \"1h30m\""},
		{"bool and int type errors", "[triage]\nenabled = \"yes\"\noffline = 1\ntoken_budget = true\nmax_thread_messages = [1]\n", "triage.enabled: must be true or false (unquoted), got string \"yes\"\ntriage.offline: must be true or false (unquoted), got number 1\ntriage.token_budget: must be a whole number (unquoted), got boolean true\ntriage.max_thread_messages: must be a whole number (unquoted), got a list"},
		{"account as a table", "[account]\nsource = \"demo://\"\n", "account: must be an array of tables; write each account as [[account]] followed by its keys"},
		{"account as a string", "account = \"x\"\n", "account: must be an array of tables; write each account as [[account]] followed by its keys"},
		{"account as an empty array", "account = []\n", "account: must be an array of tables; write each account as [[account]] followed by its keys"},
		{"account as inline tables", "account = [{source = \"demo://\"}]\n", "account: must be an array of tables; write each account as [[account]] followed by its keys"},
		{"account as dotted keys", "account.source = \"demo://\"\n", "account: must be an array of tables; write each account as [[account]] followed by its keys"},
		{"principal as a string", "principal = \"x\"\n", "principal: must be a table; write [principal] on its own line followed by its keys"},
		{"principal as an array of tables", "[[principal]]\nemail = \"a\"\nbogus = 1\n", "principal: must be a table; write [principal] on its own line followed by its keys"},
		{"unknown keys sorted before type errors", "[principal]\nemial = \"a\"\nname = 3\n[principal.foo]\nbar = 1\n", "unknown key principal.emial — did you mean email?\nunknown key principal.foo; known keys here: name, email\nprincipal.name: must be a string, got number 3; quote it: name = \"...\""},
		{"errors per account index", "[[account]]\nfolders = \"INBOX\"\n[[account]]\nfolders = [\"a\", 2]\nSource = \"x\"\n[account.extra]\nx = 1\n", "account[0].folders: must be a list of strings, got string \"INBOX\"; write folders = [\"a\", \"b\"]\nunknown key account[1].Source — did you mean source?\nunknown key account[1].extra; known keys here: name, source, smtp, sendmail, password_cmd, password, auth, folders, tls_insecure_skip_verify, from, keyring, oauth2_provider, oauth2_client_id, oauth2_client_secret_cmd, oauth2_tenant, oauth2_auth_url, oauth2_token_url, oauth2_device_url, oauth2_scopes, follow_up\naccount[1].folders[1]: must be a string, got number 2"},
		{"table name in wrong case", "[Principal]\nemail = \"a\"\n", "unknown key Principal — did you mean principal?"},
		{"key name in wrong case", "[[account]]\nSource = 5\n", "unknown key account[0].Source — did you mean source?"},
		{"tables in decode order", "[drafts]\nnever_promise = \"x\"\napproval_ttl = 5\nundo_seconds = \"1\"\ntone = 1\n[triage]\nzz=1\n[ollama]\nhots = \"x\"\n", "unknown key ollama.hots — did you mean host?\nunknown key triage.zz; known keys here: enabled, offline, token_budget, max_thread_messages\ndrafts.tone: must be a string, got number 1; quote it: tone = \"...\"\ndrafts.never_promise: must be a list of strings, got string \"x\"; write never_promise = [\"a\", \"b\"]\ndrafts.undo_seconds: must be a whole number (unquoted), got string \"1\"\ndrafts.approval_ttl: must be a duration string like \"90s\" or \"15m\", got number 5"},
		{"parse error names the line", "[principal\n", "invalid TOML: toml: line 2: expected '.' or ']' to end table name, but got '\\n' instead"},
		{"duplicate key names the line", "a = 1\na = 2\n", "invalid TOML: toml: line 2 (last key \"a\"): Key 'a' has already been defined."},
		{"date-times are not strings", "[principal]\nname = 1979-05-27\nemail = 1979-05-27T07:32:00Z\n", "principal.name: must be a string, got time.Time; quote it: name = \"...\"\nprincipal.email: must be a string, got time.Time; quote it: email = \"...\""},
		{"inline table is not a string", "[principal]\nname = {x = 1}\n", "principal.name: must be a string, got a table; quote it: name = \"...\""},
		{"sub-table is not a string", "[principal.name]\nx = 1\n", "principal.name: must be a string, got a table; quote it: name = \"...\""},
		{"dotted keys inside principal", "principal.email = \"a@b\"\nprincipal.emial = 1\n", "unknown key principal.emial — did you mean email?"},
		{"integer overflow names the line", "[ollama]\nparallel = 99999999999999999999\n", "invalid TOML: toml: line 2 (last key \"ollama.parallel\"): 99999999999999999999 is out of range for int64"},
		{"inline ollama table", "ollama = {parallel = \"x\", bogus = 1}\n", "unknown key ollama.bogus; known keys here: host, model, embed_model, parallel, timeout, num_ctx, remote, allow_plain_http\nollama.parallel: must be a whole number (unquoted), got string \"x\""},
		{"unknown top-level and account keys", "folders = 1\n[[account]]\nname = \"x\"\npasswordcmd = \"y\"\nhost = 1\n", "unknown key folders; known keys here: principal, account, ollama, triage, drafts, notify, keys, follow_up\nunknown key account[0].host; known keys here: name, source, smtp, sendmail, password_cmd, password, auth, folders, tls_insecure_skip_verify, from, keyring, oauth2_provider, oauth2_client_id, oauth2_client_secret_cmd, oauth2_tenant, oauth2_auth_url, oauth2_token_url, oauth2_device_url, oauth2_scopes, follow_up\nunknown key account[0].passwordcmd — did you mean password_cmd?"},
		{"valid drafts", "[drafts]\nlanguage = \"en\"\nlength=\"x\"\nsignature=\"s\"\n", ""},
		{"array of tables under an account", "[[account]]\n[[account.sub]]\nx=1\n", "unknown key account[0].sub; known keys here: name, source, smtp, sendmail, password_cmd, password, auth, folders, tls_insecure_skip_verify, from, keyring, oauth2_provider, oauth2_client_id, oauth2_client_secret_cmd, oauth2_tenant, oauth2_auth_url, oauth2_token_url, oauth2_device_url, oauth2_scopes, follow_up"},
		{"sub-table of triage", "[triage]\n[triage.x]\n", "unknown key triage.x; known keys here: enabled, offline, token_budget, max_thread_messages"},
		{"quoted key", "\"quoted key\" = 1\n", "unknown key quoted key; known keys here: principal, account, ollama, triage, drafts, notify, keys, follow_up"},
		{"upper-case key", "[ollama]\nPARALLEL = 3\n", "unknown key ollama.PARALLEL — did you mean parallel?"},
		{"nested list elements", "[[account]]\nfolders = [[\"a\"]]\n[[account]]\nfolders = [{a = 1}]\ntls_insecure_skip_verify = \"yes\"\n", "account[0].folders[0]: must be a string, got a list\naccount[1].folders[0]: must be a string, got a table\naccount[1].tls_insecure_skip_verify: must be true or false (unquoted), got string \"yes\""},
		{"list element type", "[drafts]\nnever_promise = [1, 2]\n", "drafts.never_promise[0]: must be a string, got number 1"},
		{"valid ollama", "[ollama]\ntimeout = \"1h30m\"\nparallel = -3\nnum_ctx = 0x10\n[drafts]\napproval_ttl = \"2m\"\n", ""},
		{"float for an integer", "[triage]\nenabled = false\ntoken_budget = 1.0\n", "triage.token_budget: must be a whole number (unquoted), got number 1"},
		{"empty tables", "[principal]\n[ollama]\n[triage]\n[drafts]\n[[account]]\n", ""},
		{"array of tables name in wrong case", "[[account]]\nname = \"a\"\n[[Account]]\nname = \"b\"\n", "unknown key Account — did you mean account?"},
		{"string type errors in every account key", "[[account]]\nname = 1\n[[account]]\nname = 2\n[[account]]\nsmtp = 3\nsendmail = 4\npassword_cmd = 5\npassword = 6\nauth = 7\nfrom = 8\n", "account[0].name: must be a string, got number 1; quote it: name = \"...\"\naccount[1].name: must be a string, got number 2; quote it: name = \"...\"\naccount[2].smtp: must be a string, got number 3; quote it: smtp = \"...\"\naccount[2].sendmail: must be a string, got number 4; quote it: sendmail = \"...\"\naccount[2].password_cmd: must be a string, got number 5; quote it: password_cmd = \"...\"\naccount[2].password: must be a string, got number 6; quote it: password = \"...\"\naccount[2].auth: must be a string, got number 7; quote it: auth = \"...\"\naccount[2].from: must be a string, got number 8; quote it: from = \"...\""},
		{"sub-table before its table", "[ollama.sub]\nx = 1\n[ollama]\nmodel = 1\n", "unknown key ollama.sub; known keys here: host, model, embed_model, parallel, timeout, num_ctx, remote, allow_plain_http\nollama.model: must be a string, got number 1; quote it: model = \"...\""},
		{"tables as arrays of tables", "[[ollama]]\nmodel = 1\n[[triage]]\n[drafts]\nsignature = false\n", "ollama: must be a table; write [ollama] on its own line followed by its keys\ntriage: must be a table; write [triage] on its own line followed by its keys\ndrafts.signature: must be a string, got boolean false; quote it: signature = \"...\""},
		{"good config", goodConfig, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Defaults()
			got := ""
			if err := decodeInto(&cfg, []byte(tt.text)); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("decodeInto(%q) error =\n%s\nwant\n%s", tt.text, got, tt.want)
			}
		})
	}
}

func TestDecodeValues(t *testing.T) {
	cfg := Defaults()
	text := "[principal]\n[ollama]\ntimeout = \"1h30m\"\nparallel = -3\nnum_ctx = 0x10\n[triage]\n[drafts]\napproval_ttl = \"2m\"\nlanguage = \"en\"\n[[account]]\n[[account]]\nfolders = []\ntls_insecure_skip_verify = true\n"
	if err := decodeInto(&cfg, []byte(text)); err != nil {
		t.Fatalf("decodeInto: %v", err)
	}
	o := cfg.Ollama
	if o.Timeout != 90*time.Minute || o.Parallel != -3 || o.NumCtx != 16 || o.Model != DefaultModel {
		t.Errorf("ollama = %+v, want timeout 1h30m, parallel -3, num_ctx 16, default model", o)
	}
	if cfg.Drafts.ApprovalTTL != 2*time.Minute || cfg.Drafts.Language != "en" || cfg.Drafts.Tone != DefaultTone {
		t.Errorf("drafts = %+v", cfg.Drafts)
	}
	if cfg.Triage != Defaults().Triage || cfg.Principal != (Principal{}) {
		t.Errorf("empty tables changed defaults: triage %+v principal %+v", cfg.Triage, cfg.Principal)
	}
	if len(cfg.Accounts) != 2 || cfg.Accounts[0].TLSInsecureSkipVerify || !cfg.Accounts[1].TLSInsecureSkipVerify ||
		cfg.Accounts[1].Folders == nil || len(cfg.Accounts[1].Folders) != 0 {
		t.Errorf("accounts = %#v", cfg.Accounts)
	}
}

func TestNotifyNewMail(t *testing.T) {
	for _, tc := range []struct{ doc, want, err string }{
		{"", "urgent", ""},
		{"[notify]\nnew_mail = \"all\"\n", "all", ""},
		{"[notify]\nnew_mail = \"off\"\n", "off", ""},
		{"[notify]\nnew_mail = \"loud\"\n", "", `notify.new_mail: "loud" is not one of off, urgent, all (default urgent)`},
		{"[notify]\nnewmail = \"all\"\n", "", "did you mean new_mail?"},
	} {
		cfg := Defaults()
		err := decodeInto(&cfg, []byte(tc.doc))
		if err == nil {
			err = Validate(&cfg, func(string) string { return "" })
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.doc, err, tc.err)
			}
			continue
		}
		if err != nil && strings.Contains(err.Error(), "notify") || cfg.Notify.NewMail != tc.want {
			t.Errorf("%q: new_mail %q, %v; want %q", tc.doc, cfg.Notify.NewMail, err, tc.want)
		}
	}
}
