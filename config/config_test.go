package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// envMap returns an Env func over m (unset keys are empty).
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// writeConfig writes text to a 0600 file in a temp dir and returns its path.
func writeConfig(t *testing.T, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func load(t *testing.T, text string, env map[string]string) (*Config, error) {
	t.Helper()
	p := writeConfig(t, text, 0o600)
	if env == nil {
		env = map[string]string{}
	}
	if env["HOME"] == "" {
		env["HOME"] = t.TempDir()
	}
	return Load(LoadOptions{Path: p, Env: envMap(env)})
}

const goodConfig = `
[principal]
name = "Alex Morgan"
email = "alex.morgan@northwind.example"

[[account]]
name = "work"
source = "imaps://alex%40northwind.example@imap.northwind.example"
smtp = "smtps://alex%40northwind.example@smtp.northwind.example"
password_cmd = "echo secret"
folders = ["INBOX", "Archive"]

[[account]]
source = "maildir://~/Mail"
sendmail = "/usr/sbin/sendmail -t"

[ollama]
model = "qwen2.5:7b"
parallel = 3
timeout = "45s"

[triage]
offline = true
max_thread_messages = 8

[drafts]
tone = "friendly"
undo_seconds = 0
approval_ttl = "5m"
never_promise = ["discounts"]
`

func TestLoadGoodConfig(t *testing.T) {
	home := t.TempDir()
	cfg, err := load(t, goodConfig, map[string]string{"HOME": home})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got, want := len(cfg.Accounts), 2; got != want {
		t.Fatalf("accounts = %d, want %d", got, want)
	}
	w := cfg.Accounts[0]
	if w.Src.User != "alex@northwind.example" || w.Src.Host != "imap.northwind.example" || w.Src.Port != 993 || w.Src.TLS != TLSImplicit {
		t.Errorf("account[0].Src = %#v", w.Src)
	}
	if w.Out.Kind != OutgoingSMTP || w.Out.Port != 465 || w.Out.TLS != TLSImplicit {
		t.Errorf("account[0].Out = %+v", w.Out)
	}
	if w.Auth != "plain" {
		t.Errorf("default auth = %q, want plain", w.Auth)
	}
	m := cfg.Accounts[1]
	if m.Name != "maildir" {
		t.Errorf("account[1].Name = %q, want maildir (derived from scheme)", m.Name)
	}
	if want := filepath.Join(home, "Mail"); m.Src.Path != want {
		t.Errorf("maildir path = %q, want %q", m.Src.Path, want)
	}
	if m.Out.Kind != OutgoingSendmail || m.Out.Command != "/usr/sbin/sendmail -t" {
		t.Errorf("account[1].Out = %+v", m.Out)
	}
	if cfg.Ollama.Model != "qwen2.5:7b" || cfg.Ollama.Parallel != 3 || cfg.Ollama.Timeout != 45*time.Second {
		t.Errorf("ollama = %+v", cfg.Ollama)
	}
	if cfg.Ollama.NumCtx != DefaultNumCtx || cfg.Ollama.Host != DefaultOllamaHost {
		t.Errorf("ollama defaults not kept: %+v", cfg.Ollama)
	}
	if !cfg.Triage.Enabled || !cfg.Triage.Offline || cfg.Triage.MaxThreadMessages != 8 {
		t.Errorf("triage = %+v", cfg.Triage)
	}
	if cfg.Drafts.UndoSeconds != 0 || cfg.Drafts.ApprovalTTL != 5*time.Minute || cfg.Drafts.Tone != "friendly" || cfg.Drafts.Length != DefaultLength {
		t.Errorf("drafts = %+v", cfg.Drafts)
	}
	if want := filepath.Join(home, ".local", "share", "mailsift"); cfg.DataDir != want {
		t.Errorf("DataDir = %q, want %q", cfg.DataDir, want)
	}
}

func TestDefaults(t *testing.T) {
	cfg, err := load(t, "[principal]\nemail = \"a@example.com\"\n[[account]]\nsource = \"demo://\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := Defaults()
	if cfg.Ollama.Model != "llama3.2:3b" || cfg.Ollama.Parallel != 2 || cfg.Ollama.Timeout != 120*time.Second || cfg.Ollama.NumCtx != 8192 {
		t.Errorf("ollama defaults = %+v", cfg.Ollama)
	}
	if cfg.Drafts.UndoSeconds != 10 || cfg.Drafts.ApprovalTTL != 15*time.Minute {
		t.Errorf("drafts defaults = %+v", cfg.Drafts)
	}
	if cfg.Triage != d.Triage {
		t.Errorf("triage = %+v, want %+v", cfg.Triage, d.Triage)
	}
}

func TestConfigErrorsNameKeyAndFix(t *testing.T) {
	const head = "[principal]\nemail = \"a@example.com\"\n"
	const acct = "[[account]]\nsource = \"demo://\"\n"
	tests := []struct {
		name string
		text string
		want []string // substrings of the error
	}{
		{"typo in account key", head + "[[account]]\nsourc = \"demo://\"\n", []string{"unknown key account[0].sourc", "did you mean source?"}},
		{"unknown section", head + acct + "[olama]\nmodel = \"x\"\n", []string{"unknown key olama", "did you mean ollama?"}},
		{"unknown key no suggestion", head + acct + "[drafts]\nzzzzzz = 1\n", []string{"unknown key drafts.zzzzzz", "known keys here"}},
		{"pop3 scheme", head + "[[account]]\nsource = \"demo://\"\n[[account]]\nsource = \"pop3://u@host\"\n", []string{`account[1].source: scheme "pop3" not supported`, "imaps://, imap://, imap+insecure:// (loopback only), maildir://, mbox:// or demo://"}},
		{"missing source", head + "[[account]]\nname = \"x\"\n", []string{"account[0].source: missing"}},
		{"imap+insecure remote", head + "[[account]]\nsource = \"imap+insecure://u@mail.example.com\"\n", []string{"account[0].source", "only allowed to loopback", "imaps://"}},
		{"skip verify remote", head + "[[account]]\nsource = \"imaps://u@mail.example.com\"\ntls_insecure_skip_verify = true\n", []string{"account[0].tls_insecure_skip_verify", `"mail.example.com" is not`}},
		{"skip verify remote smtp", head + "[[account]]\nsource = \"imaps://u@127.0.0.1:1993\"\nsmtp = \"smtps://u@smtp.example.com\"\ntls_insecure_skip_verify = true\n", []string{"account[0].tls_insecure_skip_verify", "smtp.example.com"}},
		{"bad auth", head + "[[account]]\nsource = \"demo://\"\nauth = \"cram-md5\"\n", []string{`account[0].auth: "cram-md5" not supported`, "xoauth2"}},
		{"oauth without cmd", head + "[[account]]\nsource = \"imaps://u@h.example.com\"\nauth = \"xoauth2\"\n", []string{"account[0].auth", "password_cmd"}},
		{"smtp and sendmail", head + "[[account]]\nsource = \"demo://\"\nsmtp = \"smtps://u@h.example.com\"\nsendmail = \"sendmail -t\"\n", []string{"account[0]: both smtp and sendmail"}},
		{"bad smtp scheme", head + "[[account]]\nsource = \"demo://\"\nsmtp = \"http://h\"\n", []string{`account[0].smtp: scheme "http" not supported`}},
		{"duplicate names", head + "[[account]]\nname = \"a\"\nsource = \"demo://\"\n[[account]]\nname = \"a\"\nsource = \"demo://\"\n", []string{`account[1].name: "a" is already used by account[0]`}},
		{"parallel type", head + acct + "[ollama]\nparallel = \"2\"\n", []string{"ollama.parallel: must be a whole number", `string "2"`}},
		{"parallel range", head + acct + "[ollama]\nparallel = 0\n", []string{"ollama.parallel: 0 is out of range", "1 to 64"}},
		{"timeout not duration", head + acct + "[ollama]\ntimeout = \"soon\"\n", []string{"ollama.timeout", `"90s"`}},
		{"timeout number", head + acct + "[ollama]\ntimeout = 120\n", []string{"ollama.timeout: must be a duration string"}},
		{"bad ollama host", head + acct + "[ollama]\nhost = \"ftp://x\"\n", []string{"ollama.host", "http://"}},
		{"undo negative", head + acct + "[drafts]\nundo_seconds = -1\n", []string{"drafts.undo_seconds: -1 is out of range"}},
		{"approval ttl zero", head + acct + "[drafts]\napproval_ttl = \"0s\"\n", []string{"drafts.approval_ttl", "\"1m\" to \"24h\""}},
		{"tone", head + acct + "[drafts]\ntone = \"sarcastic\"\n", []string{`drafts.tone: "sarcastic" not supported`}},
		{"token budget over ctx", head + acct + "[triage]\ntoken_budget = 100000\n", []string{"triage.token_budget", "num_ctx"}},
		{"enabled type", head + acct + "[triage]\nenabled = \"yes\"\n", []string{"triage.enabled: must be true or false"}},
		{"principal missing", "[[account]]\nsource = \"demo://\"\n", []string{"principal.email: missing"}},
		{"principal with name", "[principal]\nemail = \"Alex <a@example.com>\"\n" + acct, []string{"principal.email", "plain address"}},
		{"account not array", head + "[account]\nsource = \"demo://\"\n", []string{"account: must be an array of tables", "[[account]]"}},
		{"folders type", head + "[[account]]\nsource = \"demo://\"\nfolders = \"INBOX\"\n", []string{"account[0].folders: must be a list of strings"}},
		{"bad toml", "[principal\n", []string{"invalid TOML"}},
		{"no accounts", head, []string{"account: none configured", "[[account]]"}},
		{"bad from", head + "[[account]]\nsource = \"demo://\"\nfrom = \"not an address\"\n", []string{"account[0].from"}},
		{"relative maildir", head + "[[account]]\nsource = \"maildir://Mail\"\n", []string{"account[0].source", "relative", "~/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.text, nil)
			if err == nil {
				t.Fatalf("Load succeeded, want error containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load error = %q, want it to contain %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), "config.toml") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestMultipleErrorsReported(t *testing.T) {
	_, err := load(t, "[principal]\nemail = \"a@example.com\"\n[[account]]\nsource = \"demo://\"\n[ollama]\nparallel = 0\n[drafts]\ntone = \"x\"\n", nil)
	if err == nil || !strings.Contains(err.Error(), "ollama.parallel") || !strings.Contains(err.Error(), "drafts.tone") {
		t.Fatalf("want both ollama.parallel and drafts.tone in error, got %v", err)
	}
}

func TestOllamaHostEnvWins(t *testing.T) {
	text := "[principal]\nemail = \"a@example.com\"\n[[account]]\nsource = \"demo://\"\n[ollama]\nhost = \"http://file-host:11434\"\nremote = true\nallow_plain_http = true\n"
	tests := []struct{ env, want string }{
		{"", "http://file-host:11434"},
		{"http://gpu.lan:9999", "http://gpu.lan:9999"},
		{"gpu.lan", "http://gpu.lan:11434"},
		{"0.0.0.0:11434", "http://127.0.0.1:11434"},
		{"https://ollama.example.com", "https://ollama.example.com:443"},
	}
	for _, tt := range tests {
		cfg, err := load(t, text, map[string]string{"OLLAMA_HOST": tt.env})
		if err != nil {
			t.Fatalf("OLLAMA_HOST=%q: %v", tt.env, err)
		}
		if cfg.Ollama.Host != tt.want {
			t.Errorf("OLLAMA_HOST=%q: host = %q, want %q", tt.env, cfg.Ollama.Host, tt.want)
		}
	}
}

func TestNoConfig(t *testing.T) {
	dir := t.TempDir()
	env := envMap(map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir})
	_, err := Load(LoadOptions{Env: env})
	if !errors.Is(err, ErrNoConfig) {
		t.Fatalf("Load with no default file = %v, want ErrNoConfig", err)
	}
	_, err = Load(LoadOptions{Path: filepath.Join(dir, "missing.toml"), Env: env})
	if err == nil || errors.Is(err, ErrNoConfig) || !strings.Contains(err.Error(), "missing.toml") {
		t.Fatalf("Load with explicit missing path = %v, want a non-ErrNoConfig error naming the file", err)
	}
	cfg, err := Load(LoadOptions{Env: env, Demo: true})
	if err != nil {
		t.Fatalf("Load demo: %v", err)
	}
	if !cfg.Demo || len(cfg.Accounts) != 1 || cfg.Accounts[0].Src.Scheme != "demo" || cfg.Principal != DemoPrincipal {
		t.Errorf("demo config = %+v", cfg)
	}
	if DemoPrincipal.String() != `"Alex Morgan" <alex.morgan@northwind.example>` {
		t.Errorf("DemoPrincipal = %s", DemoPrincipal)
	}
}

func TestAdHocSource(t *testing.T) {
	dir := t.TempDir()
	env := envMap(map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir})
	cfg, err := Load(LoadOptions{Env: env, Source: "imaps://bob%40example.com@127.0.0.1:1993", PasswordCmd: "echo pw", DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Accounts[0]
	if a.Name != "127.0.0.1" || a.Src.Port != 1993 || cfg.Principal.Email != "bob@example.com" || cfg.DataDir != filepath.Join(dir, "data") {
		t.Errorf("ad-hoc config: name %q port %d principal %q datadir %q", a.Name, a.Src.Port, cfg.Principal.Email, cfg.DataDir)
	}
	pw, err := a.Password(context.Background())
	if err != nil || pw != "pw" {
		t.Errorf("Password = %q, %v", pw, err)
	}
	if _, err := Load(LoadOptions{Env: env, Source: "pop3://x@y"}); err == nil || !strings.Contains(err.Error(), "account[0].source") {
		t.Errorf("bad --source: %v", err)
	}
}

func TestWorldReadablePlaintextPasswordRefused(t *testing.T) {
	head := "[principal]\nemail = \"a@example.com\"\n[[account]]\n"
	tests := []struct {
		name   string
		text   string
		mode   os.FileMode
		refuse bool
	}{
		{"url password 0644", head + "source = \"imaps://u:hunter2@imap.example.com\"\n", 0o644, true},
		{"password key 0640", head + "source = \"imaps://u@imap.example.com\"\npassword = \"hunter2\"\n", 0o640, true},
		{"smtp url password 0604", head + "source = \"imaps://u@imap.example.com\"\nsmtp = \"smtps://u:hunter2@smtp.example.com\"\n", 0o604, true},
		{"url password 0600", head + "source = \"imaps://u:hunter2@imap.example.com\"\n", 0o600, false},
		{"password_cmd 0644", head + "source = \"imaps://u@imap.example.com\"\npassword_cmd = \"pass x\"\n", 0o644, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeConfig(t, tt.text, tt.mode)
			_, err := Load(LoadOptions{Path: p, Env: envMap(map[string]string{"HOME": t.TempDir()})})
			if !tt.refuse {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Load accepted a group/world-readable file with a plaintext password")
			}
			if !strings.Contains(err.Error(), "chmod 600 "+p) {
				t.Errorf("error %q lacks the fix %q", err, "chmod 600 "+p)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks the password: %q", err)
			}
		})
	}
}

func TestPasswordCmd(t *testing.T) {
	ctx := context.Background()
	a := &Account{Name: "w", PasswordCmd: "printf 's3cret\\n'"}
	pw, err := a.Password(ctx)
	if err != nil || pw != "s3cret" {
		t.Fatalf("Password = %q, %v; want s3cret", pw, err)
	}

	a = &Account{Name: "w", PasswordCmd: "echo leaked-output; exit 3"}
	_, err = a.Password(ctx)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("failing password_cmd: %v", err)
	}
	if strings.Contains(err.Error(), "leaked-output") {
		t.Errorf("error contains the command output: %q", err)
	}

	a = &Account{Name: "w", PasswordCmd: "true"}
	if _, err := a.Password(ctx); err == nil || !strings.Contains(err.Error(), "printed nothing") {
		t.Errorf("empty output: %v", err)
	}

	tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	a = &Account{Name: "w", PasswordCmd: "sleep 30; echo late"}
	start := time.Now()
	_, err = a.Password(tctx)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hanging password_cmd: %v, want DeadlineExceeded", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("password_cmd was not stopped by the context (took %s)", el)
	}
}

func TestPasswordFallbacks(t *testing.T) {
	a := &Account{Name: "w", env: envMap(map[string]string{PasswordEnv: "from-env"})}
	if pw, err := a.Password(context.Background()); err != nil || pw != "from-env" {
		t.Errorf("env fallback = %q, %v", pw, err)
	}
	a = &Account{Name: "w", env: envMap(nil)}
	_, err := a.Password(context.Background())
	if err == nil || !strings.Contains(err.Error(), "password_cmd") || !strings.Contains(err.Error(), PasswordEnv) {
		t.Errorf("no password: %v", err)
	}
}

func TestWriteAndLoadBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "mailsift", "config.toml")
	opts := InitOptions{
		Name: `Zoë "Z" Example`, Email: "zoe@example.com",
		Source: "imaps://zoe%40example.com@imap.example.com", SMTP: "smtp://zoe%40example.com@smtp.example.com:587",
		PasswordCmd: "pass show mail/zoe",
	}
	if err := Write(path, opts); err != nil {
		t.Fatalf("Write: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %04o, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(path))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %04o, want 0700", di.Mode().Perm())
	}
	cfg, err := Load(LoadOptions{Path: path, Env: envMap(map[string]string{"HOME": dir})})
	if err != nil {
		t.Fatalf("Load of written file: %v", err)
	}
	if cfg.Principal.Name != opts.Name || cfg.Principal.Email != opts.Email {
		t.Errorf("principal = %+v", cfg.Principal)
	}
	a := cfg.Accounts[0]
	if a.Source != opts.Source || a.SMTP != opts.SMTP || a.PasswordCmd != opts.PasswordCmd || a.Out.TLS != TLSStartTLS || a.Out.Port != 587 {
		t.Errorf("account = %+v", a)
	}
	if err := Write(path, opts); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second Write = %v, want refusal mentioning --force", err)
	}
	opts.Force = true
	opts.Email = "zoe2@example.com"
	if err := Write(path, opts); err != nil {
		t.Fatalf("Write --force: %v", err)
	}
	cfg, err = Load(LoadOptions{Path: path, Env: envMap(map[string]string{"HOME": dir})})
	if err != nil || cfg.Principal.Email != "zoe2@example.com" {
		t.Errorf("after --force: %v, %+v", err, cfg)
	}
	if err := Write(filepath.Join(dir, "bad.toml"), InitOptions{Email: "a@example.com", Source: "pop3://x"}); err == nil || !strings.Contains(err.Error(), "pop3") {
		t.Errorf("Write with a bad source = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.toml")); !os.IsNotExist(err) {
		t.Errorf("invalid config was written anyway")
	}
}

func TestRenderedTemplateMentionsEveryKey(t *testing.T) {
	text := Render(InitOptions{Email: "a@example.com", Source: "demo://"})
	for _, keys := range [][]string{principalKeys, ollamaKeys, triageKeys, draftsKeys} {
		for _, k := range keys {
			if !strings.Contains(text, k+" =") {
				t.Errorf("template does not document key %q", k)
			}
		}
	}
	for _, k := range accountKeys {
		if k == "password" { // deliberately undocumented
			continue
		}
		if !strings.Contains(text, k+" =") {
			t.Errorf("template does not document account key %q", k)
		}
	}
}

func TestDefaultPaths(t *testing.T) {
	p, _ := DefaultPath(envMap(map[string]string{"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"}))
	if p != "/x/cfg/mailsift/config.toml" {
		t.Errorf("DefaultPath with XDG = %q", p)
	}
	p, _ = DefaultPath(envMap(map[string]string{"HOME": "/h"}))
	if p != "/h/.config/mailsift/config.toml" {
		t.Errorf("DefaultPath fallback = %q", p)
	}
	d, _ := DefaultDataDir(envMap(map[string]string{"XDG_DATA_HOME": "/x/data", "HOME": "/h"}))
	if d != "/x/data/mailsift" {
		t.Errorf("DefaultDataDir with XDG = %q", d)
	}
	d, _ = DefaultDataDir(envMap(map[string]string{"HOME": "/h"}))
	if d != "/h/.local/share/mailsift" || LogPath(d) != "/h/.local/share/mailsift/mailsift.log" {
		t.Errorf("DefaultDataDir fallback = %q", d)
	}
}

func TestSuggest(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"sourc", "source"}, {"hots", "host"}, {"passwordcmd", "password_cmd"}, {"folder", "folders"}, {"xyzzy", ""},
	} {
		known := append(append([]string{}, accountKeys...), ollamaKeys...)
		if got := suggest(tt.in, known); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSourcePrincipalFromEnv(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return filepath.Join(dir, "cfg")
		case "MAILSIFT_EMAIL":
			return "me@example.org"
		}
		return ""
	}
	cfg, err := Load(LoadOptions{Env: env, DataDir: dir, Source: "maildir://" + dir})
	if err != nil {
		t.Fatalf("Load(--source maildir, MAILSIFT_EMAIL set) error = %v", err)
	}
	if cfg.Principal.Email != "me@example.org" {
		t.Fatalf("principal = %q, want me@example.org from MAILSIFT_EMAIL", cfg.Principal.Email)
	}
	env2 := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return filepath.Join(dir, "cfg")
		}
		return ""
	}
	if _, err := Load(LoadOptions{Env: env2, DataDir: dir, Source: "maildir://" + dir}); err == nil || !strings.Contains(err.Error(), "MAILSIFT_EMAIL") {
		t.Fatalf("Load(--source maildir) without principal error = %v, want a hint naming MAILSIFT_EMAIL", err)
	}
}
