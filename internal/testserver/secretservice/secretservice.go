// Package secretservice starts a real Secret Service for tests: a private
// D-Bus session bus (dbus-daemon) and gnome-keyring-daemon's secrets
// component on it, with an unlocked login keyring in a temporary home,
// all headless and as any user (root too). DBUS_SESSION_BUS_ADDRESS is
// pointed at the private bus for the rest of the test.
//
// godbus keeps one session-bus connection per process once it has one, so
// a test binary should start the service once (in one test).
//
// Tests skip with a clear message when dbus-daemon or gnome-keyring-daemon
// is missing, and fail instead when MAILSIFT_REQUIRE_SERVERS=1 (CI).
package secretservice

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"mailsift/internal/testserver"
)

const install = "apt-get install dbus-daemon gnome-keyring (Debian: dbus gnome-keyring)"

// secretsName is the Secret Service's bus name.
const secretsName = "org.freedesktop.secrets"

// Start runs the bus and the keyring until t ends and returns the bus
// address.
func Start(t *testing.T) string {
	t.Helper()
	dbusBin := testserver.FindBinary("dbus-daemon", "/usr/bin/dbus-daemon")
	if dbusBin == "" {
		testserver.Unavailable(t, "dbus-daemon is not installed", install)
	}
	gkBin := testserver.FindBinary("gnome-keyring-daemon", "/usr/bin/gnome-keyring-daemon")
	if gkBin == "" {
		testserver.Unavailable(t, "gnome-keyring-daemon is not installed", install)
	}
	dir, err := os.MkdirTemp("", "mailsift-keyring-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home, run := filepath.Join(dir, "home"), filepath.Join(dir, "run")
	for _, d := range []string{home, run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}

	bus := exec.Command(dbusBin, "--session", "--nofork", "--nopidfile", "--print-address=1",
		"--address=unix:path="+filepath.Join(run, "bus"))
	bus.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		testserver.Unavailable(t, fmt.Sprintf("dbus-daemon does not start: %v", err), install)
	}
	t.Cleanup(func() { stop(bus) })
	addrLine := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addrLine <- strings.TrimSpace(line)
	}()
	var addr string
	select {
	case addr = <-addrLine:
	case <-time.After(15 * time.Second):
		t.Fatal("dbus-daemon printed no address within 15s")
	}
	if addr == "" {
		t.Fatal("dbus-daemon exited without printing its address")
	}

	// Watch for the keyring taking its name before starting it, so that
	// readiness is an event, not a guess.
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	defer conn.Close()
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, secretsName)); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)

	gk := exec.Command(gkBin, "--foreground", "--components=secrets", "--unlock")
	gk.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	gk.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+addr, "HOME="+home, "XDG_RUNTIME_DIR="+run,
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	// --unlock reads the new login keyring's password from stdin.
	gk.Stdin = strings.NewReader("mailsift-test-keyring")
	logf, err := os.Create(filepath.Join(dir, "gnome-keyring.log"))
	if err != nil {
		t.Fatal(err)
	}
	gk.Stdout, gk.Stderr = logf, logf
	if err := gk.Start(); err != nil {
		logf.Close()
		testserver.Unavailable(t, fmt.Sprintf("gnome-keyring-daemon does not start: %v", err), install)
	}
	exited := make(chan error, 1)
	go func() { exited <- gk.Wait(); logf.Close() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-gk.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	deadline := time.After(20 * time.Second)
	for {
		var has bool
		if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, secretsName).Store(&has); err == nil && has {
			break
		}
		select {
		case <-signals:
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "gnome-keyring.log"))
			t.Fatalf("gnome-keyring-daemon exited (%v) before serving %s:\n%s", err, secretsName, log)
		case <-deadline:
			t.Fatalf("gnome-keyring-daemon did not take %s within 20s", secretsName)
		}
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	return addr
}

func stop(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
}
