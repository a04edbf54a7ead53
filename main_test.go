package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mailsift/config"
)

type result struct {
	code           int
	stdout, stderr string
}

// runWith runs the CLI with an isolated environment rooted at a temp dir.
func runWith(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	if env["HOME"] == "" {
		home := t.TempDir()
		env["HOME"] = home
		env["XDG_CONFIG_HOME"] = filepath.Join(home, "cfg")
		env["XDG_DATA_HOME"] = filepath.Join(home, "data")
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb, func(k string) string { return env[k] })
	return result{code, out.String(), errb.String()}
}

func TestUnknownCommandAndFlag(t *testing.T) {
	r := runWith(t, nil, "", "frobnicate")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown command "frobnicate"`) || !strings.Contains(r.stderr, "usage: mailsift") {
		t.Errorf("unknown command: %+v", r)
	}
	r = runWith(t, nil, "", "--nope")
	if r.code != 2 || !strings.Contains(r.stderr, "-nope") || r.stdout != "" {
		t.Errorf("unknown global flag: %+v", r)
	}
	for _, c := range commands() {
		r = runWith(t, nil, "", c.name, "--definitely-not-a-flag")
		if r.code != 2 || !strings.Contains(r.stderr, "definitely-not-a-flag") || !strings.Contains(r.stderr, "usage: mailsift "+c.name) {
			t.Errorf("%s with unknown flag: code %d stderr %q", c.name, r.code, r.stderr)
		}
	}
}

func TestEveryCommandHelp(t *testing.T) {
	extra := map[string][]string{
		"init": {"-name", "-email", "-smtp", "-force", "-source", "-password-cmd"},
	}
	for _, c := range commands() {
		for _, h := range []string{"--help", "-h"} {
			r := runWith(t, nil, "", c.name, h)
			if r.code != 0 {
				t.Errorf("%s %s: exit %d, stderr %q", c.name, h, r.code, r.stderr)
			}
			if c.name == "help" {
				continue
			}
			want := append([]string{"usage: mailsift " + c.name, c.summary, "-config", "-data-dir", "-demo"}, extra[c.name]...)
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("%s %s: stdout lacks %q:\n%s", c.name, h, w, r.stdout)
				}
			}
			if r.stderr != "" {
				t.Errorf("%s %s wrote to stderr: %q", c.name, h, r.stderr)
			}
		}
	}
	r := runWith(t, nil, "", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "commands:") || !strings.Contains(r.stdout, "-version") {
		t.Errorf("mailsift --help: %+v", r)
	}
	r = runWith(t, nil, "", "help", "sync")
	if r.code != 0 || !strings.Contains(r.stdout, "usage: mailsift sync") {
		t.Errorf("help sync: %+v", r)
	}
	r = runWith(t, nil, "", "help", "nosuch")
	if r.code != 2 {
		t.Errorf("help nosuch: %+v", r)
	}
}

func TestNotBuilt(t *testing.T) {
	var out, errb bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &errb}
	if code := g.exitCode("sync", g.notBuilt("sync", nil)); code != 2 || errb.String() != "mailsift sync: not built yet (see issues)\n" || out.Len() != 0 {
		t.Errorf("notBuilt = %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
	out.Reset()
	errb.Reset()
	if code := g.exitCode("sync", g.notBuilt("sync", []string{"--help"})); code != 0 || !strings.Contains(out.String(), "usage: mailsift sync") || errb.Len() != 0 {
		t.Errorf("notBuilt --help = %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

func TestNoConfigFallsBackToDemo(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	g := &globals{Env: func(k string) string { return env[k] }}
	cfg, err := g.loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.NoConfig || !cfg.Demo || cfg.Principal != config.DemoPrincipal || cfg.Accounts[0].Src.Scheme != "demo" {
		t.Errorf("fallback config = %+v", cfg)
	}
	g.ConfigPath = filepath.Join(home, "explicit.toml")
	if _, err := g.loadConfig(); err == nil {
		t.Error("explicit missing --config did not fail")
	}
}

func TestGlobalFlagsBeforeAndAfterCommand(t *testing.T) {
	home := t.TempDir()
	cfgPath := filepath.Join(home, "a", "config.toml")
	for _, args := range [][]string{
		{"--config", cfgPath, "init", "--email", "a@example.com", "--source", "demo://"},
		{"init", "--email", "a@example.com", "--config", cfgPath, "--source=demo://", "--force"},
	} {
		r := runWith(t, map[string]string{"HOME": home}, "", args...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		if !strings.Contains(r.stdout, cfgPath) {
			t.Errorf("%v: stdout %q does not name %s", args, r.stdout, cfgPath)
		}
	}
	g := &globals{}
	fs := g.flagSet("search", "QUERY")
	pos, err := g.parse(fs, []string{"from:bob", "--demo", "invoice", "--", "--literal"})
	if err != nil || !g.Demo || strings.Join(pos, " ") != "from:bob invoice --literal" {
		t.Errorf("interleaved parse = %q, %v; demo=%v", pos, err, g.Demo)
	}
}

func TestInitWrites0600ThatLoads(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	r := runWith(t, env, "", "init", "--name", "Bo Ek", "--email", "bo@example.com",
		"--source", "imaps://bo%40example.com@imap.example.com", "--smtp", "smtps://bo%40example.com@smtp.example.com",
		"--password-cmd", "pass show bo")
	if r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	path := filepath.Join(home, "cfg", "mailsift", "config.toml")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode = %04o, want 0600", fi.Mode().Perm())
	}
	cfg, err := config.Load(config.LoadOptions{Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("Load after init: %v", err)
	}
	if cfg.Principal.Name != "Bo Ek" || cfg.Accounts[0].Src.Host != "imap.example.com" || cfg.Accounts[0].PasswordCmd != "pass show bo" {
		t.Errorf("loaded = %+v", cfg)
	}
	r = runWith(t, env, "", "init", "--email", "bo@example.com", "--source", "demo://")
	if r.code != 1 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("init over existing file: %+v", r)
	}
	r = runWith(t, env, "", "init", "--source", "demo://")
	if r.code != 2 || !strings.Contains(r.stderr, "--email") {
		t.Errorf("init without --email on non-terminal stdin: %+v", r)
	}
	r = runWith(t, env, "", "init", "--email", "x@example.com", "--source", "imap+insecure://u@mail.example.com", "--force")
	if r.code != 1 || !strings.Contains(r.stderr, "loopback") {
		t.Errorf("init with insecure remote source: %+v", r)
	}
}

func TestConfigErrorsReachUser(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "c.toml")
	if err := os.WriteFile(p, []byte("[principal]\nemail = \"a@example.com\"\n[[account]]\nsourc = \"demo://\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, map[string]string{"HOME": home}, "", "--config", p)
	if r.code != 1 || !strings.Contains(r.stderr, "account[0].sourc") || !strings.Contains(r.stderr, "did you mean source?") {
		t.Errorf("bad config: %+v", r)
	}
}

func TestVersion(t *testing.T) {
	r := runWith(t, nil, "", "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "mailsift ") {
		t.Errorf("--version: %+v", r)
	}
}

func TestLoggerWritesToDataDirOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var out, errb bytes.Buffer
	g := &globals{DataDir: dir, Stdout: &out, Stderr: &errb, Env: func(string) string { return "" }}
	log, err := g.Logger()
	if err != nil {
		t.Fatal(err)
	}
	log.Info("hello from test")
	g.closeLog()
	b, err := os.ReadFile(filepath.Join(dir, "mailsift.log"))
	if err != nil || !strings.Contains(string(b), "hello from test") {
		t.Errorf("log file = %q, %v", b, err)
	}
	if out.Len()+errb.Len() != 0 {
		t.Errorf("logger wrote to the terminal")
	}
	fi, _ := os.Stat(filepath.Join(dir, "mailsift.log"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode = %04o, want 0600", fi.Mode().Perm())
	}
}

// TestREADMEExampleConfigLoads keeps the README's configuration example honest.
func TestREADMEExampleConfigLoads(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```toml\n")
	if !ok {
		t.Fatal("README.md has no ```toml block")
	}
	example, _, _ := strings.Cut(rest, "```")
	home := t.TempDir()
	p := filepath.Join(home, "config.toml")
	if err := os.WriteFile(p, []byte(example), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: p, Env: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	if err != nil {
		t.Fatalf("README example does not load: %v", err)
	}
	d := config.Defaults()
	if cfg.Ollama != d.Ollama || cfg.Triage != d.Triage || cfg.Drafts.UndoSeconds != d.Drafts.UndoSeconds || cfg.Drafts.ApprovalTTL != d.Drafts.ApprovalTTL {
		t.Errorf("README claims its [ollama]/[triage]/[drafts] values are the defaults, but they differ: %+v %+v", cfg.Ollama, cfg.Triage)
	}
}

// TestLogThatCannotOpenIsReported: a log file that cannot be opened is
// said on stderr (once), not silently dropped; the command still runs.
func TestLogThatCannotOpenIsReported(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWith(t, map[string]string{"HOME": dir}, "", "--demo", "--data-dir", filepath.Join(notDir, "data"), "triage", "--offline")
	if n := strings.Count(r.stderr, "logs are discarded"); n != 1 {
		t.Errorf("stderr mentions the lost log %d times, want once:\n%s", n, r.stderr)
	}
}
