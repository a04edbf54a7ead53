// Command mailsift is a keyboard-driven terminal mail assistant: it mirrors mail into a
// local store, triages threads with a local Ollama model and drafts replies that are
// sent only after explicit confirmation.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"

	"mailsift/config"
)

// command is one subcommand. run receives the arguments after the subcommand name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, g *globals, args []string) error
}

// commands returns the subcommand table. To add a command, write cmdNAME in
// cmd_NAME.go and (if it was a stub) delete the stub from cmd_stub.go; the table
// does not change.
func commands() []command {
	return []command{
		{"init", "write a commented config file (0600) from flags or prompts", cmdInit},
		{"login", "sign an account in: OAuth2 (browser or device code), or its password into the OS keyring", cmdLogin},
		{"doctor", "check config, credentials, servers, Ollama and the store", cmdDoctor},
		{"sync", "mirror the configured accounts into the local store", cmdSync},
		{"search", "full-text search of the local store", cmdSearch},
		{"triage", "triage threads headlessly; --json prints contract v1.0 results", cmdTriage},
		{"eval", "score triage against a labeled mailbox: precision, recall, confusion", cmdEval},
		{"mcp", "serve the mailbox over MCP (stdio)", cmdMCP},
		{"serve", "serve the triage contract over HTTP on 127.0.0.1", cmdServe},
		{"outbox", "inspect queued sends", cmdOutbox},
		{"audit", "inspect the audit log", cmdAudit},
		{"approvals", "sends agents asked for: list, show, approve (on a terminal) or deny", cmdApprovals},
		{"help", "show help for mailsift or a command", cmdHelp},
	}
}

// globals holds the global flags and the process environment handed to every command.
type globals struct {
	ConfigPath  string
	Source      string
	PasswordCmd string
	DataDir     string
	Demo        bool
	Version     bool

	Stdout io.Writer
	Stderr io.Writer
	Stdin  io.Reader
	Env    func(string) string

	logger  *slog.Logger
	logErr  error
	logFile *rotatingLog
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// MAILSIFT_CPUPROFILE=FILE writes a CPU profile of the whole run, for
	// the measurements in BENCHMARKS.md (go tool pprof FILE).
	if path := os.Getenv("MAILSIFT_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	pprof.StopCPUProfile()
	stop()
	os.Exit(code)
}

// run is the whole program minus process setup; args exclude the program name.
// It returns the exit code: 0 success, 1 failure, 2 usage error or not built.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) int {
	if env == nil {
		env = func(string) string { return "" }
	}
	g := &globals{Stdin: stdin, Stdout: stdout, Stderr: stderr, Env: env}
	defer g.closeLog()

	fs := g.flagSet("", "[global flags] [command] [flags]")
	fs.Usage = func() { g.mainUsage(fs.Output()) }
	if code, ok := g.parseLeading(fs, args); !ok {
		return code
	}
	if g.Version {
		fmt.Fprintln(stdout, "mailsift", version())
		return 0
	}
	rest := fs.Args()
	if len(rest) == 0 {
		err := cmdTUI(ctx, g, nil)
		g.logFailure("tui", err)
		return g.exitCode("", err)
	}
	name := rest[0]
	for _, c := range commands() {
		if c.name == name {
			err := c.run(ctx, g, rest[1:])
			g.logFailure(name, err)
			return g.exitCode(name, err)
		}
	}
	fmt.Fprintf(stderr, "mailsift: unknown command %q\n\n", name)
	g.mainUsage(stderr)
	return 2
}

// mainUsage prints the top-level usage.
func (g *globals) mainUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: mailsift [global flags] [command] [flags]\n\n")
	fmt.Fprintf(w, "Without a command, mailsift opens the TUI (the demo mailbox if there is no config).\n\n")
	fmt.Fprintf(w, "commands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nglobal flags (valid before or after the command):\n")
	tmp := &globals{}
	fs := tmp.flagSet("", "")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nRun 'mailsift COMMAND --help' for a command's flags.\n")
}

// flagSet returns a FlagSet for command name with the global flags registered, so
// they are accepted after the command too. synopsis follows "mailsift NAME" in usage.
func (g *globals) flagSet(name, synopsis string) *flag.FlagSet {
	full := "mailsift"
	if name != "" {
		full += " " + name
	}
	fs := flag.NewFlagSet(full, flag.ContinueOnError)
	fs.StringVar(&g.ConfigPath, "config", g.ConfigPath, "config `FILE` (default $XDG_CONFIG_HOME/mailsift/config.toml)")
	fs.StringVar(&g.Source, "source", g.Source, "use one ad-hoc account from this source `URL` instead of the config's accounts")
	fs.StringVar(&g.PasswordCmd, "password-cmd", g.PasswordCmd, "`CMD` printing the password for --source (default: env MAILSIFT_PASSWORD)")
	fs.StringVar(&g.DataDir, "data-dir", g.DataDir, "data `DIR` for the store and log (default $XDG_DATA_HOME/mailsift)")
	fs.BoolVar(&g.Demo, "demo", g.Demo, "use the embedded demo mailbox")
	if name == "" {
		fs.BoolVar(&g.Version, "version", false, "print the version and exit")
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s %s\n", full, synopsis)
		if s := summaryOf(name); s != "" {
			fmt.Fprintf(fs.Output(), "\n%s\n", s)
		}
		fmt.Fprintf(fs.Output(), "\nflags:\n")
		fs.PrintDefaults()
	}
	return fs
}

func summaryOf(name string) string {
	for _, c := range commands() {
		if c.name == name {
			return c.summary
		}
	}
	return ""
}

// parseLeading parses flags up to the first non-flag argument (the command name).
// ok is false when the caller must return code.
func (g *globals) parseLeading(fs *flag.FlagSet, args []string) (code int, ok bool) {
	var errBuf strings.Builder
	fs.SetOutput(&errBuf)
	err := fs.Parse(args)
	return g.parseResult(fs, err, errBuf.String())
}

// parse parses a command's flags, allowing flags and positional arguments to be
// interleaved ("search foo --data-dir x"); "--" ends flag parsing. Positional
// arguments are returned. After --help (usage on stdout) it returns an exit
// error with code 0, after a bad flag (usage on stderr) one with code 2; the
// caller returns it.
func (g *globals) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var errBuf strings.Builder
	fs.SetOutput(&errBuf)
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var positional []string
	for {
		err := fs.Parse(args)
		if code, ok := g.parseResult(fs, err, errBuf.String()); !ok {
			return nil, exitWith(code)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return append(positional, tail...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func (g *globals) parseResult(fs *flag.FlagSet, err error, msg string) (int, bool) {
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(g.Stdout)
		fs.Usage()
		return 0, false
	default:
		fmt.Fprintf(g.Stderr, "%s: %v\n", fs.Name(), err)
		fs.SetOutput(g.Stderr)
		fs.Usage()
		_ = msg // the flag package's own message duplicates err
		return 2, false
	}
}

// loadConfig loads the configuration for the global flags: --demo uses the demo
// mailbox, --source one ad-hoc account, else the config file; with no config file at
// the default path it falls back to the demo mailbox and sets cfg.NoConfig.
func (g *globals) loadConfig() (*config.Config, error) {
	opts := config.LoadOptions{
		Path:        g.ConfigPath,
		Env:         g.Env,
		DataDir:     g.DataDir,
		Source:      g.Source,
		PasswordCmd: g.PasswordCmd,
		Demo:        g.Demo,
	}
	cfg, err := config.Load(opts)
	if errors.Is(err, config.ErrNoConfig) {
		opts.Demo = true
		cfg, err = config.Load(opts)
		if err != nil {
			return nil, err
		}
		cfg.NoConfig = true
		return cfg, nil
	}
	return cfg, err
}

// noConfigHint is shown when the demo mailbox was chosen because no config exists.
const noConfigHint = "no config: showing the demo mailbox — run `mailsift init` to configure"

// dataDir returns --data-dir or the default data directory.
func (g *globals) dataDir() (string, error) {
	if g.DataDir != "" {
		return g.DataDir, nil
	}
	return config.DefaultDataDir(g.Env)
}

// Logger returns the logger writing to <data-dir>/mailsift.log, opening it on first
// use (directory 0700, file 0600). It never logs to the terminal: if the file cannot
// be opened, logs are discarded, a warning saying why goes to stderr once (before
// any screen is drawn) and the reason is returned as err so a surface can show it.
func (g *globals) Logger() (*slog.Logger, error) {
	if g.logger != nil {
		return g.logger, g.logErr
	}
	g.logger = slog.New(slog.DiscardHandler)
	g.logErr = g.openLog()
	if g.logErr != nil {
		fmt.Fprintf(g.Stderr, "mailsift: warning: %v; logs are discarded\n", g.logErr)
	}
	return g.logger, g.logErr
}

func (g *globals) openLog() error {
	dir, err := g.dataDir()
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	was, err := config.EnsurePrivateDir(dir)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	f, err := openRotatingLog(config.LogPath(dir), logMaxBytes)
	if err != nil {
		return err
	}
	g.logFile = f
	g.logger = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if was != 0 {
		g.logger.Warn("tightened the data directory to 0700: others could read the mail store and log", "dir", dir, "was", fmt.Sprintf("%04o", was))
	}
	return nil
}

// logMaxBytes is the log's size limit: a write that would pass it first
// moves the log to mailsift.log.1 (replacing the previous one), so the logs
// take at most about twice this.
const logMaxBytes = 10 << 20

// rotatingLog is the log file, mode 0600, rotated at a size limit. Another
// mailsift process appending to the same log keeps writing to the moved
// file until it next opens the log; nothing is lost.
type rotatingLog struct {
	path string
	max  int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

// openRotatingLog opens path for appending (created 0600; a looser existing
// file is tightened), rotating it first when it is already at max bytes.
func openRotatingLog(path string, max int64) (*rotatingLog, error) {
	l := &rotatingLog{path: path, max: max}
	if err := l.open(); err != nil {
		return nil, err
	}
	if l.size >= max {
		if err := l.rotate(); err != nil {
			l.f.Close()
			return nil, err
		}
	}
	return l, nil
}

func (l *rotatingLog) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("log: open %s: %w", l.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log: stat %s: %w", l.path, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return fmt.Errorf("log: %s is readable by others (mode %04o) and cannot be tightened: %w; run `chmod 600 %s`", l.path, fi.Mode().Perm(), err, l.path)
		}
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// rotate moves the log to path.1 and starts a new one.
func (l *rotatingLog) rotate() error {
	l.f.Close()
	l.f = nil
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		// Keep logging to the same file rather than losing lines.
		if oerr := l.open(); oerr != nil {
			return oerr
		}
		return fmt.Errorf("log: rotate %s: %w", l.path, err)
	}
	return l.open()
}

// Write appends p, rotating first when p would take the log past its limit.
func (l *rotatingLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size > 0 && l.size+int64(len(p)) > l.max {
		if err := l.rotate(); err != nil && l.f == nil {
			return 0, err
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// Close closes the log file.
func (l *rotatingLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// logFailure records a command's failure in the log, when the command opened
// it, so that the log tells why a sync or send run ended. An exit status
// with nothing to say (doctor's report, --help) is not logged.
func (g *globals) logFailure(name string, err error) {
	var ee *exitError
	if err == nil || g.logFile == nil || errors.As(err, &ee) && ee.err == nil {
		return
	}
	g.logger.Error("command failed", "command", name, "err", err)
}

func (g *globals) closeLog() {
	if g.logFile != nil {
		g.logFile.Close()
		g.logFile = nil
	}
}

// notBuilt is the body of a stub command: it handles --help and otherwise reports
// that the command does not exist yet (exit 2).
func (g *globals) notBuilt(name string, args []string) error {
	fs := g.flagSet(name, "[flags]")
	if _, err := g.parse(fs, args); err != nil {
		return err
	}
	return usageErrorf("not built yet (see issues)")
}

func cmdHelp(ctx context.Context, g *globals, args []string) error {
	fs := g.flagSet("help", "[command]")
	pos, err := g.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] == "help" {
		g.mainUsage(g.Stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == pos[0] {
			return c.run(ctx, g, []string{"--help"})
		}
	}
	fmt.Fprintf(g.Stderr, "mailsift help: unknown command %q\n\n", pos[0])
	g.mainUsage(g.Stderr)
	return exitWith(2)
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
