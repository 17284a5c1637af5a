// Command gen-workload writes the benchmark cluster as YAML manifests for
// `phalanx simulate`: go run ./hack/gen-workload -nodes 5000 -pods 20000 > cluster.yaml
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/testutil/workload"
)

func main() {
	spec := workload.Spec{}
	flag.IntVar(&spec.Nodes, "nodes", 5000, "number of nodes")
	flag.IntVar(&spec.Pods, "pods", 20000, "number of pending pods")
	flag.Uint64Var(&spec.Seed, "seed", 1, "generator seed")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	emit := func(apiVersion, kind string, obj any) {
		data, err := yaml.Marshal(obj)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintf(w, "---\napiVersion: %s\nkind: %s\n%s", apiVersion, kind, data)
	}
	for _, n := range workload.Nodes(spec) {
		emit("v1", "Node", n)
	}
	for _, p := range workload.Pods(spec) {
		emit("v1", "Pod", p)
	}
}
