//go:build unix

package kube

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// compareOnSignal runs the cache comparison on every SIGUSR2, as kube-scheduler does,
// until ctx ends.
func (d *Driver) compareOnSignal(ctx context.Context) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR2)
	defer signal.Stop(ch)
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
			_, _ = d.logComparison(ctx)
		}
	}
}
