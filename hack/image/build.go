package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// DefaultRepository is the image's name in the chart, the release manifest, the
	// kustomization and the Makefile (TestReleaseNamesThisImage holds them to it).
	DefaultRepository = "ghcr.io/phalanx-dev/phalanx"
	// DefaultSource is org.opencontainers.image.source.
	DefaultSource = "https://github.com/phalanx-dev/phalanx"
	// User is distroless' nonroot user and group, the chart's runAsUser and runAsGroup.
	User = "65532:65532"
	// Entrypoint is where the binary lives in the image; the chart's args start with `run`.
	Entrypoint = "/phalanx"
	// MetricsPort is the port of --bind-address's default.
	MetricsPort = "10251/tcp"
)

// Spec says what goes into the image.
type Spec struct {
	Binary   string // the static linux binary
	Ref      string // name:tag
	Version  string
	Revision string
	Source   string
	Arch     string
	Created  time.Time // zero: the Unix epoch
}

// Labels are the image's OCI annotations-as-labels.
func (s Spec) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "phalanx",
		"org.opencontainers.image.description": "A workload-aware Kubernetes scheduler, run as a secondary scheduler beside kube-scheduler",
		"org.opencontainers.image.version":     s.Version,
		"org.opencontainers.image.revision":    s.Revision,
		"org.opencontainers.image.source":      s.Source,
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.created":     s.created().Format(time.RFC3339),
	}
}

func (s Spec) created() time.Time {
	if s.Created.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return s.Created.UTC()
}

// Build assembles the image: one layer with the binary, /etc/passwd and /etc/group naming
// the nonroot user (so that tools resolving the user find it) and a writable /tmp, on no
// base image (the binary is static: CGO_ENABLED=0). Every file time is Created, so the
// same binary and Spec give the same digest.
func Build(s Spec) (v1.Image, error) {
	if s.Source == "" {
		s.Source = DefaultSource
	}
	if s.Arch == "" {
		s.Arch = "amd64"
	}
	if _, err := name.NewTag(s.Ref, name.StrictValidation); err != nil {
		return nil, fmt.Errorf("-ref %q: %w (want REPOSITORY:TAG)", s.Ref, err)
	}
	bin, err := os.ReadFile(s.Binary)
	if err != nil {
		return nil, fmt.Errorf("-binary: %w", err)
	}
	if !bytes.HasPrefix(bin, []byte("\x7fELF")) {
		return nil, fmt.Errorf("-binary %s: not an ELF (linux) executable", s.Binary)
	}
	layerTar, err := rootfs(bin, s.created())
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: s.created()},
			CreatedBy: "hack/image build: " + filepath.Base(s.Binary) + " as " + Entrypoint,
			Comment:   "phalanx " + s.Version,
		},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture = s.Arch
	cf.OS = "linux"
	cf.Created = v1.Time{Time: s.created()}
	cf.Config = v1.Config{
		User:         User,
		Entrypoint:   []string{Entrypoint},
		Cmd:          []string{"run"},
		WorkingDir:   "/",
		Env:          []string{"PATH=/"},
		Labels:       s.Labels(),
		ExposedPorts: map[string]struct{}{MetricsPort: {}},
	}
	return mutate.ConfigFile(img, cf)
}

// rootfs is the layer's tar.
func rootfs(bin []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, body []byte) error {
		h.ModTime = mtime
		h.Format = tar.FormatPAX
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	passwd := "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group := "root:x:0:\nnonroot:x:65532:\n"
	entries := []struct {
		h    tar.Header
		body []byte
	}{
		{tar.Header{Name: "etc/", Typeflag: tar.TypeDir, Mode: 0o755}, nil},
		{tar.Header{Name: "etc/group", Typeflag: tar.TypeReg, Mode: 0o644}, []byte(group)},
		{tar.Header{Name: "etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644}, []byte(passwd)},
		{tar.Header{Name: "home/", Typeflag: tar.TypeDir, Mode: 0o755}, nil},
		{tar.Header{Name: "home/nonroot/", Typeflag: tar.TypeDir, Mode: 0o700, Uid: 65532, Gid: 65532}, nil},
		{tar.Header{Name: "phalanx", Typeflag: tar.TypeReg, Mode: 0o755}, bin},
		{tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777}, nil},
	}
	for i := range entries {
		if err := add(&entries[i].h, entries[i].body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes the image as an OCI image layout in dir/oci (replaced; `crane push
// dir/oci REF` or `skopeo copy oci:dir/oci docker://REF` publish it) and as a tarball
// dir/phalanx-image.tar (`docker load` and `podman load` read it; `crane push` too).
func Write(dir, ref string, img v1.Image) (layoutDir, tarPath string, err error) {
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return "", "", err
	}
	layoutDir = filepath.Join(dir, "oci")
	if err := os.RemoveAll(layoutDir); err != nil {
		return "", "", err
	}
	p, err := layout.Write(layoutDir, empty.Index)
	if err != nil {
		return "", "", fmt.Errorf("OCI layout %s: %w", layoutDir, err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag.TagStr(),
		"io.containerd.image.name":          tag.Name(),
	})); err != nil {
		return "", "", fmt.Errorf("OCI layout %s: %w", layoutDir, err)
	}
	tarPath = filepath.Join(dir, "phalanx-image.tar")
	if err := tarball.WriteToFile(tarPath, tag, img); err != nil {
		return "", "", fmt.Errorf("tarball %s: %w", tarPath, err)
	}
	return layoutDir, tarPath, nil
}
