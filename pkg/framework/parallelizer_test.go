package framework

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestParallelizerUntilVisitsEachIndexOnce(t *testing.T) {
	// Room for several workers even on a small machine, so the chunked path is exercised.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(8, runtime.GOMAXPROCS(0))))
	for _, workers := range []int{-1, 1, 2, 4, 16} {
		p := NewParallelizer(workers)
		for pieces := 0; pieces <= 1000; pieces++ {
			visits := make([]atomic.Int32, pieces)
			var total atomic.Int32
			p.Until(context.Background(), pieces, func(i int) {
				visits[i].Add(1)
				total.Add(1)
			})
			if int(total.Load()) != pieces {
				t.Fatalf("workers %d, pieces %d: %d calls", workers, pieces, total.Load())
			}
			for i := range visits {
				if n := visits[i].Load(); n != 1 {
					t.Fatalf("workers %d, pieces %d: index %d visited %d times", workers, pieces, i, n)
				}
			}
		}
	}
}

func TestParallelizerUntilNegativePieces(t *testing.T) {
	NewParallelizer(4).Until(context.Background(), -5, func(int) { t.Error("fn called for negative pieces") })
}

func TestParallelizerUntilCancelled(t *testing.T) {
	for _, pieces := range []int{1, 10, 31, 32, 100, 10000} {
		for _, workers := range []int{1, 4} {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var calls atomic.Int32
			NewParallelizer(workers).Until(ctx, pieces, func(int) { calls.Add(1) })
			if calls.Load() != 0 {
				t.Errorf("pieces %d workers %d: %d calls after cancellation", pieces, workers, calls.Load())
			}
		}
	}
}

// Cancelling from inside fn stops the work at the next chunk: each worker may finish the
// chunk it holds, and no more.
func TestParallelizerUntilCancelledMidway(t *testing.T) {
	const pieces = 10000
	for _, workers := range []int{1, 2, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int32
		NewParallelizer(workers).Until(ctx, pieces, func(int) {
			calls.Add(1)
			cancel()
		})
		cancel()
		// Chunks are max(16, pieces/(4*workers)), so workers chunks are at most a quarter.
		if n := calls.Load(); n < 1 || n > pieces/4 {
			t.Errorf("workers %d: %d calls after cancelling at the first, want between 1 and %d", workers, n, pieces/4)
		}
	}
}

func TestNewParallelizerBounds(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	tests := []struct{ in, want int }{
		{-3, 1},
		{0, 1},
		{1, 1},
		{procs, procs},
		{procs + 100, procs},
	}
	for _, tt := range tests {
		if got := NewParallelizer(tt.in).workers; got != tt.want {
			t.Errorf("NewParallelizer(%d).workers = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// The zero Parallelizer works, on one goroutine.
func TestZeroParallelizer(t *testing.T) {
	var p Parallelizer
	seen := make([]int, 100)
	p.Until(context.Background(), len(seen), func(i int) { seen[i]++ })
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("piece %d visited %d times", i, n)
		}
	}
}
