//go:build !unix

package kube

import "context"

// compareOnSignal does nothing where there is no SIGUSR2.
func (d *Driver) compareOnSignal(context.Context) {}
