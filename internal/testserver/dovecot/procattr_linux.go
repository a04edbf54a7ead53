package dovecot

import "syscall"

// procAttr puts Dovecot in its own process group for clean-up and has
// it terminated if the test binary dies (go test -timeout), so no
// daemon outlives the test.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
