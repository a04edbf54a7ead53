package unsubscribe

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestPlanFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    map[string][]string
		want Plan
	}{
		{"one-click", map[string][]string{
			"List-Unsubscribe":      {"<mailto:leave@list.example?subject=bye>, <https://list.example/u?t=abc>"},
			"List-Unsubscribe-Post": {"List-Unsubscribe=One-Click"}},
			Plan{Method: OneClick, URL: "https://list.example/u?t=abc"}},
		{"mailto without one-click", map[string][]string{
			"List-Unsubscribe": {"<https://list.example/u>, <mailto:leave@list.example?subject=remove%20me>"}},
			Plan{Method: Mailto, To: "leave@list.example", Subject: "remove me"}},
		{"web only", map[string][]string{"List-Unsubscribe": {"<https://list.example/u>"}},
			Plan{Method: Web, URL: "https://list.example/u"}},
		{"plain http is not posted to", map[string][]string{
			"List-Unsubscribe":      {"<http://list.example/u>"},
			"List-Unsubscribe-Post": {"List-Unsubscribe=One-Click"}},
			Plan{Why: "no usable unsubscribe URI: unsubscribe: list.example is plain http; mailsift only posts to https URLs"}},
		{"none", map[string][]string{}, Plan{Why: "this message has no List-Unsubscribe header: it does not say how to leave its list"}},
		{"javascript", map[string][]string{"List-Unsubscribe": {"<javascript:alert(1)>"}},
			Plan{Why: `no usable unsubscribe URI: a "javascript" URI was skipped`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PlanFor(tc.h); got != tc.want {
				t.Fatalf("PlanFor = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestPostIsRFC8058 posts to a local server and checks the request is the
// one RFC 8058 defines, with nothing identifying the user but the URL.
func TestPostIsRFC8058(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, string(b))
		mu.Unlock()
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		case "/gone":
			http.Error(w, "no", http.StatusGone)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	if err := Post(ctx, nil, srv.URL+"/u?token=secret"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	r, body := got[0], bodies[0]
	mu.Unlock()
	if r.Method != http.MethodPost || r.URL.RawQuery != "token=secret" || body != "List-Unsubscribe=One-Click" ||
		r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.Header.Get("Cookie") != "" || r.Header.Get("Authorization") != "" {
		t.Fatalf("request = %s %s %q body %q", r.Method, r.URL, r.Header, body)
	}
	err := Post(ctx, nil, srv.URL+"/redirect?token=secret")
	if err == nil || !strings.Contains(err.Error(), "302") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("redirect: %v (want an error naming 302, without the token)", err)
	}
	mu.Lock()
	n := len(got)
	mu.Unlock()
	if n != 2 {
		t.Fatalf("%d requests; the redirect must not be followed", n)
	}
	if err := Post(ctx, nil, srv.URL+"/gone"); err == nil || !strings.Contains(err.Error(), "410") {
		t.Fatalf("410: %v", err)
	}
	if err := Post(ctx, nil, "http://list.example/u"); err == nil || !strings.Contains(err.Error(), "only posts to https") {
		t.Fatalf("plain http: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := Post(cctx, nil, srv.URL+"/u"); err == nil {
		t.Fatal("a cancelled context posted")
	}
}

func TestPostHTTPS(t *testing.T) {
	var body string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
	}))
	defer srv.Close()
	c := srv.Client()
	c.CheckRedirect = Client().CheckRedirect
	if err := Post(context.Background(), c, srv.URL+"/u"); err != nil || body != Body {
		t.Fatalf("https POST: %v, body %q", err, body)
	}
	if Client().Jar != nil || Client().Timeout == 0 {
		t.Fatal("the default client keeps cookies or has no timeout")
	}
}
