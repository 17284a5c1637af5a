package sim_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phalanx-dev/phalanx/pkg/admission"
	"github.com/phalanx-dev/phalanx/pkg/manifest"
	"github.com/phalanx-dev/phalanx/pkg/testutil/badinput"
)

// Every input of testdata/badinput (see pkg/testutil/badinput) is refused with an error
// naming the file, the document and the field, or accepted and simulated as its
// Expectation says, with every invariant (exact quantities included) holding throughout.
func TestBadInput(t *testing.T) {
	inputs, err := badinput.Read("../../../testdata/badinput")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no bad input files: %v", err)
	}
	for _, in := range inputs {
		t.Run(in.Name, func(t *testing.T) {
			if in.Accepted != "" {
				runScenario(t, in.Data)
				return
			}
			dir := filepath.Join(t.TempDir(), "badinput")
			f := filepath.Join(dir, in.Name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, in.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = admission.Load([]string{f}, nil)
			var ie *manifest.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want an InputError, got %v", err)
			}
			if !strings.Contains(err.Error(), in.Want) {
				t.Errorf("error %q\ndoes not contain %q", err.Error(), in.Want)
			}
			if !strings.Contains(err.Error(), in.Name) {
				t.Errorf("error %q does not name the file", err.Error())
			}
		})
	}
}
