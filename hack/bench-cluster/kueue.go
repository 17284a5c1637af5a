package main

// Kueue v0.17.0 (hack/cluster/kueue, built into the e2e cache by hack/lib/e2e-cluster.sh)
// on the control plane under test, for the kueue workload, started by hack/kueuectl as
// the e2e tests start it: its manager manages batch/v1 Jobs in the namespaces labelled
// kueueNamespaceLabel. Its objects are unstructured: Kueue never enters this module.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/phalanx-dev/phalanx/hack/kueuectl"
)

// kueueNamespaceLabel marks the namespaces whose Jobs Kueue manages.
const kueueNamespaceLabel = "bench.phalanx.dev/kueue"

// kueueGroupVersion is the API version used (v1beta2, Kueue's storage version).
var kueueGroupVersion = kueuectl.GroupVersion

// startKueue installs Kueue's CRDs (from moduleDir, sigs.k8s.io/kueue in the module
// cache) and webhook configurations, starts bin with kubeconfig, and waits for /readyz.
func startKueue(ctx context.Context, c *cluster, bin, moduleDir, kubeconfig, dir string) (*kueuectl.Kueue, error) {
	if bin == "" || moduleDir == "" {
		return nil, fmt.Errorf("--kueue and --kueue-module are required for the kueue workload")
	}
	k, err := kueuectl.Start(ctx, c.client, c.dynamic, kueuectl.Options{
		Bin:            bin,
		ModuleDir:      moduleDir,
		Kubeconfig:     kubeconfig,
		Dir:            dir,
		NamespaceLabel: kueueNamespaceLabel,
		FieldManager:   "bench-cluster",
	})
	if err != nil {
		_ = kueuectl.DeleteWebhooks(context.WithoutCancel(ctx), c.client)
		if k != nil {
			return nil, fmt.Errorf("%w (log %s)", err, k.Log)
		}
		return nil, err
	}
	return k, nil
}

// stopKueue ends the manager and deletes its webhook configurations, so that nothing
// waits for a Kueue that is gone.
func (c *cluster) stopKueue(k *kueuectl.Kueue) {
	k.Stop()
	_ = kueuectl.DeleteWebhooks(context.Background(), c.client)
}

// kueueWorkload is the workload of Jobs admitted by Kueue.
const kueueWorkload = "kueue"

// kueueOptions are the kueue workload's binary, module and sizes.
type kueueOptions struct {
	bin, moduleDir string
	jobs, admit    int
	run            time.Duration
}

// runKueue: Kueue runs, with a ClusterQueue whose CPU quota admits b.k.admit Jobs at a
// time and a LocalQueue; the scheduler runs; b.k.jobs Indexed Jobs of gangSize pods are
// created at once, sent to the LocalQueue (Kueue's webhook suspends them, Kueue admits
// them as quota allows, kwok completes each pod b.k.run after it runs, which frees the
// quota for the next). Timed from the first creation to the last pod seen Running.
// phalanx's Jobs are gangs (a PodGroup of minCount gangSize each); kube-scheduler's are
// the same Jobs without gang semantics (no spec.scheduling, no PodGroup).
func runKueue(ctx context.Context, b *bench, r *result) error {
	ns := "bench-kueue"
	k, err := startKueue(ctx, b.c, b.k.bin, b.k.moduleDir, b.l.kubeconfig, b.l.dir)
	if err != nil {
		return err
	}
	defer b.c.stopKueue(k)
	if err := b.c.createNamespace(ctx, ns); err != nil {
		return err
	}
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, kueueNamespaceLabel))
	if _, err := b.c.client.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return err
	}
	defer func() {
		ctx := context.WithoutCancel(ctx)
		bg := metav1.DeletePropagationBackground
		_ = b.c.client.BatchV1().Jobs(ns).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{})
		_ = b.c.cleanUp(ctx, ns, []schema.GroupVersionResource{phalanxPodGroups})
	}()
	size := b.s.gangSize
	quota := b.k.admit * size * 4 // 4 CPUs a pod
	create := func(kind, namespace, name string, spec map[string]any) error {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kueueGroupVersion.String(), "kind": kind, "spec": spec}}
		u.SetName(name)
		u.SetNamespace(namespace)
		api := b.c.dynamic.Resource(kueueGroupVersion.WithResource(strings.ToLower(kind) + "s"))
		var err error
		if namespace == "" {
			_, err = api.Create(ctx, u, metav1.CreateOptions{})
		} else {
			_, err = api.Namespace(namespace).Create(ctx, u, metav1.CreateOptions{})
		}
		if err != nil {
			return fmt.Errorf("create %s %s: %w", kind, name, err)
		}
		return nil
	}
	if err := create("ResourceFlavor", "", "bench", map[string]any{}); err != nil {
		return err
	}
	err = create("ClusterQueue", "", "bench", map[string]any{
		"namespaceSelector": map[string]any{},
		"resourceGroups": []any{map[string]any{
			"coveredResources": []any{"cpu", "memory"},
			"flavors": []any{map[string]any{"name": "bench", "resources": []any{
				map[string]any{"name": "cpu", "nominalQuota": strconv.Itoa(quota)},
				map[string]any{"name": "memory", "nominalQuota": "100Ti"},
			}}},
		}},
	})
	if err != nil {
		return err
	}
	if err := create("LocalQueue", ns, "bench", map[string]any{"clusterQueue": "bench"}); err != nil {
		return err
	}
	cqs := b.c.dynamic.Resource(kueueGroupVersion.WithResource("clusterqueues"))
	err = poll(ctx, time.Minute, func(ctx context.Context) (bool, error) {
		u, err := cqs.Get(ctx, "bench", metav1.GetOptions{})
		return err == nil && kueuectl.ConditionTrue(u, "Active"), nil
	})
	if err != nil {
		return fmt.Errorf("ClusterQueue bench Active: %w", err)
	}
	r.Pods = b.k.jobs * size
	return b.measure(ctx, ns, r, true, func(*bindings) (time.Time, error) {
		start := time.Now()
		return start, parallel(ctx, b.k.jobs, createWorkers, func(ctx context.Context, i int) error {
			name := fmt.Sprintf("j-%03d", i)
			p := podSpec{name: name, namespace: ns, cpu: "4", measured: true}
			if b.l.kind != kindKubeScheduler {
				pg := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": phalanxPodGroups.GroupVersion().String(),
					"kind":       "PodGroup",
					"metadata":   map[string]any{"name": name, "namespace": ns},
					"spec":       map[string]any{"schedulingPolicy": map[string]any{"gang": map[string]any{"minCount": int64(size)}}},
				}}
				if _, err := b.c.dynamic.Resource(phalanxPodGroups).Namespace(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
					return fmt.Errorf("create PodGroup %s: %w", name, err)
				}
				p.podGroupLabel = name
			}
			pod := p.build()
			zero := int64(0)
			pod.Spec.RestartPolicy = corev1.RestartPolicyNever
			pod.Spec.TerminationGracePeriodSeconds = &zero
			pod.Annotations = map[string]string{"pod-complete.stage.kwok.x-k8s.io/delay": b.k.run.String()}
			n := int32(size)
			mode := batchv1.IndexedCompletion
			job := &batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "bench"}},
				Spec: batchv1.JobSpec{
					Parallelism: &n, Completions: &n, CompletionMode: &mode, BackoffLimit: new(int32),
					Template: corev1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec},
				},
			}
			job.Spec.Template.Name, job.Spec.Template.Namespace = "", ""
			if _, err := b.c.client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("create Job %s: %w", name, err)
			}
			return nil
		})
	})
}
