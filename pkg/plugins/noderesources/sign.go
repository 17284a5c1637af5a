package noderesources

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/resource"
)

var (
	_ framework.SignPlugin = (*Fit)(nil)
	_ framework.SignPlugin = (*BalancedAllocation)(nil)
)

// requestsSignature is the pod's requests as the plugins read them: the positions requested
// and the amounts there.
type requestsSignature struct {
	Idx    []int8
	Amount []int64
}

func signRequests(p *framework.PodInfo) framework.SignFragment {
	sig := requestsSignature{Idx: p.RequestIdx, Amount: make([]int64, len(p.RequestIdx))}
	for i, r := range p.RequestIdx {
		sig.Amount[i] = p.Requests.Vector[r]
	}
	return framework.SignFragment{Key: framework.ResourcesSignerName, Value: sig}
}

// SignPod implements framework.SignPlugin (OpportunisticBatching): the verdicts and scores
// depend on the pod's requests only, unless it requests an extended resource a DeviceClass
// backs with devices (then DRA's allocations matter), as in kube-scheduler.
func (f *Fit) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if f.dra != nil {
		for _, i := range p.RequestIdx {
			if resource.IsScalar(int(i)) && p.Requests.Vector[i] != 0 && f.dra.ExtendedResourceClass(string(resource.Name(int(i)))) != nil {
				return nil, framework.NewStatus(framework.Unschedulable, "signature disabled when dra extended resources are used in the cluster")
			}
		}
	}
	return []framework.SignFragment{signRequests(p)}, nil
}

// SignPod implements framework.SignPlugin (OpportunisticBatching): the score depends on the
// pod's requests only.
func (pl *BalancedAllocation) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{signRequests(p)}, nil
}
