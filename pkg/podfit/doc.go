// Package podfit finds where one pod fits: PreFilter and Filter over the cache's nodes
// (static verdicts cached per pod-spec key and node, dynamic filters run in parallel
// batches, stopping at kube-scheduler's adaptive number of feasible nodes), then Score and
// the choice of the best node. The pod cycle uses it for every pod; group placement
// (pkg/placement) uses it for every member, with the candidate nodes of a domain passed
// in. It is pure, and runs on the scheduling loop only.
package podfit
