package maildir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"mailsift/mailsrc"
	"mailsift/model"
)

var _ mailsrc.Mover = (*Source)(nil)

// MoveMessages moves each message's file into the destination folder's
// cur/ with rename(2), keeping its unique name and flags (a message
// still in new/ gets an empty ":2," info, as any file in cur/), so the
// copy's key does not change. A permanent delete removes the file. A
// destination folder that does not exist is created in the tree's layout
// (Maildir++ ".Name" when the root is itself a maildir, else "Name/").
// A message whose file is gone is reported Gone.
func (s *Source) MoveMessages(ctx context.Context, moves []model.Move) ([]model.MoveResult, error) {
	folders, err := s.folders()
	if err != nil {
		return nil, err
	}
	dirs := make(map[string]string, len(folders))
	for _, f := range folders {
		dirs[f.name] = f.dir
	}
	index := map[string]map[string]string{} // folder → key → path
	lookup := func(mailbox, key string) (string, bool) {
		idx, ok := index[mailbox]
		if !ok {
			idx = map[string]string{}
			if dir, ok := dirs[mailbox]; ok {
				for _, sub := range []string{"new", "cur"} {
					entries, _ := os.ReadDir(filepath.Join(dir, sub))
					for _, e := range entries {
						k, _, _ := splitName(e.Name())
						idx[k] = filepath.Join(dir, sub, e.Name())
					}
				}
			}
			index[mailbox] = idx
		}
		p, ok := idx[key]
		return p, ok
	}
	var out []model.MoveResult
	for _, m := range moves {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if m.From.Account != s.account {
			return out, fmt.Errorf("maildir: move for account %q sent to account %q", m.From.Account, s.account)
		}
		path, ok := lookup(m.From.Mailbox, m.From.Key)
		if !ok {
			out = append(out, model.MoveResult{ID: m.ID, Gone: true})
			continue
		}
		if m.Expunge {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return out, fmt.Errorf("maildir: delete %s: %w", path, err)
			}
			delete(index[m.From.Mailbox], m.From.Key)
			out = append(out, model.MoveResult{ID: m.ID})
			continue
		}
		dir, ok := dirs[m.To]
		if !ok {
			dir, err = s.createFolder(m.To)
			if err != nil {
				return out, err
			}
			dirs[m.To] = dir
		}
		name := filepath.Base(path)
		if _, _, hasInfo := splitName(name); !hasInfo {
			name += ":2,"
		}
		dest := filepath.Join(dir, "cur", name)
		if err := os.Rename(path, dest); err != nil {
			return out, fmt.Errorf("maildir: move %s to %q: %w", path, m.To, err)
		}
		delete(index[m.From.Mailbox], m.From.Key)
		if idx, ok := index[m.To]; ok {
			idx[m.From.Key] = dest
		}
		out = append(out, model.MoveResult{ID: m.ID, Key: m.From.Key})
	}
	return out, nil
}

// createFolder makes the maildir for mailbox name (with cur/, new/ and
// tmp/, mode 0700) and returns its directory.
func (s *Source) createFolder(name string) (string, error) {
	if name == "" || strings.Contains(name, "..") {
		return "", fmt.Errorf("maildir: cannot create folder %q", name)
	}
	dir := filepath.Join(s.root, filepath.FromSlash(name))
	if isMaildir(s.root) {
		dir = filepath.Join(s.root, "."+strings.ReplaceAll(name, "/", "."))
	}
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return "", fmt.Errorf("maildir: create folder %q: %w", name, err)
		}
	}
	s.log.Info("maildir: created folder for a move", "mailbox", name)
	return dir, nil
}
