//go:build e2e

package e2eutil

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodImage is never pulled (kwok runs nothing); it only has to be valid.
const PodImage = "registry.k8s.io/pause:3.10"

// Pod describes a one-container pod for Build.
type Pod struct {
	Namespace, Name string
	NodeName        string // bound directly, bypassing any scheduler
	SchedulerName   string
	CPU, Memory     string // requests; "" for none
	Labels          map[string]string
	Priority        string // PriorityClassName
	// GracePeriod is spec.terminationGracePeriodSeconds: how long kwok keeps the
	// pod terminating after a delete. nil means 1 s, not Kubernetes' 30 s, so
	// that namespace cleanup is quick.
	GracePeriod *int64
}

// Build returns the pod object.
func (p Pod) Build() *corev1.Pod {
	grace := int64(1)
	if p.GracePeriod != nil {
		grace = *p.GracePeriod
	}
	requests := corev1.ResourceList{}
	if p.CPU != "" {
		requests[corev1.ResourceCPU] = resource.MustParse(p.CPU)
	}
	if p.Memory != "" {
		requests[corev1.ResourceMemory] = resource.MustParse(p.Memory)
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, Labels: p.Labels},
		Spec: corev1.PodSpec{
			NodeName:                      p.NodeName,
			SchedulerName:                 p.SchedulerName,
			PriorityClassName:             p.Priority,
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name:      "app",
				Image:     PodImage,
				Resources: corev1.ResourceRequirements{Requests: requests},
			}},
		},
	}
}

// CreatePod creates pod; the namespace's deletion cleans it up.
func (c *Cluster) CreatePod(t testing.TB, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	created, err := c.Client.CoreV1().Pods(pod.Namespace).Create(Context(t), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
	return created
}

// PodRunning tells whether pod is Running and Ready, as kwok reports it.
func PodRunning(pod *corev1.Pod) bool {
	if pod.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// WaitPodRunning waits until PodRunning and returns the pod.
func (c *Cluster) WaitPodRunning(t testing.TB, ns, name string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	WaitFor(t, time.Minute, "pod "+ns+"/"+name+" Running", func(ctx context.Context) (bool, error) {
		var err error
		pod, err = c.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return PodRunning(pod), nil
	})
	return pod
}

// WaitPodGone waits until the pod no longer exists.
func (c *Cluster) WaitPodGone(t testing.TB, ns, name string, timeout time.Duration) {
	t.Helper()
	WaitFor(t, timeout, "pod "+ns+"/"+name+" gone", func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
