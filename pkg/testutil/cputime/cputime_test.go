package cputime

import (
	"runtime"
	"testing"
)

// sink keeps the work from being optimised away.
var sink int

// CPU time never goes back, and work on the calling thread shows in both the process's and
// the thread's.
func TestCPUTimeCountsWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0, t0 := Process(), Thread()
	p, th := p0, t0
	for round := 0; round < 10_000 && (p == p0 || th == t0); round++ {
		for i := range 100_000 {
			sink += i
		}
		np, nt := Process(), Thread()
		if np < p || nt < th {
			t.Fatalf("CPU time went back: process %v to %v, thread %v to %v", p, np, th, nt)
		}
		p, th = np, nt
	}
	if p == p0 || th == t0 {
		t.Fatalf("work did not show: process %v to %v, thread %v to %v", p0, p, t0, th)
	}
}
