package volumebinding

import (
	"context"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// UtilizationShapePoint is a point of the scoring function: a volume's utilization in
// percent (0-100) to a score (0-10), kube-scheduler's VolumeBindingArgs.shape.
type UtilizationShapePoint struct {
	Utilization int32 `json:"utilization"`
	Score       int32 `json:"score"`
}

// defaultShape is kube-scheduler v1.37's with StorageCapacityScoring (beta, on): the more
// room a volume leaves beyond what the claim asks, the better the node.
var defaultShape = []UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}

// validateShape holds a shape to kube-scheduler's rules.
func validateShape(shape []UtilizationShapePoint) error {
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			return fmt.Errorf("shape[%d].utilization: Invalid value: %d: not in valid range [0, 100]", i, p.Utilization)
		}
		if p.Score < 0 || p.Score > 10 {
			return fmt.Errorf("shape[%d].score: Invalid value: %d: not in valid range [0, 10]", i, p.Score)
		}
		if i > 0 && p.Utilization <= shape[i-1].Utilization {
			return fmt.Errorf("shape[%d].utilization: Invalid value: %d: utilization values must be sorted in increasing order", i, p.Utilization)
		}
	}
	return nil
}

// PreScore skips scoring when the pod has no claim to bind in this cycle: every node
// would score 0, as in kube-scheduler.
func (pl *VolumeBinding) PreScore(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	if s, _ := cs.Read(stateKey).(*stateData); s == nil || len(s.unbound) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	return nil
}

// Score rates a node by the volumes the pod's unbound claims would be matched to there
// (kube-scheduler's StorageCapacityScoring): per storage class, the claims' requests
// over the volumes' capacity through the shape, averaged over the classes. On a node
// where no claim is matched, the claims to provision are rated the same way by the
// CSIStorageCapacity that admitted each (its capacity, per class the last claim's;
// claims checked against none are left out), as kube-scheduler does.
func (pl *VolumeBinding) Score(_ context.Context, cs *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	s, _ := cs.Read(stateKey).(*stateData)
	if s == nil {
		return 0, nil
	}
	s.mu.Lock()
	b := s.perNode[n.Name]
	s.mu.Unlock()
	if b == nil {
		return 0, nil
	}
	vols := pl.h.Snapshot().Volumes()
	type usage struct{ requested, capacity int64 }
	byClass := map[string]*usage{}
	if len(b.static) == 0 {
		for _, p := range b.provisioned {
			if p.capacity == nil {
				continue
			}
			u := byClass[p.class]
			if u == nil {
				u = &usage{}
				byClass[p.class] = u
			}
			// Not a sum: two claims of a class share one capacity.
			u.capacity = 0
			if c := p.capacity.Capacity; c != nil {
				u.capacity = c.Value()
			}
			u.requested += p.request
		}
	}
	for key, pvName := range b.static {
		pvc, pv := vols.PVC(key), vols.PV(pvName)
		if pvc == nil || pv == nil {
			continue
		}
		u := byClass[pv.Spec.StorageClassName]
		if u == nil {
			u = &usage{}
			byClass[pv.Spec.StorageClassName] = u
		}
		req := pvc.Spec.Resources.Requests[v1.ResourceStorage]
		capacity := pv.Spec.Capacity[v1.ResourceStorage]
		u.requested += req.Value()
		u.capacity += capacity.Value()
	}
	if len(byClass) == 0 {
		return 0, nil
	}
	var sum int64
	for _, u := range byClass {
		sum += pl.shapeScore(u.requested, u.capacity)
	}
	return int64(math.Round(float64(sum) / float64(len(byClass)))), nil
}

// ScoreExtensions returns nil: scores are already 0-100.
func (*VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }

// shapeScore evaluates the shape, piecewise linear, at the utilization requested/capacity
// (full when the capacity is unknown or too small), scaling shape scores to node scores.
func (pl *VolumeBinding) shapeScore(requested, capacity int64) int64 {
	util := int64(100)
	if capacity != 0 && requested <= capacity {
		util = requested * 100 / capacity
	}
	scale := framework.MaxNodeScore / 10
	shape := pl.shape
	for i, p := range shape {
		if util <= int64(p.Utilization) {
			if i == 0 {
				return int64(p.Score) * scale
			}
			q := shape[i-1]
			x0, y0 := int64(q.Utilization), int64(q.Score)*scale
			return y0 + (int64(p.Score)*scale-y0)*(util-x0)/(int64(p.Utilization)-x0)
		}
	}
	return int64(shape[len(shape)-1].Score) * scale
}
