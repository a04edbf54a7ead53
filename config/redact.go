package config

import "net/url"

// RedactURL drops any userinfo (user and password) from a URL for display
// and logs; a string that is not a URL is returned as is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}
