//go:build !linux

package ui

// osThreadID is unknown off Linux: the load test's check that Update and
// View make no store call is then not made.
func osThreadID() int { return -1 }
