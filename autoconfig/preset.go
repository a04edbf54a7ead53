package autoconfig

// preset is one provider's servers.
type preset struct {
	name    string
	domains []string
	imap    Server
	smtp    Server
	oauth2  string
	// bridge marks Proton Bridge: servers on this machine with its own
	// self-signed certificate.
	bridge bool
	notes  []string
}

var presets = []preset{
	{
		name:    "Gmail",
		domains: []string{"gmail.com", "googlemail.com"},
		imap:    Server{Host: "imap.gmail.com", Port: 993, Security: TLS},
		smtp:    Server{Host: "smtp.gmail.com", Port: 465, Security: TLS},
		oauth2:  "gmail",
		notes: []string{"Gmail shows labels as folders: a message with two labels is stored once, in both",
			"sign-in needs your own OAuth2 client id (README: Gmail), or an app password with 2-step verification"},
	},
	{
		name:    "Microsoft 365 / Outlook.com",
		domains: []string{"outlook.com", "hotmail.com", "live.com", "msn.com", "outlook.de", "hotmail.de", "hotmail.co.uk", "live.de", "live.co.uk"},
		imap:    Server{Host: "outlook.office365.com", Port: 993, Security: TLS},
		smtp:    Server{Host: "smtp.office365.com", Port: 587, Security: StartTLS},
		oauth2:  "microsoft",
		notes:   []string{"sign-in needs your own OAuth2 client id (README: Microsoft)"},
	},
	{
		name:    "Fastmail",
		domains: []string{"fastmail.com", "fastmail.fm", "fastmail.net", "fastmail.org", "messagingengine.com"},
		imap:    Server{Host: "imap.fastmail.com", Port: 993, Security: TLS},
		smtp:    Server{Host: "smtp.fastmail.com", Port: 465, Security: TLS},
		notes:   []string{"Fastmail needs an app password (Settings → Privacy & Security → App passwords)"},
	},
	{
		name:    "iCloud Mail",
		domains: []string{"icloud.com", "me.com", "mac.com"},
		imap:    Server{Host: "imap.mail.me.com", Port: 993, Security: TLS},
		smtp:    Server{Host: "smtp.mail.me.com", Port: 587, Security: StartTLS},
		notes:   []string{"iCloud needs an app-specific password (appleid.apple.com → Sign-In and Security)"},
	},
	{
		name:    "Yahoo Mail",
		domains: []string{"yahoo.com", "ymail.com", "rocketmail.com", "yahoo.co.uk", "yahoo.de", "yahoo.fr"},
		imap:    Server{Host: "imap.mail.yahoo.com", Port: 993, Security: TLS},
		smtp:    Server{Host: "smtp.mail.yahoo.com", Port: 465, Security: TLS},
		notes:   []string{"Yahoo needs an app password (Account security → Generate app password)"},
	},
	{
		name:    "Proton Mail (through Proton Bridge on this machine)",
		domains: []string{"proton.me", "protonmail.com", "protonmail.ch", "pm.me"},
		imap:    Server{Host: "127.0.0.1", Port: 1143, Security: StartTLS},
		smtp:    Server{Host: "127.0.0.1", Port: 1025, Security: StartTLS},
		bridge:  true,
		notes: []string{"Proton Mail is reached through Proton Bridge, which must be running on this machine; use the password Bridge shows, not your Proton password",
			"Bridge uses its own certificate, so TLS verification is off for these loopback servers (tls_insecure_skip_verify)"},
	},
}

// Preset returns the built-in servers for the address's provider, if
// mailsift knows it.
func Preset(email string) (Result, bool) {
	d, err := Domain(email)
	if err != nil {
		return Result{}, false
	}
	for _, p := range presets {
		for _, pd := range p.domains {
			if d == pd {
				return Result{Email: email, IMAP: p.imap, SMTP: p.smtp, Via: "preset " + p.name,
					OAuth2Provider: p.oauth2, InsecureSkipVerify: p.bridge, Notes: append([]string(nil), p.notes...)}, true
			}
		}
	}
	return Result{}, false
}
