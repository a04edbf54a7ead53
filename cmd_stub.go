package main

import (
	"context"
)

// Stubs for commands that are not built yet. The engineer who builds a command
// writes cmdNAME in cmd_NAME.go and deletes its stub here; commands() stays as is.

func cmdMCP(ctx context.Context, g *globals, args []string) int {
	return g.notBuilt("mcp", args)
}

func cmdServe(ctx context.Context, g *globals, args []string) int {
	return g.notBuilt("serve", args)
}
