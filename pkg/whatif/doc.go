// Package whatif answers "will this schedule, where, when, and what would it preempt?"
// for new workloads on a cluster: it runs the cluster (a snapshot) forward in the
// simulator twice, without the new objects and with them arriving now, and compares. It
// drives the simulator (pkg/driver/sim), which stays the one engine; it never writes to
// a cluster.
package whatif
