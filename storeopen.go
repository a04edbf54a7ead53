package main

import (
	"context"
	"fmt"
	"path/filepath"

	"mailsift/config"
	"mailsift/model"
	"mailsift/store"
)

// storePath is the store file for cfg: the demo mailbox gets a store of its own
// so demo mail never mixes with a real account's.
func storePath(cfg *config.Config) string {
	name := "mailsift.db"
	if cfg.Demo {
		name = "demo.db"
	}
	return filepath.Join(cfg.DataDir, name)
}

// openStore opens the store for cfg and records its accounts.
func (g *globals) openStore(ctx context.Context, cfg *config.Config) (*store.Store, error) {
	log, _ := g.Logger()
	st, err := store.Open(ctx, storePath(cfg), &store.Options{
		Logger:    log,
		Principal: model.Address{Name: cfg.Principal.Name, Email: cfg.Principal.Email},
	})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w (check --data-dir; `mailsift doctor` checks the store)", storePath(cfg), err)
	}
	for _, a := range cfg.Accounts {
		if err := st.EnsureAccount(ctx, a.Name, a.Src.Redacted()); err != nil {
			st.Close()
			return nil, err
		}
	}
	return st, nil
}
