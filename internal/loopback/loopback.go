// Package loopback decides whether a host names this machine's loopback
// interface. It is the one rule mailsift uses before relaxing TLS: plaintext
// imap+insecure:// and smtp+insecure://, and tls_insecure_skip_verify, are
// only allowed to loopback hosts.
//
// The decision is made from the text alone, never by resolving the name: an
// IP literal counts when it is a loopback address, and a name counts only
// when it is "localhost". Names under it ("foo.localhost") are reserved for
// loopback by RFC 6761 but resolved by the system resolver, which need not
// honour that, and any other name would need DNS, whose answer an attacker
// may control, so neither counts.
package loopback

import (
	"net/netip"
	"strings"
)

// Is reports whether host names the loopback interface without a DNS lookup.
//
// host is a bare host as found in a URL's host part, without a port: an IPv4
// literal in 127.0.0.0/8, the IPv6 literal ::1 (bare or in brackets, as in
// "[::1]"), an IPv4-mapped loopback address such as ::ffff:127.0.0.1, or the
// name localhost (any letter case, with or without one trailing dot).
//
// Everything else is not loopback, which keeps TLS on: host:port forms
// ("localhost:993", "[::1]:993"), unbalanced brackets, IPv6 zones ("::1%lo"),
// the unspecified addresses 0.0.0.0 and ::, IP literals with a trailing dot
// or in a shorthand form ("127.1"), and names that merely start with
// localhost or 127.0.0.1 ("localhost.example.com").
func Is(host string) bool {
	if inner, ok := strings.CutPrefix(host, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		if !ok {
			return false
		}
		a, err := netip.ParseAddr(inner)
		// Brackets only ever enclose an IPv6 literal.
		return err == nil && a.Is6() && isLoopbackAddr(a)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return isLoopbackAddr(a)
	}
	return isLocalhostName(host)
}

// isLoopbackAddr reports whether a is a loopback address with no zone. A zone
// only matters for link-local addresses; on a loopback address it is unusual
// enough to refuse rather than interpret.
func isLoopbackAddr(a netip.Addr) bool {
	return a.Zone() == "" && a.Unmap().IsLoopback()
}

// isLocalhostName reports whether name is "localhost", in any letter case,
// with at most one trailing dot.
func isLocalhostName(name string) bool {
	return strings.EqualFold(strings.TrimSuffix(name, "."), "localhost")
}
