// Package gangvector is a pod group's preemption on resource vectors (docs/decisions/0020
// and 0022): a model of a domain where a member fits where its static filters pass and
// its requests fit the room, which leaves only constraints out, so that its least
// disruptive set costs no more than the real one. Group preemption (pkg/preemption/group)
// searches it first and has its placement confirmed by the group's placer.
//
// Its Oracle is what the engine's VictimSearch drives: members counted node by node (one
// kind of member) or packed (several: pack.go), each branch bounded by the room the
// domain lacks in aggregate and node by node (bound.go); its node-by-node plan (PlanByNodes:
// nodeplan.go, with the dynamic program in nodeprogram.go and each node's options in
// nodeoptions.go) is the search's first set, or the decision when it is exact for the
// model. Its tests are group preemption's (pkg/preemption/group), which build the model
// from a cluster and a group.
package gangvector
