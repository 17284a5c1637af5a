package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// GroupSource says which PodGroup APIs phalanx reads (--podgroup-source).
type GroupSource string

const (
	// GroupSourceAuto reads every PodGroup API the server serves, asking it at start:
	// Kubernetes' own scheduling.k8s.io/v1alpha2 PodGroups (with their Workloads), phalanx's
	// CRD, or both; the CRD when it serves neither yet.
	GroupSourceAuto GroupSource = "auto"
	// GroupSourceCRD reads phalanx's PodGroup CRD only.
	GroupSourceCRD GroupSource = "crd"
	// GroupSourceNative reads scheduling.k8s.io/v1alpha2 PodGroups and Workloads only.
	GroupSourceNative GroupSource = "native"
)

// GroupSources are the accepted values of --podgroup-source.
var GroupSources = []GroupSource{GroupSourceAuto, GroupSourceCRD, GroupSourceNative}

// groupAPIs are the PodGroup APIs the driver reads.
type groupAPIs struct{ crd, native bool }

func (a groupAPIs) String() string {
	switch {
	case a.crd && a.native:
		return "crd+native"
	case a.native:
		return "native"
	}
	return "crd"
}

// Names of the group informers, as logs and reportUnsynced show them.
const (
	informerCRDGroups    = "podgroups"
	informerNativeGroups = "podgroups.scheduling.k8s.io"
	informerWorkloads    = "workloads.scheduling.k8s.io"
)

// discoveryRetry is how often resolveGroupAPIs asks a server that did not answer.
var discoveryRetry = 2 * time.Second

// resolveGroupAPIs decides which PodGroup APIs to read. For auto it asks the server's
// discovery, again every discoveryRetry while the server does not answer (a cancelled ctx
// returns its error).
func resolveGroupAPIs(ctx context.Context, disc discovery.DiscoveryInterface, src GroupSource, logger klog.Logger) (groupAPIs, error) {
	switch src {
	case GroupSourceCRD:
		return groupAPIs{crd: true}, nil
	case GroupSourceNative:
		return groupAPIs{native: true}, nil
	}
	var apis groupAPIs
	err := wait.PollUntilContextCancel(ctx, discoveryRetry, true, func(context.Context) (bool, error) {
		crd, err1 := serves(disc, v1alpha1.SchemeGroupVersion.String(), "podgroups")
		native, err2 := serves(disc, nativegroup.APIVersion, "podgroups")
		if err := firstError(err1, err2); err != nil {
			logger.Info("Asking the API server which PodGroup APIs it serves", "err", err)
			return false, nil
		}
		apis = groupAPIs{crd: crd, native: native}
		return true, nil
	})
	if err != nil {
		return apis, err
	}
	if !apis.crd && !apis.native {
		logger.Info("The API server serves no PodGroup API yet: reading phalanx's PodGroup CRD, once it is installed (restart phalanx to read scheduling.k8s.io/v1alpha2 PodGroups once they are served)")
		apis.crd = true
	}
	return apis, nil
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// serves reports whether the server serves a resource in a group version.
func serves(disc discovery.DiscoveryInterface, groupVersion, resource string) (bool, error) {
	list, err := disc.ServerResourcesForGroupVersion(groupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovery of %s: %w", groupVersion, err)
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == resource }), nil
}

// addGroupInformers adds the informers of the PodGroup APIs in use, and their handlers,
// before the pods': Workloads before the native groups that refer to them, so that the
// first cycle sees every group as it is.
func (d *Driver) addGroupInformers(apis groupAPIs) error {
	sources := nativegroup.NewSources(Handlers(d.sched), d.reportClash)
	var add []namedInformer
	var handlers []cache.ResourceEventHandler
	if apis.crd {
		add = append(add, namedInformer{informerCRDGroups, d.client.podGroups.NewInformer(0)})
		handlers = append(handlers, podGroupHandler(d.sched, sources))
	}
	if apis.native {
		scheduling := d.factory.Scheduling().V1alpha2()
		add = append(add,
			namedInformer{informerWorkloads, scheduling.Workloads().Informer()},
			namedInformer{informerNativeGroups, scheduling.PodGroups().Informer()})
		handlers = append(handlers, workloadHandler(d.sched, sources), nativePodGroupHandler(d.sched, sources))
	}
	for _, inf := range add {
		if err := inf.informer.SetTransform(stripManagedFields); err != nil {
			return err
		}
	}
	at := slices.IndexFunc(d.informers, func(inf namedInformer) bool { return inf.name == "pods" })
	d.informers = slices.Insert(d.informers, at, add...)
	d.handlers = slices.Insert(d.handlers, at, handlers...)
	return nil
}

// standalone reports whether an informer is not the factory's, so Run starts it itself.
func standalone(name string) bool { return name == informerCRDGroups }

// The group handlers feed Sources on the loop; Sources feeds the scheduler.

func podGroupHandler(h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return handlerFuncs(h, s.SetCRD, func(_, pg *v1alpha1.PodGroup) { s.SetCRD(pg) }, s.DeleteCRD)
}

func nativePodGroupHandler(h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return handlerFuncs(h, s.SetNative, func(_, pg *schedulingv1alpha2.PodGroup) { s.SetNative(pg) }, s.DeleteNative)
}

func workloadHandler(h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return handlerFuncs(h, s.SetWorkload, func(_, wl *schedulingv1alpha2.Workload) { s.SetWorkload(wl) }, s.DeleteWorkload)
}

// reportClash tells of a PodGroup name that both APIs define: the scheduler holds the CRD
// group with the message; the native group gets the same condition and a Warning event,
// and the log says it too. It runs on the loop, so the status write goes off it.
func (d *Driver) reportClash(native *schedulingv1alpha2.PodGroup, crd *v1alpha1.PodGroup, msg string) {
	d.logger.Error(nil, "PodGroup defined by both APIs: neither is scheduled until one of them is deleted",
		"podGroup", klog.KObj(native), "crdUID", crd.UID, "nativeUID", native.UID)
	d.client.Event(native, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	cond := nativegroup.ClashCondition(native, msg, time.Now())
	go func() {
		if err := d.client.patchNativeConditions(context.Background(), native.Namespace, native.Name, native.UID, []metav1.Condition{cond}); err != nil {
			d.logger.V(2).Info("Could not update the PodGroup status", "podGroup", klog.KObj(native), "err", err)
		}
	}()
}

// patchNativeConditions sets conditions on a native PodGroup through its status
// subresource, with a strategic merge patch that names only them (conditions merge by
// type), as kube-scheduler patches PodGroup status. The patch carries metadata.uid, which
// the API server checks against the object's, so a PodGroup of the same name that
// replaced this one is not patched.
func (c *Client) patchNativeConditions(ctx context.Context, namespace, name string, uid types.UID, conds []metav1.Condition) error {
	if len(conds) == 0 {
		return nil
	}
	body, err := nativeStatusPatch(uid, conds)
	if err != nil {
		return err
	}
	// Through the dispatcher, as phalanx's own PodGroup status (one write per group at a
	// time, in order).
	return c.calls.do(ctx, &call{class: classNominate, object: "PodGroup/" + namespace + "/" + name}, func(ctx context.Context) error {
		_, err := c.core.SchedulingV1alpha2().PodGroups(namespace).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
		return err
	})
}

func nativeStatusPatch(uid types.UID, conds []metav1.Condition) ([]byte, error) {
	patch := map[string]any{"status": map[string]any{"conditions": conds}}
	if uid != "" {
		patch["metadata"] = map[string]any{"uid": uid}
	}
	return json.Marshal(patch)
}
