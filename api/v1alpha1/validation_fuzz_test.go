package v1alpha1

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzValidatePodGroup decodes arbitrary JSON into a PodGroup, as the simulator decodes user
// manifests, and checks that validation never panics, names a field under metadata, spec or
// status for every error, and that the helpers the scheduler calls on a valid group are
// consistent with it.
func FuzzValidatePodGroup(f *testing.F) {
	valid, err := json.Marshal(validGroup())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	for _, seed := range []string{
		`{}`,
		`{"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"basic":{}}}}`,
		`{"metadata":{"name":"g"},"spec":{"schedulingPolicy":{"gang":{"minCount":0},"basic":{}},"disruptionMode":{"all":{},"single":{}}}}`,
		`{"spec":{"schedulingConstraints":{"topology":[{"key":"a","mode":"Preferred"},{"key":"a"},{},{"key":"/"},{"mode":"x"}]}}}`,
		`{"status":{"phase":"x","observedGeneration":-1,"conditions":[{"type":"A"},{"type":"A"}]}}`,
		`{"spec":{"schedulingConstraints":null,"disruptionMode":{},"preemptionPolicy":""}}`,
	} {
		f.Add([]byte(seed))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		var pg PodGroup
		if json.Unmarshal(data, &pg) != nil {
			return
		}
		errs := ValidatePodGroup(&pg)
		for _, err := range errs {
			if !strings.HasPrefix(err.Field, "metadata.") && !strings.HasPrefix(err.Field, "spec.") &&
				!strings.HasPrefix(err.Field, "status.") {
				t.Errorf("error without a field path under metadata, spec or status: %v", err)
			}
		}
		if again := ValidatePodGroup(pg.DeepCopy()); !reflect.DeepEqual(errs, again) {
			t.Errorf("a deep copy validates differently: %v, then %v", errs, again)
		}
		minCount, disruptAll := pg.MinCount(), pg.DisruptAll()
		if len(errs) == 0 && (minCount < 1 || disruptAll && !pg.IsGang()) {
			t.Errorf("valid group with MinCount %d, DisruptAll %v, IsGang %v", minCount, disruptAll, pg.IsGang())
		}
	})
}
