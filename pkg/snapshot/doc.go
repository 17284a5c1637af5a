// Package snapshot reads what the scheduler sees of a cluster (nodes, pods, namespaces,
// priority classes, disruption budgets, pod groups and composites, devices and volumes) and writes it as
// manifests that `phalanx simulate -f` reads back unchanged. It keeps only what
// scheduling reads, so a snapshot can be attached to a bug report: no environment,
// commands, managed fields, secrets' names or unrelated annotations (decision 21 says
// what is kept). Lists are paginated, and the output is in a fixed order: two snapshots of
// an unchanged cluster are byte for byte the same.
package snapshot
