package kube

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	schedulingv1alpha2 "github.com/phalanx-dev/phalanx/internal/upstream/scheduling/v1alpha2"
)

// Kubernetes 1.36's scheduling.k8s.io/v1alpha2 PodGroups and Workloads have no client in
// client-go v0.37 (k8s.io/api dropped the version): phalanx reads them, and patches the
// PodGroups' status, with a REST client typed by the scheme of its own copy of the types,
// as it reads its CRD (decision 6).

// newJSONRESTClient returns a REST client for one group version that speaks JSON and
// decodes with scheme.
func newJSONRESTClient(base *rest.Config, gv schema.GroupVersion, scheme *runtime.Scheme) (*rest.RESTClient, error) {
	cfg := rest.CopyConfig(base)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	if cfg.UserAgent == "" {
		cfg.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	return rest.RESTClientFor(cfg)
}

// newV1alpha2Client returns a REST client for scheduling.k8s.io/v1alpha2.
func newV1alpha2Client(base *rest.Config) (*rest.RESTClient, error) {
	scheme := runtime.NewScheme()
	if err := schedulingv1alpha2.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return newJSONRESTClient(base, schedulingv1alpha2.SchemeGroupVersion, scheme)
}

// restInformer returns a shared informer of every object of a resource in all
// namespaces, listed and watched through rc; newList makes the list to decode into and
// obj is an object of the resource's type.
func restInformer(rc rest.Interface, resource string, newList func() runtime.Object, obj runtime.Object, resync time.Duration) cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			out := newList()
			err := rc.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(out)
			return out, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return rc.Get().Resource(resource).VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
		},
	}
	return cache.NewSharedIndexInformer(lw, obj, resync, cache.Indexers{})
}

// v1alpha2Informers are the informers of v1alpha2 Workloads and PodGroups.
func v1alpha2Informers(rc rest.Interface) (workloads, podGroups cache.SharedIndexInformer) {
	workloads = restInformer(rc, "workloads", func() runtime.Object { return &schedulingv1alpha2.WorkloadList{} }, &schedulingv1alpha2.Workload{}, 0)
	podGroups = restInformer(rc, podGroupsResource, func() runtime.Object { return &schedulingv1alpha2.PodGroupList{} }, &schedulingv1alpha2.PodGroup{}, 0)
	return workloads, podGroups
}
