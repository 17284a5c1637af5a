// Package preemption is phalanx's preemption engine: given a pod that fits nowhere, it
// finds where removing lower-priority pods would let it in, and the fewest and least
// important pods to remove there, as the Pod Preemption design specifies:
//
//   - only pods of lower priority are victims; pods already leaving (deleted, or chosen by
//     an earlier preemption) count as gone and are not victims again;
//   - importance is priority, then QoS class (Guaranteed > Burstable > BestEffort), then
//     start time (earlier is more important);
//   - a BestEffort pod is never a victim for resources (it frees none), only for reasons
//     such as anti-affinity;
//   - victims whose eviction would violate a PodDisruptionBudget are reprieved first, then
//     the others, most important first, each kept whenever the preemptor still fits;
//   - when other pods block a node (anti-affinity, spreading), pods on other nodes of the
//     domain can be victims too (cross-node preemption);
//   - among candidate nodes: fewest PDB violations, lowest highest victim priority, lowest
//     sum of priorities, fewest victims, latest start of the highest-priority victims, then
//     a seeded tie-break.
//
// Simulations run on the scheduler's cache under a checkpoint, and are rolled back.
package preemption
