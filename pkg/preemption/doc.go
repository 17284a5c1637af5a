// Package preemption is phalanx's preemption engine, and the preemption of a pod that
// fits nowhere (DefaultPreemption's evaluator): it finds where removing lower-priority
// work would let the preemptor in, and the least disruptive set of victims there, as the
// Pod Preemption design and KEP-5710 specify. A pod group's preemption drives the same
// engine from pkg/preemption/group.
//
// The engine, shared by both:
//
//   - victims are units (Unit, made by a UnitIndex): a pod, or a whole PodGroup of
//     disruption mode All; only units of lower priority than the preemptor (a pod in a
//     group has its group's priority, VictimPriority) are victims; pods already leaving
//     count as gone and are nobody's victims;
//   - every decision is compared by one Cost: budget violations, highest victim priority,
//     sum of (shifted) priorities, number of victims, then the least important top
//     victim (single pod before group, lower QoS, later start); ties between nodes go to
//     the node name;
//   - the victims of a domain (a node for a pod; the cluster, a planned subset of it, or a
//     topology placement for a group) are found by a VictimSearch: exact branch and bound
//     when the domain has few candidate units, else the design's greedy reprieval (budget
//     violators put back first, then the most important), driving an Oracle that says
//     whether the preemptor still fits as units are put back (search.go, roombound.go);
//   - a BestEffort pod that frees nothing but its pod slot keeps the slot when it is taken
//     off (SlotHolders, framework.SlotHolder): it is never a victim for resources, only
//     for reasons such as anti-affinity or spreading, and then in priority order.
//
// A pod's preemption (Evaluator) searches candidate nodes, each with its own oracle: the
// pod's filters on the node (node.go), or resource vectors for a node rejected only for
// resources, whose winner is then checked by simulation (fastpath.go). When other pods
// block a node (anti-affinity, spreading), pods on other nodes can be victims too
// (cross-node preemption).
//
// Simulations run on the scheduler's cache under checkpoints, and are rolled back.
package preemption
