package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// KubeSchedulerAPIVersion and KubeSchedulerKind are kube-scheduler's configuration file,
// which phalanx reads too (kubescheduler.go).
var (
	KubeSchedulerAPIVersion = schedv1.SchemeGroupVersion.String()
	KubeSchedulerKind       = "KubeSchedulerConfiguration"
)

// RunSettings are what a KubeSchedulerConfiguration says about the process around the
// scheduler: leader election, the connection to the API server, profiling. `phalanx run`
// applies them where no flag says otherwise, as kube-scheduler does; phalanx's own format
// leaves them to flags. Zero values are unset.
type RunSettings struct {
	LeaderElect       *bool
	LeaseDuration     time.Duration
	RenewDeadline     time.Duration
	RetryPeriod       time.Duration
	ResourceName      string
	ResourceNamespace string

	Kubeconfig string
	QPS        float32
	Burst      int32

	EnableProfiling           *bool
	EnableContentionProfiling *bool
}

// upstreamOnlyPlugins are kube-scheduler v1.37's plugins phalanx does not implement, none
// of them in kube-scheduler's default profile (their feature gates are off by default).
// Disabling one is what phalanx does anyway; enabling one, or giving it arguments, is an
// error that says why. Every other v1.37 plugin phalanx implements under the same name
// (kubeSchedulerPlugins in the tests lists them all).
var upstreamOnlyPlugins = map[string]string{
	"DeferredPodScheduling": "phalanx does not schedule the deferred resizes of running pods " +
		"(InPlacePodVerticalScalingSchedulerPreemption, alpha in v1.37)",
	"TopologyPlacementGenerator": "phalanx's placement generator for node labels is TopologyPlacement " +
		"(TopologyAwareWorkloadScheduling, alpha in v1.37)",
	"PodGroupPodsCount": "phalanx's placement scorers are PlacementPodCount and PlacementBinPacking " +
		"(TopologyAwareWorkloadScheduling, alpha in v1.37)",
}

// phalanx's content types: protobuf for Kubernetes' own APIs, JSON for its CRD.
const (
	protobufContentType = "application/vnd.kubernetes.protobuf"
	acceptContentTypes  = protobufContentType + ",application/json"
)

// isKubeScheduler tells whether a document is kube-scheduler's configuration (any
// version: only v1 is read, the others are refused by name).
func isKubeScheduler(data []byte) (apiVersion string, ok bool) {
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if yaml.Unmarshal(data, &head) != nil {
		return "", false
	}
	return head.APIVersion, strings.HasPrefix(head.APIVersion, schedv1.GroupName+"/")
}

// fromKubeScheduler reads a kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration
// into phalanx's configuration. Everything in it is honoured or refused with an error
// naming the field; nothing is dropped silently.
func fromKubeScheduler(data []byte) (*Configuration, error) {
	// A typo anywhere, in plugin arguments too, is named with its line and path.
	if msg := unknownField(data, reflect.TypeFor[schedv1.KubeSchedulerConfiguration](), upstreamArgsType); msg != "" {
		return nil, errors.New(msg)
	}
	in := &schedv1.KubeSchedulerConfiguration{}
	if err := yaml.UnmarshalStrict(data, in); err != nil {
		return nil, decodeError(err, data, reflect.TypeFor[schedv1.KubeSchedulerConfiguration](), upstreamArgsType)
	}
	var errs field.ErrorList
	if in.APIVersion != KubeSchedulerAPIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), in.APIVersion, []string{APIVersion, KubeSchedulerAPIVersion}))
	}
	if in.Kind != KubeSchedulerKind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), in.Kind, []string{KubeSchedulerKind}))
	}
	c := &Configuration{APIVersion: APIVersion, Kind: Kind}
	if in.Parallelism != nil {
		c.Parallelism = int(*in.Parallelism)
		if c.Parallelism < 1 {
			errs = append(errs, field.Invalid(field.NewPath("parallelism"), *in.Parallelism, "must be at least 1"))
		}
	}
	if in.PercentageOfNodesToScore != nil {
		c.PercentageOfNodesToScore = int(*in.PercentageOfNodesToScore)
	}
	errs = append(errs, backoff(in.PodInitialBackoffSeconds, "podInitialBackoffSeconds", &c.PodInitialBackoff)...)
	errs = append(errs, backoff(in.PodMaxBackoffSeconds, "podMaxBackoffSeconds", &c.PodMaxBackoff)...)
	if len(in.Extenders) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("extenders"), "phalanx calls no scheduler extenders"))
	}
	if in.DelayCacheUntilActive {
		errs = append(errs, field.Forbidden(field.NewPath("delayCacheUntilActive"),
			"phalanx's standby replicas keep their caches warm, to take over at once"))
	}
	errs = append(errs, runSettings(in, &c.Run)...)
	for i, p := range in.Profiles {
		prof, perrs := profileFromKubeScheduler(p, field.NewPath("profiles").Index(i), c.PercentageOfNodesToScore)
		c.Profiles = append(c.Profiles, prof)
		errs = append(errs, perrs...)
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	SetDefaults(c)
	if errs := Validate(c); len(errs) > 0 {
		// The fields phalanx spells differently are named as the file spells them.
		for _, e := range errs {
			switch e.Field {
			case "podInitialBackoff", "podMaxBackoff":
				e.Field += "Seconds"
			}
		}
		return nil, errs.ToAggregate()
	}
	return c, nil
}

func backoff(seconds *int64, name string, into *Duration) field.ErrorList {
	if seconds == nil {
		return nil
	}
	if *seconds <= 0 {
		return field.ErrorList{field.Invalid(field.NewPath(name), *seconds, "must be positive")}
	}
	into.Duration = time.Duration(*seconds) * time.Second
	return nil
}

// runSettings takes leader election, the client connection and profiling.
func runSettings(in *schedv1.KubeSchedulerConfiguration, r *RunSettings) field.ErrorList {
	var errs field.ErrorList
	le := in.LeaderElection
	path := field.NewPath("leaderElection")
	r.LeaderElect = le.LeaderElect
	r.LeaseDuration, r.RenewDeadline, r.RetryPeriod = le.LeaseDuration.Duration, le.RenewDeadline.Duration, le.RetryPeriod.Duration
	r.ResourceName, r.ResourceNamespace = le.ResourceName, le.ResourceNamespace
	if le.ResourceLock != "" && le.ResourceLock != "leases" {
		errs = append(errs, field.NotSupported(path.Child("resourceLock"), le.ResourceLock, []string{"leases"}))
	}
	errs = append(errs, clientConnection(in.ClientConnection, r)...)
	r.EnableProfiling = in.EnableProfiling
	r.EnableContentionProfiling = in.EnableContentionProfiling
	return errs
}

func clientConnection(cc componentbaseconfigv1alpha1.ClientConnectionConfiguration, r *RunSettings) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("clientConnection")
	r.Kubeconfig, r.QPS, r.Burst = cc.Kubeconfig, cc.QPS, cc.Burst
	if cc.QPS < 0 {
		errs = append(errs, field.Invalid(path.Child("qps"), cc.QPS, "must not be negative"))
	}
	if cc.Burst < 0 {
		errs = append(errs, field.Invalid(path.Child("burst"), cc.Burst, "must not be negative"))
	}
	// phalanx chooses its content types (protobuf, and JSON for its CRD); a file that
	// asks for those is honoured, another choice cannot be.
	if cc.ContentType != "" && cc.ContentType != protobufContentType {
		errs = append(errs, field.NotSupported(path.Child("contentType"), cc.ContentType, []string{protobufContentType}))
	}
	if cc.AcceptContentTypes != "" && cc.AcceptContentTypes != acceptContentTypes {
		errs = append(errs, field.NotSupported(path.Child("acceptContentTypes"), cc.AcceptContentTypes, []string{acceptContentTypes}))
	}
	return errs
}

// profileFromKubeScheduler maps one profile: its plugin sets (multiPoint onto phalanx's
// Enabled and Disabled, the other points as they are) and its plugins' arguments.
func profileFromKubeScheduler(p schedv1.KubeSchedulerProfile, path *field.Path, percentage int) (Profile, field.ErrorList) {
	var errs field.ErrorList
	out := Profile{}
	if p.SchedulerName != nil {
		out.SchedulerName = *p.SchedulerName
	}
	if p.PercentageOfNodesToScore != nil && int(*p.PercentageOfNodesToScore) != percentage {
		errs = append(errs, field.Invalid(path.Child("percentageOfNodesToScore"), *p.PercentageOfNodesToScore,
			"phalanx uses one percentage for every profile: set it at the top level"))
	}
	if in := p.Plugins; in != nil {
		pp := path.Child("plugins")
		var perrs field.ErrorList
		out.Plugins.Enabled, out.Plugins.Disabled, perrs = pluginSet(in.MultiPoint, pp.Child("multiPoint"))
		errs = append(errs, perrs...)
		sets := map[string]schedv1.PluginSet{
			PreEnqueue: in.PreEnqueue, QueueSort: in.QueueSort, PreFilter: in.PreFilter, Filter: in.Filter,
			PostFilter: in.PostFilter, PreScore: in.PreScore, Score: in.Score, Reserve: in.Reserve,
			Permit: in.Permit, PreBind: in.PreBind, Bind: in.Bind,
			PlacementGenerate: in.PlacementGenerate, PlacementScore: in.PlacementScore,
		}
		for _, ps := range out.Plugins.Points() {
			ps.Set.Enabled, ps.Set.Disabled, perrs = pluginSet(sets[ps.Point], pp.Child(ps.Point))
			errs = append(errs, perrs...)
		}
		// phalanx has no PostBind point: disabling there is what it does already.
		_, _, perrs = pluginSet(schedv1.PluginSet{Disabled: in.PostBind.Disabled}, pp.Child("postBind"))
		errs = append(errs, perrs...)
		for i, pl := range in.PostBind.Enabled {
			errs = append(errs, field.Invalid(pp.Child("postBind", "enabled").Index(i).Child("name"), pl.Name,
				"phalanx has no PostBind extension point"))
		}
	}
	for i, pc := range p.PluginConfig {
		args, aerrs := pluginArgs(pc, path.Child("pluginConfig").Index(i))
		errs = append(errs, aerrs...)
		out.PluginConfig = append(out.PluginConfig, PluginConfig{Name: pc.Name, Args: args})
	}
	return out, errs
}

// pluginSet checks the names and weights of one set and converts it. kube-scheduler's
// plugins that phalanx does not implement may be disabled (and are dropped), never
// enabled; any other unknown name is an error.
func pluginSet(in schedv1.PluginSet, path *field.Path) (enabled, disabled []Plugin, errs field.ErrorList) {
	convert := func(list []schedv1.Plugin) []Plugin {
		var out []Plugin
		for _, pl := range list {
			w := int32(0)
			if pl.Weight != nil {
				w = *pl.Weight
			}
			out = append(out, Plugin{Name: pl.Name, Weight: w})
		}
		return out
	}
	enabled, disabled = convert(in.Enabled), convert(in.Disabled)
	errs = append(errs, validatePluginList(path.Child("enabled"), enabled)...)
	errs = append(errs, validatePluginList(path.Child("disabled"), disabled)...)
	for i, pl := range enabled {
		if why, ok := upstreamOnlyPlugins[pl.Name]; ok {
			errs = append(errs, field.Forbidden(path.Child("enabled").Index(i).Child("name"), pl.Name+": "+why))
		} else if pl.Name != "" && !isPlugin(pl.Name) {
			errs = append(errs, field.NotSupported(path.Child("enabled").Index(i).Child("name"), pl.Name, pluginNames()))
		}
	}
	var kept []Plugin
	for i, pl := range disabled {
		if _, ok := upstreamOnlyPlugins[pl.Name]; ok {
			continue
		}
		if pl.Name != "" && pl.Name != "*" && !isPlugin(pl.Name) {
			errs = append(errs, field.NotSupported(path.Child("disabled").Index(i).Child("name"), pl.Name, pluginNames()))
		}
		kept = append(kept, pl)
	}
	return enabled, kept, errs
}

func isPlugin(name string) bool {
	return slices.ContainsFunc(DefaultPlugins, func(d DefaultPlugin) bool { return d.Name == name })
}

func pluginNames() []string {
	var out []string
	for _, d := range DefaultPlugins {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

// upstreamArgs are the plugins whose arguments kube-scheduler publishes a type for: a
// file's arguments are read strictly as that type (as kube-scheduler reads them), then
// passed on as phalanx's, which spell every field the same, minus what phalanx cannot
// honour.
// upstreamArgsTypes are the types of upstreamArgs' arguments, by plugin.
var upstreamArgsTypes = map[string]reflect.Type{
	"DefaultPreemption":               reflect.TypeFor[schedv1.DefaultPreemptionArgs](),
	"InterPodAffinity":                reflect.TypeFor[schedv1.InterPodAffinityArgs](),
	"NodeAffinity":                    reflect.TypeFor[schedv1.NodeAffinityArgs](),
	"NodeResourcesFit":                reflect.TypeFor[schedv1.NodeResourcesFitArgs](),
	"NodeResourcesBalancedAllocation": reflect.TypeFor[schedv1.NodeResourcesBalancedAllocationArgs](),
	"PodTopologySpread":               reflect.TypeFor[schedv1.PodTopologySpreadArgs](),
	"VolumeBinding":                   reflect.TypeFor[schedv1.VolumeBindingArgs](),
	"DynamicResources":                reflect.TypeFor[schedv1.DynamicResourcesArgs](),
}

// upstreamArgsType is the type of a plugin's arguments in a KubeSchedulerConfiguration
// (nil for phalanx's own plugins, whose arguments the plugin reads).
func upstreamArgsType(plugin string) reflect.Type { return upstreamArgsTypes[plugin] }

var upstreamArgs = map[string]func(raw []byte, path *field.Path) (json.RawMessage, field.ErrorList){
	"DefaultPreemption":               asIs(&schedv1.DefaultPreemptionArgs{}),
	"InterPodAffinity":                asIs(&schedv1.InterPodAffinityArgs{}),
	"NodeAffinity":                    asIs(&schedv1.NodeAffinityArgs{}),
	"NodeResourcesFit":                asIs(&schedv1.NodeResourcesFitArgs{}),
	"NodeResourcesBalancedAllocation": asIs(&schedv1.NodeResourcesBalancedAllocationArgs{}),
	"PodTopologySpread":               asIs(&schedv1.PodTopologySpreadArgs{}),
	"VolumeBinding":                   asIs(&schedv1.VolumeBindingArgs{}),
	"DynamicResources":                asIs(&schedv1.DynamicResourcesArgs{}),
}

// asIs reads arguments phalanx honours in full.
func asIs[T any](*T) func([]byte, *field.Path) (json.RawMessage, field.ErrorList) {
	return typed(func(*T, *field.Path) field.ErrorList { return nil })
}

// typed reads arguments strictly into kube-scheduler's type T; check reports (and
// clears) the fields phalanx cannot honour. The result carries no apiVersion and kind.
func typed[T any](check func(*T, *field.Path) field.ErrorList) func([]byte, *field.Path) (json.RawMessage, field.ErrorList) {
	return func(raw []byte, path *field.Path) (json.RawMessage, field.ErrorList) {
		a := new(T)
		if err := yaml.UnmarshalStrict(raw, a); err != nil {
			// The error names the field; the arguments are not repeated whole.
			err = decodeError(err, raw, reflect.TypeFor[T](), nil)
			return nil, field.ErrorList{field.Invalid(path, field.OmitValueType{}, err.Error())}
		}
		if errs := check(a, path); len(errs) > 0 {
			return nil, errs
		}
		var obj map[string]any
		out, err := json.Marshal(a)
		if err == nil {
			err = json.Unmarshal(out, &obj)
		}
		if err != nil {
			return nil, field.ErrorList{field.InternalError(path, err)}
		}
		delete(obj, "apiVersion")
		delete(obj, "kind")
		for k, v := range obj {
			if v == nil { // a field cleared by check, or never set
				delete(obj, k)
			}
		}
		out, err = json.Marshal(obj)
		if err != nil {
			return nil, field.ErrorList{field.InternalError(path, err)}
		}
		return out, nil
	}
}

// pluginArgs checks one pluginConfig entry's plugin and the type its arguments say they
// are, and returns phalanx's arguments.
func pluginArgs(pc schedv1.PluginConfig, path *field.Path) (json.RawMessage, field.ErrorList) {
	if why, ok := upstreamOnlyPlugins[pc.Name]; ok {
		return nil, field.ErrorList{field.Forbidden(path.Child("name"), pc.Name+": "+why)}
	}
	if !isPlugin(pc.Name) {
		return nil, field.ErrorList{field.NotSupported(path.Child("name"), pc.Name, pluginNames())}
	}
	raw := bytes.TrimSpace(pc.Args.Raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	argsPath := path.Child("args")
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, field.ErrorList{field.Invalid(argsPath, string(raw), err.Error())}
	}
	var errs field.ErrorList
	if head.APIVersion != "" && head.APIVersion != KubeSchedulerAPIVersion {
		errs = append(errs, field.NotSupported(argsPath.Child("apiVersion"), head.APIVersion, []string{KubeSchedulerAPIVersion}))
	}
	if want := pc.Name + "Args"; head.Kind != "" && head.Kind != want {
		errs = append(errs, field.NotSupported(argsPath.Child("kind"), head.Kind, []string{want}))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if read, ok := upstreamArgs[pc.Name]; ok {
		return read(raw, argsPath)
	}
	// phalanx's own plugins: their arguments as phalanx's format has them.
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return raw, nil // not an object: the plugin says what is wrong
	}
	delete(obj, "apiVersion")
	delete(obj, "kind")
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(argsPath, fmt.Errorf("re-encoding: %w", err))}
	}
	return out, nil
}
