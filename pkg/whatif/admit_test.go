package whatif

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// otherJob is a Job of the cluster that is not queued: it runs (no pods, to keep the
// cluster as it is).
const otherJob = `
---
apiVersion: batch/v1
kind: Job
metadata: {name: other, namespace: ml}
spec:
  parallelism: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: trainer}]
`

// queuedCluster is testdata's cluster with gang-job.yaml's PodGroup and Job in it, the
// Job suspended as Kueue holds a Job it has not admitted yet, and a running Job.
func queuedCluster(t *testing.T) *manifest.Input {
	t.Helper()
	var all strings.Builder
	for _, f := range []string{"cluster.yaml", "gang-job.yaml"} {
		data, err := os.ReadFile(filepath.Join(testdata, f))
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString("\n---\n")
		all.Write(data)
	}
	y := strings.Replace(all.String(), "  completionMode: Indexed\n", "  completionMode: Indexed\n  suspend: true\n", 1)
	if y == all.String() {
		t.Fatal("gang-job.yaml has no completionMode line to suspend the Job after")
	}
	cluster, err := manifest.Decode([]string{"-"}, strings.NewReader(y+otherJob))
	if err != nil {
		t.Fatal(err)
	}
	return cluster
}

// A queued Job asked about with Admit gets the answer the same Job gets as a new object
// (TestAnswer's train): its gang takes rack r1 after its victims' grace period. Without
// it, it makes no pods: the baseline has only the cluster's.
func TestAdmitQueuedJob(t *testing.T) {
	rest, admitted, err := Admit(queuedCluster(t), []string{"ml/train"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(admitted.Objects()); n != 1 {
		t.Fatalf("%d objects admitted, want the Job", n)
	}
	a, runs, err := Ask(context.Background(), rest, admitted, Options{Sim: sim.Options{CheckInvariants: true}})
	if err != nil {
		t.Fatal(err)
	}
	train := findWorkload(t, a, "Job", "train")
	if !a.AllSchedule || !train.Schedules || train.Bound != 2 || train.PodGroup != "train" || *train.StartsAt != 30 ||
		len(train.Domains) == 0 || train.Domains[0].Key != "example.com/rack" || strings.Join(train.Domains[0].Values, ",") != "r1" || len(train.Preempts) == 0 {
		t.Errorf("train admitted now: %+v", train)
	}
	for _, p := range runs.Baseline.Pods {
		if strings.HasPrefix(p.Name, "train-") {
			t.Errorf("the baseline has the queued Job's pod %s", p.Name)
		}
	}
	if len(a.Violations) > 0 {
		t.Errorf("invariants broken: %v", a.Violations)
	}
}

// What Admit refuses, naming --admit and the Job.
func TestAdmitRefuses(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"ml/nope"}, "--admit (Job ml/nope): no such Job in the cluster"},
		{[]string{"train"}, "--admit (Job default/train): no such Job in the cluster"},
		{[]string{"ml/other"}, "--admit (Job ml/other): not suspended: it is not waiting in a queue"},
		{[]string{"ml/train/x"}, `--admit: "ml/train/x": want NAMESPACE/NAME`},
		{[]string{"/train"}, `--admit: "/train": want NAMESPACE/NAME`},
	} {
		_, _, err := Admit(queuedCluster(t), tc.names)
		var ie *manifest.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Admit(%v): %v, want an input error with %q", tc.names, err, tc.want)
		}
	}
}
