package oauth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// LoginOptions tune a sign-in.
type LoginOptions struct {
	// Out receives what the user must see: the URL to open, or the
	// device code and where to enter it. Nil discards it.
	Out io.Writer
	// OpenBrowser opens a URL in the user's browser; nil (a headless
	// machine) only prints it.
	OpenBrowser func(url string) error
	// HTTPClient makes the token requests; nil is http.DefaultClient.
	HTTPClient *http.Client
}

func (o LoginOptions) out() io.Writer {
	if o.Out == nil {
		return io.Discard
	}
	return o.Out
}

func (o LoginOptions) ctx(ctx context.Context) context.Context {
	if o.HTTPClient != nil {
		return context.WithValue(ctx, oauth2.HTTPClient, o.HTTPClient)
	}
	return ctx
}

// LoginBrowser runs the authorization-code flow with PKCE (S256): it
// listens on 127.0.0.1 (never another interface) on a free port, prints
// the provider's sign-in URL (and opens it when it can), waits for the
// redirect carrying the code, checks its state, and exchanges the code
// for tokens. It returns when ctx ends, too.
func (c Client) LoginBrowser(ctx context.Context, opts LoginOptions) (*oauth2.Token, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oauth2: listen on 127.0.0.1 for the sign-in redirect: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/", ln.Addr().(*net.TCPAddr).Port)
	cfg := c.config(redirect)
	state, err := randomState()
	if err != nil {
		return nil, err
	}
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL(state, oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("prompt", "consent"))

	type result struct {
		code string
		err  error
	}
	got := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		// A request without the right state is not our redirect (another
		// page, or a forged one): refuse it and keep waiting.
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			http.Error(w, "mailsift: this sign-in link does not belong to the sign-in in progress", http.StatusBadRequest)
			return
		}
		res := result{code: q.Get("code")}
		if e := q.Get("error"); e != "" {
			res = result{err: fmt.Errorf("oauth2: the provider refused the sign-in: %s %s", e, q.Get("error_description"))}
		} else if res.code == "" {
			res = result{err: errors.New("oauth2: the provider's redirect carried no code")}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != nil {
			fmt.Fprintf(w, "<p>mailsift: sign-in failed: %s</p>", html.EscapeString(res.err.Error()))
		} else {
			io.WriteString(w, "<p>mailsift: signed in. You can close this tab and return to the terminal.</p>")
		}
		select {
		case got <- res:
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	out := opts.out()
	fmt.Fprintf(out, "Open this URL in a browser on this machine to sign in:\n\n  %s\n\n", authURL)
	if opts.OpenBrowser != nil {
		if err := opts.OpenBrowser(authURL); err != nil {
			fmt.Fprintf(out, "(could not open a browser: %v)\n", err)
		}
	}
	fmt.Fprintf(out, "Waiting for the browser to come back to %s ...\n", redirect)
	var res result
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth2: sign-in not finished: %w", ctx.Err())
	case res = <-got:
	}
	if res.err != nil {
		return nil, res.err
	}
	tok, err := cfg.Exchange(opts.ctx(ctx), res.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("oauth2: exchange the sign-in code: %w", describe(err))
	}
	if tok.RefreshToken == "" {
		return nil, errors.New("oauth2: the provider sent no refresh token, so mailsift would have to ask you to sign in every hour; check that the client is a desktop (installed) app and the scopes include offline access")
	}
	return tok, nil
}

// LoginDevice runs the device-code flow (RFC 8628) for a machine without
// a browser: it prints a code and the address where to enter it from any
// other device, then polls the provider at the interval it asks for until
// the user has approved, refused, or the code expired.
func (c Client) LoginDevice(ctx context.Context, opts LoginOptions) (*oauth2.Token, error) {
	if c.Provider.DeviceAuthURL == "" {
		return nil, fmt.Errorf("oauth2: provider %q has no device sign-in for mail; sign in with a browser (mailsift prints the URL; from another machine, forward the port with ssh -L)", c.Provider.Name)
	}
	cfg := c.config("")
	hctx := opts.ctx(ctx)
	da, err := cfg.DeviceAuth(hctx)
	if err != nil {
		return nil, fmt.Errorf("oauth2: start device sign-in: %w", describe(err))
	}
	where := da.VerificationURI
	if da.VerificationURIComplete != "" {
		where = da.VerificationURIComplete
	}
	fmt.Fprintf(opts.out(), "On any device, open\n\n  %s\n\nand enter the code  %s\n\nWaiting for you to approve ...\n", where, da.UserCode)
	tok, err := cfg.DeviceAccessToken(hctx, da)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("oauth2: sign-in not finished: %w", ctx.Err())
		}
		return nil, fmt.Errorf("oauth2: device sign-in: %w", describe(err))
	}
	if tok.RefreshToken == "" {
		return nil, errors.New("oauth2: the provider sent no refresh token; add the offline_access scope")
	}
	return tok, nil
}

func randomState() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("oauth2: random state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// describe turns an endpoint's error into one without the response body
// (which may echo a code or token): the OAuth2 error code and its
// description only.
func describe(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := re.ErrorCode
		if msg == "" && re.Response != nil {
			msg = re.Response.Status
		}
		if re.ErrorDescription != "" {
			msg += ": " + re.ErrorDescription
		}
		return &EndpointError{Code: re.ErrorCode, Msg: msg}
	}
	return err
}

// EndpointError is an error answer from a provider's token endpoint,
// without the response body.
type EndpointError struct {
	// Code is the OAuth2 error code ("invalid_grant", ...).
	Code string
	Msg  string
}

func (e *EndpointError) Error() string { return "provider said " + e.Msg }
