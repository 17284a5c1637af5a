package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/phalanx-dev/phalanx/pkg/snapshot"
)

type snapshotOptions struct {
	kube      kubeFlags
	out       string
	namespace string
	selector  string
	pageSize  int64
}

func newSnapshotCommand() *cobra.Command {
	o := &snapshotOptions{}
	cmd := &cobra.Command{
		Use:   "snapshot [--kubeconfig FILE] [--context NAME] [-o FILE|DIR]",
		Short: "Write what the scheduler sees of a cluster as manifests `phalanx simulate -f` reads back",
		Long: `snapshot lists the nodes, pods (bound and pending), namespaces, PriorityClasses,
PodDisruptionBudgets, PodGroups and CompositePodGroups (phalanx's and Kubernetes' own, with
their Workloads), devices (DeviceClasses, ResourceSlices, DeviceTaintRules,
ResourceClaims and their templates), volumes (PersistentVolumes and their claims, StorageClasses, CSINodes,
CSIDrivers, CSIStorageCapacities, VolumeAttachments of PersistentVolumes)
and queued Jobs (suspended, as Kueue holds them: ` + "`phalanx whatif --admit`" + ` asks about one)
of the cluster kubectl would talk to (kubectl's flags and loading rules: --kubeconfig, else
$KUBECONFIG, else ~/.kube/config, with --context, --cluster, --user, --server ...; the
cluster it runs in only when none names one), keeps only what scheduling reads
(no environment, commands, managed fields, secrets' names or unrelated annotations), and
writes them in a fixed order: two snapshots of an unchanged cluster are byte for byte the
same. A pod being deleted is written to go at once with the grace period it has left.

-o FILE writes one file, -o DIR/ (or an existing directory) one file per group of kinds,
and no -o writes to stdout. Progress goes to stderr. It only lists: the ClusterRole of
config/snapshot/cluster-role.yaml is all it needs.

Exit status: 0 when written, 2 for bad flags, 1 when the cluster could not be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	o.kube.bind(f)
	f.StringVarP(&o.out, "output", "o", "", "file, or directory (ending in / or existing), to write to (default: stdout)")
	f.StringVarP(&o.namespace, "namespace", "n", "", "only the pods of this namespace, and its queued Jobs (other pods are left out, so nodes look emptier)")
	f.StringVarP(&o.selector, "selector", "l", "", "only the pods with these labels (a label selector)")
	f.Int64Var(&o.pageSize, "page-size", snapshot.DefaultPageSize, "objects per list request")
	return cmd
}

func (o *snapshotOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.pageSize <= 0 {
		return usageError{fmt.Errorf("--page-size %d: must be positive", o.pageSize)}
	}
	snap, err := takeSnapshot(ctx, &o.kube, snapshot.Options{Namespace: o.namespace, Selector: o.selector, PageSize: o.pageSize, Progress: stderr})
	if err != nil {
		return err
	}
	switch {
	case o.out == "" || o.out == "-":
		return snap.Write(stdout)
	case strings.HasSuffix(o.out, "/") || isDir(o.out):
		if err := snap.WriteDir(o.out); err != nil {
			return err
		}
	default:
		f, err := os.Create(o.out)
		if err != nil {
			return usageError{err}
		}
		if err := snap.Write(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "wrote %s: %d nodes, %d pods", o.out, len(snap.Nodes), len(snap.Pods))
	if n := len(snap.QueuedJobs); n > 0 {
		fmt.Fprintf(stderr, ", %d queued Job(s)", n)
	}
	fmt.Fprintln(stderr)
	return nil
}

// takeSnapshot reads the cluster kubectl's flags and loading rules name (or the one the
// process runs in).
func takeSnapshot(ctx context.Context, kube *kubeFlags, opts snapshot.Options) (*snapshot.Snapshot, error) {
	rc, err := kube.restConfig()
	if err != nil {
		return nil, usageError{err}
	}
	src, err := snapshot.NewSource(rc)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", rc.Host, err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	snap, err := snapshot.Take(ctx, src, opts)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rc.Host, err)
	}
	return snap, nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
