package sim_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim/simtest"
)

// Each replacement a controller makes replaces a pod of its own: a Job whose two pods are
// preempted together backs off once (20 s, from the latest failure) and then makes both
// pods again; one replaces each victim (issue 28: both were said to replace the latest
// failure, so what-if showed the other victim as never replaced).
func TestReplacementsReplaceOneVictimEach(t *testing.T) {
	const manifests = `apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      priority: 100
      restartPolicy: Never
      containers: [{name: c, image: worker, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: urgent, annotations: {sim.phalanx.dev/create-at: 10s}}
spec: {priority: 10000, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
`
	sc, err := admission.Load([]string{"-"}, strings.NewReader(manifests))
	if err != nil {
		t.Fatal(err)
	}
	_, r := simtest.Run(t, sc, sim.Options{Until: 5 * time.Minute})
	var victims, replaced []string
	deleted := map[string]float64{}
	for _, p := range r.Pods {
		if p.PreemptedBy != nil && p.DeletedAt != nil {
			victims = append(victims, p.Name)
			deleted[p.Name] = *p.DeletedAt
		}
	}
	for _, p := range r.Pods {
		if p.Replaces == "" {
			continue
		}
		replaced = append(replaced, p.Replaces)
		if p.CreatedAt == nil || *p.CreatedAt != deleted[p.Replaces]+20 {
			t.Errorf("%s replaces %s (deleted at %v) made at %v, want 20 s later", p.Name, p.Replaces, deleted[p.Replaces], p.CreatedAt)
		}
	}
	slices.Sort(victims)
	slices.Sort(replaced)
	if len(victims) != 2 || !slices.Equal(victims, replaced) {
		t.Errorf("victims %v, replaced %v: want one replacement for each of two victims", victims, replaced)
	}
}
