package drafts

import (
	"context"
	"crypto/tls"
	"net/mail"
	"strings"

	"mailsift/config"
	"mailsift/internal/loopback"
	"mailsift/model"
)

// AccountFromConfig builds the sending side of a configured account: the
// SMTP or sendmail transport (nil when the account has neither), the From
// identity (account from, else the principal) and whether the server files
// sent mail itself (Gmail). The caller adds Mailbox (the IMAP source) and
// the Sent/Drafts folder names from the mirrored mailbox roles.
func AccountFromConfig(a *config.Account, principal model.Address) Account {
	acct := Account{Name: a.Name, From: principal}
	if a.From != "" {
		if p, err := mail.ParseAddress(a.From); err == nil {
			acct.From = model.Address{Name: p.Name, Email: p.Address}
		}
	}
	switch a.Out.Kind {
	case config.OutgoingSMTP:
		s := &SMTP{Host: a.Out.Host, Port: a.Out.Port, Auth: a.Auth, Username: a.Out.User}
		switch a.Out.TLS {
		case config.TLSImplicit:
			s.TLS = SMTPImplicitTLS
		case config.TLSStartTLS:
			s.TLS = SMTPStartTLS
		default:
			s.TLS = SMTPInsecure
		}
		// Submission servers usually take the IMAP login; a plaintext
		// loopback relay (smtp+insecure://localhost) usually takes none.
		if s.Username == "" && s.TLS != SMTPInsecure {
			s.Username = a.Src.User
		}
		if a.TLSInsecureSkipVerify && loopback.Is(a.Out.Host) {
			s.TLSConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // loopback only, opted in
		}
		if s.Username != "" {
			pw := a.Out.Password
			s.Password = func(ctx context.Context) (string, error) {
				if pw != "" {
					return pw, nil
				}
				return a.Password(ctx)
			}
		}
		s.TokenRejected = a.ForgetAccessToken
		acct.Transport = s
	case config.OutgoingSendmail:
		acct.Transport = &Sendmail{Command: a.Out.Command}
	}
	host := strings.ToLower(a.Src.Host + " " + a.Out.Host)
	acct.ServerSavesSent = strings.Contains(host, "gmail.com") || strings.Contains(host, "googlemail.com")
	return acct
}

// SentAndDrafts picks the Sent and Drafts folder names from mailbox roles
// (defaults "Sent" and "Drafts").
func SentAndDrafts(mbs []model.Mailbox) (sent, drafts string) {
	sent, drafts = "Sent", "Drafts"
	for _, m := range mbs {
		switch m.Role {
		case model.RoleSent:
			sent = m.Name
		case model.RoleDrafts:
			drafts = m.Name
		}
	}
	return sent, drafts
}
