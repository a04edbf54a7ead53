package main

import (
	"context"
)

// Stubs for commands that are not built yet. A command is built by writing
// cmdNAME in cmd_NAME.go and deleting its stub here; commands() stays as is.

func cmdServe(ctx context.Context, g *globals, args []string) error {
	return g.notBuilt("serve", args)
}
