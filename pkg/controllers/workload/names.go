package workload

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	"k8s.io/apimachinery/pkg/util/rand"
)

// maxGeneratedNameLength is the longest prefix the API server keeps of a generateName
// (it appends five random characters).
const maxGeneratedNameLength = 63 - 5

// nameAlphabet is the API server's alphabet for generated names (no vowels, no look-alikes).
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// names generates the names the API server would make from generateName prefixes, the
// same sequence for the same workload every run.
type names struct {
	seed string
	n    int
}

// next returns prefix followed by five characters of the API server's alphabet.
func (g *names) next(prefix string) string {
	if len(prefix) > maxGeneratedNameLength {
		prefix = prefix[:maxGeneratedNameLength]
	}
	g.n++
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", g.seed, prefix, g.n)
	v := h.Sum64()
	suffix := make([]byte, 5)
	for i := range suffix {
		suffix[i] = nameAlphabet[v%uint64(len(nameAlphabet))]
		v /= uint64(len(nameAlphabet))
	}
	return prefix + string(suffix)
}

// hashOf is a template's hash (pod-template-hash, controller-revision-hash) as the
// controllers encode it: FNV-32a in the API server's safe alphabet. The controllers hash a
// dump of the Go struct after the API server's defaults; this hashes the JSON of the
// template as given, so the names it makes stay the same across Kubernetes releases.
func hashOf(obj any) string {
	data, err := json.Marshal(obj)
	if err != nil {
		data = []byte(fmt.Sprint(obj))
	}
	h := fnv.New32a()
	h.Write(data)
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}
