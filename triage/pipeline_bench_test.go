package triage

import "testing"

// BenchmarkPipelineFakeModelSteady is BenchmarkPipelineFakeModel over
// 400 threads (100 rounds of the fake's 50 ms answer at parallel 4), so
// that a pass's start and end weigh less: the steady-state rate. The
// bound is again 80 threads/s.
func BenchmarkPipelineFakeModelSteady(b *testing.B) { runPipelineBench(b, 400) }
