package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// rawDoc is one YAML document of the input, not yet decoded.
type rawDoc struct {
	where origin
	data  []byte
}

// decoded is a document turned into objects (several for a List).
type decoded struct {
	objs     []any
	origins  []origin
	warnings []string
	err      error
}

// Load reads manifests from files, directories (every *.yaml and *.yml, in name order) and
// "-" (stdin), and admits them. Documents are decoded in parallel; objects keep input order.
func Load(paths []string, stdin io.Reader) (*Scenario, error) {
	in, err := Decode(paths, stdin)
	if err != nil {
		return nil, err
	}
	return Admit(ControlPlane{}, in)
}

// Decode reads manifests as Load does, without admitting them.
func Decode(paths []string, stdin io.Reader) (*Input, error) {
	var docs []rawDoc
	for _, p := range paths {
		files, err := expand(p)
		if err != nil {
			return nil, &InputError{Where: p, Msg: err.Error()}
		}
		for _, f := range files {
			d, err := readDocs(f, stdin)
			if err != nil {
				return nil, err
			}
			docs = append(docs, d...)
		}
	}
	results := decodeAll(docs)
	in := &Input{}
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		in.Warnings = append(in.Warnings, r.warnings...)
		for i, obj := range r.objs {
			in.add(obj, r.origins[i])
		}
	}
	return in, nil
}

func expand(p string) ([]string, error) {
	if p == "-" {
		return []string{"-"}, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			out = append(out, filepath.Join(p, e.Name()))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("no *.yaml or *.yml files in directory")
	}
	return out, nil
}

func readDocs(file string, stdin io.Reader) ([]rawDoc, error) {
	var r io.Reader
	name := file
	if file == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		r, name = stdin, "<stdin>"
	} else {
		f, err := os.Open(file)
		if err != nil {
			return nil, &InputError{Where: file, Msg: err.Error()}
		}
		defer f.Close()
		r = f
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReaderSize(r, 1<<16))
	var docs []rawDoc
	for n := 1; ; {
		data, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, &InputError{Where: fmt.Sprintf("%s: document %d", name, n), Msg: err.Error()}
		}
		if !hasContent(data) {
			continue
		}
		docs = append(docs, rawDoc{where: origin{file: name, doc: n, item: -1}, data: data})
		n++
	}
}

// hasContent reports whether a document has a line that is not blank, a comment or a
// document marker: a document of only comments counts as empty.
func hasContent(data []byte) bool {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			return true
		}
	}
	return false
}

// decodeAll decodes documents on all cores; YAML parsing dominates the simulator's start
// on large inputs.
func decodeAll(docs []rawDoc) []decoded {
	out := make([]decoded, len(docs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(docs)/64))
	var wg sync.WaitGroup
	next := make(chan int, len(docs))
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = decodeDoc(docs[i])
			}
		}()
	}
	wg.Wait()
	return out
}

type typeMeta struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

func decodeDoc(d rawDoc) decoded {
	js, ok := fastYAMLToJSON(d.data)
	if !ok {
		var err error
		if js, err = yaml.YAMLToJSON(d.data); err != nil {
			return decoded{err: &InputError{Where: d.where.String(), Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")}}
		}
	}
	var res decoded
	if err := decodeObject(js, d.where, &res); err != nil {
		res.err = err
	}
	return res
}

func decodeObject(js []byte, where origin, res *decoded) error {
	var tm typeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return &InputError{Where: where.String(), Msg: "not a Kubernetes object: " + err.Error()}
	}
	switch {
	case tm.Kind == "":
		return &InputError{Where: where.String(), Field: "kind", Msg: "Required value"}
	case tm.APIVersion == "":
		return &InputError{Where: where.String(), Field: "apiVersion", Msg: "Required value"}
	}
	if strings.HasSuffix(tm.Kind, "List") && tm.Items != nil {
		if where.item >= 0 {
			return &InputError{Where: where.String(), Field: "kind", Msg: "a List inside a List is not supported"}
		}
		for i, item := range tm.Items {
			w := where
			w.item = i
			if err := decodeObject(item, w, res); err != nil {
				return err
			}
		}
		return nil
	}
	newObj, ok := kinds[tm.APIVersion+"/"+tm.Kind]
	if !ok {
		res.warnings = append(res.warnings, fmt.Sprintf("%s: skipping %s %s: not a kind the simulator uses", where, tm.APIVersion, tm.Kind))
		return nil
	}
	obj := newObj()
	strict, err := sigsjson.UnmarshalStrict(js, obj)
	if err != nil {
		return decodeError(js, where, tm.Kind, err)
	}
	if len(strict) > 0 {
		return &InputError{Where: where.String(), Object: tm.Kind, Msg: strict[0].Error()}
	}
	res.objs = append(res.objs, obj)
	res.origins = append(res.origins, where)
	return nil
}

// decodeError turns a JSON decoding error into one that names the field. Type errors carry
// their path; errors from a value's own parser (a malformed quantity) do not, so the
// document is walked to find the offending value.
func decodeError(js []byte, where origin, kind string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &InputError{Where: where.String(), Object: kind, Field: te.Field,
			Msg: fmt.Sprintf("Invalid value: a JSON %s where %s is expected", te.Value, te.Type)}
	}
	if field, msg := findBadQuantity(js); field != "" {
		return &InputError{Where: where.String(), Object: kind, Field: field, Msg: msg}
	}
	return &InputError{Where: where.String(), Object: kind, Msg: err.Error()}
}
