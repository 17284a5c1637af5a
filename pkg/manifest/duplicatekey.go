package manifest

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

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
