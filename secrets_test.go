package main

import (
	"bufio"
	"encoding/base64"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// refusingIMAP is a loopback IMAP server that refuses every login, and, as
// a hostile server might, quotes the credentials it was sent back in its
// refusal. It records whether it saw them, so the test knows they reached
// it (and so could have leaked).
type refusingIMAP struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string // credentials received, decoded
	wg   sync.WaitGroup
}

func startRefusingIMAP(t *testing.T) *refusingIMAP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &refusingIMAP{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.serve(c) }()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *refusingIMAP) port() string {
	return strings.TrimPrefix(s.ln.Addr().String(), "127.0.0.1:")
}

func (s *refusingIMAP) saw(cred string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.seen {
		if strings.Contains(x, cred) {
			return true
		}
	}
	return false
}

// serve speaks just enough IMAP for a login attempt: CAPABILITY, LOGIN,
// AUTHENTICATE PLAIN (without SASL-IR, so the credentials come on their own
// line) and LOGOUT. Every login is refused quoting what was sent.
func (s *refusingIMAP) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := func(line string) bool {
		_, err := c.Write([]byte(line + "\r\n"))
		return err == nil
	}
	if !w("* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] refusing test server ready") {
		return
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		tag, cmd := f[0], strings.ToUpper(f[1])
		refuse := func(cred string) bool {
			s.mu.Lock()
			s.seen = append(s.seen, cred)
			s.mu.Unlock()
			return w(tag + " NO [AUTHENTICATIONFAILED] invalid credentials: " + cred)
		}
		ok := true
		switch cmd {
		case "CAPABILITY":
			ok = w("* CAPABILITY IMAP4rev1 AUTH=PLAIN") && w(tag+" OK CAPABILITY done")
		case "LOGIN":
			ok = refuse(strings.Join(f[2:], " "))
		case "AUTHENTICATE":
			if !w("+ ") {
				return
			}
			resp, err := r.ReadString('\n')
			if err != nil {
				return
			}
			dec, _ := base64.StdEncoding.DecodeString(strings.TrimSpace(resp))
			ok = refuse(strings.ReplaceAll(string(dec), "\x00", " "))
		case "LOGOUT":
			w("* BYE")
			w(tag + " OK LOGOUT done")
			return
		default:
			ok = w(tag + " BAD unknown command")
		}
		if !ok {
			return
		}
	}
}

// TestSecretsNeverWritten sets a known password (MAILSIFT_PASSWORD), a
// known token (printed by a password_cmd) and a known credential in the
// model host URL, runs what touches them (config load, a login refused by a
// server that quotes them back, doctor, sync and the log), and greps every
// file mailsift wrote and its stdout and stderr for them: none may appear.
func TestSecretsNeverWritten(t *testing.T) {
	const (
		password  = "pw-K9x2-never-written"
		token     = "tok-Q7v4-never-written"
		modelCred = "ollama-cred-Z3m8-never-written"
	)
	srv := startRefusingIMAP(t)
	home := t.TempDir()
	dataDir := filepath.Join(home, "data")
	env := map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_DATA_HOME": dataDir,
		"MAILSIFT_PASSWORD": password,
	}
	cfgPath := filepath.Join(home, "config.toml")
	cfgText := `[principal]
email = "alice@example.org"

[[account]]
name = "envpw"
source = "imap+insecure://alice@127.0.0.1:` + srv.port() + `"

[[account]]
name = "cmdtoken"
source = "imap+insecure://bob@127.0.0.1:` + srv.port() + `"
password_cmd = "echo ` + token + `"

[ollama]
host = "http://carol:` + modelCred + `@192.0.2.7:11434"
remote = true
allow_plain_http = true

[triage]
offline = true
`
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}

	var outputs []string
	for _, args := range [][]string{
		{"--config", cfgPath, "doctor"},
		{"--config", cfgPath, "sync"},
		{"--config", cfgPath, "search", "anything"},
	} {
		r := runWith(t, env, "", args...)
		t.Logf("%v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
		outputs = append(outputs, "mailsift "+strings.Join(args, " ")+" stdout:\n"+r.stdout, "stderr:\n"+r.stderr)
		if args[2] == "doctor" {
			if r.code != 1 || !strings.Contains(r.stdout, "invalid credentials") {
				t.Errorf("doctor did not report the refused login (exit %d):\n%s", r.code, r.stdout)
			}
			if !strings.Contains(r.stdout, "model: 192.0.2.7:11434 (remote)") {
				t.Errorf("doctor does not name the remote model host:\n%s", r.stdout)
			}
		}
	}
	// The secrets did reach the places that could leak them.
	if !srv.saw(password) || !srv.saw(token) {
		t.Fatalf("the server never received the password and the token (saw password %v, token %v): the test proves nothing", srv.saw(password), srv.saw(token))
	}

	written := map[string]string{} // name -> content
	for i, o := range outputs {
		written[filepath.Join("output", string(rune('a'+i)))] = o
	}
	err := filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		written[path] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var sawLog, sawStore bool
	for name, content := range written {
		sawLog = sawLog || strings.HasSuffix(name, "mailsift.log") && len(content) > 0
		sawStore = sawStore || strings.HasSuffix(name, "mailsift.db")
		for _, secret := range []string{password, token, modelCred} {
			if strings.Contains(content, secret) {
				t.Errorf("%s holds the secret %q", name, secret)
			}
		}
	}
	if !sawLog || !sawStore {
		t.Errorf("the run wrote no log (%v) or no store (%v) to search; files: %v", sawLog, sawStore, keys(written))
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestModelHostCredentialsNeverShown checks that doctor and triage never
// print the credentials of a model host URL, also when the host is
// unreachable.
func TestModelHostCredentialsNeverShown(t *testing.T) {
	host := strings.Replace(deadHost(t), "http://", "http://carol:cred-W5p1-secret@", 1)
	env := map[string]string{"OLLAMA_HOST": host}
	r := runWith(t, env, "", "--demo", "doctor")
	if !strings.Contains(r.stdout, "ollama") || !strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("doctor did not report the unreachable model server:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, "cred-W5p1-secret") {
		t.Errorf("doctor printed the model host's credentials:\n%s%s", r.stdout, r.stderr)
	}
	r = runWith(t, env, contractThread, "triage", "--request", "-")
	if !strings.Contains(r.stderr, "Ollama not reachable at") {
		t.Fatalf("triage did not report the unreachable model server: %q", r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "cred-W5p1-secret") {
		t.Errorf("triage printed the model host's credentials: %q", r.stderr)
	}
}
