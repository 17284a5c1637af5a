package volumebinding

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	volumehelpers "k8s.io/component-helpers/storage/volume"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func localPV(name, node, size, class string) *v1.PersistentVolume {
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.PersistentVolumeSpec{
			Capacity:         v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
			AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: class,
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{node}}},
			}}}},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeAvailable},
	}
}

func class(name, provisioner string) *storagev1.StorageClass {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
}

// findMatchingVolume agrees with component-helpers' FindMatchingVolume on the scheduler's
// path, over random claims and volumes.
func TestFindMatchingVolumeMatchesComponentHelpers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	modes := []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce, v1.ReadWriteMany, v1.ReadOnlyMany}
	block := v1.PersistentVolumeBlock
	for i := range 2000 {
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{v1.LabelHostname: pick("n1", "n2")}}}
		pvc := testutil.PVC("c", "")
		pvc.Spec.StorageClassName = ptr(pick("a", "b", ""))
		pvc.Spec.Resources.Requests[v1.ResourceStorage] = resource.MustParse(pick("1Gi", "5Gi", "10Gi"))
		pvc.Spec.AccessModes = []v1.PersistentVolumeAccessMode{modes[rng.IntN(len(modes))]}
		if rng.IntN(4) == 0 {
			pvc.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": pick("fast", "slow")}}
		}
		var pvs []*v1.PersistentVolume
		for j := range 6 {
			pv := localPV(fmt.Sprintf("pv-%d", j), pick("n1", "n2"), pick("1Gi", "5Gi", "20Gi"), pick("a", "b", ""))
			pv.Spec.AccessModes = []v1.PersistentVolumeAccessMode{modes[rng.IntN(len(modes))], modes[rng.IntN(len(modes))]}
			pv.Labels = map[string]string{"tier": pick("fast", "slow")}
			switch rng.IntN(6) {
			case 0:
				pv.Spec.ClaimRef = &v1.ObjectReference{Namespace: "default", Name: "c"}
			case 1:
				pv.Spec.ClaimRef = &v1.ObjectReference{Namespace: "default", Name: "other"}
			case 2:
				pv.Status.Phase = v1.VolumeReleased
			case 3:
				pv.Spec.VolumeMode = &block
			}
			pvs = append(pvs, pv)
		}
		want, err := volumehelpers.FindMatchingVolume(pvc, pvs, node, nil, false, false)
		if err != nil {
			t.Fatal(err)
		}
		got := findMatchingVolume(pvc, pvs, node, func(string) bool { return false })
		if (got == nil) != (want == nil) || got != nil && got.Name != want.Name {
			t.Fatalf("case %d: got %v, component-helpers %v", i, nameOrNil(got), nameOrNil(want))
		}
	}
}

func nameOrNil(pv *v1.PersistentVolume) string {
	if pv == nil {
		return "<nil>"
	}
	return pv.Name
}

func ptr[T any](v T) *T { return &v }

func setup(t *testing.T) (*cache.Cache, *VolumeBinding, *fakeClient) {
	t.Helper()
	c := cache.New()
	for _, n := range []string{"n1", "n2"} {
		c.Nodes().AddNode(testutil.Node(n).Labels(v1.LabelHostname, n).Capacity("cpu", "8").Obj())
	}
	c.Storage().SetStorageClass(class("local", "kubernetes.io/no-provisioner"))
	c.Storage().SetStorageClass(class("standard", "disk.example.com"))
	fc := &fakeClient{pvs: map[string]*v1.PersistentVolume{}, pvcs: map[string]*v1.PersistentVolumeClaim{}}
	pl, err := New(nil, &testutil.Handle{Cache: c, Client: fc})
	if err != nil {
		t.Fatal(err)
	}
	return c, pl.(*VolumeBinding), fc
}

func TestFilter(t *testing.T) {
	local := func(name string) *v1.PersistentVolumeClaim {
		pvc := testutil.PVC(name, "")
		pvc.Spec.StorageClassName = ptr("local")
		return pvc
	}
	for _, tc := range []struct {
		name     string
		pvcs     []*v1.PersistentVolumeClaim
		pvs      []*v1.PersistentVolume
		preCode  framework.Code
		preMsg   string
		fits     []string
		rejected string
	}{
		{name: "claim missing", preCode: framework.UnschedulableAndUnresolvable, preMsg: `persistentvolumeclaim "data" not found`},
		{name: "immediate claim not bound", pvcs: []*v1.PersistentVolumeClaim{func() *v1.PersistentVolumeClaim {
			p := testutil.PVC("data", "")
			p.Spec.StorageClassName = ptr("missing")
			return p
		}()}, preCode: framework.UnschedulableAndUnresolvable, preMsg: "pod has unbound immediate PersistentVolumeClaims"},
		{name: "bound to a node's volume", pvcs: []*v1.PersistentVolumeClaim{testutil.PVC("data", "pv-1")},
			pvs: []*v1.PersistentVolume{localPV("pv-1", "n2", "1Gi", "local")}, fits: []string{"n2"}, rejected: ErrReasonNodeConflict},
		{name: "pre-bound, waiting for the PV controller", pvcs: []*v1.PersistentVolumeClaim{func() *v1.PersistentVolumeClaim {
			p := testutil.PVC("data", "pv-1")
			p.Annotations, p.Status.Phase = nil, v1.ClaimPending
			return p
		}()}, pvs: []*v1.PersistentVolume{localPV("pv-1", "n2", "1Gi", "local")},
			preCode: framework.UnschedulableAndUnresolvable, preMsg: "pod has unbound immediate PersistentVolumeClaims"},
		{name: "bound to a missing volume", pvcs: []*v1.PersistentVolumeClaim{testutil.PVC("data", "gone")}, rejected: ErrReasonPVNotExist},
		{name: "local volume to match", pvcs: []*v1.PersistentVolumeClaim{local("data")},
			pvs: []*v1.PersistentVolume{localPV("pv-1", "n1", "1Gi", "local")}, fits: []string{"n1"}, rejected: ErrReasonBindConflict},
		{name: "provisioned anywhere", pvcs: []*v1.PersistentVolumeClaim{testutil.PVC("data", "")}, fits: []string{"n1", "n2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, _ := setup(t)
			for _, pvc := range tc.pvcs {
				c.Storage().SetPVC(pvc)
			}
			for _, pv := range tc.pvs {
				c.Storage().SetPV(pv)
			}
			p := framework.NewPodInfo(testutil.Pod("p").PVC("data").Obj())
			cs := framework.NewCycleState()
			_, st := pl.PreFilter(context.Background(), cs, p)
			if st.Code() != tc.preCode || !strings.Contains(st.Message(), tc.preMsg) {
				t.Fatalf("PreFilter: %v %q, want %v %q", st.Code(), st.Message(), tc.preCode, tc.preMsg)
			}
			if !st.IsSuccess() {
				return
			}
			for _, n := range []string{"n1", "n2"} {
				st := pl.Filter(context.Background(), cs, p, c.Get(n))
				fits := slicesContains(tc.fits, n)
				if st.IsSuccess() != fits || !fits && st.Message() != tc.rejected {
					t.Errorf("%s: %v %q, want fits=%v (%q)", n, st.Code(), st.Message(), fits, tc.rejected)
				}
			}
		})
	}
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Reserve takes the matched volume (another pod's claim cannot match it in this cycle),
// and PreBind points it at the claim and names the node of a claim to provision.
func TestReservePreBind(t *testing.T) {
	c, pl, fc := setup(t)
	local := testutil.PVC("data", "")
	local.Spec.StorageClassName = ptr("local")
	c.Storage().SetPVC(local)
	c.Storage().SetPVC(testutil.PVC("scratch", ""))
	pv := localPV("pv-1", "n1", "1Gi", "local")
	c.Storage().SetPV(pv)
	fc.pvs["pv-1"], fc.pvcs["default/data"], fc.pvcs["default/scratch"] = pv, local, testutil.PVC("scratch", "")
	p := framework.NewPodInfo(testutil.Pod("p").PVC("data", "scratch").Obj())
	cs := framework.NewCycleState()
	ctx := context.Background()
	pl.PreFilter(ctx, cs, p)
	if st := pl.Filter(ctx, cs, p, c.Get("n1")); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := pl.Reserve(ctx, cs, p, "n1"); !st.IsSuccess() {
		t.Fatal(st)
	}
	vols := c.Volumes()
	if vols.AssumedClaimOf("pv-1") != "default/data" || vols.AssumedNodeOf("default/scratch") != "n1" {
		t.Fatalf("assumed: pv-1 for %q, scratch on %q", vols.AssumedClaimOf("pv-1"), vols.AssumedNodeOf("default/scratch"))
	}
	other := testutil.PVC("other", "")
	other.Spec.StorageClassName = ptr("local")
	c.Storage().SetPVC(other)
	q := framework.NewPodInfo(testutil.Pod("q").PVC("other").Obj())
	qs := framework.NewCycleState()
	pl.PreFilter(ctx, qs, q)
	if st := pl.Filter(ctx, qs, q, c.Get("n1")); st.Message() != ErrReasonBindConflict {
		t.Errorf("a second claim matched the volume taken in this cycle: %v", st)
	}
	fc.bindOnUpdate = true
	if st := pl.PreBind(ctx, cs, p, "n1"); !st.IsSuccess() {
		t.Fatalf("PreBind: %v", st)
	}
	if r := fc.pvs["pv-1"].Spec.ClaimRef; r == nil || r.Name != "data" || fc.pvs["pv-1"].Annotations[annBoundByController] != "yes" {
		t.Errorf("volume claimRef %v", r)
	}
	if fc.pvcs["default/scratch"].Annotations[annSelectedNode] != "n1" {
		t.Errorf("scratch annotations %v", fc.pvcs["default/scratch"].Annotations)
	}
	pl.Unreserve(ctx, cs, p, "n1")
	if vols.AssumedClaimOf("pv-1") != "" || vols.AssumedNodeOf("default/scratch") != "" {
		t.Error("Unreserve kept the assumptions")
	}
}

// fakeClient is an in-memory API of volumes; with bindOnUpdate it completes bindings as
// the PV controller would.
type fakeClient struct {
	framework.ResourceClient
	pvs          map[string]*v1.PersistentVolume
	pvcs         map[string]*v1.PersistentVolumeClaim
	bindOnUpdate bool
}

func (f *fakeClient) GetPersistentVolume(_ context.Context, name string) (*v1.PersistentVolume, error) {
	if pv := f.pvs[name]; pv != nil {
		return pv.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumes"), name)
}

func (f *fakeClient) GetPersistentVolumeClaim(_ context.Context, ns, name string) (*v1.PersistentVolumeClaim, error) {
	if pvc := f.pvcs[ns+"/"+name]; pvc != nil {
		return pvc.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), name)
}

func (f *fakeClient) UpdatePersistentVolume(_ context.Context, pv *v1.PersistentVolume) (*v1.PersistentVolume, error) {
	f.pvs[pv.Name] = pv
	if f.bindOnUpdate && pv.Spec.ClaimRef != nil {
		f.complete(pv.Spec.ClaimRef.Namespace+"/"+pv.Spec.ClaimRef.Name, pv.Name)
	}
	return pv, nil
}

func (f *fakeClient) UpdatePersistentVolumeClaim(_ context.Context, pvc *v1.PersistentVolumeClaim) (*v1.PersistentVolumeClaim, error) {
	f.pvcs[pvc.Namespace+"/"+pvc.Name] = pvc
	if f.bindOnUpdate && pvc.Annotations[annSelectedNode] != "" {
		f.complete(pvc.Namespace+"/"+pvc.Name, "pvc-"+pvc.Name)
	}
	return pvc, nil
}

func (f *fakeClient) complete(key, pv string) {
	pvc := f.pvcs[key].DeepCopy()
	pvc.Spec.VolumeName = pv
	metav1.SetMetaDataAnnotation(&pvc.ObjectMeta, annBindCompleted, "yes")
	f.pvcs[key] = pvc
}

// TestPreFilterUsableClaims: as kube-scheduler, every claim the pod's volumes name is
// checked first, in the volumes' order, before any is looked at for binding: a claim that
// does not exist (a generic ephemeral volume's, with what it waits for), is lost, is being
// deleted, or is an ephemeral volume's claim the pod does not own rejects the pod.
func TestPreFilterUsableClaims(t *testing.T) {
	ephemeralVol := v1.Volume{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}
	bound := testutil.PVC("data", "pv-1")
	lost := testutil.PVC("data", "pv-gone")
	lost.Status.Phase = v1.ClaimLost
	deleting := testutil.PVC("data", "pv-1")
	deleting.DeletionTimestamp = &metav1.Time{}
	immediate := testutil.PVC("first", "")
	immediate.Spec.StorageClassName = ptr("missing")
	owned := func(owner bool) *v1.PersistentVolumeClaim {
		c := testutil.PVC("p-scratch", "")
		if owner {
			controller := true
			c.OwnerReferences = []metav1.OwnerReference{{Kind: "Pod", Name: "p", UID: "uid-p", Controller: &controller}}
		}
		return c
	}
	for _, tc := range []struct {
		name string
		pvcs []*v1.PersistentVolumeClaim
		// first: the pod mounts the claim "first" before "data"; scratch: it has a generic
		// ephemeral volume, after them.
		first, scratch bool
		code           framework.Code
		msg            string
	}{
		{name: "bound", pvcs: []*v1.PersistentVolumeClaim{bound}, code: framework.Success},
		{name: "lost", pvcs: []*v1.PersistentVolumeClaim{lost}, code: framework.UnschedulableAndUnresolvable,
			msg: `persistentvolumeclaim "data" bound to non-existent persistentvolume "pv-gone"`},
		{name: "being deleted", pvcs: []*v1.PersistentVolumeClaim{deleting}, code: framework.UnschedulableAndUnresolvable,
			msg: `persistentvolumeclaim "data" is being deleted`},
		{name: "a later claim missing comes before an unbound immediate claim", first: true, pvcs: []*v1.PersistentVolumeClaim{immediate},
			code: framework.UnschedulableAndUnresolvable, msg: `persistentvolumeclaim "data" not found`},
		{name: "ephemeral claim not made yet", scratch: true, pvcs: []*v1.PersistentVolumeClaim{bound}, code: framework.UnschedulableAndUnresolvable,
			msg: `waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"`},
		{name: "ephemeral claim owned", scratch: true, pvcs: []*v1.PersistentVolumeClaim{bound, owned(true)}, code: framework.Success},
		{name: "ephemeral claim not owned", scratch: true, pvcs: []*v1.PersistentVolumeClaim{bound, owned(false)}, code: framework.UnschedulableAndUnresolvable,
			msg: "PVC default/p-scratch was not created for pod default/p (pod is not owner)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, pl, _ := setup(t)
			c.Storage().SetPV(localPV("pv-1", "n1", "1Gi", "local"))
			for _, pvc := range tc.pvcs {
				c.Storage().SetPVC(pvc)
			}
			b := testutil.Pod("p")
			if tc.first {
				b = b.PVC("first")
			}
			pod := b.PVC("data").Obj()
			if tc.scratch {
				pod.Spec.Volumes = append(pod.Spec.Volumes, ephemeralVol)
			}
			_, st := pl.PreFilter(context.Background(), framework.NewCycleState(), framework.NewPodInfo(pod))
			if st.Code() != tc.code || st.Message() != tc.msg {
				t.Errorf("PreFilter: %v %q, want %v %q", st.Code(), st.Message(), tc.code, tc.msg)
			}
		})
	}
}
