package sim

import (
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/phalanx-dev/phalanx/config/crd"
	"github.com/phalanx-dev/phalanx/pkg/crdschema"
)

// InputErrors are every problem found in an input, in input order. The CLI prints one a
// line and exits with status 2.
type InputErrors []*InputError

// maxReported bounds the errors an InputErrors lists; the rest are counted.
const maxReported = 50

func (e InputErrors) Error() string {
	var b strings.Builder
	for i, err := range e {
		if i == maxReported {
			b.WriteString("\n... and " + strconv.Itoa(len(e)-maxReported) + " more errors")
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// Unwrap gives errors.As the first error, and every other.
func (e InputErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, err := range e {
		out[i] = err
	}
	return out
}

// crdSchemas are phalanx's CRDs (config/crd), read once when a document needs them.
var crdSchemas = sync.OnceValue(func() crdschema.Set {
	set, err := crdschema.Load(crd.Files)
	if err != nil {
		// The CRDs are generated and embedded: a test fails first.
		panic("config/crd: " + err.Error())
	}
	return set
})

// duplicateKey finds the first key a YAML document gives twice in one mapping, and its
// path ("metadata.labels.app"); "" when there is none.
func duplicateKey(data []byte) (path, key string) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return "", ""
	}
	var walk func(n *yaml.Node, at string) bool
	walk = func(n *yaml.Node, at string) bool {
		switch n.Kind {
		case yaml.DocumentNode, yaml.AliasNode:
			for _, c := range n.Content {
				if walk(c, at) {
					return true
				}
			}
		case yaml.MappingNode:
			seen := map[string]bool{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				child := k
				if at != "" {
					child = at + "." + k
				}
				if seen[k] {
					path, key = child, k
					return true
				}
				seen[k] = true
				if walk(n.Content[i+1], child) {
					return true
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if walk(c, at+"["+strconv.Itoa(i)+"]") {
					return true
				}
			}
		}
		return false
	}
	walk(&doc, "")
	return path, key
}
