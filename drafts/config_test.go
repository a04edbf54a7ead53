package drafts

import (
	"testing"

	"mailsift/config"
	"mailsift/model"
)

// TestAccountFromConfigSMTPUser checks whose login the SMTP transport uses:
// the smtp URL's user, else the IMAP user for a submission server, and none
// for a plaintext loopback relay (which offers no AUTH).
func TestAccountFromConfigSMTPUser(t *testing.T) {
	p := model.Address{Email: "me@example.org"}
	tests := []struct {
		name, source, smtp, want string
	}{
		{"explicit smtp user", "imaps://imapuser@imap.example.org", "smtps://smtpuser@smtp.example.org", "smtpuser"},
		{"inherits imap user", "imaps://imapuser@imap.example.org", "smtps://smtp.example.org", "imapuser"},
		{"loopback relay without login", "imaps://imapuser@imap.example.org", "smtp+insecure://127.0.0.1:2525", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := config.ParseSource(tt.source)
			if err != nil {
				t.Fatal(err)
			}
			out, err := config.ParseSMTP(tt.smtp)
			if err != nil {
				t.Fatal(err)
			}
			a := AccountFromConfig(&config.Account{Name: "x", Src: src, Out: out}, p)
			s, ok := a.Transport.(*SMTP)
			if !ok {
				t.Fatalf("transport = %T, want *SMTP", a.Transport)
			}
			if s.Username != tt.want {
				t.Fatalf("AccountFromConfig(%s, %s).Username = %q, want %q", tt.source, tt.smtp, s.Username, tt.want)
			}
		})
	}
}
