package cache

import (
	"fmt"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
)

// DeviceTaintRules (resource.k8s.io/v1, DRADeviceTaintRules, GA and on in Kubernetes
// v1.37) taint the devices they select as if their slices listed the taint.
// kube-scheduler reads slices through k8s.io/dynamic-resource-allocation's
// resourceslice/tracker, which appends each rule's taint, as written, to the taints of
// every device the rule's selector matches; its allocator then refuses a device with a
// NoSchedule or NoExecute taint that a request does not tolerate. The tracker is built on
// client-go informers, which the cache may not import, so the DeviceStore does the same
// patching itself: the slices it hands plugins (Slices, SlicesFor) are the patched ones,
// copied only when a rule selects one of their devices. A rule's status plays no part.

// ruleSelectsSlice reports whether a rule's selector can match devices of the slice: no
// selector matches nothing, the empty one everything, a driver or pool must equal the
// slice's.
func ruleSelectsSlice(r *resourceapi.DeviceTaintRule, s *resourceapi.ResourceSlice) bool {
	sel := r.Spec.DeviceSelector
	if sel == nil {
		return false
	}
	if sel.Driver != nil && *sel.Driver != s.Spec.Driver {
		return false
	}
	return sel.Pool == nil || *sel.Pool == s.Spec.Pool.Name
}

// taintSlice returns the slice with the taints of the rules (in the order given) added to
// the devices they select: the slice itself when none does, a copy otherwise.
func taintSlice(s *resourceapi.ResourceSlice, rules []*resourceapi.DeviceTaintRule) *resourceapi.ResourceSlice {
	out := s
	for _, r := range rules {
		if !ruleSelectsSlice(r, s) {
			continue
		}
		device := r.Spec.DeviceSelector.Device
		for i := range s.Spec.Devices {
			if device != nil && *device != s.Spec.Devices[i].Name {
				continue
			}
			if out == s {
				out = s.DeepCopy()
			}
			out.Spec.Devices[i].Taints = append(out.Spec.Devices[i].Taints, r.Spec.Taint)
		}
	}
	return out
}

// sameTaints compares the devices' taints of two views of one slice, as the tracker does
// to decide whether a rule's change is an update of the slice.
func sameTaints(a, b *resourceapi.ResourceSlice) bool {
	if a == b {
		return true
	}
	if len(a.Spec.Devices) != len(b.Spec.Devices) {
		return false
	}
	for i := range a.Spec.Devices {
		if !slices.EqualFunc(a.Spec.Devices[i].Taints, b.Spec.Devices[i].Taints, func(x, y resourceapi.DeviceTaint) bool {
			return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect && x.TimeAdded.Equal(y.TimeAdded)
		}) {
			return false
		}
	}
	return true
}

// DeviceTaintRule returns a rule by name (nil if unknown).
func (d *DeviceStore) DeviceTaintRule(name string) *resourceapi.DeviceTaintRule {
	return d.rules[name]
}

// SetDeviceTaintRule records or replaces a DeviceTaintRule. It reports whether the taints
// of any device changed, when kube-scheduler's tracker sends a slice update.
func (d *DeviceStore) SetDeviceTaintRule(r *resourceapi.DeviceTaintRule) bool {
	d.rules[r.Name] = r
	return d.retaint()
}

// RemoveDeviceTaintRule forgets a DeviceTaintRule; the devices it tainted are untainted.
// It reports whether the taints of any device changed.
func (d *DeviceStore) RemoveDeviceTaintRule(name string) bool {
	if _, ok := d.rules[name]; !ok {
		return false
	}
	delete(d.rules, name)
	return d.retaint()
}

// retaint patches every slice again after the rules changed. Rules change seldom; slices
// change often, and setSlice patches only the one.
func (d *DeviceStore) retaint() bool {
	d.ruleList = sortedValues(d.rules)
	changed := false
	for name, s := range d.slices {
		view := taintSlice(s, d.ruleList)
		if !sameTaints(view, d.view(name)) {
			changed = true
		}
		d.setView(name, s, view)
	}
	if changed {
		d.indexed = false
		d.generation++
		d.sliceGen++
	}
	return changed
}

// view is the slice as plugins see it, with the rules' taints.
func (d *DeviceStore) view(name string) *resourceapi.ResourceSlice {
	if v := d.tainted[name]; v != nil {
		return v
	}
	return d.slices[name]
}

func (d *DeviceStore) setView(name string, s, view *resourceapi.ResourceSlice) {
	if view == s {
		delete(d.tainted, name)
	} else {
		d.tainted[name] = view
	}
}

// verifyTaints: every slice's view carries exactly the taints the rules give it, and
// only slices the store has are patched.
func (d *DeviceStore) verifyTaints() error {
	rules := sortedValues(d.rules)
	for name := range d.tainted {
		if d.slices[name] == nil {
			return fmt.Errorf("tainted view of slice %s, which is gone", name)
		}
	}
	for name, s := range d.slices {
		if !sameTaints(d.view(name), taintSlice(s, rules)) {
			return fmt.Errorf("slice %s: device taints differ from its DeviceTaintRules'", name)
		}
	}
	return nil
}
