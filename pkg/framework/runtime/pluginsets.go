package runtime

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/phalanx-dev/phalanx/pkg/config"
	"github.com/phalanx-dev/phalanx/pkg/framework"
)

// entry is a plugin enabled somewhere, with the weight it was given (0: none).
type entry struct {
	name   string
	weight int32
}

func indexOf(list []entry, name string) int {
	return slices.IndexFunc(list, func(e entry) bool { return e.name == name })
}

// multiPoint is the plugin set of every extension point: the defaults minus the disabled
// ones, then the enabled ones. Re-enabling a default plugin only changes its weight.
func multiPoint(p config.Plugins) []entry {
	var out []entry
	disabled := map[string]bool{}
	for _, d := range p.Disabled {
		disabled[d.Name] = true
	}
	for _, d := range config.DefaultPlugins {
		if disabled["*"] || disabled[d.Name] {
			continue
		}
		out = append(out, entry{d.Name, d.Weight})
	}
	for _, e := range p.Enabled {
		if idx := indexOf(out, e.Name); idx >= 0 {
			if e.Weight != 0 {
				out[idx].weight = e.Weight
			}
			continue
		}
		out = append(out, entry{e.Name, e.Weight})
	}
	return out
}

// atPoint is one extension point's plugins, in kube-scheduler's order: those the point's
// set re-enables (in its order, with its weight if it gives one), then the other
// multi-point plugins that implement the point and that it does not disable ("*": none of
// them), then the rest of its set.
func atPoint(multi []entry, set config.PluginSet, implements func(name string) bool) []entry {
	disabled := map[string]bool{}
	for _, d := range set.Disabled {
		disabled[d.Name] = true
	}
	var overrides, others []entry
	for _, e := range set.Enabled {
		if idx := indexOf(multi, e.Name); idx >= 0 && !disabled["*"] && !disabled[e.Name] {
			if e.Weight == 0 {
				e.Weight = multi[idx].weight
			}
			overrides = append(overrides, entry{e.Name, e.Weight})
			continue
		}
		others = append(others, entry{e.Name, e.Weight})
	}
	out := overrides
	if !disabled["*"] {
		for _, e := range multi {
			if !disabled[e.name] && indexOf(overrides, e.name) < 0 && implements(e.name) {
				out = append(out, e)
			}
		}
	}
	return append(out, others...)
}

// implementers says, per extension point of the configuration, which framework
// interfaces a plugin enabled there takes part through.
var implementers = map[string]func(framework.Plugin) bool{
	config.PreEnqueue:        either[framework.PreEnqueuePlugin, framework.GroupPreEnqueuePlugin],
	config.QueueSort:         is[framework.QueueSortPlugin],
	config.PreFilter:         is[framework.PreFilterPlugin],
	config.Filter:            is[framework.FilterPlugin],
	config.PostFilter:        either[framework.PostFilterPlugin, framework.PodGroupPostFilterPlugin],
	config.PreScore:          is[framework.PreScorePlugin],
	config.Score:             is[framework.ScorePlugin],
	config.Reserve:           is[framework.ReservePlugin],
	config.Permit:            is[framework.PermitPlugin],
	config.PreBind:           is[framework.PreBindPlugin],
	config.Bind:              is[framework.BindPlugin],
	config.PlacementGenerate: either[framework.PlacementGeneratePlugin, framework.PlacementStatePlugin],
	config.PlacementScore:    is[framework.PlacementScorePlugin],
}

func is[T any](p framework.Plugin) bool {
	_, ok := p.(T)
	return ok
}

func either[A, B any](p framework.Plugin) bool { return is[A](p) || is[B](p) }

// checkNames reports every name in the profile's plugin lists that is neither registered
// nor a default plugin ("*" is fine where plugins are disabled): a typo is an error
// wherever it is, not a silent no-op.
func checkNames(p config.Plugins, path *field.Path, registry Registry) error {
	known := func(name string) bool {
		_, ok := registry[name]
		return ok || slices.ContainsFunc(config.DefaultPlugins, func(d config.DefaultPlugin) bool { return d.Name == name })
	}
	check := func(path *field.Path, list []config.Plugin, star bool) error {
		for i, pl := range list {
			if !known(pl.Name) && !(star && pl.Name == "*") {
				return field.NotSupported(path.Index(i).Child("name"), pl.Name, registry.Names())
			}
		}
		return nil
	}
	if err := check(path.Child("enabled"), p.Enabled, false); err != nil {
		return err
	}
	if err := check(path.Child("disabled"), p.Disabled, true); err != nil {
		return err
	}
	for _, ps := range p.Points() {
		if err := check(path.Child(ps.Point, "enabled"), ps.Set.Enabled, false); err != nil {
			return err
		}
		if err := check(path.Child(ps.Point, "disabled"), ps.Set.Disabled, true); err != nil {
			return err
		}
	}
	return nil
}
