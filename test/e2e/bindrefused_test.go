//go:build e2e

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

// TestGroupBindingRefused (issue 29): phalanx runs with its ClusterRole less
// pods/binding, so the API server refuses every binding. The gang's PodGroup must not say
// Scheduled with none of its members bound: PodGroupScheduled=False names the refusal,
// a Warning event on the group says it, and the log has an error line (shown at the
// Deployment's --v=2, as at any verbosity).
func TestGroupBindingRefused(t *testing.T) {
	c := e2eutil.Connect(t)
	ctx := e2eutil.Context(t)
	c.PhalanxKubeconfig(t) // phalanx's ClusterRole, to copy
	ns := c.CreateNamespace(t)
	c.CreateReadyNode(t, e2eutil.Node{CPU: "4", Memory: "8Gi"})

	role, err := c.Client.RbacV1().ClusterRoles().Get(ctx, "phalanx", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	name := e2eutil.UniqueName(t, "phalanx-nobind")
	nobind := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, r := range role.Rules {
		r = *r.DeepCopy()
		r.Resources = slices.DeleteFunc(r.Resources, func(res string) bool { return res == "pods/binding" })
		if len(r.Resources) > 0 || len(r.NonResourceURLs) > 0 {
			nobind.Rules = append(nobind.Rules, r)
		}
	}
	if _, err := c.Client.RbacV1().ClusterRoles().Create(ctx, nobind, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	sa, err := c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nobind"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa.Name}},
	}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Client.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	tr, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubeconfigFor(t, c, c.Config.Host, tr.Status.Token, c.Config.TLSClientConfig.CAFile)

	p := c.StartPhalanx(t, "nobind", "--kubeconfig="+kubeconfig, "--leader-elect=false")
	p.WaitReady(t)
	c.CreatePodGroup(t, gangGroup(ns, "g", 3, "", nil))
	var members []string
	for _, m := range []string{"g-0", "g-1", "g-2"} {
		members = append(members, m)
		c.CreatePod(t, member(e2eutil.Pod{Namespace: ns, Name: m, SchedulerName: e2eutil.SchedulerName(t), CPU: "500m", Memory: "100Mi"}.Build(), "g"))
	}

	var cond *metav1.Condition
	e2eutil.WaitFor(t, 2*time.Minute, "PodGroupScheduled=False naming the refused binding", func(context.Context) (bool, error) {
		pg := c.GetPodGroup(t, ns, "g")
		cond = apimeta.FindStatusCondition(pg.Status.Conditions, v1alpha1.PodGroupScheduled)
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == v1alpha1.PodGroupReasonSchedulerError, nil
	})
	for _, want := range []string{"Binding of member " + ns + "/g-", "pods/binding", "forbidden", "(0 of 3 members bound)"} {
		if !strings.Contains(cond.Message, want) {
			t.Errorf("PodGroupScheduled message %q does not say %q", cond.Message, want)
		}
	}
	for _, m := range members {
		pod, err := c.Client.CoreV1().Pods(ns).Get(ctx, m, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Spec.NodeName != "" {
			t.Errorf("pod %s bound to %s without pods/binding", m, pod.Spec.NodeName)
		}
	}
	ev := c.WaitEvent(t, ns, "g", "FailedScheduling", time.Minute)
	if ev.Type != corev1.EventTypeWarning || !strings.Contains(ev.Note, "pods/binding") {
		t.Errorf("event on the group: %s %q, want a Warning naming the refusal", ev.Type, ev.Note)
	}
	// The group is tried again after its backoff: it says False still, not Scheduled.
	if pg := c.GetPodGroup(t, ns, "g"); apimeta.IsStatusConditionTrue(pg.Status.Conditions, v1alpha1.PodGroupScheduled) {
		t.Errorf("PodGroup says Scheduled with no member bound: %+v", pg.Status.Conditions)
	}
	var errorLine string
	for _, line := range strings.Split(p.ReadLog(t), "\n") {
		if strings.HasPrefix(line, "E") && strings.Contains(line, "Binding of a pod group member failed") && strings.Contains(line, "pods/binding") {
			errorLine = line
			break
		}
	}
	if errorLine == "" {
		t.Errorf("no error line about the refused binding in phalanx's log at --v=2")
	}
}
