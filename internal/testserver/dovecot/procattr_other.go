//go:build !linux

package dovecot

import "syscall"

// procAttr puts Dovecot in its own process group for clean-up.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
