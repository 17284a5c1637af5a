package schedulerdiff

import (
	"context"
	"slices"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/informers"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
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
// classes are fixed; the slices are the case's, listed in name order, as phalanx lists
// them (kube-scheduler's informer lists them in no order, and the allocator's first
// solution may depend on it; the harness generates no DeviceTaintRules, so its tracker
// would only pass the slices through).
type upstreamDRA struct {
	fwk.SharedDRAManager
	claims   toolscache.ResourceEventHandler
	resolver *extendedresourcecache.ExtendedResourceCache
	classes  map[string]*resourceapi.DeviceClass
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
	for _, dc := range deviceClasses() {
		u.classes[dc.Name] = dc
		u.resolver.OnAdd(dc, true)
	}
	return u
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
	u.slices = slices.Clone(c.Slices)
	slices.SortFunc(u.slices, func(a, b *resourceapi.ResourceSlice) int { return strings.Compare(a.Name, b.Name) })
}

func (u *upstreamDRA) ResourceSlices() fwk.ResourceSliceLister      { return u }
func (u *upstreamDRA) DeviceClasses() fwk.DeviceClassLister         { return u }
func (u *upstreamDRA) DeviceClassResolver() fwk.DeviceClassResolver { return u.resolver }
func (u *upstreamDRA) ListWithDeviceTaintRules() ([]*resourceapi.ResourceSlice, error) {
	return u.slices, nil
}

func (u *upstreamDRA) List() ([]*resourceapi.DeviceClass, error) {
	var out []*resourceapi.DeviceClass
	for _, dc := range deviceClasses() {
		out = append(out, u.classes[dc.Name])
	}
	return out, nil
}

func (u *upstreamDRA) Get(name string) (*resourceapi.DeviceClass, error) {
	if dc, ok := u.classes[name]; ok {
		return dc, nil
	}
	return nil, apierrors.NewNotFound(resourceapi.Resource("deviceclasses"), name)
}
