// Package runtime builds a profile's plugins from the configuration and runs them at each
// extension point.
package runtime

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// Factory builds a plugin from its (possibly empty) JSON arguments.
type Factory func(args json.RawMessage, h framework.Handle) (framework.Plugin, error)

// Registry maps plugin names to factories.
type Registry map[string]Factory

// Names lists the registered plugins, sorted.
func (r Registry) Names() []string {
	out := make([]string, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Merge adds another registry's plugins; a name registered twice is an error.
func (r Registry) Merge(o Registry) error {
	for n, f := range o {
		if _, ok := r[n]; ok {
			return fmt.Errorf("plugin %q registered twice", n)
		}
		r[n] = f
	}
	return nil
}
