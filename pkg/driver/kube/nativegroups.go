package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
	"github.com/phalanx-dev/phalanx/pkg/driver/kube/dispatch"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// GroupSource says which PodGroup APIs phalanx reads (--podgroup-source).
type GroupSource string

const (
	// GroupSourceAuto reads every PodGroup API the server serves, asking it at start:
	// Kubernetes' own scheduling.k8s.io PodGroups (with their Workloads) in the newest
	// version it serves of those phalanx reads (nativegroup.Versions), phalanx's CRD, or
	// both; the CRD when it serves neither yet.
	GroupSourceAuto GroupSource = "auto"
	// GroupSourceCRD reads phalanx's PodGroup CRD only.
	GroupSourceCRD GroupSource = "crd"
	// GroupSourceNative reads scheduling.k8s.io PodGroups and Workloads only, in the newest
	// version served.
	GroupSourceNative GroupSource = "native"
)

// GroupSources are the accepted values of --podgroup-source.
var GroupSources = []GroupSource{GroupSourceAuto, GroupSourceCRD, GroupSourceNative}

// groupAPIs are the PodGroup and CompositePodGroup APIs the driver reads.
type groupAPIs struct {
	crd bool
	// native is the scheduling.k8s.io version read, "" for none.
	native string
	// crdComposites and nativeComposites say CompositePodGroups are read from phalanx's CRD
	// and from scheduling.k8s.io/v1alpha3: each only with its PodGroups' API, and only when
	// the server serves it (a cluster without either schedules every group on its own).
	crdComposites, nativeComposites bool
}

func (a groupAPIs) String() string {
	var read []string
	if a.crd {
		read = append(read, v1alpha1.SchemeGroupVersion.String())
	}
	if a.native != "" {
		read = append(read, a.native)
	}
	return strings.Join(read, "+")
}

// composites names the CompositePodGroup APIs read, "none" for none.
func (a groupAPIs) composites() string {
	var read []string
	if a.crdComposites {
		read = append(read, v1alpha1.SchemeGroupVersion.String())
	}
	if a.nativeComposites {
		read = append(read, nativegroup.V1alpha3)
	}
	if len(read) == 0 {
		return "none"
	}
	return strings.Join(read, "+")
}

// Names of the group informers, as logs and reportUnsynced show them.
const (
	informerCRDGroups        = "podgroups"
	informerNativeGroups     = "podgroups.scheduling.k8s.io"
	informerWorkloads        = "workloads.scheduling.k8s.io"
	informerCRDComposites    = "compositepodgroups"
	informerNativeComposites = "compositepodgroups.scheduling.k8s.io"
)

// discoveryRetry is how often resolveGroupAPIs asks a server that did not answer.
var discoveryRetry = 2 * time.Second

// errNoNativeVersion: --podgroup-source=native, and the server serves no native PodGroup
// version phalanx reads.
var errNoNativeVersion = fmt.Errorf("--podgroup-source=native: the API server serves PodGroups in none of %s "+
	"(Kubernetes 1.37: the GenericWorkload gate and --runtime-config=scheduling.k8s.io/v1beta1=true; "+
	"1.36: scheduling.k8s.io/v1alpha2 and its gates); serve one, or read phalanx's CRD (--podgroup-source=crd)",
	strings.Join(nativegroup.Versions, ", "))

// resolveGroupAPIs decides which PodGroup APIs to read. For auto and native it asks the
// server's discovery, again every discoveryRetry while the server does not answer (a
// cancelled ctx returns its error): the native version read is the first of
// nativegroup.Versions the server serves PodGroups in. Native with none served is
// errNoNativeVersion; auto then reads the CRD, and says so, naming any scheduling.k8s.io
// version with PodGroups that phalanx does not read. CompositePodGroups are read from
// each PodGroup API read whose server serves them (resolveComposites), whatever the source.
func resolveGroupAPIs(ctx context.Context, disc discovery.DiscoveryInterface, src GroupSource, logger klog.Logger) (groupAPIs, error) {
	apis := groupAPIs{crd: src == GroupSourceCRD}
	if src != GroupSourceCRD {
		err := askDiscovery(ctx, logger, "PodGroup APIs", func() error {
			crd := false
			var err error
			if src != GroupSourceNative {
				crd, err = Serves(disc, v1alpha1.SchemeGroupVersion.String(), "podgroups")
			}
			native := ""
			if err == nil {
				native, err = NewestNativeVersion(disc)
			}
			apis = groupAPIs{crd: crd, native: native}
			return err
		})
		if err != nil {
			return apis, err
		}
	}
	if apis.native == "" {
		unread := unreadNativeVersions(disc)
		if src == GroupSourceNative {
			logger.Error(errNoNativeVersion, "No native PodGroup API to read", "unreadVersions", unread)
			return apis, errNoNativeVersion
		}
		if len(unread) > 0 {
			logger.Error(nil, "The API server serves scheduling.k8s.io PodGroups only in versions phalanx does not read: their members stay pending, waiting for a PodGroup phalanx cannot see",
				"served", unread, "read", nativegroup.Versions)
		}
	}
	if !apis.crd && apis.native == "" {
		logger.Info("The API server serves no PodGroup API phalanx reads yet: reading phalanx's PodGroup CRD, once it is installed (restart phalanx to read scheduling.k8s.io PodGroups once they are served)",
			"nativeVersions", nativegroup.Versions)
		apis.crd = true
	}
	return apis, resolveComposites(ctx, disc, &apis, logger)
}

// resolveComposites decides which CompositePodGroup APIs to read, asking discovery as
// resolveGroupAPIs does: phalanx's CRD with the PodGroup CRD, v1alpha3 with a native
// PodGroup version of 1.37, each when the server serves it. A server that serves none
// (Kubernetes 1.36, the CRD not installed) is no error: every PodGroup is scheduled on its
// own, and one that names a composite waits for it.
func resolveComposites(ctx context.Context, disc discovery.DiscoveryInterface, apis *groupAPIs, logger klog.Logger) error {
	err := askDiscovery(ctx, logger, "CompositePodGroup APIs", func() error {
		var err error
		apis.crdComposites, apis.nativeComposites = false, false
		if apis.crd {
			apis.crdComposites, err = Serves(disc, v1alpha1.SchemeGroupVersion.String(), compositesResource)
		}
		if err == nil && (apis.native == nativegroup.V1beta1 || apis.native == nativegroup.V1alpha3) {
			apis.nativeComposites, err = Serves(disc, nativegroup.V1alpha3, compositesResource)
		}
		return err
	})
	if err == nil && !apis.crdComposites && !apis.nativeComposites {
		logger.Info("The API server serves no CompositePodGroup API phalanx reads: PodGroups are scheduled on their own, and one that names a composite waits for it (install phalanx's CompositePodGroup CRD, or serve scheduling.k8s.io/v1alpha3 with the CompositePodGroup gate, then restart phalanx)")
	}
	return err
}

// askDiscovery runs ask until it returns no error, again every discoveryRetry while the
// server does not answer; a cancelled ctx returns its error. what names what is asked
// about, for the log.
func askDiscovery(ctx context.Context, logger klog.Logger, what string, ask func() error) error {
	return wait.PollUntilContextCancel(ctx, discoveryRetry, true, func(context.Context) (bool, error) {
		if err := ask(); err != nil {
			logger.Info("Asking the API server which "+what+" it serves", "err", err)
			return false, nil
		}
		return true, nil
	})
}

// NewestNativeVersion is the first of nativegroup.Versions in which the server serves PodGroups,
// "" for none.
func NewestNativeVersion(disc discovery.DiscoveryInterface) (string, error) {
	for _, v := range nativegroup.Versions {
		ok, err := Serves(disc, v, "podgroups")
		if err != nil {
			return "", err
		}
		if ok {
			return v, nil
		}
	}
	return "", nil
}

// unreadNativeVersions are the scheduling.k8s.io versions the server serves PodGroups in
// that phalanx does not read (a later Kubernetes's), for the message that says why native
// groups are not read. Best effort: nil when discovery fails.
func unreadNativeVersions(disc discovery.DiscoveryInterface) []string {
	groups, err := disc.ServerGroups()
	if err != nil {
		return nil
	}
	var out []string
	for _, g := range groups.Groups {
		if g.Name != nativegroup.GroupName {
			continue
		}
		for _, v := range g.Versions {
			if slices.Contains(nativegroup.Versions, v.GroupVersion) {
				continue
			}
			if ok, err := Serves(disc, v.GroupVersion, "podgroups"); err == nil && ok {
				out = append(out, v.GroupVersion)
			}
		}
	}
	return out
}

// Serves reports whether the server serves a resource in a group version.
func Serves(disc discovery.DiscoveryInterface, groupVersion, resource string) (bool, error) {
	list, err := disc.ServerResourcesForGroupVersion(groupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("discovery of %s: %w", groupVersion, err)
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == resource }), nil
}

// addGroupInformers adds the informers of the PodGroup and CompositePodGroup APIs in use,
// and their handlers, before the pods': Workloads before the native groups and composites
// that refer to them, composites before the groups that name them, so that the first cycle
// sees every group as it is.
func (d *Driver) addGroupInformers(apis groupAPIs) error {
	d.groupAPIs = apis
	sources := nativegroup.NewSources(Handlers(d.sched), d.reportClash)
	sources.OnCompositeClash(d.reportCompositeClash)
	var add []namedInformer
	var handlers []cache.ResourceEventHandler
	if apis.crdComposites {
		add = append(add, namedInformer{informerCRDComposites, d.client.podGroups.NewCompositeInformer(0)})
		handlers = append(handlers, compositeHandler(d.sched, sources))
	}
	if apis.crd {
		add = append(add, namedInformer{informerCRDGroups, d.client.podGroups.NewInformer(0)})
		handlers = append(handlers, podGroupHandler(d.sched, sources))
	}
	if apis.native != "" {
		var workloads, podGroups cache.SharedIndexInformer
		var workloadH, podGroupH cache.ResourceEventHandler
		switch apis.native {
		case nativegroup.V1beta1:
			s := d.factory.Scheduling().V1beta1()
			workloads, podGroups = s.Workloads().Informer(), s.PodGroups().Informer()
			workloadH, podGroupH = workloadHandler[*schedulingv1beta1.Workload](d.sched, sources),
				nativePodGroupHandler[*schedulingv1beta1.PodGroup](d.sched, sources)
		case nativegroup.V1alpha3:
			s := d.factory.Scheduling().V1alpha3()
			workloads, podGroups = s.Workloads().Informer(), s.PodGroups().Informer()
			workloadH, podGroupH = workloadHandler[*schedulingv1alpha3.Workload](d.sched, sources),
				nativePodGroupHandler[*schedulingv1alpha3.PodGroup](d.sched, sources)
		default:
			workloads, podGroups = v1alpha2Informers(d.client.v1alpha2)
			workloadH, podGroupH = workloadHandler[*schedulingv1alpha2.Workload](d.sched, sources),
				nativePodGroupHandler[*schedulingv1alpha2.PodGroup](d.sched, sources)
		}
		add = append(add, namedInformer{informerWorkloads, workloads})
		handlers = append(handlers, workloadH)
		if apis.nativeComposites {
			add = append(add, namedInformer{informerNativeComposites, d.factory.Scheduling().V1alpha3().CompositePodGroups().Informer()})
			handlers = append(handlers, nativeCompositeHandler(d.sched, sources))
		}
		add = append(add, namedInformer{informerNativeGroups, podGroups})
		handlers = append(handlers, podGroupH)
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

// standalone reports whether an informer is not the factory's, so Run starts it itself:
// the CRD's, and v1alpha2's, which client-go no longer has.
func (d *Driver) standalone(name string) bool {
	switch name {
	case informerCRDGroups, informerCRDComposites:
		return true
	case informerNativeGroups, informerWorkloads:
		return d.groupAPIs.native == nativegroup.V1alpha2
	}
	return false
}

// The group handlers feed Sources on the loop; Sources feeds the scheduler.

func podGroupHandler(h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return handlerFuncs(h, s.SetCRD, func(_, pg *v1alpha1.PodGroup) { s.SetCRD(pg) }, s.DeleteCRD)
}

func compositeHandler(h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return handlerFuncs(h, s.SetCRDComposite, func(_, c *v1alpha1.CompositePodGroup) { s.SetCRDComposite(c) }, s.DeleteCRDComposite)
}

// nativeCompositeHandler reads v1alpha3 CompositePodGroups into nativegroup's shape.
func nativeCompositeHandler(h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return nativeHandler[*schedulingv1alpha3.CompositePodGroup](h, nativegroup.CompositeFrom, s.SetNativeComposite, s.DeleteNativeComposite)
}

// nativePodGroupHandler reads native PodGroups of the version T into nativegroup's shape.
func nativePodGroupHandler[T any](h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return nativeHandler[T](h, nativegroup.PodGroupFrom, s.SetNative, s.DeleteNative)
}

// workloadHandler reads Workloads of the version T into nativegroup's shape.
func workloadHandler[T any](h Handlers, s *nativegroup.Sources) cache.ResourceEventHandler {
	return nativeHandler[T](h, nativegroup.WorkloadFrom, s.SetWorkload, s.DeleteWorkload)
}

// nativeHandler feeds the objects of type T, read by read, to set and del.
func nativeHandler[T, R any](h Handlers, read func(any) (R, error), set, del func(R)) cache.ResourceEventHandler {
	with := func(f func(R)) func(T) {
		return func(obj T) {
			if o, err := read(obj); err == nil {
				f(o)
			}
		}
	}
	add := with(set)
	return handlerFuncs(h, add, func(_, obj T) { add(obj) }, with(del))
}

// reportClash tells of a PodGroup name that both APIs define: the scheduler holds the CRD
// group with the message; the native group gets the same condition and a Warning event,
// and the log says it too. It runs on the loop, so the status write goes off it.
func (d *Driver) reportClash(native *nativegroup.PodGroup, crd *v1alpha1.PodGroup, msg string) {
	d.logger.Error(nil, "PodGroup defined by both APIs: neither is scheduled until one of them is deleted",
		"podGroup", klog.KObj(native), "crdUID", crd.UID, "nativeUID", native.UID)
	d.client.Event(native, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	cond := nativegroup.ClashCondition(native, msg, time.Now())
	go func() {
		if err := d.client.patchNativeConditions(context.Background(), nativegroup.KindPodGroup, native.APIVersion, native.Namespace, native.Name, native.UID, []metav1.Condition{cond}); err != nil {
			d.logger.V(2).Info("Could not update the PodGroup status", "podGroup", klog.KObj(native), "err", err)
		}
	}()
}

// reportCompositeClash is reportClash for a CompositePodGroup name both APIs define.
func (d *Driver) reportCompositeClash(native *nativegroup.CompositePodGroup, crd *v1alpha1.CompositePodGroup, msg string) {
	d.logger.Error(nil, "CompositePodGroup defined by both APIs: neither is scheduled until one of them is deleted",
		"compositePodGroup", klog.KObj(native), "crdUID", crd.UID, "nativeUID", native.UID)
	d.client.Event(native, nil, v1.EventTypeWarning, "FailedScheduling", "Scheduling", msg)
	cond := nativegroup.CompositeClashCondition(native, msg, time.Now())
	go func() {
		if err := d.client.patchNativeConditions(context.Background(), nativegroup.KindCompositePodGroup, native.APIVersion, native.Namespace, native.Name, native.UID, []metav1.Condition{cond}); err != nil {
			d.logger.V(2).Info("Could not update the CompositePodGroup status", "compositePodGroup", klog.KObj(native), "err", err)
		}
	}()
}

// patchNativeConditions sets conditions on a native PodGroup or CompositePodGroup (kind)
// through its status subresource, with a strategic merge patch that names only them
// (conditions merge by type), as kube-scheduler patches PodGroup status. The patch carries
// metadata.uid, which the API server checks against the object's, so an object of the same
// name that replaced this one is not patched.
func (c *Client) patchNativeConditions(ctx context.Context, kind, apiVersion, namespace, name string, uid types.UID, conds []metav1.Condition) error {
	if len(conds) == 0 {
		return nil
	}
	body, err := nativeStatusPatch(uid, conds)
	if err != nil {
		return err
	}
	// Through the dispatcher, as phalanx's own status writes (one write per object at a
	// time, in order).
	return c.calls.Do(ctx, &dispatch.Call{Class: dispatch.Nominate, Object: kind + "/" + namespace + "/" + name}, func(ctx context.Context) error {
		return c.patchNativeStatus(ctx, kind, apiVersion, namespace, name, body)
	})
}

// patchNativeStatus sends a strategic merge patch of a native object's status in the
// version it was read from.
func (c *Client) patchNativeStatus(ctx context.Context, kind, apiVersion, namespace, name string, body []byte) error {
	var err error
	switch {
	case kind == nativegroup.KindCompositePodGroup && apiVersion == nativegroup.V1alpha3:
		_, err = c.core.SchedulingV1alpha3().CompositePodGroups(namespace).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
	case kind != nativegroup.KindPodGroup:
		err = fmt.Errorf("%s %s/%s: no native %s", kind, namespace, name, apiVersion)
	case apiVersion == nativegroup.V1beta1:
		_, err = c.core.SchedulingV1beta1().PodGroups(namespace).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
	case apiVersion == nativegroup.V1alpha3:
		_, err = c.core.SchedulingV1alpha3().PodGroups(namespace).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
	case apiVersion == nativegroup.V1alpha2:
		if c.v1alpha2 == nil {
			return fmt.Errorf("no %s client", apiVersion)
		}
		err = c.v1alpha2.Patch(types.StrategicMergePatchType).Namespace(namespace).Resource(podGroupsResource).Name(name).
			SubResource("status").Body(body).Do(ctx).Error()
	default:
		err = fmt.Errorf("PodGroup %s/%s: unknown native version %q", namespace, name, apiVersion)
	}
	return err
}

func nativeStatusPatch(uid types.UID, conds []metav1.Condition) ([]byte, error) {
	patch := map[string]any{"status": map[string]any{"conditions": conds}}
	if uid != "" {
		patch["metadata"] = map[string]any{"uid": uid}
	}
	return json.Marshal(patch)
}
