package config

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Load reads a configuration file, rejecting unknown fields, applies defaults and validates
// it. Errors name the file and the field.
func Load(path string) (*Configuration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes, defaults and validates a configuration: phalanx's own, or
// kube-scheduler's KubeSchedulerConfiguration (kubescheduler.go).
func Parse(data []byte) (*Configuration, error) {
	if _, ok := isKubeScheduler(data); ok {
		return fromKubeScheduler(data)
	}
	if err := notAConfiguration(data); err != nil {
		return nil, err
	}
	c := &Configuration{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		return nil, decodeError(err, data, reflect.TypeFor[Configuration](), nil)
	}
	SetDefaults(c)
	if errs := Validate(c); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return c, nil
}

// notAConfiguration refuses a file of another kind (a manifest given as --config, say) by
// its kind, rather than by the first of its fields the configuration does not have.
func notAConfiguration(data []byte) error {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if yaml.Unmarshal(data, &head) != nil || head.Kind == "" || head.Kind == Kind {
		return nil
	}
	return fmt.Errorf("kind: Unsupported value: %q (%s): not a scheduler configuration; --config takes a %s (%s) or a %s (%s)",
		head.Kind, head.APIVersion, Kind, APIVersion, KubeSchedulerKind, KubeSchedulerAPIVersion)
}

// Validate checks a defaulted configuration.
func Validate(c *Configuration) field.ErrorList {
	var errs field.ErrorList
	if c.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), c.APIVersion, []string{APIVersion, KubeSchedulerAPIVersion}))
	}
	if c.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), c.Kind, []string{Kind}))
	}
	if c.Parallelism < 1 {
		errs = append(errs, field.Invalid(field.NewPath("parallelism"), c.Parallelism, "must be at least 1"))
	}
	if c.FeasiblePlacementsToFind < 1 {
		errs = append(errs, field.Invalid(field.NewPath("feasiblePlacementsToFind"), c.FeasiblePlacementsToFind, "must be at least 1"))
	}
	for _, name := range slices.Sorted(maps.Keys(c.FeatureGates)) {
		if _, ok := KnownFeatureGates[name]; !ok {
			errs = append(errs, field.NotSupported(field.NewPath("featureGates"), name, slices.Sorted(maps.Keys(KnownFeatureGates))))
		}
	}
	if c.PercentageOfNodesToScore < 0 || c.PercentageOfNodesToScore > 100 {
		errs = append(errs, field.Invalid(field.NewPath("percentageOfNodesToScore"), c.PercentageOfNodesToScore, "must be between 0 and 100"))
	}
	if c.PodInitialBackoff.Duration <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("podInitialBackoff"), c.PodInitialBackoff.String(), "must be positive"))
	}
	if c.ReleaseWaitTimeout.Duration < 0 {
		errs = append(errs, field.Invalid(field.NewPath("releaseWaitTimeout"), c.ReleaseWaitTimeout.String(), "must not be negative"))
	}
	if c.PodMaxBackoff.Duration < c.PodInitialBackoff.Duration {
		errs = append(errs, field.Invalid(field.NewPath("podMaxBackoff"), c.PodMaxBackoff.String(), "must not be less than podInitialBackoff"))
	}
	names := map[string]bool{}
	for i, p := range c.Profiles {
		path := field.NewPath("profiles").Index(i)
		if names[p.SchedulerName] {
			errs = append(errs, field.Duplicate(path.Child("schedulerName"), p.SchedulerName))
		}
		names[p.SchedulerName] = true
		plugins := path.Child("plugins")
		errs = append(errs, validatePluginList(plugins.Child("enabled"), p.Plugins.Enabled)...)
		errs = append(errs, validatePluginList(plugins.Child("disabled"), p.Plugins.Disabled)...)
		for _, ps := range p.Plugins.Points() {
			errs = append(errs, validatePluginList(plugins.Child(ps.Point, "enabled"), ps.Set.Enabled)...)
			errs = append(errs, validatePluginList(plugins.Child(ps.Point, "disabled"), ps.Set.Disabled)...)
		}
		seen := map[string]bool{}
		for j, pc := range p.PluginConfig {
			if seen[pc.Name] {
				errs = append(errs, field.Duplicate(path.Child("pluginConfig").Index(j).Child("name"), pc.Name))
			}
			seen[pc.Name] = true
		}
	}
	return errs
}

// validatePluginList checks names and weights; whether a name is a plugin is the
// framework's to say (it knows the registry).
func validatePluginList(path *field.Path, list []Plugin) field.ErrorList {
	var errs field.ErrorList
	for j, pl := range list {
		if pl.Name == "" {
			errs = append(errs, field.Required(path.Index(j).Child("name"), ""))
		}
		if pl.Weight < 0 || pl.Weight > 100 {
			errs = append(errs, field.Invalid(path.Index(j).Child("weight"), pl.Weight, "must be between 0 and 100"))
		}
	}
	return errs
}
