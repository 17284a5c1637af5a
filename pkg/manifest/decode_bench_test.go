package manifest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/testutil/cputime"
	"github.com/phalanx-dev/phalanx/pkg/testutil/workload"
)

// BenchmarkDecodeBenchCluster decodes `make bench-sim`'s cluster (5,000 nodes, 20,000
// pods, written as hack/gen-workload writes it); cpu-ms/op is the process's CPU time, which
// the parallel decoding spreads over the cores.
func BenchmarkDecodeBenchCluster(b *testing.B) {
	path := filepath.Join(b.TempDir(), "cluster.yaml")
	writeBenchCluster(b, path, workload.Spec{Nodes: 5000, Pods: 20000, Seed: 1})
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	cpu0 := cputime.Process()
	for b.Loop() {
		in, err := Decode([]string{path}, nil)
		if err != nil || len(in.objs) != 25000 {
			b.Fatalf("Decode: %v", err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

func writeBenchCluster(b *testing.B, path string, spec workload.Spec) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	emit := func(kind string, obj any) {
		data, err := yaml.Marshal(obj)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(w, "---\napiVersion: v1\nkind: %s\n%s", kind, data)
	}
	for _, n := range workload.Nodes(spec) {
		emit("Node", n)
	}
	for _, p := range workload.Pods(spec) {
		emit("Pod", p)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
}
