package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireServers is set in CI: a test that needs a real peer fails
// instead of skipping when the peer is missing.
func requireServers() bool { return os.Getenv("MAILSIFT_REQUIRE_SERVERS") == "1" }

func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if requireServers() {
		t.Fatalf("%s (MAILSIFT_REQUIRE_SERVERS=1)", msg)
	}
	t.Skip(msg)
}

// buildMailsift builds the mailsift binary into dir.
func buildMailsift(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "mailsift")
	cmd := exec.Command("go", "build", "-o", bin, "mailsift")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestNodeClient runs scripts/mcp-client/check.mjs: the official
// TypeScript SDK client spawns `mailsift mcp` over stdio, lists the tools
// and resources, calls every tool (bad arguments too) and checks each
// answer against the contract document's schemas. Then the approval it
// asked for is pending and nothing was sent.
func TestNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node is not installed: the real-client test needs it (apt-get install nodejs npm)")
	}
	if _, err := os.Stat("../scripts/mcp-client/node_modules/@modelcontextprotocol/sdk/package.json"); err != nil {
		skipOrFail(t, "@modelcontextprotocol/sdk is not installed: run `npm ci` in scripts/mcp-client (.ci/run does)")
	}
	f := newFixture(t, "")
	bin := buildMailsift(t, t.TempDir())
	cfgPath := filepath.Join(f.dir, "config.toml")
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--config", cfgPath, "--data-dir", f.dir}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mailsift %v: %v\n%s", args, err, stderr.String())
		}
		return out
	}
	f.st.Close() // the binary opens the same store
	contract, _ := filepath.Abs("testdata/mcp-contract-v1.md")
	cmd := exec.Command(node, "check.mjs", contract, bin, "--config", cfgPath, "--data-dir", f.dir, "mcp")
	cmd.Dir = "../scripts/mcp-client"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var rep struct {
		OK           bool           `json:"ok"`
		InitializeMS int            `json:"initialize_ms"`
		ApprovalID   string         `json:"approval_id"`
		Tools        map[string]int `json:"tools"`
		Extract      string         `json:"extract"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || !rep.OK || len(rep.Tools) != 7 || rep.ApprovalID == "" {
		t.Fatalf("report %s: %v", out, err)
	}
	if rep.Extract != CodeUnavailable {
		t.Errorf("extract_to_schema with triage offline = %q, want %s", rep.Extract, CodeUnavailable)
	}
	t.Logf("node client: initialize %d ms, tools %v", rep.InitializeMS, rep.Tools)
	list := string(run("approvals", "list", "--json"))
	if !strings.Contains(list, rep.ApprovalID) || strings.Count(strings.TrimSpace(list), "\n") != 0 {
		t.Errorf("approvals after the client = %s, want exactly the one it asked for", list)
	}
	if f.smtp.count() != 0 {
		t.Errorf("the client's send_reply sent %d messages", f.smtp.count())
	}
	audit := string(run("audit", "--json"))
	if !strings.Contains(audit, `"connector_id":"mcp"`) || !strings.Contains(audit, `"tool_name":"send_reply"`) {
		t.Errorf("audit log lacks the MCP tool calls:\n%s", audit)
	}
}
