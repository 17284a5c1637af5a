// Package placement places a pod group's pending members on the snapshot: the group
// cycle's algorithm, which workload-aware preemption uses too, so that both decide alike.
//
//   - Members are placed one after the other, the largest first, each seeing those placed
//     before it (Reserve records its devices and volumes); when that leaves the group
//     short, a bounded backtracking search tries other assignments (members.go,
//     backtrack.go).
//   - Members that are alike (AlikeKey) are interchangeable: one that fits nowhere rules
//     out the others, and the search never tries the same assignment under other names.
//   - Capacity bounds, on resource vectors alone, how many members a set of nodes can take,
//     so that domains too small are ruled out before any pod-level work.
//   - With placements (KEP-5732), Search prunes them by capacity, places the group in the
//     others rank by rank, scores the feasible ones and keeps the best; a failure is
//     explained and the placements are handed to preemption, best first.
//
// It reaches the scheduler through one narrow interface, PodFit: filter, score and
// reserve one pod on the snapshot, the candidate nodes passed in. Every call changes the
// snapshot; the caller owns a checkpoint and rolls it back.
package placement
