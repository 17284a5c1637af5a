// Package sim is phalanx's simulator: the same scheduler, on an in-memory cluster, in
// virtual time. It takes a Scenario (pkg/admission: the objects of manifests as the API
// server admitted them) and plays it: each object created and deleted when its timeline
// annotations say, the scheduler's cycles run until nothing is ready, then the clock moves
// to the next event or scheduler timer. Around the scheduler it is the control plane: the
// API server the scheduler binds, patches and deletes through (pods.go, groups.go, and for
// storage and DRA objects objects.go), the kubelets (graceful termination, run times, pods
// bound to nodes that do not exist), and the controllers of pkg/controllers (workload
// models, PersistentVolume binding and provisioning, ResourceClaims, PDB status). A run's
// outcome is a report.Report (pkg/report); with invariant checks on, every decision is
// checked as it is made (invariants.go).
package sim
