package loopback

import "testing"

func TestIs(t *testing.T) {
	tests := []struct {
		name string
		host string
		want bool
	}{
		// the name localhost, decided without DNS; names under it are not trusted.
		{"localhost", "localhost", true},
		{"upper case", "LOCALHOST", true},
		{"mixed case", "LocalHost", true},
		{"trailing dot", "localhost.", true},
		{"two trailing dots", "localhost..", false},
		{"subdomain of localhost needs the resolver", "foo.localhost", false},
		{"deeper subdomain with dot", "a-b.c_d.localhost.", false},
		{"empty label under localhost", "a..localhost", false},
		{"leading dot", ".localhost", false},
		{"space in label", "a b.localhost", false},
		{"localhost as a prefix", "localhost.evil.example", false},
		{"localhost.example.com", "localhost.example.com", false},
		{"localhost.localdomain needs /etc/hosts", "localhost.localdomain", false},
		{"surrounding space", " localhost", false},
		{"localhost with port", "localhost:993", false},
		{"localhost with zone", "localhost%lo", false},

		// IPv4.
		{"127.0.0.1", "127.0.0.1", true},
		{"elsewhere in 127/8", "127.1.2.3", true},
		{"top of 127/8", "127.255.255.255", true},
		{"127.255.0.9", "127.255.0.9", true},
		{"outside 127/8", "128.0.0.1", false},
		{"private address", "10.0.0.1", false},
		{"unspecified v4", "0.0.0.0", false},
		{"IPv4 trailing dot needs DNS", "127.0.0.1.", false},
		{"IPv4 shorthand needs a resolver", "127.1", false},
		{"IPv4 octal", "0177.0.0.1", false},
		{"IPv4 as one number", "2130706433", false},
		{"IPv4 as a prefix", "127.0.0.1.evil.example", false},
		{"IPv4 with port", "127.0.0.1:993", false},
		{"IPv4 in brackets", "[127.0.0.1]", false},

		// IPv6.
		{"::1", "::1", true},
		{"::1 long form", "0:0:0:0:0:0:0:1", true},
		{"::1 in brackets", "[::1]", true},
		{"::1 in brackets with port", "[::1]:993", false},
		{"open bracket only", "[::1", false},
		{"close bracket only", "::1]", false},
		{"IPv4-mapped loopback", "::ffff:127.0.0.1", true},
		{"IPv4-mapped loopback in brackets", "[::ffff:127.0.0.1]", true},
		{"IPv4-mapped remote", "::ffff:10.0.0.1", false},
		{"unspecified v6", "::", false},
		{"::2", "::2", false},
		{"::1 with zone", "::1%lo", false},
		{"::1 with escaped zone in brackets", "[::1%25lo]", false},
		{"link-local with zone", "fe80::1%eth0", false},
		{"percent alone", "%", false},

		// Neither.
		{"empty", "", false},
		{"empty brackets", "[]", false},
		{"remote name", "example.com", false},
		{"dot", ".", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Is(tt.host); got != tt.want {
				t.Errorf("Is(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}
