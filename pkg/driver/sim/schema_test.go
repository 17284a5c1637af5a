package sim_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/report"
	"github.com/phalanx-dev/phalanx/pkg/testutil/jsonschema"
)

// reportSchemaFile is -o json's JSON Schema, the contract the README points to.
const reportSchemaFile = "../../../docs/simulate-report.schema.json"

var reportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) { return jsonschema.Load(reportSchemaFile) })

// validateJSON checks a -o json document against the schema.
func validateJSON(data []byte) error {
	s, err := reportSchema()
	if err != nil {
		return err
	}
	return s.Validate(data)
}

// validateReport checks a run's report, as -o json writes it, against the schema.
func validateReport(t *testing.T, r *report.Report) {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := validateJSON(data); err != nil {
		t.Errorf("-o json: %v", err)
	}
}

// The schema refuses what breaks the contract, so its passes mean something.
func TestReportSchemaRefuses(t *testing.T) {
	good := `{"schemaVersion":1,"pods":[{"namespace":"default","name":"a","phase":"Running","node":"n1","nominatedNode":"","boundAt":0,"priority":0,"podGroup":"","preemptedBy":null,"message":"","createdAt":0,"deletedAt":null}],"podGroups":[],"events":[{"time":0,"object":"Pod/default/a","type":"Normal","reason":"Scheduled","message":"x"}],"summary":{"pods":1,"running":1,"pending":0,"succeeded":0,"preempted":0,"deleted":0,"virtualSeconds":0,"wallSeconds":0}}`
	if err := validateJSON([]byte(good)); err != nil {
		t.Fatalf("a valid report refused: %v", err)
	}
	withComposite := strings.Replace(good, `"podGroups":[]`, `"podGroups":[{"namespace":"default","name":"g","parent":"job","phase":"Scheduled","conditions":[]}],`+
		`"compositePodGroups":[{"apiVersion":"scheduling.k8s.io/v1alpha3","namespace":"default","name":"job","phase":"Preempted","conditions":[]}]`, 1)
	if err := validateJSON([]byte(withComposite)); err != nil {
		t.Fatalf("a valid report with a composite refused: %v", err)
	}
	for name, edit := range map[string][2]string{
		"no schema version":     {`"schemaVersion":1,`, ``},
		"another version":       {`"schemaVersion":1`, `"schemaVersion":2`},
		"unknown phase":         {`"phase":"Running"`, `"phase":"Runing"`},
		"missing createdAt":     {`,"createdAt":0`, ``},
		"createdAt a string":    {`"createdAt":0`, `"createdAt":"0s"`},
		"unknown field":         {`"message":""`, `"message":"","extra":1`},
		"preemptedBy not a ref": {`"preemptedBy":null`, `"preemptedBy":"x"`},
		"bad event type":        {`"type":"Normal"`, `"type":"Info"`},
		"summary without wall":  {`,"wallSeconds":0`, ``},
		"composite without a phase": {`"podGroups":[]`,
			`"podGroups":[],"compositePodGroups":[{"namespace":"default","name":"job","conditions":[]}]`},
		"composite of a PodGroup version": {`"podGroups":[]`,
			`"podGroups":[],"compositePodGroups":[{"apiVersion":"scheduling.k8s.io/v1beta1","namespace":"default","name":"job","phase":"Pending","conditions":[]}]`},
		"empty parent": {`"podGroups":[]`,
			`"podGroups":[{"namespace":"default","name":"g","parent":"","phase":"Pending","conditions":[]}]`},
	} {
		bad := strings.Replace(good, edit[0], edit[1], 1)
		if bad == good {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if err := validateJSON([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
