package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/report"
)

// The report lists each pod's devices and volumes, and the claims with their consumers;
// a run without any has no such section.
func TestWriteHTMLDevices(t *testing.T) {
	r := smallReport()
	r.Pods[1].Devices = []string{"gpu.example.com/node-a/gpu-0"}
	r.Pods[2].Volumes = []string{"data=pv-1"}
	r.Claims = []report.Claim{
		{Namespace: "default", Name: "high-gpu", Devices: []string{"gpu.example.com/node-a/gpu-0"}, ReservedFor: []string{"Pod/high"}},
		{Namespace: "ml", Name: "fabric", Devices: []string{}, ReservedFor: []string{}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, Header{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`<h2>Devices and volumes</h2>`,
		`<td>high</td><td><span class="ph ph-running">Running</span></td><td>node-a</td><td>gpu.example.com/node-a/gpu-0</td><td></td>`,
		`<td>data=pv-1</td>`,
		`<td>high-gpu</td><td>gpu.example.com/node-a/gpu-0</td><td>Pod/high</td>`,
		`<td>fabric</td><td>not allocated</td><td>nobody</td>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	buf.Reset()
	if err := Write(&buf, smallReport(), Header{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Devices and volumes") {
		t.Error("a run without devices or volumes has the section")
	}
}
