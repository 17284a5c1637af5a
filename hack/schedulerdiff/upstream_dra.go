package schedulerdiff

import (
	"context"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/util/assumecache"
)

// upstreamDRA is the SharedDRAManager kube-scheduler's DynamicResources (and
// NodeResourcesFit, for extended resources backed by devices) read: kube-scheduler's own
// DefaultDRAManager, its claims in an AssumeCache as kube-scheduler's New makes it, fed
// each case's claims synchronously through the informer's event handler (a claim
// informer made once would need a round trip and a wait per case, decision 36); the
// classes are fixed, or a test table case's own (decision 38); the slices are the case's,
// listed in name order, as phalanx lists them (kube-scheduler's informer lists them in no order, and the allocator's first
// solution may depend on it; the harness generates no DeviceTaintRules, so its tracker
// would only pass the slices through; a case with DeviceTaintRules gets its slices from
// kube-scheduler's tracker, run on the case's slices and rules).
type upstreamDRA struct {
	fwk.SharedDRAManager
	claims   toolscache.ResourceEventHandler
	resolver *extendedresourcecache.ExtendedResourceCache
	classes  map[string]*resourceapi.DeviceClass
	// classList are the classes in the manager, in their case's order (the fixed ones,
	// or an upstream test table case's own).
	classList []*resourceapi.DeviceClass
	// current are the claims and slices of the case the manager holds.
	current []*resourceapi.ResourceClaim
	slices  []*resourceapi.ResourceSlice
}

// handlerInformer is the claim informer the AssumeCache registers its handler with.
type handlerInformer struct {
	h toolscache.ResourceEventHandler
}

func (i *handlerInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	i.h = h
	return nil, nil
}

func newUpstreamDRA(ctx context.Context, informerFactory informers.SharedInformerFactory) *upstreamDRA {
	logger := klog.FromContext(ctx)
	inf := &handlerInformer{}
	claims := assumecache.NewAssumeCache(logger, inf, "ResourceClaim", "", nil)
	u := &upstreamDRA{
		// The slice tracker and the class lister are read only by ResourceSlices and
		// DeviceClasses, which upstreamDRA answers itself.
		SharedDRAManager: dynamicresources.NewDRAManager(ctx, claims, nil, informerFactory),
		claims:           inf.h,
		resolver:         extendedresourcecache.NewExtendedResourceCache(logger),
		classes:          map[string]*resourceapi.DeviceClass{},
	}
	u.useClasses(deviceClasses())
	return u
}

// useClasses puts these classes in the manager, in place of those it held.
func (u *upstreamDRA) useClasses(classes []*resourceapi.DeviceClass) {
	for _, dc := range u.classList {
		u.resolver.OnDelete(dc)
	}
	u.classes = map[string]*resourceapi.DeviceClass{}
	for _, dc := range classes {
		u.classes[dc.Name] = dc
		u.resolver.OnAdd(dc, true)
	}
	u.classList = classes
}

// use puts a case's claims and slices in the manager.
func (u *upstreamDRA) use(c *Case) {
	for _, cl := range u.current {
		u.claims.OnDelete(cl)
	}
	for _, cl := range c.Claims {
		u.claims.OnAdd(cl, false)
	}
	u.current = c.Claims
	if classes := classesOf(c); !slices.Equal(classes, u.classList) {
		u.useClasses(classes)
	}
	u.slices = slices.Clone(c.Slices)
	if len(c.Rules) > 0 {
		u.slices = trackedSlices(c)
	}
	slices.SortFunc(u.slices, func(a, b *resourceapi.ResourceSlice) int { return strings.Compare(a.Name, b.Name) })
}

func (u *upstreamDRA) ResourceSlices() fwk.ResourceSliceLister      { return u }
func (u *upstreamDRA) DeviceClasses() fwk.DeviceClassLister         { return u }
func (u *upstreamDRA) DeviceClassResolver() fwk.DeviceClassResolver { return u.resolver }
func (u *upstreamDRA) ListWithDeviceTaintRules() ([]*resourceapi.ResourceSlice, error) {
	return u.slices, nil
}

func (u *upstreamDRA) List() ([]*resourceapi.DeviceClass, error) {
	return slices.Clone(u.classList), nil
}

func (u *upstreamDRA) Get(name string) (*resourceapi.DeviceClass, error) {
	if dc, ok := u.classes[name]; ok {
		return dc, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}

// trackedSlices runs kube-scheduler's ResourceSlice tracker (with DRADeviceTaintRules on,
// as in v1.37) on a case's slices and rules, through informers on a fake clientset, and
// returns the slices it hands the allocator: each device with the taints of the rules
// that select it appended. The informers are the case's own: a case with rules pays one
// round trip (decision 45).
func trackedSlices(c *Case) []*resourceapi.ResourceSlice {
	ctx, cancel := context.WithCancel(context.Background())
	var objs []runtime.Object
	for _, s := range c.Slices {
		objs = append(objs, s)
	}
	for _, r := range c.Rules {
		objs = append(objs, r)
	}
	f := informers.NewSharedInformerFactory(fake.NewClientset(objs...), 0)
	tr, err := tracker.StartTracker(ctx, tracker.Options{EnableDeviceTaintRules: true, EnableConsumableCapacity: true,
		SliceInformer: f.Resource().V1().ResourceSlices(), TaintInformer: f.Resource().V1().DeviceTaintRules()})
	if err != nil {
		panic(err) // only an indexer that cannot be added, never with a new factory
	}
	f.Start(ctx.Done())
	<-tr.HasSyncedChecker().Done()
	out, err := tr.ListPatchedResourceSlices()
	cancel()
	tr.Stop()
	f.Shutdown()
	if err != nil {
		panic(err)
	}
	return out
}
