package schedulerdiff

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// upstreamFramework is kube-scheduler v1.37.2's framework as the comparisons drive it
// (Upstream, UpstreamBatch, UpstreamPreemption): the snapshot each case swaps in, the DRA
// manager that reads each case's devices, and fake informers over the fixed objects.
type upstreamFramework struct {
	lister    *swapLister
	dra       *upstreamDRA
	informers informers.SharedInformerFactory
	fh        framework.Framework
}

// frameworkOptions say what an upstreamFramework is built with.
type frameworkOptions struct {
	// profile, when set, is the framework's profile: its plugins are built from the in-tree
	// registry, with a scheduling queue as the pod nominator and a parallelism of 1. nil: a
	// framework without plugins, on which plugins are built one by one (Upstream).
	profile *config.KubeSchedulerProfile
	// namespaces are in the informers, and copies of objects (storage, budgets).
	namespaces []*v1.Namespace
	objects    []runtime.Object
	// mutableSnapshot: the snapshot is also the framework's mutable snapshot lister
	// (preemption's dry run adds and removes pods on it).
	mutableSnapshot bool
}

// newUpstreamFramework builds the framework; its informers are started by start, once
// every plugin that registers one is built.
func newUpstreamFramework(ctx context.Context, o frameworkOptions) (*upstreamFramework, error) {
	objs := []runtime.Object{}
	for _, ns := range o.namespaces {
		objs = append(objs, ns)
	}
	for _, obj := range o.objects {
		// The fake clientset keeps what it is given: a copy, so that the informers'
		// objects are not the case's.
		objs = append(objs, obj.DeepCopyObject())
	}
	informerFactory := informers.NewSharedInformerFactory(fake.NewClientset(objs...), 0)
	u := &upstreamFramework{lister: &swapLister{cache.NewSnapshot(nil, nil)}, informers: informerFactory}
	u.dra = newUpstreamDRA(ctx, informerFactory)
	opts := []frameworkruntime.Option{
		frameworkruntime.WithSnapshotSharedLister(u.lister),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithSharedDRAManager(u.dra),
		// As kube-scheduler's New: NodeVolumeLimits reads CSINodes through it.
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(informerFactory.Storage().V1().CSINodes().Lister())),
	}
	if o.mutableSnapshot {
		opts = append(opts, frameworkruntime.WithMutableSnapshotLister(u.lister))
	}
	var registry frameworkruntime.Registry
	if o.profile != nil {
		registry = plugins.NewInTreeRegistry()
		opts = append(opts,
			frameworkruntime.WithPodNominator(internalqueue.NewSchedulingQueue(nil, informerFactory)),
			frameworkruntime.WithParallelism(1))
	}
	fh, err := frameworkruntime.NewFramework(ctx, registry, o.profile, opts...)
	if err != nil {
		return nil, err
	}
	u.fh = fh
	return u, nil
}

// start starts the informers and waits for them to list their objects.
func (u *upstreamFramework) start(ctx context.Context) {
	u.informers.Start(ctx.Done())
	u.informers.WaitForCacheSync(ctx.Done())
}

// defaultProfile is kube-scheduler's default profile, with its plugins' default arguments.
func defaultProfile() (config.KubeSchedulerProfile, error) {
	cfg, err := latest.Default()
	if err != nil {
		return config.KubeSchedulerProfile{}, err
	}
	return cfg.Profiles[0], nil
}

// narrowProfile is the default profile with the named plugins only (and PrioritySort and
// DefaultBinder, which a framework needs), with their default arguments.
func narrowProfile(def config.KubeSchedulerProfile, names []string) *config.KubeSchedulerProfile {
	prof := &config.KubeSchedulerProfile{SchedulerName: def.SchedulerName, Plugins: &config.Plugins{}}
	for _, pc := range def.PluginConfig {
		if slices.Contains(names, pc.Name) {
			prof.PluginConfig = append(prof.PluginConfig, pc)
		}
	}
	for _, p := range def.Plugins.MultiPoint.Enabled {
		if slices.Contains(names, p.Name) || p.Name == "PrioritySort" || p.Name == "DefaultBinder" {
			prof.Plugins.MultiPoint.Enabled = append(prof.Plugins.MultiPoint.Enabled, p)
		}
	}
	return prof
}
