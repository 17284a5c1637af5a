package admission

import (
	"io"

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
	sc := &Scenario{origin: map[any]manifest.Origin{}, controlPlane: cp}
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
