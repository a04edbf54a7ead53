package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mailsift/httpapi"
	"mailsift/internal/app"
	"mailsift/internal/loopback"
)

// tokenFile is the bearer token of `mailsift serve` in the data directory.
const tokenFile = "serve.token"

// cmdServe is `mailsift serve [--addr HOST:PORT] [--max-body N]`: the
// triage contract over HTTP. On a loopback address no token is needed; on
// any other the token in <data-dir>/serve.token (made 0600 on first use)
// is required as a bearer token.
func cmdServe(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("serve", "[--addr HOST:PORT] [--max-body BYTES]\n\n"+
		"POST /v1/triage (triage contract v1.0), GET /v1/approvals, GET /healthz.\n"+
		"A non-loopback address needs the bearer token in the data directory's "+tokenFile+".")
	addr := fs.String("addr", "127.0.0.1:8025", "listen on `HOST:PORT`")
	maxBody := fs.Int64("max-body", httpapi.DefaultMaxBody, "refuse request bodies over `BYTES` (413)")
	if _, err := g.parse(fs, args); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usageErrorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8025", *addr)
	}
	cfg, err := g.loadConfig()
	if err != nil {
		return err
	}
	log, _ := g.Logger()
	st, err := g.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	a := app.New(cfg, st, app.Options{Logger: log})
	tr, err := a.Triager(a.Analyzer(), false)
	if err != nil {
		return err
	}
	opt := httpapi.Options{App: a, Triager: tr, MaxBody: *maxBody, Logger: log}
	if host == "" || !loopback.Is(host) {
		path := filepath.Join(cfg.DataDir, tokenFile)
		if opt.Token, err = loadToken(path); err != nil {
			return err
		}
		fmt.Fprintf(g.Stderr, "mailsift serve: %s is not loopback: requests need Authorization: Bearer <the token in %s>\n", *addr, path)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{Handler: httpapi.Handler(opt), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn), // to the log file, never the terminal
		BaseContext: func(net.Listener) context.Context { return ctx }}
	fmt.Fprintf(g.Stderr, "mailsift serve: listening on http://%s (ctrl+c stops)\n", ln.Addr())
	log.Info("serve: listening", "addr", ln.Addr().String(), "token", opt.Token != "")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(g.Stderr, "mailsift serve: stopped")
	return nil
}

// loadToken reads the token file, creating it (0600, 32 random bytes in
// hex) when missing; a file others can read is refused.
func loadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		var r [32]byte
		if _, err := rand.Read(r[:]); err != nil {
			return "", err
		}
		tok := hex.EncodeToString(r[:])
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", fmt.Errorf("serve: create %s: %w", path, err)
		}
		if _, err := f.WriteString(tok + "\n"); err != nil {
			f.Close()
			return "", fmt.Errorf("serve: write %s: %w", path, err)
		}
		return tok, f.Close()
	}
	if err != nil {
		return "", fmt.Errorf("serve: read %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("serve: %s is readable by others (mode %v): chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		return "", fmt.Errorf("serve: the token in %s is shorter than 32 characters; delete the file to get a new one", path)
	}
	return tok, nil
}
