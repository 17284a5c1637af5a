package plugins_test

import (
	"bytes"
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
	"github.com/phalanx-dev/phalanx/pkg/testutil"
)

func signingProfile(t *testing.T, args ...config.PluginConfig) *fwkruntime.Framework {
	t.Helper()
	c := testutil.NewCache(nil, nil)
	prof := config.Profile{SchedulerName: "phalanx", PluginConfig: args}
	fwk, err := fwkruntime.New(prof, field.NewPath("profile"), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot: c, Nominator: c.Nominations(), Parallelizer: framework.NewParallelizer(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	return fwk
}

var listDefaulting = config.PluginConfig{Name: "PodTopologySpread", Args: []byte(`{"defaultingType":"List"}`)}

func web() *testutil.PodBuilder {
	return testutil.Pod("web").Labels("app", "web").Req("cpu", "1", "memory", "1Gi")
}

// TestSignatures: two pods sign alike exactly when every plugin of the profile reads the
// same of them (kube-scheduler v1.37's signers); a pod some plugin cannot sign has none.
func TestSignatures(t *testing.T) {
	ctx := context.Background()
	fwk := signingProfile(t, listDefaulting)
	base := fwk.SignPod(ctx, framework.NewPodInfo(web().Obj()))
	if base == nil {
		t.Fatal("a plain pod is not signed")
	}
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		// same: the signature equals the base pod's; unsigned: none.
		same, unsigned bool
	}{
		{name: "another name, a ConfigMap volume", pod: func() *v1.Pod {
			p := testutil.Pod("web-2").Labels("app", "web").Req("cpu", "1", "memory", "1Gi").Obj()
			p.Spec.Volumes = []v1.Volume{{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}}}
			return p
		}(), same: true},
		{name: "other requests", pod: testutil.Pod("web").Labels("app", "web").Req("cpu", "2", "memory", "1Gi").Obj()},
		{name: "other labels (InterPodAffinity reads them)", pod: testutil.Pod("web").Labels("app", "db").Req("cpu", "1", "memory", "1Gi").Obj()},
		{name: "a node selector", pod: web().NodeSelector("zone", "a").Obj()},
		{name: "a toleration", pod: web().Toleration(v1.Toleration{Key: "k", Operator: v1.TolerationOpExists}).Obj()},
		{name: "a host port", pod: web().HostPort(8080).Obj()},
		{name: "an emptyDir volume", pod: func() *v1.Pod {
			p := web().Obj()
			p.Spec.Volumes = []v1.Volume{{Name: "d", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}}
			return p
		}()},
		{name: "another image", pod: func() *v1.Pod {
			p := web().Obj()
			p.Spec.Containers[0].Image = "nginx:2"
			return p
		}()},
		{name: "spec.nodeName", pod: web().Node("n1").Obj()},
		{name: "another scheduler name", pod: func() *v1.Pod {
			p := web().Obj()
			p.Spec.SchedulerName = "other"
			return p
		}()},
		{name: "topology spread constraints", pod: web().SpreadConstraint(v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule}).Obj(), unsigned: true},
		{name: "pod anti-affinity", pod: web().PodAntiAffinity("kubernetes.io/hostname", map[string]string{"app": "web"}).Obj(), unsigned: true},
		{name: "resource claims", pod: func() *v1.Pod {
			p := web().Obj()
			name := "c"
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &name}}
			return p
		}(), unsigned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fwk.SignPod(ctx, framework.NewPodInfo(tc.pod))
			switch {
			case tc.unsigned:
				if got != nil {
					t.Fatalf("signed %s", got)
				}
			case got == nil:
				t.Fatal("not signed")
			case bytes.Equal(got, base) != tc.same:
				t.Fatalf("same as the base pod: %v, want %v\n%s\n%s", !tc.same, tc.same, got, base)
			}
		})
	}
}

// TestDefaultProfileSignsNoPod: PodTopologySpread's system default constraints make every
// pod unsignable, as in kube-scheduler v1.37.2's default profile.
func TestDefaultProfileSignsNoPod(t *testing.T) {
	fwk := signingProfile(t)
	if !fwk.Signable() {
		t.Fatalf("plugins without a signer: %v", fwk.Unsigned())
	}
	if sig := fwk.SignPod(context.Background(), framework.NewPodInfo(web().Obj())); sig != nil {
		t.Fatalf("signed %s", sig)
	}
}
