package schedulerdiff

import (
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	"github.com/phalanx-dev/phalanx/pkg/cache"
	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
	fwkruntime "github.com/phalanx-dev/phalanx/pkg/framework/runtime"
	"github.com/phalanx-dev/phalanx/pkg/metrics"
	"github.com/phalanx-dev/phalanx/pkg/plugins"
)

// TestKubeSchedulerDefaultsAccepted: kube-scheduler v1.37.2's own configuration with every
// default filled in (what `kube-scheduler --write-config-to` writes: the default profile,
// each plugin's arguments at their default values) is a configuration phalanx reads and
// builds its framework from, as a platform team moving a kube-scheduler configuration
// over would hand it. A default value phalanx refused would fail here.
func TestKubeSchedulerDefaultsAccepted(t *testing.T) {
	cfg, err := latest.Default()
	if err != nil {
		t.Fatal(err)
	}
	data, err := runtime.Encode(scheme.Codecs.LegacyCodec(configv1.SchemeGroupVersion), cfg)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := config.Parse(data)
	if err != nil {
		t.Fatalf("phalanx refuses kube-scheduler's defaulted configuration: %v\n%s", err, data)
	}
	if len(parsed.Profiles) != 1 {
		t.Fatalf("%d profiles, want kube-scheduler's one", len(parsed.Profiles))
	}
	c := cache.New()
	_, err = fwkruntime.New(parsed.Profiles[0], field.NewPath("profiles").Index(0), plugins.NewRegistry(), fwkruntime.Options{
		Snapshot:     c,
		Nominator:    c.Nominations(),
		Parallelizer: framework.NewParallelizer(1),
		Rand:         rand.New(rand.NewPCG(1, 2)),
		Metrics:      metrics.New(),
	})
	if err != nil {
		t.Fatalf("phalanx cannot build kube-scheduler's default profile with its default arguments: %v", err)
	}
}
