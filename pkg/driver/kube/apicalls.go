package kube

// APICall is one kind of request the driver makes. The table below is the whole list:
// config/rbac grants exactly these and a test keeps the two in step, so a new call
// without its permission (or a permission nothing uses) fails `go test`.
type APICall struct {
	Group       string // API group, "" for core
	Resource    string
	Subresource string
	Verb        string
	// LeaderElection marks calls on the leader-election Lease, granted by a Role in the
	// Lease's namespace rather than the ClusterRole.
	LeaderElection bool
	// Why the driver makes it.
	Why string
}

// APICalls lists every request the kube driver makes.
var APICalls = []APICall{
	{Resource: "pods", Verb: "list", Why: "pod informer"},
	{Resource: "pods", Verb: "watch", Why: "pod informer"},
	{Resource: "nodes", Verb: "list", Why: "node informer"},
	{Resource: "nodes", Verb: "watch", Why: "node informer"},
	{Resource: "namespaces", Verb: "list", Why: "namespace informer (namespace selectors of affinity terms)"},
	{Resource: "namespaces", Verb: "watch", Why: "namespace informer"},
	{Group: "policy", Resource: "poddisruptionbudgets", Verb: "list", Why: "PDB informer (preemption)"},
	{Group: "policy", Resource: "poddisruptionbudgets", Verb: "watch", Why: "PDB informer"},
	{Group: "scheduling.k8s.io", Resource: "priorityclasses", Verb: "list", Why: "PriorityClass informer (PodGroup priorities)"},
	{Group: "scheduling.k8s.io", Resource: "priorityclasses", Verb: "watch", Why: "PriorityClass informer"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Verb: "list", Why: "PodGroup informer"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Verb: "watch", Why: "PodGroup informer"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Verb: "get", Why: "re-read a PodGroup after a status write conflict"},
	{Group: "scheduling.phalanx.dev", Resource: "podgroups", Subresource: "status", Verb: "update", Why: "PodGroupScheduled and DisruptionTarget conditions"},
	{Resource: "pods", Subresource: "binding", Verb: "create", Why: "bind a pod to its node"},
	{Resource: "pods", Verb: "get", Why: "read a pod back when its binding's outcome is unknown (a timeout after the request was sent)"},
	{Resource: "pods", Subresource: "status", Verb: "patch", Why: "PodScheduled and DisruptionTarget conditions, nominatedNodeName"},
	{Resource: "pods", Verb: "delete", Why: "delete preemption victims"},
	{Group: "events.k8s.io", Resource: "events", Verb: "create", Why: "Scheduled, FailedScheduling, Preempted events"},
	{Group: "events.k8s.io", Resource: "events", Verb: "patch", Why: "repeated events (event series)"},
	{Group: "coordination.k8s.io", Resource: "leases", Verb: "get", LeaderElection: true, Why: "leader election"},
	{Group: "coordination.k8s.io", Resource: "leases", Verb: "create", LeaderElection: true, Why: "leader election (first replica)"},
	{Group: "coordination.k8s.io", Resource: "leases", Verb: "update", LeaderElection: true, Why: "leader election (acquire, renew, release)"},
}
