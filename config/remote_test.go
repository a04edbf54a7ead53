package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteOllamaHost checks that mail only leaves for a non-loopback model
// host when the config says so (ollama.remote), and over plain http only when
// it also says ollama.allow_plain_http.
func TestRemoteOllamaHost(t *testing.T) {
	head := "[principal]\nemail = \"a@example.com\"\n[[account]]\nsource = \"demo://\"\n"
	tests := []struct {
		name     string
		ollama   string // [ollama] keys
		env      string // OLLAMA_HOST
		wantErr  []string
		wantHost string
		remote   string // RemoteHost()
	}{
		{name: "default loopback", wantHost: DefaultOllamaHost},
		{name: "localhost env", env: "localhost:11434", wantHost: "http://localhost:11434"},
		{name: "ipv6 loopback env", env: "http://[::1]:11434", wantHost: "http://[::1]:11434"},
		{name: "remote env without the key", env: "http://gpu-box:11434",
			wantErr: []string{"OLLAMA_HOST", `"gpu-box"`, "remote = true", "[ollama]", "unset OLLAMA_HOST"}},
		{name: "remote file host without the key", ollama: `host = "https://gpu-box:11434"`,
			wantErr: []string{"ollama.host", `"gpu-box"`, "remote = true"}},
		{name: "remote https with the key", ollama: "remote = true", env: "https://gpu-box:11434",
			wantHost: "https://gpu-box:11434", remote: "gpu-box:11434"},
		{name: "remote plain http refused", ollama: "remote = true", env: "http://gpu-box:11434",
			wantErr: []string{"http://", "allow_plain_http = true", "https://"}},
		{name: "remote plain http allowed", ollama: "remote = true\nallow_plain_http = true", env: "gpu-box",
			wantHost: "http://gpu-box:11434", remote: "gpu-box:11434"},
		{name: "private address is remote", env: "http://10.0.0.5:11434",
			wantErr: []string{"remote = true"}},
		{name: "localhost-prefixed name is remote", env: "http://localhost.evil.example:11434",
			wantErr: []string{"remote = true"}},
		{name: "credentials never echoed", env: "http://bob:tok3n-s3cret@gpu-box:11434",
			wantErr: []string{"remote = true"}},
		{name: "credentials never echoed when allowed", ollama: "remote = true", env: "https://bob:tok3n-s3cret@gpu-box:11434",
			wantHost: "https://bob:tok3n-s3cret@gpu-box:11434", remote: "gpu-box:11434"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := head
			if tt.ollama != "" {
				text += "[ollama]\n" + tt.ollama + "\n"
			}
			cfg, err := load(t, text, map[string]string{"OLLAMA_HOST": tt.env})
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Load accepted OLLAMA_HOST=%q with [ollama] %q; want an error", tt.env, tt.ollama)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if strings.Contains(err.Error(), "tok3n-s3cret") {
					t.Errorf("error echoes the URL's credentials: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if cfg.Ollama.Host != tt.wantHost {
				t.Errorf("host = %q, want %q", cfg.Ollama.Host, tt.wantHost)
			}
			if got := cfg.Ollama.RemoteHost(); got != tt.remote {
				t.Errorf("RemoteHost() = %q, want %q", got, tt.remote)
			}
		})
	}
}

// TestSourcePasswordRefused checks that --source with a password in the URL,
// which any user can read in the process list, is refused with the fix and
// without echoing the password.
func TestSourcePasswordRefused(t *testing.T) {
	dir := t.TempDir()
	env := envMap(map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir})
	for _, src := range []string{"imaps://bob:hunter2@imap.example.com", "imap+insecure://bob%40example.com:hunter2@127.0.0.1:1143"} {
		_, err := Load(LoadOptions{Env: env, Source: src})
		if err == nil {
			t.Fatalf("Load(--source %s) accepted a password on the command line", src)
		}
		for _, w := range []string{"--source", "process list", "--password-cmd", PasswordEnv} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error echoes the password: %q", err)
		}
	}
	if _, err := Load(LoadOptions{Env: env, Source: "imaps://bob@imap.example.com", PasswordCmd: "echo x"}); err != nil {
		t.Errorf("Load(--source without password) = %v", err)
	}
}

// TestPasswordCmdEnvLacksPassword checks that password_cmd does not inherit
// MAILSIFT_PASSWORD: the child prints its environment into a file.
func TestPasswordCmdEnvLacksPassword(t *testing.T) {
	t.Setenv(PasswordEnv, "env-pw-9f3a")
	t.Setenv("MAILSIFT_TEST_MARKER", "present")
	out := filepath.Join(t.TempDir(), "env.txt")
	a := &Account{Name: "w", PasswordCmd: "env > '" + out + "'; echo tok"}
	if _, err := a.Password(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "MAILSIFT_TEST_MARKER=present") {
		t.Fatalf("password_cmd environment lacks MAILSIFT_TEST_MARKER: the file holds %d bytes", len(b))
	}
	if strings.Contains(string(b), PasswordEnv) || strings.Contains(string(b), "env-pw-9f3a") {
		t.Errorf("password_cmd inherited %s", PasswordEnv)
	}
}

// TestChildEnv checks the environment handed to every child process.
func TestChildEnv(t *testing.T) {
	t.Setenv(PasswordEnv, "x")
	t.Setenv("MAILSIFT_PASSWORD_X", "kept") // only the exact name goes
	env := ChildEnv()
	for _, kv := range env {
		if strings.HasPrefix(kv, PasswordEnv+"=") {
			t.Errorf("ChildEnv() contains %q", kv)
		}
	}
	if !strings.Contains(strings.Join(env, "\n"), "MAILSIFT_PASSWORD_X=kept") {
		t.Errorf("ChildEnv() dropped an unrelated variable")
	}
}

// TestPrivateDir checks that EnsurePrivateDir creates a 0700 directory and
// tightens a looser existing one, returning the mode it had.
func TestPrivateDir(t *testing.T) {
	base := t.TempDir()
	fresh := filepath.Join(base, "a", "b")
	was, err := EnsurePrivateDir(fresh)
	if err != nil || was != 0 {
		t.Fatalf("EnsurePrivateDir(new) = %04o, %v; want 0, nil", was, err)
	}
	loose := filepath.Join(base, "loose")
	if err := os.Mkdir(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	was, err = EnsurePrivateDir(loose)
	if err != nil || was != 0o755 {
		t.Fatalf("EnsurePrivateDir(0755) = %04o, %v; want 0755, nil", was, err)
	}
	for _, d := range []string{fresh, loose} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode = %04o, want 0700", d, fi.Mode().Perm())
		}
	}
}

// TestPrivateDirRefusesShared checks that a shared (sticky) directory such
// as /tmp is refused as the data dir rather than tightened.
func TestPrivateDirRefusesShared(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsurePrivateDir(shared); err == nil || !strings.Contains(err.Error(), "--data-dir") {
		t.Errorf("EnsurePrivateDir(sticky dir) = %v, want an error naming --data-dir", err)
	}
	fi, err := os.Stat(shared)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o777 || fi.Mode()&os.ModeSticky == 0 {
		t.Errorf("the shared directory was changed to %v", fi.Mode())
	}
}
