package snapshot

import (
	"context"
	"reflect"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// native lists Kubernetes' own Workloads and PodGroups in the version the cluster serves,
// and keeps them in that version: the simulator admits each version as its API server
// would.
func (r *reader) native(src *Source) error {
	s, k, v := r.snap, src.Kube, src.NativeVersion
	addWorkload := func(o runtime.Object) {
		s.NativeWorkloads = append(s.NativeWorkloads, stripNative(o, v, nativegroup.KindWorkload))
	}
	addPodGroup := func(o runtime.Object) {
		s.NativePodGroups = append(s.NativePodGroups, stripNative(o, v, nativegroup.KindPodGroup))
	}
	if src.NativeComposites {
		err := list(r, "compositepodgroups.scheduling.k8s.io", k.SchedulingV1alpha3().CompositePodGroups("").List, func(o *schedulingv1alpha3.CompositePodGroup) {
			s.NativeComposites = append(s.NativeComposites, stripNative(o, nativegroup.V1alpha3, nativegroup.KindCompositePodGroup))
		})
		if err != nil {
			return err
		}
	} else {
		s.Notes = append(s.Notes, "compositepodgroups.scheduling.k8s.io: not served in v1alpha3, left out")
	}
	switch v {
	case nativegroup.V1beta1:
		return firstError(
			func() error {
				return list(r, "workloads", k.SchedulingV1beta1().Workloads("").List, func(o *schedulingv1beta1.Workload) { addWorkload(o) })
			},
			func() error {
				return list(r, "podgroups.scheduling.k8s.io", k.SchedulingV1beta1().PodGroups("").List, func(o *schedulingv1beta1.PodGroup) { addPodGroup(o) })
			})
	case nativegroup.V1alpha3:
		return firstError(
			func() error {
				return list(r, "workloads", k.SchedulingV1alpha3().Workloads("").List, func(o *schedulingv1alpha3.Workload) { addWorkload(o) })
			},
			func() error {
				return list(r, "podgroups.scheduling.k8s.io", k.SchedulingV1alpha3().PodGroups("").List, func(o *schedulingv1alpha3.PodGroup) { addPodGroup(o) })
			})
	case nativegroup.V1alpha2:
		rest := func(resource string, into runtime.Object) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				out := into.DeepCopyObject()
				err := src.V1alpha2.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(out)
				return out, err
			}
		}
		return firstError(
			func() error {
				return list(r, "workloads", rest("workloads", &schedulingv1alpha2.WorkloadList{}), func(o *schedulingv1alpha2.Workload) { addWorkload(o) })
			},
			func() error {
				return list(r, "podgroups.scheduling.k8s.io", rest("podgroups", &schedulingv1alpha2.PodGroupList{}), func(o *schedulingv1alpha2.PodGroup) { addPodGroup(o) })
			})
	}
	s.Notes = append(s.Notes, "workloads and podgroups.scheduling.k8s.io: not served in a version phalanx reads, left out")
	return nil
}

// stripNative keeps of a native Workload or PodGroup of any version its metadata as for
// other kinds, its spec, and of its status the claims made for the group.
func stripNative(obj runtime.Object, apiVersion, kind string) runtime.Object {
	out := obj.DeepCopyObject()
	m := out.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
	*m = meta(m)
	out.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, kind))
	if status := reflect.ValueOf(out).Elem().FieldByName("Status"); status.IsValid() {
		claims := status.FieldByName("ResourceClaimStatuses")
		kept := reflect.Value{}
		if claims.IsValid() {
			kept = reflect.New(claims.Type()).Elem()
			kept.Set(claims)
		}
		status.Set(reflect.Zero(status.Type()))
		if kept.IsValid() {
			status.FieldByName("ResourceClaimStatuses").Set(kept)
		}
	}
	return out
}
