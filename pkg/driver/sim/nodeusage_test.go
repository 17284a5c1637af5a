package sim

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// The simulator's own account of the nodes (nodeUsage) is kept for the invariant checks
// alone: with them, a node over-committed by pods created bound to it is reported; without
// them the run reports the same pods, no violation, and keeps no account.
func TestNodeUsageOnlyWithInvariants(t *testing.T) {
	const cluster = `
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: default}
spec:
  nodeName: n1
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: default}
spec:
  nodeName: n1
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
`
	run := func(check bool) (*Simulator, []string, string) {
		in, err := manifest.Decode([]string{"-"}, strings.NewReader(cluster))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := admission.Admit(admission.ControlPlane{}, in)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(sc, Options{CheckInvariants: check})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		violations := r.Violations
		r.Violations = nil
		b, err := json.Marshal(r.Pods)
		if err != nil {
			t.Fatal(err)
		}
		return s, violations, string(b)
	}
	_, checked, withChecks := run(true)
	if len(checked) != 1 || !strings.Contains(checked[0], "node n1 over-committed (cpu 3 of 2) after binding default/b") {
		t.Errorf("with invariants: violations %q, want node n1 over-committed by default/b", checked)
	}
	s, unchecked, without := run(false)
	if len(unchecked) != 0 {
		t.Errorf("without invariants: violations %q, want none", unchecked)
	}
	if without != withChecks {
		t.Errorf("the pods reported differ without invariants:\n got %s\nwant %s", without, withChecks)
	}
	if s.nodeUsage != nil {
		t.Errorf("without invariants the simulator kept an account of %d nodes", len(s.nodeUsage))
	}
}
