// Package testproc holds helpers for tests that look at a test process
// itself: a child running the test binary's own helper test (for tests
// that kill a process mid-work and check what it left behind) and the heap
// bytes a piece of work allocates (for tests that bound work by memory,
// not by the clock).
package testproc

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Run runs this test binary's test name (a helper that does nothing unless
// its environment says so) with env added to the environment, waits for it
// to end (a minute at most, else the test fails) and returns its process
// state and what it wrote to stderr.
func Run(t testing.TB, name string, env ...string) (*os.ProcessState, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$")
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	guard := time.NewTimer(60 * time.Second)
	defer guard.Stop()
	select {
	case <-done:
	case <-guard.C:
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not end; stderr:\n%s", name, stderr.String())
	}
	return cmd.ProcessState, stderr.String()
}

// KilledBySIGKILL reports whether the process ended on SIGKILL.
func KilledBySIGKILL(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// AllocatedBytes returns how many bytes the heap allocated while f ran.
func AllocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
