// Package cputime measures CPU time for the benchmarks: on a shared machine the wall clock
// measures the neighbours, the process's own CPU time much less so. It imports nothing of
// phalanx, so any package's tests can use it.
package cputime

import (
	"syscall"
	"time"
)

// rusageThread is getrusage's RUSAGE_THREAD (Linux): the calling thread.
const rusageThread = 1

// Process is the process's user and system CPU time so far, 0 where it is not available.
func Process() time.Duration { return of(syscall.RUSAGE_SELF) }

// Thread is the calling thread's user and system CPU time so far (lock the goroutine to
// its thread to measure a goroutine), 0 where it is not available.
func Thread() time.Duration { return of(rusageThread) }

func of(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
