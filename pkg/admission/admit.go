package admission

import (
	"io"

	v1 "k8s.io/api/core/v1"

	"github.com/phalanx-dev/phalanx/pkg/manifest"
)

// ControlPlane says what the modelled control plane does besides what every cluster does.
type ControlPlane struct {
	// WorkloadWithJob: the Job controller makes a Workload and a PodGroup for each Job
	// (pkg/controllers/workload), as Kubernetes 1.37's does with the WorkloadWithJob gate on.
	WorkloadWithJob bool
}

// Admit makes one scenario of inputs, in order, admitting what a control plane would. A
// bad input is a manifest.InputErrors with every error found: the documents' that did not
// decode, and all of each admitted object's.
func Admit(cp ControlPlane, inputs ...*manifest.Input) (*Scenario, error) {
	return admitAfter(&Scenario{origin: map[any]manifest.Origin{}, controlPlane: cp}, inputs)
}

// AdmitOver makes one scenario of prior's nodes and pods, as prior admitted them, then
// inputs, in order, admitted as Admit admits them: the scenario Admit(cp, P, inputs...)
// would make of the input P that prior was made of, without defaulting and validating
// P's nodes and pods a second time (at 65,000 nodes and 260,000 pods that was most of
// admission's time). Only prior's nodes and pods are taken: prior's other objects
// (classes, groups, workloads with their controllers' models, storage and DRA objects)
// must be given again in inputs, as a copy of what prior was made of taken before prior
// was admitted, so that each scenario's controllers and groups are its own. prior must
// have been admitted without error, with the same cp.
//
// The two scenarios share the node and pod objects (the same pointers): a simulator
// copies a pod when it creates it (sim.Options.TakeOver says when it need not), so two
// runs, one after the other or at once, do not see each other's changes. prior's nodes
// and pods keep the names it generated for them (metadata.generateName), and the names
// generated for inputs' objects count on from prior's, where Admit of all would count
// in input order: so both scenarios give a pod of prior the same name.
func AdmitOver(cp ControlPlane, prior *Scenario, inputs ...*manifest.Input) (*Scenario, error) {
	sc := &Scenario{origin: make(map[any]manifest.Origin, len(prior.Nodes)+len(prior.Pods)), controlPlane: cp,
		Nodes: append([]*v1.Node(nil), prior.Nodes...), Pods: append([]*v1.Pod(nil), prior.Pods...),
		admittedNodes: len(prior.Nodes), admittedPods: len(prior.Pods), generatedNames: prior.generatedNames}
	for _, n := range prior.Nodes {
		sc.origin[n] = prior.origin[n]
	}
	for _, p := range prior.Pods {
		sc.origin[p] = prior.origin[p]
	}
	return admitAfter(sc, inputs)
}

// admitAfter adds inputs to sc, in order, and admits what sc has not admitted yet.
func admitAfter(sc *Scenario, inputs []*manifest.Input) (*Scenario, error) {
	for _, in := range inputs {
		sc.Warnings = append(sc.Warnings, in.Warnings...)
		sc.errs = append(sc.errs, in.Errors()...)
		origins := in.Origins()
		for i, obj := range in.Objects() {
			sc.add(obj, origins[i])
		}
	}
	sc.generateNames()
	// The documents that decoded are admitted even when others did not, so that one run
	// reports every error.
	if err := sc.admit(); err != nil {
		sc.errs.Sort()
		return nil, err
	}
	return sc, nil
}

// Load reads manifests (manifest.Decode) and admits their objects as a cluster's API
// server would.
func Load(paths []string, stdin io.Reader) (*Scenario, error) {
	in, err := manifest.Decode(paths, stdin)
	if err != nil {
		return nil, err
	}
	return Admit(ControlPlane{}, in)
}
