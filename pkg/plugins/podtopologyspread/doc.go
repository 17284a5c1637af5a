// Package podtopologyspread is the PodTopologySpread plugin with kube-scheduler v1.36's
// semantics: Filter enforces the pod's DoNotSchedule constraints (skew against the global
// minimum, minDomains, nodeAffinityPolicy and nodeTaintsPolicy, matchLabelKeys merged into
// the selector), Score prefers nodes that keep its ScheduleAnyway constraints balanced, and
// pods without constraints of their own get the configured default constraints.
//
// # Counting
//
// Upstream counts, for every node, the pods on it that match a constraint. Here each
// constraint's counts are kept from cycle to cycle (kept.go, decision 75): per namespace,
// selector and the nodes that count, they are counted once by walking the matching pods
// through the snapshot's label index (Snapshot.ForEachPodMatching), then caught up with the
// changes since to the pods carrying one label the selector requires
// (Snapshot.LabelChangesSince: pods added, removed, simulated, rolled back, marked
// terminating or no longer), with the same rule. Selectors requiring no single label value
// are walked every time. As upstream: only pods
// in the incoming pod's namespace count; pods being deleted (PodInfo.Terminating) do not;
// pods count only on nodes that are eligible for the constraint, that is nodes carrying
// every topology key of the pod's constraints (of the same kind, hard or soft) and passing
// the constraint's node inclusion policies (nodeAffinityPolicy, default Honor: the pod's
// nodeSelector and required node affinity; nodeTaintsPolicy, default Ignore: the node's
// NoSchedule and NoExecute taints the pod does not tolerate). A domain exists for a
// constraint when an eligible node carries its value. A constraint with an empty selector
// (labelSelector {}) counts no pod, although the incoming pod matches it, as upstream.
//
// Which node is in which domain, per topology key, is kept across cycles in a small index
// that is rebuilt only when the node list or a node's topology labels change; node objects
// are treated as immutable (a changed node is a new object), as informers deliver them.
// The node-dependent answers of the inclusion policies are memoised until a node changes:
// nodeAffinityPolicy's per node selection (nodeSelector and required node affinity, up to
// 64 of them, so that pods of several selections interleaved do not match every node's
// labels per pod), nodeTaintsPolicy's for the last tolerations seen; and so is which
// domains exist. A cycle thus costs O(changes since the constraint's last use) for its
// counts, O(nodes) pointer comparisons to check the index is current, and O(domains) for
// the minimum;
// Filter costs a map lookup and a few array reads per node and allocates nothing on
// success.
//
// # Default constraints
//
// Args.DefaultingType "System" (the default) applies kube-scheduler's system defaults
// (hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway); "List" applies
// Args.DefaultConstraints exactly as upstream does (their whenUnsatisfiable, minDomains and
// inclusion policies are honoured; a default constraint's matchLabelKeys has no effect,
// since upstream replaces the selector). Defaults apply only to pods with no
// topologySpreadConstraints at all.
//
// Upstream selects, for a defaulted pod, the pods matched by the union of the selectors of
// the Services selecting the pod and of its controlling ReplicationController, ReplicaSet
// or StatefulSet. Phalanx has no listers for those objects, so the selector is derived
// from the pod itself instead:
//
//   - only pods whose controller ownerReference is a v1 ReplicationController, an apps/v1
//     ReplicaSet or an apps/v1 StatefulSet get defaults (the same kinds upstream looks up;
//     other pods, notably pods selected only by a Service, get none);
//   - the selector requires all the pod's labels, except the ones a StatefulSet controller
//     stamps per pod or per revision (controller-revision-hash,
//     statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index), which are never
//     part of a StatefulSet's selector and would make every pod select only itself.
//
// pod-template-hash is kept, deliberately: the Deployment controller adds it to the
// ReplicaSet's selector, so upstream too counts only the pods of the same ReplicaSet
// (dropping it would mix revisions during a rollout, and only when their other template
// labels happen to agree). A controller's selector is a subset of its pods' template
// labels, so the derived selector matches the same pods as upstream's whenever replicas
// share their template labels, which is how these controllers create them; a label that a
// webhook sets per pod would narrow it.
//
// # Deviations from upstream
//
//   - AddPod and RemovePod apply the same counting rule as PreFilter (namespace, selector,
//     eligible node, not terminating, empty selectors count nothing), so that they are exact
//     inverses and leave the state equal to a fresh PreFilter; upstream's updateWithPod
//     skips neither terminating pods nor empty selectors.
//   - The global minimum is kept exact under AddPod and RemovePod (upstream tracks two
//     "critical paths", which can overstate the minimum once several pods were added).
//   - Default constraints select from the pod's own labels, see above.
//   - No queueing hints: EventsToRegister lists the event kinds upstream registers for
//     bound pods and nodes; for pending pods only those that can matter without a hint.
package podtopologyspread
