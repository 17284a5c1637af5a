// Command phalanx is a workload-aware Kubernetes scheduler. `phalanx run` schedules pods
// in a real cluster; `phalanx simulate` runs the same scheduler on an in-memory cluster
// built from manifests, in virtual time.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/phalanx-dev/phalanx/pkg/version"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailure  = 1 // the command ran into a problem (or found broken invariants)
	exitBadInput = 2 // bad flags, manifests or configuration
)

// usageError marks errors that are the caller's input.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// pluginName is the name kubectl finds a plugin by: `kubectl phalanx whatif -f job.yaml`
// runs kubectl-phalanx (this binary, copied or linked under that name) with "whatif -f
// job.yaml".
const pluginName = "kubectl-phalanx"

func main() {
	root := newRootCommand()
	if isPlugin(os.Args[0]) {
		// Help and usage say how it was called.
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl phalanx"}
	}
	err := root.Execute()
	if err == nil {
		os.Exit(exitOK)
	}
	// One problem a line (bad input lists every error found), each naming phalanx.
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintln(os.Stderr, "phalanx:", line)
	}
	var ue usageError
	var ee exitError
	switch {
	case errors.As(err, &ee):
		os.Exit(ee.code)
	case errors.As(err, &ue):
		os.Exit(exitBadInput)
	}
	os.Exit(exitFailure)
}

// isPlugin reports whether the binary runs as kubectl's plugin (kubectl-phalanx, or
// kubectl-phalanx.exe).
func isPlugin(argv0 string) bool {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	return base == pluginName
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "phalanx",
		Short: "A workload-aware Kubernetes scheduler for AI training, inference and batch",
		Long: `phalanx schedules pods, gangs and topology-constrained pod groups with priority
preemption that disrupts as little as it can.

  phalanx run        schedule pods in a real cluster (as a secondary scheduler)
  phalanx simulate   run the same scheduler on manifests, in virtual time
  phalanx snapshot   write what the scheduler sees of a cluster as manifests
  phalanx whatif     ask whether new workloads would schedule on a cluster, and at what cost`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints what `phalanx version` prints.
		Version: version.Get().String(),
	}
	root.SetVersionTemplate("phalanx {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newSimulateCommand(), newRunCommand(), newSnapshotCommand(), newWhatifCommand(), newVersionCommand())
	return root
}
