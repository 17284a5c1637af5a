//go:build e2e

package e2eutil

import (
	"context"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
)

// CreatePriorityClass creates a PriorityClass with a unique name (they are
// cluster-scoped), deleted when the test ends, and returns its name.
func (c *Cluster) CreatePriorityClass(t testing.TB, prefix string, value int32) string {
	t.Helper()
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: UniqueName(t, prefix)}, Value: value}
	if _, err := c.Client.SchedulingV1().PriorityClasses().Create(Context(t), pc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PriorityClass %s: %v", pc.Name, err)
	}
	t.Cleanup(func() {
		_ = c.Client.SchedulingV1().PriorityClasses().Delete(context.Background(), pc.Name, metav1.DeleteOptions{})
	})
	return pc.Name
}

// Events lists the events.k8s.io/v1 events of a namespace.
func (c *Cluster) Events(t testing.TB, ns string) []eventsv1.Event {
	t.Helper()
	list, err := c.Client.EventsV1().Events(ns).List(Context(t), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list events of %s: %v", ns, err)
	}
	return list.Items
}

// EventCount is how many times an event happened: 1, or its series' count.
func EventCount(e *eventsv1.Event) int {
	if e.Series != nil && e.Series.Count > 1 {
		return int(e.Series.Count)
	}
	return 1
}

// EventsFor returns the events of reason about the named object (any reason if "").
func EventsFor(events []eventsv1.Event, name, reason string) []eventsv1.Event {
	var out []eventsv1.Event
	for _, e := range events {
		if e.Regarding.Name == name && (reason == "" || e.Reason == reason) {
			out = append(out, e)
		}
	}
	return out
}

// WaitEvent waits for an event of reason about the named object and returns it.
func (c *Cluster) WaitEvent(t testing.TB, ns, name, reason string, timeout time.Duration) eventsv1.Event {
	t.Helper()
	var found eventsv1.Event
	WaitFor(t, timeout, reason+" event for "+ns+"/"+name, func(ctx context.Context) (bool, error) {
		list, err := c.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		if evs := EventsFor(list.Items, name, reason); len(evs) > 0 {
			found = evs[0]
			return true, nil
		}
		return false, nil
	})
	return found
}

// DenyPodDeletion installs a ValidatingAdmissionPolicy and its binding that refuse
// DELETE of the pods of ns labelled label=true, and waits until the API server applies
// it (a dry-run delete of probe, a pod of ns with the label, is refused). It returns a
// function that removes them. The test's end removes them too, and takes the label off
// the pods, so that the namespace's deletion is not refused.
func (c *Cluster) DenyPodDeletion(t testing.TB, ns, label, probe string) (remove func()) {
	t.Helper()
	ctx := Context(t)
	name := UniqueName(t, "deny-delete")
	vap := c.Client.AdmissionregistrationV1()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: new(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{
				// On DELETE, object is null and oldObject the pod being deleted.
				Expression: `!has(oldObject.metadata.labels) || !('` + label + `' in oldObject.metadata.labels) || oldObject.metadata.labels['` + label + `'] != 'true'`,
				Message:    "pod is labelled " + label + "=true",
				Reason:     new(metav1.StatusReasonForbidden),
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			},
		},
	}
	if _, err := vap.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create policy: %v", err)
	}
	if _, err := vap.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create binding: %v", err)
	}
	remove = func() {
		ctx := context.Background()
		_ = vap.ValidatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{})
		_ = vap.ValidatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{})
	}
	t.Cleanup(func() {
		remove()
		// The removal reaches admission asynchronously: dropping the label lets the
		// namespace's deletion remove the pods at once.
		pods, err := c.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: label + "=true"})
		if err != nil {
			return
		}
		patch := []byte(`{"metadata":{"labels":{"` + label + `":null}}}`)
		for _, p := range pods.Items {
			_, _ = c.Client.CoreV1().Pods(ns).Patch(context.Background(), p.Name, "application/merge-patch+json", patch, metav1.PatchOptions{})
		}
	})
	dryRun := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
	var lastErr error
	err := Poll(ctx, time.Minute, func(ctx context.Context) (bool, error) {
		lastErr = c.Client.CoreV1().Pods(ns).Delete(ctx, probe, dryRun)
		return apierrors.IsForbidden(lastErr), nil
	})
	if err != nil {
		t.Fatalf("dry-run delete of %s never refused; last result: %v", probe, lastErr)
	}
	return remove
}

// CreatePodGroup creates a PodGroup (the namespace's deletion cleans it up) and returns
// it as created.
func (c *Cluster) CreatePodGroup(t testing.TB, pg *v1alpha1.PodGroup) *v1alpha1.PodGroup {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pg)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(v1alpha1.SchemeGroupVersion.String())
	u.SetKind("PodGroup")
	gvr := v1alpha1.SchemeGroupVersion.WithResource("podgroups")
	created, err := dyn.Resource(gvr).Namespace(pg.Namespace).Create(Context(t), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create PodGroup %s/%s: %v", pg.Namespace, pg.Name, err)
	}
	out := &v1alpha1.PodGroup{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(created.Object, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// ThrottleServiceAccount puts a ServiceAccount's requests in a priority level of their
// own with the given nominal concurrency shares (the server's built-in levels have tens
// to hundreds), no borrowing and no queueing: API Priority and Fairness answers 429 to
// what the level cannot run at once. Both objects are deleted when the test ends.
func (c *Cluster) ThrottleServiceAccount(t testing.TB, ns, name string, shares int32) {
	t.Helper()
	ctx := Context(t)
	level := UniqueName(t, "throttle")
	zero := int32(0)
	plc := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: level},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: &shares,
				LendablePercent:          &zero,
				BorrowingLimitPercent:    &zero,
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: level},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			// Before the built-in service-accounts schema (9000).
			MatchingPrecedence:  500,
			DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{
					Kind:           flowcontrolv1.SubjectKindServiceAccount,
					ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: ns, Name: name},
				}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
					Namespaces: []string{"*"}, ClusterScope: true,
				}},
			}},
		},
	}
	api := c.Client.FlowcontrolV1()
	if _, err := api.PriorityLevelConfigurations().Create(ctx, plc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PriorityLevelConfiguration: %v", err)
	}
	t.Cleanup(func() {
		_ = api.PriorityLevelConfigurations().Delete(context.Background(), level, metav1.DeleteOptions{})
	})
	if _, err := api.FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create FlowSchema: %v", err)
	}
	t.Cleanup(func() { _ = api.FlowSchemas().Delete(context.Background(), level, metav1.DeleteOptions{}) })
	// The API server's APF configuration follows these objects through an informer.
	WaitFor(t, time.Minute, "FlowSchema "+level+" in use", func(ctx context.Context) (bool, error) {
		got, err := api.FlowSchemas().Get(ctx, level, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == flowcontrolv1.FlowSchemaConditionDangling {
				return cond.Status == flowcontrolv1.ConditionFalse, nil
			}
		}
		return false, nil
	})
}
