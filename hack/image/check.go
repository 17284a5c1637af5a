package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Want is what Check holds the image to.
type Want struct {
	Version  string
	Revision string // may be empty: not checked
	Ref      string // may be empty: the tarball's only image
	Source   string
}

// LayerInfo is one layer as a registry stores it.
type LayerInfo struct {
	Digest     string
	Size       int64 // compressed, as pushed
	DiffID     string
	Uncompress int64
}

// Report is what Check found.
type Report struct {
	Ref           string
	Digest        string // the manifest's, in the OCI layout
	ConfigDigest  string
	User          string
	Entrypoint    []string
	Cmd           []string
	Labels        map[string]string
	Layers        []LayerInfo
	VersionOutput string
}

// Print writes the report for a person.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "image %s\n  manifest %s\n  config   %s\n  user %s, entrypoint %q, cmd %q\n",
		r.Ref, r.Digest, r.ConfigDigest, r.User, r.Entrypoint, r.Cmd)
	keys := make([]string, 0, len(r.Labels))
	for k := range r.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  label %s=%s\n", k, r.Labels[k])
	}
	for i, l := range r.Layers {
		fmt.Fprintf(w, "  layer %d: %s, %d bytes (uncompressed %s, %d bytes)\n", i, l.Digest, l.Size, l.DiffID, l.Uncompress)
	}
	if r.VersionOutput != "" {
		fmt.Fprintf(w, "  %s --version: %s\n", Entrypoint, r.VersionOutput)
	}
}

// Check reads the image back from dir/phalanx-image.tar with go-containerregistry, as
// `docker load` or a registry would get it: the config (user, entrypoint, labels), the
// layers unpacked into a temporary directory, where the entrypoint runs with --version
// and must print want.Version (and the revision's first 12 characters). The OCI layout
// dir/oci must hold the same image (same config and layers).
func Check(dir string, want Want) (*Report, error) {
	if want.Source == "" {
		want.Source = DefaultSource
	}
	var tag *name.Tag
	if want.Ref != "" {
		t, err := name.NewTag(want.Ref, name.StrictValidation)
		if err != nil {
			return nil, fmt.Errorf("-ref %q: %w", want.Ref, err)
		}
		tag = &t
	}
	tarPath := filepath.Join(dir, "phalanx-image.tar")
	img, err := tarball.ImageFromPath(tarPath, tag)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", tarPath, err)
	}
	rep := &Report{Ref: want.Ref}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s: config: %w", tarPath, err)
	}
	cd, err := img.ConfigName()
	if err != nil {
		return nil, err
	}
	rep.ConfigDigest = cd.String()
	rep.User, rep.Entrypoint, rep.Cmd, rep.Labels = cf.Config.User, cf.Config.Entrypoint, cf.Config.Cmd, cf.Config.Labels
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	for _, l := range layers {
		info, err := layerInfo(l)
		if err != nil {
			return rep, err
		}
		rep.Layers = append(rep.Layers, info)
	}

	var errs []error
	if rep.User != User {
		errs = append(errs, fmt.Errorf("config.User %q, want %q (non-root)", rep.User, User))
	}
	if !slices.Equal(rep.Entrypoint, []string{Entrypoint}) {
		errs = append(errs, fmt.Errorf("config.Entrypoint %q, want [%q]", rep.Entrypoint, Entrypoint))
	}
	if cf.OS != "linux" {
		errs = append(errs, fmt.Errorf("os %q, want linux", cf.OS))
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":  want.Version,
		"org.opencontainers.image.revision": want.Revision,
		"org.opencontainers.image.source":   want.Source,
	} {
		if v != "" && rep.Labels[k] != v {
			errs = append(errs, fmt.Errorf("label %s=%q, want %q", k, rep.Labels[k], v))
		}
	}
	if rep.Labels["org.opencontainers.image.created"] == "" {
		errs = append(errs, errors.New("no label org.opencontainers.image.created"))
	}

	// The OCI layout holds the same image.
	ldir := filepath.Join(dir, "oci")
	d, err := layoutImage(ldir, want.Ref)
	if err != nil {
		errs = append(errs, err)
	} else {
		rep.Digest = d.digest
		if d.config != rep.ConfigDigest || !slices.Equal(d.layers, layerDigests(rep.Layers)) {
			errs = append(errs, fmt.Errorf("%s holds config %s and layers %v, the tarball %s and %v", ldir, d.config, d.layers, rep.ConfigDigest, layerDigests(rep.Layers)))
		}
	}

	// Unpack and run.
	root, err := os.MkdirTemp("", "phalanx-image-rootfs-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(root)
	if err := unpack(img, root); err != nil {
		return rep, fmt.Errorf("unpacking %s: %w", tarPath, err)
	}
	bin := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(Entrypoint, "/")))
	cmd := exec.Command(bin, "--version")
	cmd.Env = cf.Config.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	rep.VersionOutput = strings.TrimSpace(string(out))
	if err != nil {
		errs = append(errs, fmt.Errorf("%s --version in the unpacked image: %v: %s", Entrypoint, err, stderr.String()))
	} else {
		if !strings.Contains(rep.VersionOutput, " "+want.Version+" ") {
			errs = append(errs, fmt.Errorf("%s --version printed %q, want version %s", Entrypoint, rep.VersionOutput, want.Version))
		}
		if r := want.Revision; r != "" && !strings.Contains(rep.VersionOutput, "commit "+r[:min(12, len(r))]) {
			errs = append(errs, fmt.Errorf("%s --version printed %q, want commit %s", Entrypoint, rep.VersionOutput, r))
		}
	}
	return rep, errors.Join(errs...)
}

func layerInfo(l v1.Layer) (LayerInfo, error) {
	d, err := l.Digest()
	if err != nil {
		return LayerInfo{}, err
	}
	size, err := l.Size()
	if err != nil {
		return LayerInfo{}, err
	}
	diff, err := l.DiffID()
	if err != nil {
		return LayerInfo{}, err
	}
	rc, err := l.Uncompressed()
	if err != nil {
		return LayerInfo{}, err
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if err != nil {
		return LayerInfo{}, err
	}
	return LayerInfo{Digest: d.String(), Size: size, DiffID: diff.String(), Uncompress: n}, nil
}

func layerDigests(ls []LayerInfo) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Digest
	}
	return out
}

type layoutDigests struct {
	digest, config string
	layers         []string
}

// layoutImage finds the image of the layout at dir (the one named ref's tag, when given).
func layoutImage(dir, ref string) (layoutDigests, error) {
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return layoutDigests{}, fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return layoutDigests{}, fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	wantTag := ""
	if ref != "" {
		if t, err := name.NewTag(ref); err == nil {
			wantTag = t.TagStr()
		}
	}
	for _, desc := range m.Manifests {
		if wantTag != "" && desc.Annotations["org.opencontainers.image.ref.name"] != wantTag {
			continue
		}
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return layoutDigests{}, fmt.Errorf("OCI layout %s: %s: %w", dir, desc.Digest, err)
		}
		cd, err := img.ConfigName()
		if err != nil {
			return layoutDigests{}, err
		}
		ls, err := img.Layers()
		if err != nil {
			return layoutDigests{}, err
		}
		out := layoutDigests{digest: desc.Digest.String(), config: cd.String()}
		for _, l := range ls {
			d, err := l.Digest()
			if err != nil {
				return layoutDigests{}, err
			}
			out.layers = append(out.layers, d.String())
		}
		return out, nil
	}
	return layoutDigests{}, fmt.Errorf("OCI layout %s: no image tagged %q", dir, wantTag)
}

// unpack writes the image's flattened filesystem under root: directories and regular
// files only, never outside root.
func unpack(img v1.Image, root string) error {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rel := filepath.Clean(filepath.FromSlash(h.Name))
		if rel == "." || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("entry %q leaves the root", h.Name)
		}
		p := filepath.Join(root, rel)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
}
