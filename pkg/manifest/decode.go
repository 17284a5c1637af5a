package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Limits of what the API server takes and stores.
const (
	// maxRequestBytes is kube-apiserver's limit on a request's body (3 MiB): kubectl sends
	// each document of a file in a request of its own.
	maxRequestBytes = 3 << 20
	// maxStoredBytes is etcd's default limit on a request (--max-request-bytes, 1.5 MiB):
	// an object whose stored form is larger cannot be created.
	maxStoredBytes = 3 << 19
)

// rawDoc is one document of the input, not yet decoded: YAML, or a JSON object of a
// JSON stream.
type rawDoc struct {
	where Origin
	data  []byte
	json  bool
}

// decoded is a document turned into objects (several for a List).
type decoded struct {
	objs     []any
	origins  []Origin
	warnings []string
	errs     []*InputError
}

// Decode reads manifests from files, directories (every *.yaml and *.yml, in name order) and
// "-" (stdin). Documents are decoded in parallel; objects keep input order. The documents'
// errors go with the input, so that admission reports them with those of the documents
// that decoded; an input that cannot be read at all, or has no object the simulator uses,
// is an *InputError.
func Decode(paths []string, stdin io.Reader) (*Input, error) {
	var docs []rawDoc
	in := &Input{}
	for _, p := range paths {
		files, err := expand(p)
		if err != nil {
			return nil, &InputError{Where: p, Msg: err.Error()}
		}
		for _, f := range files {
			d, err := readDocs(f, stdin)
			if err != nil {
				in.errs = append(in.errs, err)
				continue
			}
			docs = append(docs, d...)
		}
	}
	for i := range docs {
		docs[i].where.seq = i
	}
	results := decodeAll(docs)
	for _, r := range results {
		in.errs = append(in.errs, r.errs...)
		in.Warnings = append(in.Warnings, r.warnings...)
		for i, obj := range r.objs {
			in.add(obj, r.origins[i])
		}
	}
	if len(in.errs) == 0 && len(in.objs) == 0 {
		names := make([]string, len(paths))
		for i, p := range paths {
			if names[i] = p; p == "-" {
				names[i] = "<stdin>"
			}
		}
		return nil, &InputError{Where: strings.Join(names, ", "), Msg: noObjects(docs, in.Warnings)}
	}
	return in, nil
}

// noObjects says why an input with no object the simulator uses is refused, as kubectl
// apply refuses one ("no objects passed to apply"), with the warnings that say what was
// skipped (nothing else prints them: the input is refused).
func noObjects(docs []rawDoc, warnings []string) string {
	if len(docs) == 0 {
		return "no objects: the input has no documents (only blank lines, comments or document markers)"
	}
	msg := fmt.Sprintf("no objects the simulator uses in its %d document(s)", len(docs))
	if len(warnings) > 0 {
		msg += ": " + strings.Join(warnings, "; ")
	}
	return msg
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

// readDocs splits a file into documents as kubectl does: a JSON stream (the file starts
// with "{") is a sequence of JSON objects, anything else YAML documents between "---".
func readDocs(file string, stdin io.Reader) ([]rawDoc, *InputError) {
	var r io.Reader
	name := file
	var size int64
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
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		r = f
	}
	br := bufio.NewReaderSize(r, 1<<16)
	if head, _ := br.Peek(512); utilyaml.IsJSONBuffer(head) {
		return readJSONStream(name, br)
	}
	return readYAMLDocs(name, br, size)
}

// readJSONStream reads JSON objects one after the other; anything else, trailing data
// included, is an error, as kubectl's reading of a JSON file makes it.
func readJSONStream(name string, r io.Reader) ([]rawDoc, *InputError) {
	dec := json.NewDecoder(r)
	var docs []rawDoc
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err == nil && (len(raw) == 0 || raw[0] != '{') {
			err = fmt.Errorf("a JSON %s where an object is expected", jsonKind(raw))
		}
		if err != nil {
			return nil, &InputError{Where: fmt.Sprintf("%s: document %d", name, n),
				Msg: fmt.Sprintf("not valid JSON (at byte %d of the file): %v", dec.InputOffset(), err)}
		}
		docs = append(docs, rawDoc{where: Origin{File: name, Doc: n, Item: -1}, data: raw, json: true})
	}
}

func jsonKind(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "nothing"
	case raw[0] == '[':
		return "list"
	case raw[0] == '"':
		return "string"
	}
	return "value"
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
			var c yamlConverter
			for i := range next {
				out[i] = decodeDoc(docs[i], &c)
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

// decodeDoc decodes one document, converting YAML with c.
func decodeDoc(d rawDoc, c *yamlConverter) decoded {
	var res decoded
	if len(d.data) > maxRequestBytes {
		res.errs = append(res.errs, &InputError{Where: d.where.String(), at: d.where,
			Msg: fmt.Sprintf("Request entity too large: %d bytes, more than the %d the API server accepts in a request", len(d.data), maxRequestBytes)})
		return res
	}
	js := d.data
	var head *typeMeta
	unique := false
	if !d.json {
		if js, head, unique = c.toJSON(d.data); !unique {
			var err error
			if js, err = yaml.YAMLToJSONStrict(d.data); err != nil {
				e := yamlError(d, err)
				e.at = d.where
				res.errs = append(res.errs, e)
				return res
			}
		}
	}
	decodeObject(js, head, unique, d.where, &res)
	return res
}

// yamlError locates a YAML document's error: a key given twice is named by its path.
func yamlError(d rawDoc, err error) *InputError {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	if path, key := duplicateKey(d.data); path != "" {
		return &InputError{Where: d.where.String(), Field: path, Msg: fmt.Sprintf("Duplicate value: %q: the key is given twice (the API server refuses it: %s)", key, strings.Join(strings.Fields(msg), " "))}
	}
	return &InputError{Where: d.where.String(), Msg: "not valid YAML: " + strings.Join(strings.Fields(msg), " ")}
}

// decodeObject decodes a document's JSON (or a List's item) into its object; head is its
// apiVersion and kind when the YAML converter read them, nil to read them here. unique
// says that no object of js has a key twice (the fast YAML path refuses a document that
// does), so that the strict decoding need not look for duplicate fields: they cannot be.
func decodeObject(js []byte, head *typeMeta, unique bool, where Origin, res *decoded) {
	fail := func(fld, object, msg string) {
		res.errs = append(res.errs, &InputError{Where: where.String(), Object: object, Field: fld, Msg: msg, at: where})
	}
	var tm typeMeta
	if head != nil {
		tm = *head
	} else if err := json.Unmarshal(js, &tm); err != nil {
		fail("", "", "not a Kubernetes object: "+err.Error())
		return
	}
	switch {
	case tm.Kind == "":
		fail("kind", "", "Required value")
		return
	case tm.APIVersion == "":
		fail("apiVersion", "", "Required value")
		return
	}
	if strings.HasSuffix(tm.Kind, "List") && tm.Items != nil {
		if where.Item >= 0 {
			fail("kind", "", "a List inside a List is not supported")
			return
		}
		for i, item := range tm.Items {
			w := where
			w.Item = i
			decodeObject(item, nil, unique, w, res)
		}
		return
	}
	schema := crdSchemas().For(tm.APIVersion, tm.Kind)
	newObj, known := kinds[tm.APIVersion+"/"+tm.Kind]
	if !known && schema == nil {
		res.warnings = append(res.warnings, fmt.Sprintf("%s: skipping %s %s: not a kind the simulator uses", where, tm.APIVersion, tm.Kind))
		return
	}
	var obj any
	if known {
		obj = newObj()
		strict, err := sigsjson.UnmarshalStrict(js, obj, strictOptions(unique)...)
		if err != nil {
			e := decodeError(js, where, tm.Kind, err)
			e.at = where
			res.errs = append(res.errs, e)
			return
		}
		for _, e := range strict {
			fld, msg := strictError(e)
			fail(fld, describeJSON(tm.Kind, js), msg)
		}
		if len(strict) > 0 {
			return
		}
	}
	if schema != nil {
		// phalanx's own kinds are checked against their CRD, as the API server checks them,
		// and read with its defaults.
		var m map[string]any
		if err := utiljson.Unmarshal(js, &m); err != nil {
			fail("", tm.Kind, "not a Kubernetes object: "+err.Error())
			return
		}
		if schema.Namespaced {
			defaultNamespaceOf(m)
		}
		desc := Describe(tm.Kind, stringAt(m, "metadata", "namespace"), stringAt(m, "metadata", "name"))
		errs := schema.Admit(m)
		res.errs = append(res.errs, FieldErrors(where, desc, errs)...)
		if len(errs) > 0 || !known {
			if !known {
				res.warnings = append(res.warnings, fmt.Sprintf("%s: %s %s is valid, but not a kind the simulator uses yet: skipped", where, tm.APIVersion, tm.Kind))
			}
			return
		}
		var err error
		if js, err = json.Marshal(m); err != nil {
			fail("", desc, err.Error())
			return
		}
		obj = newObj()
		if err := json.Unmarshal(js, obj); err != nil {
			fail("", desc, err.Error())
			return
		}
	}
	if size := storedSize(obj, js); size > maxStoredBytes {
		fail("", describeJSON(tm.Kind, js), fmt.Sprintf("Too long: the object takes %d bytes stored, more than the %d etcd takes in a request (the API server could not store it)", size, maxStoredBytes))
		return
	}
	res.objs = append(res.objs, obj)
	res.origins = append(res.origins, where)
}

var (
	allStrict     = []sigsjson.StrictOption{sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields}
	unknownFields = []sigsjson.StrictOption{sigsjson.DisallowUnknownFields}
)

// strictOptions are the strict decoding's checks: both, or only unknown fields when no key
// can be a duplicate (the duplicate checks were a tenth of the strict decoding's time and
// more of its garbage).
func strictOptions(unique bool) []sigsjson.StrictOption {
	if unique {
		return unknownFields
	}
	return allStrict
}

// strictField reads sigs.k8s.io/json's strict errors: `unknown field "spec.x"`,
// `duplicate field "metadata.name"`.
var strictField = regexp.MustCompile(`^(unknown|duplicate) field "(.*)"$`)

// strictError turns a strict decoding error into a field and a message, as the API
// server refuses the object ("strict decoding error: unknown field ...").
func strictError(err error) (fld, msg string) {
	m := strictField.FindStringSubmatch(err.Error())
	if m == nil {
		return "", "strict decoding error: " + err.Error()
	}
	if m[1] == "unknown" {
		return m[2], "Unknown field: no such field in the object's schema (the API server refuses it in strict decoding, as kubectl apply asks)"
	}
	return m[2], "Duplicate value: the field is given twice (the API server refuses it in strict decoding)"
}

// describeJSON names a document's object for messages, from its metadata.
func describeJSON(kind string, js []byte) string {
	var m struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(js, &m)
	if m.Metadata.Namespace == "" && !clusterScoped[kind] {
		m.Metadata.Namespace = v1.NamespaceDefault
	}
	return Describe(kind, m.Metadata.Namespace, m.Metadata.Name)
}

// clusterScoped are the kinds the simulator reads that have no namespace.
var clusterScoped = map[string]bool{
	"Node": true, "Namespace": true, "PriorityClass": true, "PersistentVolume": true, "StorageClass": true,
	"CSINode": true, "CSIDriver": true, "VolumeAttachment": true, "DeviceClass": true, "ResourceSlice": true,
	"DeviceTaintRule": true,
}

// storedSize is how large an object is in etcd: Kubernetes' kinds are stored as protobuf,
// custom resources as JSON.
func storedSize(obj any, js []byte) int {
	if p, ok := obj.(interface{ Size() int }); ok {
		return p.Size()
	}
	return len(js)
}

// defaultNamespaceOf puts a namespaced object without a namespace in "default", as
// kubectl's context would (and the simulator's admission does for every kind).
func defaultNamespaceOf(m map[string]any) {
	meta, ok := m["metadata"].(map[string]any)
	if !ok {
		return
	}
	if ns, _ := meta["namespace"].(string); ns == "" {
		meta["namespace"] = v1.NamespaceDefault
	}
}

func stringAt(m map[string]any, path ...string) string {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[k]
	}
	s, _ := cur.(string)
	return s
}

// decodeError turns a JSON decoding error into one that names the field. Type errors carry
// their path; errors from a value's own parser (a malformed quantity) do not, so the
// document is walked to find the offending value.
func decodeError(js []byte, where Origin, kind string, err error) *InputError {
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
