package volumebinding

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

// TestScore: with kube-scheduler v1.37's default shape (StorageCapacityScoring), a node
// scores by the room its matched volumes leave: a 5Gi claim on a 20Gi volume uses 25%
// (score 75), on a 5Gi one 100% (score 0); a claim to provision scores 0 everywhere, and a
// pod with no claim to bind is not scored.
func TestScore(t *testing.T) {
	c, pl, _ := setup(t)
	claim := testutil.PVC("data", "")
	claim.Spec.StorageClassName = ptr("local")
	claim.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse("5Gi")
	c.Storage().SetPVC(claim)
	c.Storage().SetPV(localPV("pv-big", "n1", "20Gi", "local"))
	c.Storage().SetPV(localPV("pv-exact", "n2", "5Gi", "local"))
	provisioned := testutil.PVC("scratch", "")
	c.Storage().SetPVC(provisioned)

	scores := func(pod *v1.Pod) (map[string]int64, bool) {
		t.Helper()
		p := framework.NewPodInfo(pod)
		cs := framework.NewCycleState()
		ctx := context.Background()
		if _, st := pl.PreFilter(ctx, cs, p); !st.IsSuccess() && !st.IsSkip() {
			t.Fatal(st)
		}
		nodes := c.NodeInfos()
		for _, n := range nodes {
			if st := pl.Filter(ctx, cs, p, n); !st.IsSuccess() {
				t.Fatalf("Filter %s: %v", n.Name, st)
			}
		}
		if st := pl.PreScore(ctx, cs, p, nodes); st.IsSkip() {
			return nil, false
		}
		out := map[string]int64{}
		for _, n := range nodes {
			s, st := pl.Score(ctx, cs, p, n)
			if !st.IsSuccess() {
				t.Fatal(st)
			}
			out[n.Name] = s
		}
		return out, true
	}
	if got, _ := scores(testutil.Pod("p").PVC("data").Obj()); got["n1"] != 75 || got["n2"] != 0 {
		t.Errorf("matched volumes: %v, want n1 75 and n2 0", got)
	}
	if got, _ := scores(testutil.Pod("p").PVC("scratch").Obj()); got["n1"] != 0 || got["n2"] != 0 {
		t.Errorf("a claim to provision: %v, want 0 on both", got)
	}
	if got, scored := scores(testutil.Pod("p").Obj()); scored {
		t.Errorf("no claim: scored %v, want PreScore to skip", got)
	}
}

func TestShapeArgs(t *testing.T) {
	for _, tc := range []struct {
		args, err string
	}{
		{args: `{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}`},
		{args: `{"shape":[{"utilization":120,"score":0}]}`, err: "shape[0].utilization"},
		{args: `{"shape":[{"utilization":50,"score":1},{"utilization":50,"score":2}]}`, err: "increasing order"},
		{args: `{"shape":[{"utilization":0,"score":11}]}`, err: "shape[0].score"},
	} {
		_, err := New(json.RawMessage(tc.args), &testutil.Handle{})
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error with %q", tc.args, err, tc.err)
		}
	}
}
