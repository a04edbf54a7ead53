package config

import (
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"mailsift/internal/loopback"
)

// Validate checks cfg, fills derived fields (parsed URLs, account names, the
// normalised Ollama host) and returns every problem found, each naming the key and
// the fix. env (nil means os.Getenv) is used to expand ~ and for secrets lookup.
func Validate(cfg *Config, env func(string) string) error {
	if env == nil {
		env = os.Getenv
	}
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	// principal
	if cfg.Principal.Email == "" {
		if len(cfg.Accounts) > 0 {
			add("principal.email: missing; add [principal] with email = \"you@example.com\" (the address your mail is sent to), or with --source set MAILSIFT_EMAIL=you@example.com")
		}
	} else if a, err := mail.ParseAddress(cfg.Principal.Email); err != nil || a.Address != cfg.Principal.Email {
		add("principal.email: %q is not a plain address; write just the address, e.g. email = \"you@example.com\", and put the name in principal.name", cfg.Principal.Email)
	}

	// accounts
	if len(cfg.Accounts) == 0 {
		add("account: none configured; add an [[account]] table with source = \"imaps://you%%40example.com@imap.example.com\" (or run `mailsift --demo`)")
	}
	seen := map[string]int{}
	for i := range cfg.Accounts {
		a := &cfg.Accounts[i]
		a.env = env
		p := fmt.Sprintf("account[%d]", i)
		if a.Source == "" {
			add("%s.source: missing; set source = \"imaps://you%%40example.com@imap.example.com\" (or maildir://~/Mail, mbox:///path, demo://)", p)
		} else if src, err := ParseSource(a.Source); err != nil {
			add("%s.source: %v", p, err)
		} else {
			if src.Path != "" {
				src.Path = expandHome(src.Path, env)
			}
			a.Src = src
		}
		if a.Name == "" {
			switch {
			case a.Src.Host != "":
				a.Name = a.Src.Host
			case a.Src.Scheme != "":
				a.Name = a.Src.Scheme
			default:
				a.Name = fmt.Sprintf("account%d", i+1)
			}
		}
		if j, dup := seen[a.Name]; dup {
			add("%s.name: %q is already used by account[%d]; give each account a unique name", p, a.Name, j)
		} else {
			seen[a.Name] = i
		}
		switch {
		case a.SMTP != "" && a.Sendmail != "":
			add("%s: both smtp and sendmail are set; keep only one", p)
		case a.SMTP != "":
			out, err := ParseSMTP(a.SMTP)
			if err != nil {
				add("%s.smtp: %v", p, err)
			} else {
				a.Out = out
			}
		case a.Sendmail != "":
			a.Out = Outgoing{Kind: OutgoingSendmail, Command: a.Sendmail}
		}
		switch strings.ToLower(a.Auth) {
		case "":
			a.Auth = "plain"
		case "plain", "login", "xoauth2", "oauthbearer":
			a.Auth = strings.ToLower(a.Auth)
		default:
			add("%s.auth: %q not supported; use \"plain\", \"login\", \"xoauth2\" or \"oauthbearer\"", p, a.Auth)
		}
		if (a.Auth == "xoauth2" || a.Auth == "oauthbearer") && a.PasswordCmd == "" {
			add("%s.auth: %q needs a token; set password_cmd to a command that prints a fresh OAuth2 access token", p, a.Auth)
		}
		if a.PasswordCmd != "" && a.PlainPassword != "" {
			add("%s: both password_cmd and password are set; remove the plaintext password key", p)
		}
		for j, f := range a.Folders {
			if strings.TrimSpace(f) == "" {
				add("%s.folders[%d]: empty folder name; remove it or write e.g. \"INBOX\"", p, j)
			}
		}
		if a.TLSInsecureSkipVerify {
			var hosts []string
			if a.Src.IsNetwork() {
				hosts = append(hosts, a.Src.Host)
			}
			if a.Out.Kind == OutgoingSMTP {
				hosts = append(hosts, a.Out.Host)
			}
			for _, h := range hosts {
				if !loopback.Is(h) {
					add("%s.tls_insecure_skip_verify: only allowed when every server is a loopback host (127.0.0.0/8, ::1, localhost), but %q is not; remove it and install the server's CA certificate instead", p, h)
					break
				}
			}
		}
		if a.From != "" {
			if _, err := mail.ParseAddress(a.From); err != nil {
				add("%s.from: %q is not a mail address; write e.g. from = \"Your Name <you@example.com>\"", p, a.From)
			}
		}
	}

	// ollama
	if host, err := normalizeOllamaHost(cfg.Ollama.Host); err != nil {
		add("ollama.host: %v (OLLAMA_HOST overrides this key)", err)
	} else {
		cfg.Ollama.Host = host
	}
	if strings.TrimSpace(cfg.Ollama.Model) == "" {
		add("ollama.model: empty; set model = %q or another model from `ollama list`", DefaultModel)
	}
	if cfg.Ollama.Parallel < 1 || cfg.Ollama.Parallel > 64 {
		add("ollama.parallel: %d is out of range; use a number from 1 to 64 (default %d)", cfg.Ollama.Parallel, DefaultParallel)
	}
	if cfg.Ollama.Timeout <= 0 {
		add("ollama.timeout: %s must be positive; use e.g. timeout = \"120s\"", cfg.Ollama.Timeout)
	}
	if cfg.Ollama.NumCtx < 512 || cfg.Ollama.NumCtx > 1<<20 {
		add("ollama.num_ctx: %d is out of range; use a number from 512 to 1048576 (default %d)", cfg.Ollama.NumCtx, DefaultNumCtx)
	}

	// triage
	if cfg.Triage.TokenBudget < 0 {
		add("triage.token_budget: %d is negative; use 0 (the whole num_ctx) or a positive number of tokens", cfg.Triage.TokenBudget)
	} else if cfg.Triage.TokenBudget > cfg.Ollama.NumCtx {
		add("triage.token_budget: %d is larger than ollama.num_ctx (%d); lower it or raise num_ctx", cfg.Triage.TokenBudget, cfg.Ollama.NumCtx)
	}
	if cfg.Triage.MaxThreadMessages < 1 {
		add("triage.max_thread_messages: %d must be at least 1 (default %d)", cfg.Triage.MaxThreadMessages, DefaultMaxThreadMessages)
	}

	// drafts
	if !slices.Contains([]string{"neutral", "friendly", "formal", "concise"}, cfg.Drafts.Tone) {
		add("drafts.tone: %q not supported; use \"neutral\", \"friendly\", \"formal\" or \"concise\"", cfg.Drafts.Tone)
	}
	if !slices.Contains([]string{"short", "medium", "long"}, cfg.Drafts.Length) {
		add("drafts.length: %q not supported; use \"short\", \"medium\" or \"long\"", cfg.Drafts.Length)
	}
	if cfg.Drafts.Language == "" {
		cfg.Drafts.Language = DefaultLanguage
	}
	if cfg.Drafts.UndoSeconds < 0 || cfg.Drafts.UndoSeconds > 600 {
		add("drafts.undo_seconds: %d is out of range; use 0 (send at once) to 600 (default %d)", cfg.Drafts.UndoSeconds, DefaultUndoSeconds)
	}
	if cfg.Drafts.ApprovalTTL <= 0 || cfg.Drafts.ApprovalTTL > 24*time.Hour {
		add("drafts.approval_ttl: %s is out of range; use a duration from \"1m\" to \"24h\" (default \"15m\")", cfg.Drafts.ApprovalTTL)
	}

	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// normalizeOllamaHost accepts the forms OLLAMA_HOST accepts ("host", "host:port",
// "http://host:port") and returns a base URL with scheme and port.
func normalizeOllamaHost(h string) (string, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return "", fmt.Errorf("empty; use e.g. host = %q", DefaultOllamaHost)
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL; use e.g. %q", h, DefaultOllamaHost)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("scheme %q not supported; use http:// or https://", u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return "", fmt.Errorf("%q has no host; use e.g. %q", h, DefaultOllamaHost)
	}
	if host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	port := u.Port()
	if port == "" {
		if u.Scheme == "https" {
			port = "443"
		} else {
			port = "11434"
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q is not a number between 1 and 65535", port)
	}
	u.Host = net.JoinHostPort(host, port)
	return strings.TrimSuffix(u.String(), "/"), nil
}
