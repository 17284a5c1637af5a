package cache

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/phalanx-dev/phalanx/api/v1alpha1"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

func compositeInfo(name, parent string) *framework.GroupInfo {
	c := &v1alpha1.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	if parent != "" {
		c.Spec.ParentCompositePodGroupName = &parent
	}
	return &framework.GroupInfo{Key: "ns/" + name, Composite: c}
}

func groupInfo(name, parent string) *framework.GroupInfo {
	pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	pg.Spec.ParentCompositePodGroupName = &parent
	return &framework.GroupInfo{Key: "ns/" + name, PodGroup: pg}
}

// WalkComposites visits parents before children, each composite once (a cycle of parents
// too), with the groups that name it; CompositeGroups is every group below, sorted.
func TestWalkComposites(t *testing.T) {
	c := New()
	// job > {slice-a > {a1}, slice-b > {b1, b2}}, job > {g0}; x <-> y, a cycle, y > {y1}.
	for _, ci := range []*framework.GroupInfo{compositeInfo("job", ""), compositeInfo("slice-a", "job"),
		compositeInfo("slice-b", "job"), compositeInfo("x", "y"), compositeInfo("y", "x")} {
		c.Groups().SetComposite(ci)
	}
	for _, g := range []*framework.GroupInfo{groupInfo("g0", "job"), groupInfo("a1", "slice-a"),
		groupInfo("b2", "slice-b"), groupInfo("b1", "slice-b"), groupInfo("y1", "y")} {
		c.Groups().SetGroup(g)
	}
	type visit struct {
		key    string
		groups []string
	}
	walk := func(starts ...string) []visit {
		var out []visit
		c.Groups().WalkComposites(starts, func(key string, groups []string) { out = append(out, visit{key, groups}) })
		return out
	}
	want := []visit{{"ns/job", []string{"ns/g0"}}, {"ns/slice-a", []string{"ns/a1"}}, {"ns/slice-b", []string{"ns/b1", "ns/b2"}}}
	if got := walk("ns/job", "ns/slice-a"); !reflect.DeepEqual(got, want) {
		t.Errorf("walk from job: %v, want %v", got, want)
	}
	want = []visit{{"ns/x", nil}, {"ns/y", []string{"ns/y1"}}}
	if got := walk("ns/x"); !reflect.DeepEqual(got, want) {
		t.Errorf("walk of a cycle: %v, want %v", got, want)
	}
	if got, want := c.CompositeGroups("ns/job"), []string{"ns/a1", "ns/b1", "ns/b2", "ns/g0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("CompositeGroups(job) = %v, want %v", got, want)
	}
	if got := c.CompositeGroups("ns/y"); !reflect.DeepEqual(got, []string{"ns/y1"}) {
		t.Errorf("CompositeGroups(y) = %v", got)
	}
}
