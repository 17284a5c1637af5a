// Package preemption is phalanx's preemption engine: given a pod or a pod group that fits
// nowhere, it finds where removing lower-priority work would let it in, and the least
// disruptive set of victims there, as the Pod Preemption design and KEP-5710 specify:
//
//   - victims are units: a pod, or a whole PodGroup of disruption mode All; only units of
//     lower priority than the preemptor (a pod in a group has its group's priority) are
//     victims; pods already leaving count as gone and are nobody's victims;
//   - every decision is compared by one Cost: budget violations, highest victim priority,
//     sum of (shifted) priorities, number of victims, then the least important top
//     victim (single pod before group, lower QoS, later start); ties between nodes go to
//     the node name;
//   - the victims of a domain (a node for a pod; the cluster, a planned subset of it, or a
//     topology placement for a group) are found by VictimSearch: exact branch and bound
//     when the domain has few candidate units, else the design's greedy reprieval (budget
//     violators put back first, then the most important), driving an oracle that says
//     whether the preemptor still fits (search.go, node.go, fastpath.go,
//     grouporacle.go);
//   - a BestEffort pod that frees nothing but its pod slot keeps the slot when it is taken
//     off (framework.SlotHolder): it is never a victim for resources, only for reasons such
//     as anti-affinity or spreading, and then in priority order;
//   - when other pods block a node (anti-affinity, spreading), pods on other nodes of the
//     domain can be victims too (cross-node preemption);
//   - a group that needs one more member decides exactly as a pod; a group's members are
//     placed, counted and confirmed by the group cycle's own placement
//     (framework.GroupPlacer), and its decision names every member's node, checked before
//     it is acted on.
//
// Simulations run on the scheduler's cache under checkpoints, and are rolled back.
package preemption
