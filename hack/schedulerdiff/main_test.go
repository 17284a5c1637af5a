package schedulerdiff

import (
	"os"
	"testing"

	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// TestMain registers kube-scheduler's metrics, which its plugins record into (its own
// plugin tests do the same).
func TestMain(m *testing.M) {
	metrics.Register()
	os.Exit(m.Run())
}
