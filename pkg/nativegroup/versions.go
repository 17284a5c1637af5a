package nativegroup

import (
	"encoding/json"
	"fmt"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// GroupName is the native API's group.
const GroupName = "scheduling.k8s.io"

// The versions the native PodGroup and Workload have been served as, by apiVersion.
const (
	// V1beta1 is Kubernetes 1.37's beta (the GenericWorkload gate and runtime-config).
	V1beta1 = GroupName + "/v1beta1"
	// V1alpha3 is Kubernetes 1.37's alpha, the same PodGroup and Workload as v1beta1 and
	// CompositePodGroups besides.
	V1alpha3 = GroupName + "/v1alpha3"
	// V1alpha2 is Kubernetes 1.36's alpha (internal/upstream/scheduling/v1alpha2).
	V1alpha2 = GroupName + "/v1alpha2"
)

// Versions are the versions phalanx reads, in the order --podgroup-source=auto prefers
// them: the beta over the alphas, the newer alpha over the older.
var Versions = []string{V1beta1, V1alpha3, V1alpha2}

// Kinds of the native API.
const (
	KindPodGroup = "PodGroup"
	KindWorkload = "Workload"
)

// PodGroup and Workload are the shape every version is read into: v1beta1's. v1alpha3's
// PodGroup and Workload have the same fields; v1alpha2's are converted (FromV1alpha2...).
// The object's apiVersion names the version it was read from, which is the version its
// status is written back to.
type (
	PodGroup          = schedulingv1beta1.PodGroup
	Workload          = schedulingv1beta1.Workload
	WorkloadReference = schedulingv1beta1.WorkloadReference
)

// IsNative reports whether a PodGroup was mapped from a native one. ToPodGroup gives the
// mapped group the native object's apiVersion and kind, so that its status goes back to
// the native object and events regard it (client-go builds an event's reference from an
// object's own apiVersion and kind when it has them).
func IsNative(pg *v1alpha1.PodGroup) bool {
	return pg != nil && pg.Kind == KindPodGroup && isVersion(pg.APIVersion)
}

func isVersion(apiVersion string) bool {
	for _, v := range Versions {
		if v == apiVersion {
			return true
		}
	}
	return false
}

// PodGroupFrom reads a native PodGroup of any version (*schedulingv1beta1.PodGroup,
// *schedulingv1alpha3.PodGroup or *schedulingv1alpha2.PodGroup) into the shape phalanx
// maps, its apiVersion naming the version. It does not change its input.
func PodGroupFrom(obj any) (*PodGroup, error) {
	var out *PodGroup
	switch o := obj.(type) {
	case *schedulingv1beta1.PodGroup:
		out = o.DeepCopy()
		out.TypeMeta = typeMeta(V1beta1, KindPodGroup)
	case *schedulingv1alpha3.PodGroup:
		out = &PodGroup{}
		if err := sameShape(o, out); err != nil {
			return nil, err
		}
		out.TypeMeta = typeMeta(V1alpha3, KindPodGroup)
	case *schedulingv1alpha2.PodGroup:
		out = FromV1alpha2PodGroup(o)
	default:
		return nil, fmt.Errorf("not a native PodGroup: %T", obj)
	}
	return out, nil
}

// WorkloadFrom reads a native Workload of any version into the shape phalanx maps, as
// PodGroupFrom does a PodGroup.
func WorkloadFrom(obj any) (*Workload, error) {
	var out *Workload
	switch o := obj.(type) {
	case *schedulingv1beta1.Workload:
		out = o.DeepCopy()
		out.TypeMeta = typeMeta(V1beta1, KindWorkload)
	case *schedulingv1alpha3.Workload:
		out = &Workload{}
		if err := sameShape(o, out); err != nil {
			return nil, err
		}
		out.TypeMeta = typeMeta(V1alpha3, KindWorkload)
	case *schedulingv1alpha2.Workload:
		out = FromV1alpha2Workload(o)
	default:
		return nil, fmt.Errorf("not a native Workload: %T", obj)
	}
	return out, nil
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

// sameShape copies between two versions whose JSON is the same (v1alpha3's PodGroup and
// Workload are v1beta1's, field for field): through JSON, so that a field either version
// adds cannot be forgotten by a hand-written copy (TestSameShape holds it lossless).
func sameShape(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// FromV1alpha2PodGroup converts a Kubernetes 1.36 PodGroup: podGroupTemplateRef.workload
// becomes workloadRef, disruption mode Pod is single and PodGroup is all.
func FromV1alpha2PodGroup(in *schedulingv1alpha2.PodGroup) *PodGroup {
	out := &PodGroup{TypeMeta: typeMeta(V1alpha2, KindPodGroup), ObjectMeta: *in.ObjectMeta.DeepCopy()}
	s := &in.Spec
	if r := s.PodGroupTemplateRef; r != nil && r.Workload != nil {
		out.Spec.WorkloadRef = &schedulingv1beta1.WorkloadReference{
			WorkloadName: r.Workload.WorkloadName, TemplateName: r.Workload.PodGroupTemplateName}
	}
	out.Spec.SchedulingPolicy = v1alpha2Policy(s.SchedulingPolicy)
	out.Spec.SchedulingConstraints = v1alpha2Constraints(s.SchedulingConstraints)
	out.Spec.ResourceClaims = v1alpha2Claims(s.ResourceClaims)
	out.Spec.DisruptionMode = v1alpha2Mode(s.DisruptionMode)
	out.Spec.PriorityClassName = s.PriorityClassName
	out.Spec.Priority = copyPtr(s.Priority)
	for i := range in.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, *in.Status.Conditions[i].DeepCopy())
	}
	for _, c := range in.Status.ResourceClaimStatuses {
		out.Status.ResourceClaimStatuses = append(out.Status.ResourceClaimStatuses,
			schedulingv1beta1.PodGroupResourceClaimStatus{Name: c.Name, ResourceClaimName: copyPtr(c.ResourceClaimName)})
	}
	return out
}

// FromV1alpha2Workload converts a Kubernetes 1.36 Workload.
func FromV1alpha2Workload(in *schedulingv1alpha2.Workload) *Workload {
	out := &Workload{TypeMeta: typeMeta(V1alpha2, KindWorkload), ObjectMeta: *in.ObjectMeta.DeepCopy()}
	if r := in.Spec.ControllerRef; r != nil {
		out.Spec.ControllerRef = &schedulingv1beta1.TypedLocalObjectReference{APIGroup: r.APIGroup, Kind: r.Kind, Name: r.Name}
	}
	for i := range in.Spec.PodGroupTemplates {
		t := &in.Spec.PodGroupTemplates[i]
		out.Spec.PodGroupTemplates = append(out.Spec.PodGroupTemplates, schedulingv1beta1.PodGroupTemplate{
			Name:                  t.Name,
			SchedulingPolicy:      v1alpha2Policy(t.SchedulingPolicy),
			SchedulingConstraints: v1alpha2Constraints(t.SchedulingConstraints),
			ResourceClaims:        v1alpha2Claims(t.ResourceClaims),
			DisruptionMode:        v1alpha2Mode(t.DisruptionMode),
			PriorityClassName:     t.PriorityClassName,
			Priority:              copyPtr(t.Priority),
		})
	}
	return out
}

func v1alpha2Policy(p schedulingv1alpha2.PodGroupSchedulingPolicy) schedulingv1beta1.PodGroupSchedulingPolicy {
	var out schedulingv1beta1.PodGroupSchedulingPolicy
	if p.Basic != nil {
		out.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	if p.Gang != nil {
		out.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: p.Gang.MinCount}
	}
	return out
}

func v1alpha2Constraints(c *schedulingv1alpha2.PodGroupSchedulingConstraints) *schedulingv1beta1.PodGroupSchedulingConstraints {
	if c == nil {
		return nil
	}
	out := &schedulingv1beta1.PodGroupSchedulingConstraints{}
	for _, t := range c.Topology {
		out.Topology = append(out.Topology, schedulingv1beta1.TopologyConstraint{Key: t.Key})
	}
	return out
}

func v1alpha2Claims(claims []schedulingv1alpha2.PodGroupResourceClaim) []schedulingv1beta1.PodGroupResourceClaim {
	var out []schedulingv1beta1.PodGroupResourceClaim
	for _, c := range claims {
		out = append(out, schedulingv1beta1.PodGroupResourceClaim{
			Name: c.Name, ResourceClaimName: copyPtr(c.ResourceClaimName), ResourceClaimTemplateName: copyPtr(c.ResourceClaimTemplateName)})
	}
	return out
}

// v1alpha2Mode maps Pod to single and PodGroup to all. Any other value is one the API
// server refuses (and the simulator with it), so none reaches phalanx: it reads as unset.
func v1alpha2Mode(m *schedulingv1alpha2.DisruptionMode) *schedulingv1beta1.DisruptionMode {
	switch {
	case m == nil:
		return nil
	case *m == schedulingv1alpha2.DisruptionModePod:
		return &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}}
	case *m == schedulingv1alpha2.DisruptionModePodGroup:
		return &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}
	}
	return nil
}
