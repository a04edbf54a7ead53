package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"mailsift/config"
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
		Principal: cfg.Principal.Address(),
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

// openExistingStore loads the config and opens its store for a command
// that only reads what is there (search, outbox, audit). When no store
// exists yet (nothing was synced or queued) it returns a nil store and no
// error, and the caller shows an empty result: creating the store file just
// to read nothing from it would be a side effect of a read. The caller
// closes a non-nil store.
func (g *globals) openExistingStore(ctx context.Context) (*config.Config, *store.Store, error) {
	cfg, err := g.loadConfig()
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(storePath(cfg)); errors.Is(err, fs.ErrNotExist) {
		return cfg, nil, nil
	}
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	return cfg, st, nil
}
