package postfix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"mailsift/internal/testserver/dovecot"
)

// TestDeliverToDovecot sends one message to Postfix over SMTP and finds it
// in the recipient's Dovecot Maildir, delivered over LMTP.
func TestDeliverToDovecot(t *testing.T) {
	if Binary() == "" {
		Unavailable(t, "postfix is not installed")
	}
	dv := dovecot.Start(t, &dovecot.Options{LMTP: true, Users: map[string]string{"bob": "bob-pw"}, ExtraConfig: DovecotExtraConfig(DovecotVersion())})
	pf := Start(t, Options{LMTPAddr: dv.LMTPAddr})
	msg := "From: alice@mailsift.test\r\nTo: bob@mailsift.test\r\nSubject: hi\r\nMessage-ID: <pf-1@mailsift.test>\r\n\r\nhello\r\n"
	c, err := smtp.Dial(pf.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SendMail("alice@mailsift.test", []string{"bob@mailsift.test"}, strings.NewReader(msg)); err != nil {
		t.Fatalf("send through postfix: %v\n%s", err, pf.Log())
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(dv.Maildir("bob"), "new", "*"))
		if len(files) == 1 {
			b, _ := os.ReadFile(files[0])
			if !strings.Contains(string(b), "pf-1@mailsift.test") {
				t.Fatalf("delivered file lacks the message: %q", b)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("not delivered to bob's Maildir within 20s\npostfix log:\n%s\ndovecot log:\n%s", pf.Log(), dv.Log())
}
