// Package badinput reads the corpus of hostile inputs in testdata/badinput, which the
// simulator's tests and the e2e differential test (test/e2e) both run: every file is
// refused by the simulator and by a real API server, or accepted by both.
//
// A file's first comment lines say what it is (a JSON file's are in "<file>.header"):
//
//	# want: <a part of the simulator's error>      refused, with this message
//	# accepted: <what is hostile about it>          accepted; its Expectation document says
//	                                                what the simulation must produce
//	# simulator-only: <why>                         the API server is not asked (the input is
//	                                                about the simulator's own annotations)
//
// "${repeat:N:c}" in a file stands for N times the character c, so that inputs of many
// megabytes need not be stored.
package badinput

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Input is one file of the corpus.
type Input struct {
	Name string
	// Data is the file with its repeats expanded.
	Data []byte
	// Want is a part of the simulator's error; "" when the input is accepted.
	Want string
	// Accepted says what is hostile about an input both accept.
	Accepted string
	// SimulatorOnly, when set, says why the API server is not asked.
	SimulatorOnly string
	// JSON tells a JSON file from a YAML one.
	JSON bool
}

var repeat = regexp.MustCompile(`\$\{repeat:(\d+):(.)\}`)

// Read reads every *.yaml and *.json file of dir.
func Read(dir string) ([]Input, error) {
	var files []string
	for _, pattern := range []string{"*.yaml", "*.json"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	var out []Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		in := Input{Name: filepath.Base(f), JSON: strings.HasSuffix(f, ".json")}
		header := data
		if in.JSON {
			if header, err = os.ReadFile(f + ".header"); err != nil {
				return nil, fmt.Errorf("%s: a JSON input needs its header in %s.header: %w", in.Name, in.Name, err)
			}
		}
		for _, line := range strings.Split(string(header), "\n") {
			if !strings.HasPrefix(line, "#") {
				break
			}
			if v, ok := strings.CutPrefix(line, "# want: "); ok {
				in.Want = v
			}
			if v, ok := strings.CutPrefix(line, "# accepted: "); ok {
				in.Accepted = v
			}
			if v, ok := strings.CutPrefix(line, "# simulator-only: "); ok {
				in.SimulatorOnly = v
			}
		}
		if (in.Want == "") == (in.Accepted == "") {
			return nil, fmt.Errorf("%s: the first lines must say either '# want: ...' or '# accepted: ...'", in.Name)
		}
		in.Data = repeat.ReplaceAllFunc(data, func(m []byte) []byte {
			sub := repeat.FindSubmatch(m)
			n, _ := strconv.Atoi(string(sub[1]))
			return bytes.Repeat(sub[2], n)
		})
		out = append(out, in)
	}
	return out, nil
}
