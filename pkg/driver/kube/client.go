package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/actuator"
	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// DefaultRequestTimeout bounds each API call the actuator makes, from the moment it is
// sent (the wait for its turn and for a rate-limiter token is not counted). Calls run on
// their own goroutines with a background context; without a bound, a hung connection
// would keep a binding in flight for ever.
const DefaultRequestTimeout = 30 * time.Second

// DefaultAPIConcurrency is how many of the actuator's API calls may be in flight at once
// by default. The API server's throughput grows with concurrency (etcd batches its
// writes): on 1,000 nodes a burst of bindings went half again as fast with 256 calls in
// flight as with 64. Priority and Fairness bounds it from there (a 429 halves it).
const DefaultAPIConcurrency = 256

// Client is the actuator's client for a real cluster: bindings, deletions, status
// writes and events, through the API server. Every call but events goes through its
// dispatcher (pkg/driver/kube/dispatch).
type Client struct {
	core      kubernetes.Interface
	podGroups *PodGroupClient
	// v1alpha2 patches the status of Kubernetes 1.36's native PodGroups (nil: none read).
	v1alpha2 rest.Interface
	recorder events.EventRecorder
	logger   klog.Logger
	calls    *dispatch.Dispatcher
	// resolved counts the bindings whose outcome had to be read back, by what was found.
	resolved *prometheus.CounterVec
}

var _ actuator.Client = (*Client)(nil)

// NewClient returns a Client with DefaultAPIConcurrency calls in flight at most and no
// client-side rate limit of its own. recorder may be nil (events are then only logged).
func NewClient(core kubernetes.Interface, podGroups *PodGroupClient, recorder events.EventRecorder, logger klog.Logger) *Client {
	reg := prometheus.NewRegistry()
	calls := dispatch.New(DefaultAPIConcurrency, nil, DefaultRequestTimeout, dispatch.NewMetrics(reg))
	return newClient(core, podGroups, recorder, calls, newCallMetrics(reg).resolved, logger)
}

func newClient(core kubernetes.Interface, podGroups *PodGroupClient, recorder events.EventRecorder, calls *dispatch.Dispatcher, resolved *prometheus.CounterVec, logger klog.Logger) *Client {
	return &Client{core: core, podGroups: podGroups, recorder: recorder, logger: logger, calls: calls, resolved: resolved}
}

// DeletePod deletes the pod gracefully (grace nil: the pod's own period), on the
// condition that it is still the pod the scheduler saw (same UID). A pod of the same
// name that replaced it is left alone, and the call reports NotFound: the pod the
// scheduler meant is gone.
func (c *Client) DeletePod(ctx context.Context, pod *v1.Pod, grace *int64) error {
	opts := metav1.DeleteOptions{GracePeriodSeconds: grace}
	if pod.UID != "" {
		uid := pod.UID
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	err := c.calls.Do(ctx, &dispatch.Call{Class: dispatch.Evict, Priority: priorityOf(pod), Object: objectOf(pod)}, func(ctx context.Context) error {
		return c.core.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, opts)
	})
	if apierrors.IsConflict(err) && pod.UID != "" {
		return apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
	}
	return err
}

// PatchPodStatus sets a condition and/or status.nominatedNodeName with a strategic merge
// patch on the status subresource. The patch names only what changes (conditions merge
// by type), so concurrent writers of other status fields (the kubelet) are not undone,
// and an empty nominated node is sent as null, which removes the field whatever the
// scheduler's copy of the pod says.
//
// A victim's DisruptionTarget condition goes with its deletion (dispatch.Evict); a
// PodScheduled condition is a report (dispatch.Report) that replaces the pod's queued older
// one; a nomination replaces the pod's queued older nomination.
func (c *Client) PatchPodStatus(ctx context.Context, pod *v1.Pod, cond *v1.PodCondition, nominatedNode *string) error {
	if cond == nil && nominatedNode == nil {
		return nil
	}
	body, err := podStatusPatch(pod, cond, nominatedNode)
	if err != nil {
		return err
	}
	cl := &dispatch.Call{Class: dispatch.Nominate, Priority: priorityOf(pod), Object: objectOf(pod)}
	switch {
	case cond != nil && cond.Type == v1.DisruptionTarget:
		cl.Class = dispatch.Evict
	case cond != nil && nominatedNode == nil:
		cl.Key = string(cond.Type) + "/" + objectOf(pod)
		if cond.Type == v1.PodScheduled {
			cl.Class = dispatch.Report
		}
	case cond == nil:
		cl.Key = "nominatedNodeName/" + objectOf(pod)
	}
	return c.calls.Do(ctx, cl, func(ctx context.Context) error {
		_, err := c.core.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
		return err
	})
}

// podStatusPatch builds PatchPodStatus's body. It carries metadata.uid, which the API
// server checks against the pod's (uid is immutable), so a replacement pod of the same
// name is not patched. A condition whose status does not change keeps its
// lastTransitionTime.
func podStatusPatch(pod *v1.Pod, cond *v1.PodCondition, nominatedNode *string) ([]byte, error) {
	status := map[string]any{}
	if cond != nil {
		c := *cond
		for _, old := range pod.Status.Conditions {
			if old.Type == c.Type && old.Status == c.Status && !old.LastTransitionTime.IsZero() {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		entry := map[string]any{"type": c.Type, "status": c.Status}
		if c.Reason != "" {
			entry["reason"] = c.Reason
		}
		if c.Message != "" {
			entry["message"] = c.Message
		}
		if !c.LastTransitionTime.IsZero() {
			entry["lastTransitionTime"] = c.LastTransitionTime
		}
		if !c.LastProbeTime.IsZero() {
			entry["lastProbeTime"] = c.LastProbeTime
		}
		status["conditions"] = []any{entry}
	}
	if nominatedNode != nil {
		if *nominatedNode == "" {
			status["nominatedNodeName"] = nil
		} else {
			status["nominatedNodeName"] = *nominatedNode
		}
	}
	patch := map[string]any{"status": status}
	if pod.UID != "" {
		patch["metadata"] = map[string]any{"uid": pod.UID}
	}
	return json.Marshal(patch)
}

// UpdateStatus writes the status of a PodGroup or a CompositePodGroup through its status
// subresource; for one mapped from a native object, its conditions go to that object
// (patchNativeConditions). On a conflict (the scheduler's copy is older than the server's)
// it reads the object again, puts the conditions, phase and observed generation it was
// asked to write on the fresh copy, and tries again.
func (c *Client) UpdateStatus(ctx context.Context, obj runtime.Object) error {
	switch o := obj.(type) {
	case *v1alpha1.PodGroup:
		if nativegroup.IsNative(o) {
			return c.patchNativeConditions(ctx, nativegroup.KindPodGroup, o.APIVersion, o.Namespace, o.Name, o.UID, nativegroup.StatusConditions(o))
		}
		if c.podGroups == nil {
			return fmt.Errorf("UpdateStatus: no PodGroup client")
		}
		return c.calls.Do(ctx, statusCall(nativegroup.KindPodGroup, o.Namespace, o.Name, o.Spec.Priority), func(ctx context.Context) error {
			return updateRetrying(ctx, o,
				func(ctx context.Context) (*v1alpha1.PodGroup, error) {
					return c.podGroups.Get(ctx, o.Namespace, o.Name)
				},
				func(latest *v1alpha1.PodGroup) *v1alpha1.PodGroup { return mergePodGroupStatus(latest, o) },
				func(ctx context.Context, next *v1alpha1.PodGroup) error {
					_, err := c.podGroups.UpdateStatus(ctx, next)
					return err
				})
		})
	case *v1alpha1.CompositePodGroup:
		if nativegroup.IsNativeComposite(o) {
			return c.patchNativeConditions(ctx, nativegroup.KindCompositePodGroup, o.APIVersion, o.Namespace, o.Name, o.UID,
				nativegroup.CompositeStatusConditions(o))
		}
		if c.podGroups == nil {
			return fmt.Errorf("UpdateStatus: no CompositePodGroup client")
		}
		return c.calls.Do(ctx, statusCall(nativegroup.KindCompositePodGroup, o.Namespace, o.Name, o.Spec.Priority), func(ctx context.Context) error {
			return updateRetrying(ctx, o,
				func(ctx context.Context) (*v1alpha1.CompositePodGroup, error) {
					return c.podGroups.GetComposite(ctx, o.Namespace, o.Name)
				},
				func(latest *v1alpha1.CompositePodGroup) *v1alpha1.CompositePodGroup {
					return mergeCompositeStatus(latest, o)
				},
				func(ctx context.Context, next *v1alpha1.CompositePodGroup) error {
					_, err := c.podGroups.UpdateCompositeStatus(ctx, next)
					return err
				})
		})
	}
	return fmt.Errorf("UpdateStatus: unsupported type %T", obj)
}

// statusCall is the dispatcher's call of a group's status write: with nominations, by the
// group's priority, one per object at a time.
func statusCall(kind, namespace, name string, priority *int32) *dispatch.Call {
	cl := &dispatch.Call{Class: dispatch.Nominate, Object: kind + "/" + namespace + "/" + name}
	if priority != nil {
		cl.Priority = *priority
	}
	return cl
}

// updateRetrying writes want, and on a conflict reads the object again, merges want's
// status onto it and writes that, as client-go's RetryOnConflict.
func updateRetrying[T any](ctx context.Context, want T, get func(context.Context) (T, error), merge func(latest T) T,
	put func(context.Context, T) error) error {
	next, first := want, true
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			latest, err := get(ctx)
			if err != nil {
				return err
			}
			next = merge(latest)
		}
		first = false
		return put(ctx, next)
	})
}

// mergePodGroupStatus returns latest with want's conditions, phase and observed
// generation applied, and want's claim statuses when it names more (phalanx only adds
// them).
func mergePodGroupStatus(latest, want *v1alpha1.PodGroup) *v1alpha1.PodGroup {
	out := latest.DeepCopy()
	st := &out.Status
	mergeStatus(&st.Conditions, &st.Phase, &st.ObservedGeneration, want.Status.Conditions, want.Status.Phase, want.Status.ObservedGeneration)
	if len(want.Status.ResourceClaimStatuses) > len(out.Status.ResourceClaimStatuses) {
		out.Status.ResourceClaimStatuses = want.Status.ResourceClaimStatuses
	}
	return out
}

// mergeCompositeStatus returns latest with want's conditions, phase and observed
// generation applied.
func mergeCompositeStatus(latest, want *v1alpha1.CompositePodGroup) *v1alpha1.CompositePodGroup {
	out := latest.DeepCopy()
	st := &out.Status
	mergeStatus(&st.Conditions, &st.Phase, &st.ObservedGeneration, want.Status.Conditions, want.Status.Phase, want.Status.ObservedGeneration)
	return out
}

// mergeStatus applies the conditions, phase and observed generation phalanx wants onto an
// object's status: conditions by type, a phase when it has one, the newer generation.
func mergeStatus(conds *[]metav1.Condition, phase *v1alpha1.PodGroupPhase, observed *int64,
	wantConds []metav1.Condition, wantPhase v1alpha1.PodGroupPhase, wantObserved int64) {
	for _, cond := range wantConds {
		meta.SetStatusCondition(conds, cond)
	}
	if wantPhase != "" {
		*phase = wantPhase
	}
	if wantObserved > *observed {
		*observed = wantObserved
	}
}

// Event records an event through events.k8s.io/v1, without blocking: the recorder queues
// it and a background sink writes it, aggregating repeats into a series.
func (c *Client) Event(regarding, related runtime.Object, eventType, reason, action, note string) {
	if isNil(regarding) {
		return
	}
	if isNil(related) {
		related = nil
	}
	note = truncateNote(note)
	if c.recorder == nil {
		c.logger.V(4).Info("Event", "type", eventType, "reason", reason, "action", action, "note", note)
		return
	}
	c.recorder.Eventf(regarding, related, eventType, reason, action, "%s", note)
}

func isNil(obj runtime.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// noteLimit is the API server's limit on an event's note (events.k8s.io/v1), in bytes.
const noteLimit = 1024

// truncateNote shortens a note the API server would refuse, as kube-scheduler does for
// long FailedScheduling diagnoses, keeping whole UTF-8 characters.
func truncateNote(note string) string {
	if len(note) <= noteLimit {
		return note
	}
	const suffix = " ..."
	cut := noteLimit - len(suffix)
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + suffix
}
