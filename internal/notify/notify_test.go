package notify

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"mailsift/internal/testserver"
)

// startBus runs a private dbus-daemon session bus for the test and
// returns its address.
func startBus(t *testing.T) string {
	t.Helper()
	bin := testserver.FindBinary("dbus-daemon", "/usr/bin/dbus-daemon")
	if bin == "" {
		testserver.Unavailable(t, "dbus-daemon is not installed", "apt-get install dbus-daemon")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=`+filepath.Join(dir, "bus")+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config-file="+conf, "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The daemon prints its address once it listens: the event to wait for.
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(line)
}

// notifications is a fake org.freedesktop.Notifications server.
type notifications struct{ got chan []any }

func (n *notifications) Notify(app string, id uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.got <- []any{app, summary, body, hints["urgency"].Value(), timeout}
	return 7, nil
}

func TestNotifyOverDBus(t *testing.T) {
	addr := startBus(t)
	srv, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	fake := &notifications{got: make(chan []any, 1)}
	if err := srv.Export(fake, path, service); err != nil {
		t.Fatal(err)
	}
	if reply, err := srv.RequestName(service, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", service, reply, err)
	}
	n := &DBus{Address: addr}
	defer n.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.Notify(ctx, "mailsift: 1 new urgent thread", "Dana: Server down", true); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-fake.got:
		want := []any{"mailsift", "mailsift: 1 new urgent thread", "Dana: Server down", urgencyCritical, int32(-1)}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("notification = %v, want %v", got, want)
			}
		}
	case <-ctx.Done():
		t.Fatal("the notification service got nothing")
	}
	// Nobody owns the name any more: the error comes back, it does not hang.
	if _, err := srv.ReleaseName(service); err != nil {
		t.Fatal(err)
	}
	if err := n.Notify(ctx, "again", "", false); err == nil {
		t.Fatal("notify without a service succeeded")
	}
}

func TestNotifyWithoutBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if err := (&DBus{}).Notify(context.Background(), "x", "y", false); !errors.Is(err, ErrNoBus) {
		t.Fatalf("Notify without a bus = %v, want ErrNoBus", err)
	}
	var b bytes.Buffer
	term := NewTerminal(&b)
	term.Bell()
	term.SetTitle("mailsift (2 urgent)\x1b]0;x\u202e")
	if want := "\a\x1b]2;mailsift (2 urgent)]0;x\x07"; b.String() != want {
		t.Fatalf("terminal got %q, want %q", b.String(), want)
	}
}
