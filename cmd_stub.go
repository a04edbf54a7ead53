package main

import (
	"context"
	"fmt"
)

// Stubs for commands that are not built yet. The engineer who builds a command
// writes cmdNAME in cmd_NAME.go and deletes its stub here; commands() stays as is.

// cmdTUI is the TUI (no command). Replaced by cmd_tui.go.
func cmdTUI(ctx context.Context, g *globals, args []string) int {
	fs := g.flagSet("", "[global flags]")
	if _, code, ok := g.parse(fs, args); !ok {
		return code
	}
	cfg, err := g.loadConfig()
	if err != nil {
		fmt.Fprintf(g.Stderr, "mailsift: %v\n", err)
		return 1
	}
	if cfg.NoConfig {
		fmt.Fprintln(g.Stderr, noConfigHint)
	}
	fmt.Fprintln(g.Stderr, "mailsift: the TUI is not built yet (see issues)")
	return 2
}

func cmdMCP(ctx context.Context, g *globals, args []string) int {
	return g.notBuilt("mcp", args)
}

func cmdServe(ctx context.Context, g *globals, args []string) int {
	return g.notBuilt("serve", args)
}

func cmdOutbox(ctx context.Context, g *globals, args []string) int {
	return g.notBuilt("outbox", args)
}

func cmdAudit(ctx context.Context, g *globals, args []string) int {
	return g.notBuilt("audit", args)
}
