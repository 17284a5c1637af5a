// Package group is workload-aware preemption (KEP-5710): a pod group that fits nowhere
// preempts as a whole, on the engine of pkg/preemption (its units, Cost and VictimSearch):
//
//   - a group that needs one more member decides exactly as a pod, through the pod
//     evaluator (evaluator.go);
//   - one that needs several is placed in a domain, the cluster or a planned part of it
//     (plan.go) or each of its topology placements, ranked by a lower bound of their
//     disruption (placements.go, bound.go), with every candidate unit taken off
//     (domain.go);
//   - the victim search drives first the gang's model on resource vectors
//     (resources.go, over gangvector), then a simulation whose members are placed,
//     counted and confirmed by the group cycle's own placement, framework.GroupPlacer
//     (oracle.go);
//   - a decision names every member's node, checked with the victims gone before it is
//     acted on: never a useless or partial preemption.
package group
