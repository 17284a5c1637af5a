package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const (
	testVersion  = "v0.1.0-imagetest"
	testRevision = "0123456789abcdef0123456789abcdef01234567"
)

// staticPhalanx builds cmd/phalanx as `make image` does: CGO_ENABLED=0, linux, stamped.
func staticPhalanx(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "phalanx")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags",
		"-s -w -X github.com/phalanx-dev/phalanx/pkg/version.gitVersion="+testVersion+
			" -X github.com/phalanx-dev/phalanx/pkg/version.gitCommit="+testRevision,
		"-o", out, "./cmd/phalanx")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building phalanx: %v\n%s", err, b)
	}
	return out
}

// The image built from the static binary, read back from its tarball with
// go-containerregistry and unpacked: the binary inside runs and says its version, the
// config is non-root with the entrypoint and the OCI labels, and the OCI layout holds the
// same image. Then the same check against other expectations fails, naming what differs.
func TestBuildAndCheck(t *testing.T) {
	dir := t.TempDir()
	bin := staticPhalanx(t, dir)
	ref := DefaultRepository + ":" + testVersion
	created := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	spec := Spec{Binary: bin, Ref: ref, Version: testVersion, Revision: testRevision, Arch: "amd64", Created: created}
	img, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image")
	if _, _, err := Write(out, ref, img); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(out, Want{Version: testVersion, Revision: testRevision, Ref: ref})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	var buf bytes.Buffer
	rep.Print(&buf)
	t.Log(buf.String())
	if len(rep.Layers) != 1 || rep.Layers[0].Size <= 0 {
		t.Errorf("layers %+v, want one", rep.Layers)
	}
	if got := rep.Labels["org.opencontainers.image.created"]; got != "2026-11-27T12:00:00Z" {
		t.Errorf("created label %q", got)
	}
	if !strings.HasPrefix(rep.VersionOutput, "phalanx "+testVersion+" (commit "+testRevision[:12]) {
		t.Errorf("--version printed %q", rep.VersionOutput)
	}

	// The same inputs give the same image.
	again, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("two builds of the same binary: %s and %s", d1, d2)
	}

	for _, tc := range []struct {
		name string
		want Want
		err  string
	}{
		{"other version", Want{Version: "v9.9.9", Revision: testRevision}, "org.opencontainers.image.version"},
		{"other version's output", Want{Version: "v9.9.9"}, "--version printed"},
		{"other revision", Want{Version: testVersion, Revision: "fedcba9876543210"}, "org.opencontainers.image.revision"},
		{"other source", Want{Version: testVersion, Source: "https://example.com/x"}, "org.opencontainers.image.source"},
		{"other tag", Want{Version: testVersion, Ref: DefaultRepository + ":v0.0.1"}, "v0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check(out, tc.want)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("check: %v, want an error naming %q", err, tc.err)
			}
		})
	}
}

// Bad flags exit 2 with a message naming them; a failure exits 1.
func TestRunBadInput(t *testing.T) {
	notELF := filepath.Join(t.TempDir(), "phalanx")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"bild"}, 2, `unknown command "bild"`},
		{"build without flags", []string{"build"}, 2, "needs -binary"},
		{"bad created", []string{"build", "-binary", notELF, "-ref", "example.com/p:v1", "-version", "v1", "-out", t.TempDir(), "-created", "yesterday"}, 2, "-created"},
		{"bad ref", []string{"build", "-binary", notELF, "-ref", "Not A Ref", "-version", "v1", "-out", t.TempDir()}, 1, "-ref"},
		{"not an executable", []string{"build", "-binary", notELF, "-ref", "example.com/p:v1", "-version", "v1", "-out", t.TempDir()}, 1, "not an ELF"},
		{"missing binary", []string{"build", "-binary", notELF + ".missing", "-ref", "example.com/p:v1", "-version", "v1", "-out", t.TempDir()}, 1, "-binary"},
		{"check without dir", []string{"check", "-version", "v1"}, 2, "needs -dir"},
		{"check of nothing", []string{"check", "-dir", t.TempDir(), "-version", "v1"}, 1, "phalanx-image.tar"},
		{"push without ref", []string{"push", "-dir", t.TempDir()}, 2, "needs -dir and -ref"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, stderr.String(), tc.code, tc.msg)
			}
		})
	}
}

// The chart, the release manifest, the kustomization and the Makefile name the image
// this tool builds: DefaultRepository, tagged with the chart's appVersion.
func TestReleaseNamesThisImage(t *testing.T) {
	root := filepath.Join("..", "..")
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	find := func(file, expr string) string {
		m := regexp.MustCompile(expr).FindStringSubmatch(read(file))
		if m == nil {
			t.Fatalf("%s: no match for %s", file, expr)
		}
		return m[1]
	}
	appVersion := find("charts/phalanx/Chart.yaml", `(?m)^appVersion: (\S+)$`)
	want := DefaultRepository + ":" + appVersion
	for _, tc := range []struct{ file, expr, want string }{
		{"charts/phalanx/values.yaml", `(?m)^  repository: (\S+)$`, DefaultRepository},
		{"charts/phalanx/values.yaml", `(?m)^  tag: (\S+)`, `""`},
		{"deploy/phalanx.yaml", `(?m)^\s+image: "?([^"\s]+)"?$`, want},
		{"config/deploy/deployment.yaml", `(?m)^\s+image: (\S+)$`, want},
		{"config/kustomization.yaml", `(?m)^  newTag: (\S+)$`, appVersion},
		{"Makefile", `(?m)^IMAGE\s+\?= (\S+)$`, DefaultRepository},
	} {
		if got := find(tc.file, tc.expr); got != tc.want {
			t.Errorf("%s names %s, want %s", tc.file, got, tc.want)
		}
	}
}
