package snapshot

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
)

// A queued Job whose pods the API server would refuse once admitted is left out, with a
// note: one in a namespace being deleted, one whose template names a PriorityClass that
// was deleted, and one being deleted itself. The API server keeps them all, so a snapshot
// taken while a test (or a user) tears a namespace down must not be refused as a whole.
func TestQueuedJobsThatCannotStartAreLeftOut(t *testing.T) {
	deleted := metav1.NewTime(now.Add(-10 * time.Second))
	job := func(ns, name, class string, deleting bool) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: batchv1.JobSpec{Suspend: ptrTo(true), Parallelism: ptrTo(int32(1)), Completions: ptrTo(int32(1)),
				Template: v1.PodTemplateSpec{Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, PriorityClassName: class,
					Containers: []v1.Container{{Name: "c", Image: "trainer"}}}}}}
		if deleting {
			j.DeletionTimestamp = &deleted
		}
		return j
	}
	tests := []struct {
		name      string
		objects   []runtime.Object
		wantJobs  []string
		wantNotes []string
	}{
		{
			name:     "startable Jobs are kept",
			objects:  []runtime.Object{job("ml", "a", "high", false), job("ml", "b", "", false), job("ml", "c", "system-node-critical", false)},
			wantJobs: []string{"ml/a", "ml/b", "ml/c"},
		},
		{
			name:      "a namespace being deleted",
			objects:   []runtime.Object{job("ml", "a", "high", false), job("ending", "b", "high", false), job("terminating", "c", "", false)},
			wantJobs:  []string{"ml/a"},
			wantNotes: []string{"jobs: 2 queued in namespaces being deleted, left out"},
		},
		{
			name:      "a PriorityClass deleted",
			objects:   []runtime.Object{job("ml", "a", "high", false), job("ml", "b", "deleted-class", false)},
			wantJobs:  []string{"ml/a"},
			wantNotes: []string{"jobs: 1 queued whose pods name a PriorityClass that no longer exists, left out"},
		},
		{
			name:     "a Job being deleted",
			objects:  []runtime.Object{job("ml", "a", "high", true), job("ml", "b", "high", false)},
			wantJobs: []string{"ml/b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objects := append([]runtime.Object{
				&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ml"}},
				&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ending", DeletionTimestamp: &deleted}},
				&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "terminating"}, Status: v1.NamespaceStatus{Phase: v1.NamespaceTerminating}},
				&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
			}, tt.objects...)
			s, err := Take(context.Background(), &Source{Kube: fake.NewClientset(objects...), NativeVersion: nativegroup.V1beta1},
				Options{Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range s.QueuedJobs {
				got = append(got, j.Namespace+"/"+j.Name)
			}
			if !slices.Equal(got, tt.wantJobs) {
				t.Errorf("queued Jobs %v, want %v", got, tt.wantJobs)
			}
			var notes []string
			for _, n := range s.Notes {
				if strings.HasPrefix(n, "jobs: ") {
					notes = append(notes, n)
				}
			}
			if len(notes) != len(tt.wantNotes) {
				t.Fatalf("notes about Jobs %q, want %q", notes, tt.wantNotes)
			}
			for i, want := range tt.wantNotes {
				if !strings.HasPrefix(notes[i], want) {
					t.Errorf("note %q, want it to start %q", notes[i], want)
				}
			}
		})
	}
}
