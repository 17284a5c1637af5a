package snapshot

import (
	"context"
	"os"
	"slices"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The ClusterRole of config/snapshot grants list of exactly what a snapshot reads.
func TestClusterRoleGrantsExactlyTheReads(t *testing.T) {
	data, err := os.ReadFile("../../config/snapshot/cluster-role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatal(err)
	}
	granted := map[Resource]bool{}
	for _, r := range role.Rules {
		if !slices.Equal(r.Verbs, []string{"list"}) {
			t.Errorf("rule %v grants %v: a snapshot only lists", r.Resources, r.Verbs)
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				granted[Resource{g, res}] = true
			}
		}
	}
	for _, r := range Reads {
		if !granted[r] {
			t.Errorf("the role does not grant list of %v", r)
		}
		delete(granted, r)
	}
	for r := range granted {
		t.Errorf("the role grants %v, which a snapshot never reads", r)
	}
}

// Reads lists what Take lists (phalanx's PodGroups and CompositePodGroups through their own
// client).
func TestReadsAreWhatASnapshotLists(t *testing.T) {
	cs := fake.NewClientset(cluster()...)
	if _, err := Take(context.Background(), &Source{Kube: cs, NativeVersion: nativegroup.V1beta1, NativeComposites: true}, Options{}); err != nil {
		t.Fatal(err)
	}
	listed := map[Resource]bool{{v1alpha1.SchemeGroupVersion.Group, "podgroups"}: true, {v1alpha1.SchemeGroupVersion.Group, "compositepodgroups"}: true}
	for _, a := range cs.Actions() {
		if a.GetVerb() != "list" {
			t.Errorf("a snapshot made a %s call", a.GetVerb())
		}
		listed[Resource{a.GetResource().Group, a.GetResource().Resource}] = true
	}
	for _, r := range Reads {
		if !listed[r] {
			t.Errorf("Reads has %v, which a snapshot does not list", r)
		}
		delete(listed, r)
	}
	for r := range listed {
		t.Errorf("a snapshot lists %v, which Reads lacks", r)
	}
}
