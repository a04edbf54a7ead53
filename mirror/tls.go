package mirror

import "crypto/tls"

// insecureTLS skips certificate verification; Open only allows it for
// loopback hosts, where the user opted out explicitly.
func insecureTLS(host string) *tls.Config {
	return &tls.Config{ServerName: host, InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} //nolint:gosec // loopback only, opted in
}
