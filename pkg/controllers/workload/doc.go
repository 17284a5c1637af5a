// Package workload models Kubernetes' workload controllers: which pods (and claims)
// the Job, ReplicaSet, Deployment and StatefulSet controllers and JobSet's controller make
// from a workload, with which names, labels and owners, and when: at creation, as pods
// succeed, and in place of pods that are preempted or deleted. It is pure: the simulator
// hosts the controllers, creates what they ask for and tells them what happens to their
// pods.
//
// Names that Kubernetes generates at random (a Job's pods, a ReplicaSet's) are generated
// here from a hash of the workload and a counter, so that a simulation repeats byte for
// byte.
//
// Its siblings under pkg/controllers model the control plane's other controllers the
// simulator runs: volume (PersistentVolume binding, a provisioner, ephemeral volumes),
// resourceclaim (ResourceClaims made from templates and released) and disruption
// (PodDisruptionBudget status).
package workload
