package kube

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// PodGroupClient reads and writes phalanx's own kinds, PodGroups and CompositePodGroups
// (scheduling.phalanx.dev/v1alpha1), with a REST client typed by api/v1alpha1's scheme
// (decision 6: no generated clientset, no unstructured conversion).
type PodGroupClient struct {
	rest rest.Interface
}

const (
	podGroupsResource  = "podgroups"
	compositesResource = "compositepodgroups"
)

// NewPodGroupClient returns a client for scheduling.phalanx.dev/v1alpha1 PodGroups and
// CompositePodGroups. It speaks JSON (custom resources have no protobuf) and shares base's
// rate limiter, if it has one.
func NewPodGroupClient(base *rest.Config, scheme *runtime.Scheme) (*PodGroupClient, error) {
	rc, err := newJSONRESTClient(base, v1alpha1.SchemeGroupVersion, scheme)
	if err != nil {
		return nil, err
	}
	return &PodGroupClient{rest: rc}, nil
}

// List lists PodGroups in all namespaces.
func (c *PodGroupClient) List(ctx context.Context, opts metav1.ListOptions) (*v1alpha1.PodGroupList, error) {
	out := &v1alpha1.PodGroupList{}
	err := c.rest.Get().Resource(podGroupsResource).
		VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(out)
	return out, err
}

// Watch watches PodGroups in all namespaces.
func (c *PodGroupClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return c.rest.Get().Resource(podGroupsResource).
		VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
}

// Get reads one PodGroup.
func (c *PodGroupClient) Get(ctx context.Context, namespace, name string) (*v1alpha1.PodGroup, error) {
	out := &v1alpha1.PodGroup{}
	return out, c.get(ctx, podGroupsResource, namespace, name, out)
}

// UpdateStatus writes a PodGroup's status subresource (optimistic concurrency on its
// resourceVersion).
func (c *PodGroupClient) UpdateStatus(ctx context.Context, pg *v1alpha1.PodGroup) (*v1alpha1.PodGroup, error) {
	out := &v1alpha1.PodGroup{}
	return out, c.putStatus(ctx, podGroupsResource, pg, out)
}

// NewInformer returns a shared informer of all PodGroups.
func (c *PodGroupClient) NewInformer(resync time.Duration) cache.SharedIndexInformer {
	return restInformer(c.rest, podGroupsResource, func() runtime.Object { return &v1alpha1.PodGroupList{} }, &v1alpha1.PodGroup{}, resync)
}

// GetComposite reads one CompositePodGroup.
func (c *PodGroupClient) GetComposite(ctx context.Context, namespace, name string) (*v1alpha1.CompositePodGroup, error) {
	out := &v1alpha1.CompositePodGroup{}
	return out, c.get(ctx, compositesResource, namespace, name, out)
}

// UpdateCompositeStatus writes a CompositePodGroup's status subresource.
func (c *PodGroupClient) UpdateCompositeStatus(ctx context.Context, cpg *v1alpha1.CompositePodGroup) (*v1alpha1.CompositePodGroup, error) {
	out := &v1alpha1.CompositePodGroup{}
	return out, c.putStatus(ctx, compositesResource, cpg, out)
}

// NewCompositeInformer returns a shared informer of all CompositePodGroups.
func (c *PodGroupClient) NewCompositeInformer(resync time.Duration) cache.SharedIndexInformer {
	return restInformer(c.rest, compositesResource, func() runtime.Object { return &v1alpha1.CompositePodGroupList{} },
		&v1alpha1.CompositePodGroup{}, resync)
}

func (c *PodGroupClient) get(ctx context.Context, resource, namespace, name string, out runtime.Object) error {
	return c.rest.Get().Namespace(namespace).Resource(resource).Name(name).Do(ctx).Into(out)
}

// putStatus writes an object's status subresource.
func (c *PodGroupClient) putStatus(ctx context.Context, resource string, obj interface {
	runtime.Object
	metav1.Object
}, out runtime.Object) error {
	return c.rest.Put().Namespace(obj.GetNamespace()).Resource(resource).Name(obj.GetName()).
		SubResource("status").Body(obj).Do(ctx).Into(out)
}
