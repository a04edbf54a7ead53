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
	var p problems
	validatePrincipal(&p, cfg.Principal, len(cfg.Accounts) > 0)
	validateAccounts(&p, cfg.Accounts, env)
	validateOllama(&p, &cfg.Ollama)
	validateTriage(&p, cfg.Triage, cfg.Ollama.NumCtx)
	validateDrafts(&p, &cfg.Drafts)
	if n := cfg.Notify.NewMail; n != "off" && n != "urgent" && n != "all" {
		p.add("notify.new_mail: %q is not one of off, urgent, all (default urgent)", n)
	}
	if len(p) > 0 {
		return errors.New(strings.Join(p, "\n"))
	}
	return nil
}

// problems collects validation errors, one line each, in the order found.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// validatePrincipal checks principal.email; it is only required when there is
// an account to read mail from.
func validatePrincipal(p *problems, pr Principal, haveAccounts bool) {
	if pr.Email == "" {
		if haveAccounts {
			p.add("principal.email: missing; add [principal] with email = \"you@example.com\" (the address your mail is sent to), or with --source set MAILSIFT_EMAIL=you@example.com")
		}
	} else if a, err := mail.ParseAddress(pr.Email); err != nil || a.Address != pr.Email {
		p.add("principal.email: %q is not a plain address; write just the address, e.g. email = \"you@example.com\", and put the name in principal.name", pr.Email)
	}
}

// validateAccounts checks each account and that account names are unique.
func validateAccounts(p *problems, accts []Account, env func(string) string) {
	if len(accts) == 0 {
		p.add("account: none configured; add an [[account]] table with source = \"imaps://you%%40example.com@imap.example.com\" (or run `mailsift --demo`)")
	}
	seen := map[string]int{}
	for i := range accts {
		a := &accts[i]
		a.env = env
		key := fmt.Sprintf("account[%d]", i)
		validateSource(p, key, a, env)
		nameAccount(a, i)
		if j, dup := seen[a.Name]; dup {
			p.add("%s.name: %q is already used by account[%d]; give each account a unique name", key, a.Name, j)
		} else {
			seen[a.Name] = i
		}
		validateOutgoing(p, key, a)
		validateAuth(p, key, a)
		validateSecretSource(p, key, a)
		a.auth = &accountAuth{}
		for j, f := range a.Folders {
			if strings.TrimSpace(f) == "" {
				p.add("%s.folders[%d]: empty folder name; remove it or write e.g. \"INBOX\"", key, j)
			}
		}
		validateInsecureSkipVerify(p, key, a)
		if a.From != "" {
			if _, err := mail.ParseAddress(a.From); err != nil {
				p.add("%s.from: %q is not a mail address; write e.g. from = \"Your Name <you@example.com>\"", key, a.From)
			}
		}
	}
}

// validateSource parses the source URL into a.Src, expanding ~ in a local path.
func validateSource(p *problems, key string, a *Account, env func(string) string) {
	if a.Source == "" {
		p.add("%s.source: missing; set source = \"imaps://you%%40example.com@imap.example.com\" (or maildir://~/Mail, mbox:///path, demo://)", key)
		return
	}
	src, err := ParseSource(a.Source)
	if err != nil {
		p.add("%s.source: %v", key, err)
		return
	}
	if src.Path != "" {
		src.Path = expandHome(src.Path, env)
	}
	a.Src = src
}

// nameAccount gives an unnamed account the source host, else the source
// scheme, else "accountN" (1-based).
func nameAccount(a *Account, i int) {
	if a.Name != "" {
		return
	}
	switch {
	case a.Src.Host != "":
		a.Name = a.Src.Host
	case a.Src.Scheme != "":
		a.Name = a.Src.Scheme
	default:
		a.Name = fmt.Sprintf("account%d", i+1)
	}
}

// validateOutgoing parses smtp or sendmail (at most one) into a.Out.
func validateOutgoing(p *problems, key string, a *Account) {
	switch {
	case a.SMTP != "" && a.Sendmail != "":
		p.add("%s: both smtp and sendmail are set; keep only one", key)
	case a.SMTP != "":
		out, err := ParseSMTP(a.SMTP)
		if err != nil {
			p.add("%s.smtp: %v", key, err)
		} else {
			a.Out = out
		}
	case a.Sendmail != "":
		a.Out = Outgoing{Kind: OutgoingSendmail, Command: a.Sendmail}
	}
}

// validateAuth normalises the SASL mechanism (default "plain") and checks the
// password settings that go with it.
func validateAuth(p *problems, key string, a *Account) {
	switch strings.ToLower(a.Auth) {
	case "":
		a.Auth = "plain"
		if a.OAuth2.Enabled() {
			a.Auth = "xoauth2"
		}
	case "plain", "login", "xoauth2", "oauthbearer":
		a.Auth = strings.ToLower(a.Auth)
	default:
		p.add("%s.auth: %q not supported; use \"plain\", \"login\", \"xoauth2\" or \"oauthbearer\"", key, a.Auth)
	}
	if (a.Auth == "xoauth2" || a.Auth == "oauthbearer") && a.PasswordCmd == "" && !a.Keyring && !a.OAuth2.Enabled() {
		p.add("%s.auth: %q needs a token; set oauth2_provider for the built-in sign-in (`mailsift init --provider gmail|microsoft`), or password_cmd to a command that prints a fresh OAuth2 access token", key, a.Auth)
	}
	if a.PasswordCmd != "" && a.PlainPassword != "" {
		p.add("%s: both password_cmd and password are set; remove the plaintext password key", key)
	}
}

// validateInsecureSkipVerify allows tls_insecure_skip_verify only when every
// server of the account (IMAP and SMTP) is a loopback host.
func validateInsecureSkipVerify(p *problems, key string, a *Account) {
	if !a.TLSInsecureSkipVerify {
		return
	}
	var hosts []string
	if a.Src.IsNetwork() {
		hosts = append(hosts, a.Src.Host)
	}
	if a.Out.Kind == OutgoingSMTP {
		hosts = append(hosts, a.Out.Host)
	}
	for _, h := range hosts {
		if !loopback.Is(h) {
			p.add("%s.tls_insecure_skip_verify: only allowed when every server is a loopback host (127.0.0.0/8, ::1, localhost), but %q is not; remove it and install the server's CA certificate instead", key, h)
			return
		}
	}
}

// validateOllama normalises the host and checks the model settings' ranges.
func validateOllama(p *problems, o *Ollama) {
	if host, err := normalizeOllamaHost(o.Host); err != nil {
		p.add("ollama.host: %v (OLLAMA_HOST overrides this key)", err)
	} else {
		o.Host = host
		validateOllamaRemote(p, o)
	}
	if strings.TrimSpace(o.Model) == "" {
		p.add("ollama.model: empty; set model = %q or another model from `ollama list`", DefaultModel)
	}
	if o.Parallel < 1 || o.Parallel > 64 {
		p.add("ollama.parallel: %d is out of range; use a number from 1 to 64 (default %d)", o.Parallel, DefaultParallel)
	}
	if o.Timeout <= 0 {
		p.add("ollama.timeout: %s must be positive; use e.g. timeout = \"120s\"", o.Timeout)
	}
	if o.NumCtx < 512 || o.NumCtx > 1<<20 {
		p.add("ollama.num_ctx: %d is out of range; use a number from 512 to 1048576 (default %d)", o.NumCtx, DefaultNumCtx)
	}
}

// validateOllamaRemote refuses a model host off this machine unless the
// config says ollama.remote = true (every triaged or answered mail goes
// there), and plain http:// to it unless it also says allow_plain_http. The
// host is reported without the URL's credentials.
func validateOllamaRemote(p *problems, o *Ollama) {
	u, err := url.Parse(o.Host)
	if err != nil {
		return // normalizeOllamaHost already accepted it
	}
	host := u.Hostname()
	if loopback.Is(host) {
		return
	}
	where := "ollama.host"
	unset := "set host to a loopback address such as " + DefaultOllamaHost
	if o.HostFromEnv {
		where = "OLLAMA_HOST"
		unset = "unset OLLAMA_HOST to use the local model server"
	}
	if !o.Remote {
		p.add("%s: %s points at %q, which is not this machine, and every mail mailsift triages or answers would be sent there; if that is your own model server, add remote = true under [ollama] in the config file, else %s",
			where, RedactURL(o.Host), host, unset)
		return
	}
	if u.Scheme == "http" && !o.AllowPlainHTTP {
		p.add("%s: %s sends mail to the remote host %q over plain http://, readable on the network; use https:// (e.g. a TLS proxy in front of Ollama), or if the network is trusted add allow_plain_http = true under [ollama]",
			where, RedactURL(o.Host), host)
	}
}

// validateTriage checks the prompt limits; the token budget must fit in numCtx.
func validateTriage(p *problems, t Triage, numCtx int) {
	if t.TokenBudget < 0 {
		p.add("triage.token_budget: %d is negative; use 0 (the whole num_ctx) or a positive number of tokens", t.TokenBudget)
	} else if t.TokenBudget > numCtx {
		p.add("triage.token_budget: %d is larger than ollama.num_ctx (%d); lower it or raise num_ctx", t.TokenBudget, numCtx)
	}
	if t.MaxThreadMessages < 1 {
		p.add("triage.max_thread_messages: %d must be at least 1 (default %d)", t.MaxThreadMessages, DefaultMaxThreadMessages)
	}
}

// validateDrafts checks tone, length and the send delays, and defaults an
// empty language to "auto".
func validateDrafts(p *problems, d *Drafts) {
	if !slices.Contains([]string{"neutral", "friendly", "formal", "concise"}, d.Tone) {
		p.add("drafts.tone: %q not supported; use \"neutral\", \"friendly\", \"formal\" or \"concise\"", d.Tone)
	}
	if !slices.Contains([]string{"short", "medium", "long"}, d.Length) {
		p.add("drafts.length: %q not supported; use \"short\", \"medium\" or \"long\"", d.Length)
	}
	if d.Language == "" {
		d.Language = DefaultLanguage
	}
	if d.UndoSeconds < 0 || d.UndoSeconds > 600 {
		p.add("drafts.undo_seconds: %d is out of range; use 0 (send at once) to 600 (default %d)", d.UndoSeconds, DefaultUndoSeconds)
	}
	if d.ApprovalTTL <= 0 || d.ApprovalTTL > 24*time.Hour {
		p.add("drafts.approval_ttl: %s is out of range; use a duration from \"1m\" to \"24h\" (default \"15m\")", d.ApprovalTTL)
	}
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
		return "", fmt.Errorf("%q is not a URL; use e.g. %q", RedactURL(h), DefaultOllamaHost)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("scheme %q not supported; use http:// or https://", u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return "", fmt.Errorf("%q has no host; use e.g. %q", RedactURL(h), DefaultOllamaHost)
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
