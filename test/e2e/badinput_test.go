//go:build e2e

package e2e

// The differential test of hostile inputs: every file of testdata/badinput is sent to the
// API server, document by document, as kubectl apply sends it (strict field validation),
// and given to `phalanx simulate`; both must refuse it, or both accept it. Where both
// accept it, the simulation runs with --check-invariants, so no node is over-committed by
// the exact sum of the quantities placed on it. The only differences allowed are the
// simulator's documented conveniences (simulatorConveniences) and inputs about its own
// timeline annotations, which the API server has no reason to refuse.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/phalanx-dev/phalanx/pkg/testutil/badinput"
	"github.com/phalanx-dev/phalanx/test/e2e/e2eutil"
)

func TestBadInputDifferential(t *testing.T) {
	c := e2eutil.Connect(t)
	inputs, err := badinput.Read(filepath.Join(e2eutil.RepoRoot(t), "testdata", "badinput"))
	if err != nil {
		t.Fatal(err)
	}
	api := newRawAPI(t, c)
	bin := e2eutil.PhalanxBinary(t)
	for _, in := range inputs {
		t.Run(in.Name, func(t *testing.T) {
			if in.SimulatorOnly != "" {
				t.Skipf("simulator-only: %s", in.SimulatorOnly)
			}
			serverErr := api.apply(t, in)
			var notServed *notServedError
			if errors.As(serverErr, &notServed) {
				// A native PodGroup version of another release: the run on that release checks it.
				t.Skipf("the control plane does not serve %s", notServed.gvk)
			}
			simErr := simulate(t, bin, in)
			switch {
			case serverErr == nil && simErr != nil:
				t.Errorf("the API server accepts it, the simulator refuses it: %v", simErr)
			case serverErr != nil && simErr == nil:
				t.Errorf("the API server refuses it (%v), the simulator accepts it", serverErr)
			case (serverErr == nil) != (in.Accepted != ""):
				t.Errorf("both %s it, but the file says %q", map[bool]string{true: "accept", false: "refuse"}[serverErr == nil], in.Want+in.Accepted)
			}
			t.Logf("API server: %v; simulator: %v", serverErr, simErr)
		})
	}
}

// simulate runs `phalanx simulate --check-invariants` on an input (its Expectation
// document is skipped with a warning) and returns its error: exit 2 is a refusal, exit 1 a
// broken invariant, which fails the test.
func simulate(t *testing.T, bin string, in badinput.Input) error {
	t.Helper()
	f := filepath.Join(t.TempDir(), in.Name)
	if err := os.WriteFile(f, in.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "simulate", "-f", f, "--check-invariants", "-o", "json")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		return errors.New(strings.TrimSpace(stderr.String()))
	}
	t.Fatalf("phalanx simulate: %v\n%s", err, stderr.String())
	return nil
}

// rawAPI sends documents to the API server as they are written, so that what it refuses
// in them (a key given twice, an unknown field) is its own verdict.
type rawAPI struct {
	c      *e2eutil.Cluster
	http   *http.Client
	mapper meta.RESTMapper
}

func newRawAPI(t *testing.T, c *e2eutil.Cluster) *rawAPI {
	hc, err := rest.HTTPClientFor(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &rawAPI{c: c, http: hc, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// apply creates an input's objects in order, as `kubectl apply --validate=strict` does,
// and returns the first refusal; everything created is deleted when the test ends.
func (a *rawAPI) apply(t *testing.T, in badinput.Input) error {
	t.Helper()
	docs, err := kubectlDocuments(in)
	if err != nil {
		return fmt.Errorf("kubectl refuses the file: %w", err)
	}
	// Objects without a namespace go to "default", as the simulator puts them; all that an
	// input creates is deleted before the next one runs.
	created := []string{}
	t.Cleanup(func() { a.deleteAll(created) })
	for i, doc := range docs {
		body, contentType, head, err := simulatorConveniences(doc, in.JSON)
		if err != nil {
			return fmt.Errorf("document %d: %w", i+1, err)
		}
		gv, err := schema.ParseGroupVersion(head.APIVersion)
		if err != nil || head.Kind == "" {
			return fmt.Errorf("document %d: kubectl refuses it: Object 'Kind' is missing or apiVersion %q is invalid", i+1, head.APIVersion)
		}
		m, err := a.mapper.RESTMapping(gv.WithKind(head.Kind).GroupKind(), gv.Version)
		if meta.IsNoMatchError(err) {
			return &notServedError{gvk: gv.WithKind(head.Kind).String()}
		}
		if err != nil {
			return fmt.Errorf("document %d: kubectl refuses it: %w", i+1, err)
		}
		path := "/apis/" + gv.String()
		if gv.Group == "" {
			path = "/api/" + gv.Version
		}
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			objNS := head.Metadata.Namespace
			switch objNS {
			case "":
				objNS = "default"
			case "default":
			default:
				// A namespace the input names exists, as the simulator assumes.
				if _, err := a.create("/api/v1/namespaces", "application/json", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+objNS+`"}}`)); err == nil {
					created = append(created, "/api/v1/namespaces/"+objNS)
				}
			}
			path += "/namespaces/" + objNS
		}
		path += "/" + m.Resource.Resource
		name, err := a.create(path, contentType, body)
		if err != nil {
			return fmt.Errorf("document %d (%s %s): %w", i+1, head.Kind, head.Metadata.Name, err)
		}
		// The name the server gave (generateName) is deleted too: a node left behind
		// would be tainted unreachable and seen by the tests after this one.
		created = append(created, path+"/"+name)
	}
	return nil
}

// notServedError: the control plane does not serve a kind of the input.
type notServedError struct{ gvk string }

func (e *notServedError) Error() string { return e.gvk + " is not served" }

// create posts an object and returns the name it was stored under.
func (a *rawAPI) create(path, contentType string, body []byte) (string, error) {
	req, err := http.NewRequest(http.MethodPost, a.c.Config.Host+path+"?fieldValidation=Strict", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(msg))
	}
	var stored struct {
		Metadata struct{ Name string } `json:"metadata"`
	}
	if err := json.Unmarshal(msg, &stored); err != nil || stored.Metadata.Name == "" {
		return "", fmt.Errorf("HTTP %d: no name in the answer: %.200s", resp.StatusCode, msg)
	}
	return stored.Metadata.Name, nil
}

// deleteAll deletes what an input created, last first, finalizers dropped (the e2e
// control plane runs no protection controllers), so that the next input can reuse names.
func (a *rawAPI) deleteAll(paths []string) {
	for i := len(paths) - 1; i >= 0; i-- {
		for _, req := range []struct{ method, query, body string }{
			{http.MethodPatch, "", `{"metadata":{"finalizers":null}}`},
			{http.MethodDelete, "?gracePeriodSeconds=0", ""},
		} {
			r, err := http.NewRequestWithContext(context.Background(), req.method, a.c.Config.Host+paths[i]+req.query, strings.NewReader(req.body))
			if err != nil {
				continue
			}
			r.Header.Set("Content-Type", "application/merge-patch+json")
			if resp, err := a.http.Do(r); err == nil {
				resp.Body.Close()
			}
		}
	}
}

// kubectlDocuments splits a file as kubectl does: a JSON stream, or YAML documents;
// Expectation documents (the test's, not the API server's) are left out, and a List's
// items are documents of their own, as kubectl sends them.
func kubectlDocuments(in badinput.Input) ([][]byte, error) {
	var docs [][]byte
	if in.JSON {
		dec := json.NewDecoder(bytes.NewReader(in.Data))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
				return docs, nil
			} else if err != nil {
				return nil, err
			}
			docs = append(docs, raw)
		}
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(in.Data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		var head struct {
			Kind  string            `json:"kind"`
			Items []json.RawMessage `json:"items"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, err
		}
		switch {
		case head.Kind == "Expectation" || len(bytes.TrimSpace(doc)) == 0:
		case strings.HasSuffix(head.Kind, "List") && head.Items != nil:
			for _, item := range head.Items {
				docs = append(docs, item)
			}
		default:
			docs = append(docs, doc)
		}
	}
}

type docHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// simulatorConveniences turns a document into what the API server takes for what the
// simulator takes it as: the simulator's documented conveniences (docs/simulate.md,
// `phalanx simulate`'s admission) are the only differences this test allows:
//
//   - a pod's bare spec.priority (no priorityClassName): the simulator keeps it, the API
//     server's Priority admission refuses it, so it is left out;
//   - a container without an image: nothing runs it in the simulator; it gets one;
//   - namespaces the objects name need not exist (apply creates them).
//
// A document that is not a clean object (a key given twice) is sent as it is written,
// so that the API server refuses it on its own terms.
func simulatorConveniences(doc []byte, isJSON bool) (body []byte, contentType string, head docHead, err error) {
	contentType = "application/yaml"
	if isJSON {
		contentType = "application/json"
	}
	_ = yaml.Unmarshal(doc, &head)
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return doc, contentType, head, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(js, &obj); err != nil || head.Kind != "Pod" {
		return doc, contentType, head, nil
	}
	spec, _ := obj["spec"].(map[string]any)
	changed := false
	if _, number := spec["priority"].(float64); number && spec["priorityClassName"] == nil {
		delete(spec, "priority")
		changed = true
	}
	for _, group := range []string{"containers", "initContainers"} {
		cs, _ := spec[group].([]any)
		for _, c := range cs {
			if m, ok := c.(map[string]any); ok && m["image"] == nil {
				m["image"] = "simulated"
				changed = true
			}
		}
	}
	if !changed {
		return doc, contentType, head, nil
	}
	body, err = json.Marshal(obj)
	return body, "application/json", head, err
}
