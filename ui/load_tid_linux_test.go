package ui

import "syscall"

// osThreadID is the calling OS thread's id: the load test's driving
// goroutine is locked to its thread, so a store call on that thread was
// made by Update or View themselves, not by a command.
func osThreadID() int { return syscall.Gettid() }
