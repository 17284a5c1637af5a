package snapshot

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/driver/sim"
	"github.com/phalanx-dev/phalanx/pkg/nativegroup"
	"github.com/phalanx-dev/phalanx/pkg/report"
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func cluster() []runtime.Object {
	yes := true
	grace := int64(30)
	node := func(name string) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": "z1"},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("4"), v1.ResourcePods: apiresource.MustParse("110")},
				Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "10.1.2.3"}}}}
	}
	pod := func(ns, name, node string, created time.Time) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{"app": name}, Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{secret}"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u", Controller: &yes}}},
			Spec: v1.PodSpec{NodeName: node, PriorityClassName: "high", TerminationGracePeriodSeconds: &grace,
				Containers: []v1.Container{{Name: "c", Image: "img", Command: []string{"run"}, Env: []v1.EnvVar{{Name: "TOKEN", Value: "hunter2"}},
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("1")}},
					Ports:     []v1.ContainerPort{{ContainerPort: 80}}}},
				Volumes: []v1.Volume{{Name: "token", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "db-password"}}}}},
			Status: v1.PodStatus{Phase: v1.PodRunning, PodIP: "10.0.0.7"}}
	}
	terminating := pod("ml", "leaving", "n1", now.Add(-time.Hour))
	terminating.DeletionTimestamp = &metav1.Time{Time: now.Add(20 * time.Second)}
	finished := pod("ml", "done", "n1", now.Add(-time.Hour))
	finished.Status.Phase = v1.PodSucceeded
	a := pod("ml", "a", "n2", now.Add(-2*time.Hour))
	a.Spec.Containers[0].Ports = append(a.Spec.Containers[0].Ports, v1.ContainerPort{ContainerPort: 9000, HostPort: 9000})
	classGone := pod("ml", "old", "n2", now.Add(-time.Hour))
	classGone.Spec.PriorityClassName, classGone.Spec.Priority = "deleted-class", ptrTo(int32(7))
	pending := pod("ml", "waiting", "", now.Add(-time.Minute))
	pending.Status.Phase = v1.PodPending
	class := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}
	// A Job's gang as the Job controller makes it: a Workload and a PodGroup of v1beta1.
	gang := schedulingv1beta1.PodGroupSchedulingPolicy{Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: 2}}
	workload := &schedulingv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train-wl", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager"}}},
		Spec: schedulingv1beta1.WorkloadSpec{PodGroupTemplates: []schedulingv1beta1.PodGroupTemplate{{Name: "t", SchedulingPolicy: gang}}}}
	nativeGroup := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "train-pg"},
		Spec:   schedulingv1beta1.PodGroupSpec{SchedulingPolicy: gang, WorkloadRef: &schedulingv1beta1.WorkloadReference{WorkloadName: "train-wl", TemplateName: "t"}},
		Status: schedulingv1beta1.PodGroupStatus{Conditions: []metav1.Condition{{Type: "PodGroupInitiallyScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled", Message: "secret scheduling history"}}}}
	// A group whose PriorityClass was deleted after the API server gave it its priority.
	classGoneGroup := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "old-pg"},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: gang, WorkloadRef: &schedulingv1beta1.WorkloadReference{WorkloadName: "train-wl", TemplateName: "t"},
			PriorityClassName: "deleted-class", Priority: ptrTo(int32(7))}}
	// Jobs: one queued (suspended, as Kueue holds it), one running (its pods are what
	// counts), one suspended after it finished.
	job := func(name string, suspend bool, finished bool) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "training"},
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{secret}"}},
			Spec: batchv1.JobSpec{Suspend: &suspend, Parallelism: ptrTo(int32(2)), Completions: ptrTo(int32(2)), CompletionMode: ptrTo(batchv1.IndexedCompletion),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "u1"}},
				Template: v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec: v1.PodSpec{RestartPolicy: v1.RestartPolicyNever, PriorityClassName: "high", Containers: []v1.Container{{Name: "c", Image: "trainer",
						Env:       []v1.EnvVar{{Name: "TOKEN", Value: "hunter2"}},
						Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("1")}}}}}}}}
		if finished {
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: v1.ConditionTrue}}
		}
		return j
	}
	return []runtime.Object{
		job("queued-train", true, false), job("running-train", false, false), job("finished-train", true, true),
		node("n2"), node("n1"), classGoneGroup,
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ml"}},
		class, workload, nativeGroup, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 2000001000},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "csi.example.com",
			Parameters: map[string]string{"csi.storage.k8s.io/provisioner-secret-name": "cloud-key"}},
		&storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "csi.example.com"}, Spec: storagev1.CSIDriverSpec{StorageCapacity: &yes}},
		&storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "fast-z1", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "csi-provisioner"}}},
			StorageClassName: "fast", NodeTopology: &metav1.LabelSelector{MatchLabels: map[string]string{"topology.kubernetes.io/zone": "z1"}},
			Capacity: ptrTo(apiresource.MustParse("77Gi"))},
		&storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "csi-attached"}, Spec: storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "n1",
			Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptrTo("pv-attached")}}},
		&storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "csi-inline"}, Spec: storagev1.VolumeAttachmentSpec{Attacher: "csi.example.com", NodeName: "n1",
			Source: storagev1.VolumeAttachmentSource{InlineVolumeSpec: &v1.PersistentVolumeSpec{}}}},
		// A DeviceTaintRule: its spec is kept, its status (the eviction controller's) dropped.
		&resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "drain-n1"},
			Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: &resourceapi.DeviceTaintSelector{Pool: ptrTo("n1")},
				Taint: resourceapi.DeviceTaint{Key: "example.com/maintenance", Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: now.Add(-time.Hour)}}},
			Status: resourceapi.DeviceTaintRuleStatus{Conditions: []metav1.Condition{{Type: resourceapi.DeviceTaintConditionEvictionInProgress, Status: metav1.ConditionFalse, Reason: "Done", Message: "secret eviction history"}}}},
		pod("ml", "b", "n1", now.Add(-2*time.Hour)), a, pod("other", "z", "n2", now.Add(-3*time.Hour)),
		terminating, finished, pending, classGone, pod("ml", "orphan", "gone-node", now.Add(-time.Hour)),
	}
}

func take(t testing.TB, opts Options) *Snapshot {
	t.Helper()
	opts.Now = func() time.Time { return now }
	s, err := Take(context.Background(), &Source{Kube: fake.NewClientset(cluster()...), NativeVersion: nativegroup.V1beta1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A snapshot keeps what scheduling reads, drops the rest, is ordered, and the simulator
// reads it back.
func TestSnapshotStripsOrdersAndLoadsBack(t *testing.T) {
	s := take(t, Options{})
	var out bytes.Buffer
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	y := out.String()
	for _, gone := range []string{"hunter2", "TOKEN", "command", "db-password", "cloud-key", "managedFields", "last-applied", "10.1.2.3", "10.0.0.7",
		"manager: kubelet", "ttl", "kube-controller-manager", "secret scheduling history", "system-node-critical", "name: done", "name: orphan", "containerPort: 80\n",
		"deleted-class", "running-train", "finished-train", "controller-uid", "csi-inline", "csi-provisioner", "secret eviction history"} {
		if strings.Contains(y, gone) {
			t.Errorf("the snapshot keeps %q", gone)
		}
	}
	for _, kept := range []string{"topology.kubernetes.io/zone: z1", "image: img", "hostPort: 9000", "kind: ReplicaSet", "priorityClassName: high",
		"apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload", "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup", "workloadName: train-wl",
		`sim.phalanx.dev/terminate-after: "20s"`, `sim.phalanx.dev/delete-at: "0s"`, "provisioner: csi.example.com", "kind: CSIDriver", "storageCapacity: true", "kind: CSIStorageCapacity", "capacity: 77Gi", "persistentVolumeName: pv-attached",
		"kind: DeviceTaintRule", "key: example.com/maintenance", "effect: NoSchedule", "timeAdded:",
		"# left out: pods: 1 bound to nodes that no longer exist, left out",
		"# left out: pods: the names of 1 pods' PriorityClasses, which no longer exist (their priority is kept)",
		"# left out: pod groups: the names of 1 groups' PriorityClasses, which no longer exist (their priority is kept, or the default one when they had none)"} {
		if !strings.Contains(y, kept) {
			t.Errorf("the snapshot lacks %q:\n%s", kept, y)
		}
	}
	var order []string
	for _, p := range s.Pods {
		order = append(order, p.Namespace+"/"+p.Name)
	}
	if got := strings.Join(order, " "); got != "other/z ml/a ml/b ml/leaving ml/old ml/waiting" {
		t.Errorf("pods in order %s, want by creation, then namespace and name", got)
	}
	if s.Nodes[0].Name != "n1" {
		t.Errorf("nodes not by name: %s first", s.Nodes[0].Name)
	}
	var again bytes.Buffer
	if err := take(t, Options{}).Write(&again); err != nil || again.String() != y {
		t.Errorf("two snapshots of the same cluster differ (%v)", err)
	}
	sc, err := admission.Load([]string{"-"}, &out)
	if err != nil {
		t.Fatalf("the simulator does not read the snapshot back: %v", err)
	}
	s2, err := sim.New(sc, sim.Options{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	phases := map[string]string{}
	for _, p := range r.Pods {
		phases[p.Name] = p.Phase
	}
	if phases["a"] != report.PhaseRunning || phases["leaving"] != report.PhaseDeleted || phases["waiting"] != report.PhaseRunning || len(r.Pods) != 6 || r.Pods[4].Priority != 7 || len(r.Violations) > 0 {
		t.Errorf("simulated snapshot: %v, violations %v", phases, r.Violations)
	}
}

func TestSnapshotNarrowedToANamespaceAndWrittenToADirectory(t *testing.T) {
	s := take(t, Options{Namespace: "other"})
	if len(s.Pods) != 1 || s.Pods[0].Name != "z" || len(s.Nodes) != 2 {
		t.Fatalf("pods %v, %d nodes: want other's pod alone and every node", s.Pods, len(s.Nodes))
	}
	dir := t.TempDir()
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(files) {
		t.Errorf("%d files, want %d", len(entries), len(files))
	}
	pods, _ := os.ReadFile(filepath.Join(dir, "07-pods.yaml"))
	if !strings.Contains(string(pods), "name: z") {
		t.Errorf("07-pods.yaml: %s", pods)
	}
	if _, err := admission.Load([]string{dir}, nil); err != nil {
		t.Errorf("the simulator does not read the directory back: %v", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// Kubernetes' own CompositePodGroups (v1alpha3) are read when the cluster serves them,
// whatever the newest version of its PodGroups, and stripped like them; a cluster that
// does not serve them says so in the snapshot.
func TestSnapshotReadsNativeComposites(t *testing.T) {
	composite := &schedulingv1alpha3.CompositePodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "job",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager"}}},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{WorkloadRef: &schedulingv1alpha3.WorkloadReference{WorkloadName: "train-wl", TemplateName: "job"},
			SchedulingPolicy: schedulingv1alpha3.CompositePodGroupSchedulingPolicy{Gang: &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: 2}}},
		Status: schedulingv1alpha3.CompositePodGroupStatus{Conditions: []metav1.Condition{{Type: "CompositePodGroupInitiallyScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled", Message: "secret history"}}}}
	for _, served := range []bool{true, false} {
		src := &Source{Kube: fake.NewClientset(append(cluster(), composite)...), NativeVersion: nativegroup.V1beta1, NativeComposites: served}
		s, err := Take(context.Background(), src, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := s.Write(&out); err != nil {
			t.Fatal(err)
		}
		y := out.String()
		if !served {
			if len(s.NativeComposites) != 0 || !strings.Contains(y, "compositepodgroups.scheduling.k8s.io: not served in v1alpha3, left out") {
				t.Errorf("not served: %d composites, notes %v", len(s.NativeComposites), s.Notes)
			}
			continue
		}
		if len(s.NativeComposites) != 1 || !strings.Contains(y, "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup") ||
			!strings.Contains(y, "minGroupCount: 2") || strings.Contains(y, "secret history") || strings.Contains(y, "kube-controller-manager") {
			t.Errorf("the snapshot's composite:\n%s", y)
		}
	}
}
