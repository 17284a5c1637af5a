package snapshot

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// Write writes the snapshot as one stream of YAML documents, after a comment that counts
// what it holds and says what was left out.
func (s *Snapshot) Write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	s.header(bw)
	if err := writeDocs(bw, s.Objects()); err != nil {
		return err
	}
	return bw.Flush()
}

// files are the files of a snapshot written to a directory, in the order `phalanx
// simulate -f DIR` reads them, and the kinds each holds.
var files = []struct {
	name  string
	kinds []string
}{
	{"00-namespaces.yaml", []string{"Namespace"}},
	{"01-priorityclasses.yaml", []string{"PriorityClass"}},
	{"02-nodes.yaml", []string{"Node"}},
	{"03-storage.yaml", []string{"StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity", "PersistentVolume", "PersistentVolumeClaim", "VolumeAttachment"}},
	{"04-devices.yaml", []string{"DeviceClass", "ResourceSlice", "DeviceTaintRule", "ResourceClaimTemplate", "ResourceClaim"}},
	{"05-podgroups.yaml", []string{"PodGroup", "Workload", "CompositePodGroup"}},
	{"06-disruptionbudgets.yaml", []string{"PodDisruptionBudget"}},
	{"07-pods.yaml", []string{"Pod"}},
	{"08-queued-jobs.yaml", []string{"Job"}},
}

// WriteDir writes the snapshot as one file per group of kinds into dir (made if missing);
// 00-namespaces.yaml starts with the comment Write starts with.
func (s *Snapshot) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	byKind := map[string][]k8sruntime.Object{}
	for _, o := range s.Objects() {
		k := o.GetObjectKind().GroupVersionKind().Kind
		byKind[k] = append(byKind[k], o)
	}
	for i, f := range files {
		var objs []k8sruntime.Object
		for _, k := range f.kinds {
			objs = append(objs, byKind[k]...)
		}
		if err := writeFile(filepath.Join(dir, f.name), func(w *bufio.Writer) error {
			if i == 0 {
				s.header(w)
			}
			return writeDocs(w, objs)
		}); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (s *Snapshot) header(w io.Writer) {
	fmt.Fprintf(w, "# phalanx snapshot: %d nodes, %d pods%s. Read it back with: phalanx simulate -f FILE\n", len(s.Nodes), len(s.Pods), s.queuedCount())
	for _, n := range s.Notes {
		fmt.Fprintf(w, "# left out: %s\n", n)
	}
}

// queuedCount is ", N queued Job(s)" when there are any (for the header).
func (s *Snapshot) queuedCount() string {
	switch len(s.QueuedJobs) {
	case 0:
		return ""
	case 1:
		return ", 1 queued Job"
	}
	return fmt.Sprintf(", %d queued Jobs", len(s.QueuedJobs))
}

// writeDocs writes objects as YAML documents in order, marshalled on every core.
func writeDocs(w io.Writer, objs []k8sruntime.Object) error {
	const chunk = 256
	out := make([][]byte, (len(objs)+chunk-1)/chunk)
	errs := make([]error, len(out))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for c := range out {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var buf []byte
			for _, o := range objs[c*chunk : min(len(objs), (c+1)*chunk)] {
				js, err := json.Marshal(o)
				if err == nil {
					js, err = toYAML(js)
				}
				if err != nil {
					errs[c] = err
					return
				}
				y := js
				buf = append(append(buf, "---\n"...), y...)
			}
			out[c] = buf
		}()
	}
	wg.Wait()
	for c := range out {
		if errs[c] != nil {
			return errs[c]
		}
		if _, err := w.Write(out[c]); err != nil {
			return err
		}
	}
	return nil
}
