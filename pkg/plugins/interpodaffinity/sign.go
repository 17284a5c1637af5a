package interpodaffinity

import (
	"context"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

var _ framework.SignPlugin = (*InterPodAffinity)(nil)

// SignPod implements framework.SignPlugin (OpportunisticBatching). A pod with affinity or
// anti-affinity terms cannot be signed (its verdicts depend on other pods' placements).
// Otherwise the pod's labels matter (other pods' terms may select it), unless
// ignorePreferredTermsOfExistingPods makes them irrelevant to scoring, as in kube-scheduler.
func (pl *InterPodAffinity) SignPod(_ context.Context, p *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if a := p.Pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with InterPodAffinity are not signable")
	}
	if pl.args.IgnorePreferredTermsOfExistingPods {
		return nil, nil
	}
	return []framework.SignFragment{{Key: framework.LabelsSignerName, Value: p.Pod.Labels}}, nil
}
