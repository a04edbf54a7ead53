//go:build !unix

package config

import "os/exec"

// killGroupOnCancel is a no-op where process groups are unavailable; WaitDelay still
// bounds the wait.
func killGroupOnCancel(cmd *exec.Cmd) {}
