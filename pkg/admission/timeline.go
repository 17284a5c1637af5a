package admission

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Timeline annotations (values are Go durations of virtual time).
const (
	AnnotationCreateAt       = "sim.phalanx.dev/create-at"
	AnnotationDeleteAt       = "sim.phalanx.dev/delete-at"
	AnnotationRunFor         = "sim.phalanx.dev/run-for"
	AnnotationTerminateAfter = "sim.phalanx.dev/terminate-after"
)

// Timing is an object's place on the timeline, from its annotations. Zero durations mean
// "not set" except CreateAt, whose zero is time 0.
type Timing struct {
	CreateAt, DeleteAt, RunFor, TerminateAfter time.Duration
	HasDelete, HasRunFor, HasTerminateAfter    bool
}

// ParseTiming reads an object's timeline annotations (admission has refused objects
// whose annotations do not parse).
func ParseTiming(m *metav1.ObjectMeta) (Timing, *field.Error) {
	var t Timing
	get := func(key string, into *time.Duration, set *bool) *field.Error {
		v, ok := m.Annotations[key]
		if !ok {
			return nil
		}
		path := field.NewPath("metadata", "annotations").Key(key)
		d, err := time.ParseDuration(v)
		if err != nil {
			return field.Invalid(path, v, "must be a Go duration such as 90s or 5m")
		}
		if d < 0 {
			return field.Invalid(path, v, "must not be negative")
		}
		*into = d
		if set != nil {
			*set = true
		}
		return nil
	}
	for _, g := range []struct {
		key  string
		into *time.Duration
		set  *bool
	}{
		{AnnotationCreateAt, &t.CreateAt, nil},
		{AnnotationDeleteAt, &t.DeleteAt, &t.HasDelete},
		{AnnotationRunFor, &t.RunFor, &t.HasRunFor},
		{AnnotationTerminateAfter, &t.TerminateAfter, &t.HasTerminateAfter},
	} {
		if err := get(g.key, g.into, g.set); err != nil {
			return t, err
		}
	}
	if t.HasDelete && t.DeleteAt < t.CreateAt {
		return t, field.Invalid(field.NewPath("metadata", "annotations").Key(AnnotationDeleteAt),
			m.Annotations[AnnotationDeleteAt], "must not be earlier than "+AnnotationCreateAt)
	}
	return t, nil
}

// PodGCQuarantine is how long the pod garbage collector waits for a missing node before it
// deletes the pods bound to it (kube-controller-manager's podgc): admission warns of such
// pods, and the run deletes them.
const PodGCQuarantine = 40 * time.Second
