package admission

import (
	"fmt"

	"github.com/phalanx-dev/phalanx/pkg/manifest"
	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// admitRuntimeClasses checks the RuntimeClasses and returns them by name.
func (sc *Scenario) admitRuntimeClasses(unique func(any, string) error) map[string]*nodev1.RuntimeClass {
	out := map[string]*nodev1.RuntimeClass{}
	for _, rc := range sc.RuntimeClasses {
		desc := manifest.Describe("RuntimeClass", "", rc.Name)
		if sc.checkMeta(rc, desc, &rc.ObjectMeta, false) != nil || unique(rc, desc) != nil {
			continue
		}
		if sc.reject(rc, desc, runtimeClassErrors(rc)) == nil {
			out[rc.Name] = rc
		}
	}
	return out
}

// runtimeClassErrors is ValidateRuntimeClass: a handler that is a DNS label, an overhead
// of valid amounts, valid scheduling constraints.
func runtimeClassErrors(rc *nodev1.RuntimeClass) field.ErrorList {
	errs := dnsLabelErrors(rc.Handler, field.NewPath("handler"))
	if o := rc.Overhead; o != nil {
		errs = append(errs, resourcesErrors(&v1.ResourceRequirements{Limits: o.PodFixed}, field.NewPath("overhead", "podFixed"))...)
	}
	if s := rc.Scheduling; s != nil {
		errs = append(errs, tolerationErrors(s.Tolerations, field.NewPath("scheduling", "tolerations"))...)
	}
	return errs
}

// admitRuntimeClass is the RuntimeClass admission plugin: the pod's class must exist; its
// overhead becomes the pod's (a pod may not set another), and its node selector and
// tolerations are merged into the pod's.
func admitRuntimeClass(p *v1.Pod, classes map[string]*nodev1.RuntimeClass) error {
	var rc *nodev1.RuntimeClass
	if name := p.Spec.RuntimeClassName; name != nil {
		if rc = classes[*name]; rc == nil {
			return fmt.Errorf("pod rejected: RuntimeClass %q not found", *name)
		}
	}
	switch {
	case rc != nil && rc.Overhead != nil:
		if len(p.Spec.Overhead) > 0 && !apiequality.Semantic.DeepEqual(rc.Overhead.PodFixed, p.Spec.Overhead) {
			return fmt.Errorf("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
		}
		p.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
	case p.Spec.Overhead != nil:
		return fmt.Errorf("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
	}
	if rc == nil || rc.Scheduling == nil {
		return nil
	}
	for k, v := range rc.Scheduling.NodeSelector {
		if pv, ok := p.Spec.NodeSelector[k]; ok && pv != v {
			return fmt.Errorf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, pv)
		}
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		p.Spec.NodeSelector[k] = v
	}
	for _, t := range rc.Scheduling.Tolerations {
		if !hasToleration(p.Spec.Tolerations, t) {
			p.Spec.Tolerations = append(p.Spec.Tolerations, t)
		}
	}
	return nil
}

func hasToleration(ts []v1.Toleration, t v1.Toleration) bool {
	for _, have := range ts {
		if apiequality.Semantic.DeepEqual(have, t) {
			return true
		}
	}
	return false
}
