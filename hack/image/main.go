// Command image builds phalanx's container image without a container runtime, checks an
// image so built, and pushes it, with go-containerregistry (a module of its own, so that
// phalanx's go.mod never requires it). hack/image.sh (`make image` where neither docker
// nor podman runs) calls
//
//	image build -binary bin/image/phalanx -ref ghcr.io/phalanx-dev/phalanx:v0.1.0 \
//	  -version v0.1.0 -revision $(git rev-parse HEAD) -created 2026-01-02T15:04:05Z -out bin/image
//
// to write bin/image/oci (an OCI image layout) and bin/image/phalanx-image.tar (a tarball
// `docker load` reads), then
//
//	image check -dir bin/image -ref ... -version v0.1.0 -revision ...
//
// which reads the tarball back as a runtime would: the config (user, entrypoint, labels),
// then every layer unpacked into a directory, where the entrypoint runs with --version.
// `image push -dir bin/image -ref REF` publishes it (credentials: ~/.docker/config.json,
// as `crane` and `docker login` keep them).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usageText = `usage: image build -binary FILE -ref IMAGE:TAG -version V [-revision SHA] [-created RFC3339] [-arch amd64] -out DIR
       image check -dir DIR -version V [-revision SHA] [-ref IMAGE:TAG]
       image push  -dir DIR -ref IMAGE:TAG
`

// run is the command; its exit status is 2 for bad flags, 1 for a failure.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	var err error
	var bad bool
	switch args[0] {
	case "build":
		bad, err = buildCmd(args[1:], stdout, stderr)
	case "check":
		bad, err = checkCmd(args[1:], stdout, stderr)
	case "push":
		bad, err = pushCmd(args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "image: unknown command %q\n%s", args[0], usageText)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "image "+args[0]+":", err)
		if bad {
			return 2
		}
		return 1
	}
	return 0
}

func buildCmd(args []string, stdout, stderr io.Writer) (bool, error) {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s Spec
	var created, out string
	fs.StringVar(&s.Binary, "binary", "", "the static phalanx binary (linux)")
	fs.StringVar(&s.Ref, "ref", "", "the image's name and tag")
	fs.StringVar(&s.Version, "version", "", "the version phalanx is stamped with (org.opencontainers.image.version)")
	fs.StringVar(&s.Revision, "revision", "", "the commit (org.opencontainers.image.revision)")
	fs.StringVar(&s.Source, "source", DefaultSource, "org.opencontainers.image.source")
	fs.StringVar(&s.Arch, "arch", "amd64", "the binary's GOARCH")
	fs.StringVar(&created, "created", "", "the image's creation time, RFC 3339 (default: the Unix epoch, for a reproducible image)")
	fs.StringVar(&out, "out", "", "the directory to write oci/ and phalanx-image.tar into")
	if err := fs.Parse(args); err != nil {
		return true, err
	}
	if s.Binary == "" || s.Ref == "" || s.Version == "" || out == "" {
		return true, fmt.Errorf("needs -binary, -ref, -version and -out")
	}
	if created != "" {
		t, err := time.Parse(time.RFC3339, created)
		if err != nil {
			return true, fmt.Errorf("-created %q: not RFC 3339 (2006-01-02T15:04:05Z)", created)
		}
		s.Created = t
	}
	img, err := Build(s)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return false, err
	}
	ldir, tarPath, err := Write(out, s.Ref, img)
	if err != nil {
		return false, err
	}
	digest, err := img.Digest()
	if err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "image %s@%s written to %s and %s\n", s.Ref, digest, ldir, tarPath)
	return false, nil
}

func checkCmd(args []string, stdout, stderr io.Writer) (bool, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var want Want
	var dir string
	fs.StringVar(&dir, "dir", "", "the directory image build wrote")
	fs.StringVar(&want.Version, "version", "", "the version the binary inside must report")
	fs.StringVar(&want.Revision, "revision", "", "the commit it must report")
	fs.StringVar(&want.Ref, "ref", "", "the name and tag the image must carry")
	fs.StringVar(&want.Source, "source", DefaultSource, "org.opencontainers.image.source")
	if err := fs.Parse(args); err != nil {
		return true, err
	}
	if dir == "" || want.Version == "" {
		return true, fmt.Errorf("needs -dir and -version")
	}
	rep, err := Check(dir, want)
	if rep != nil {
		rep.Print(stdout)
	}
	if err == nil {
		fmt.Fprintln(stdout, "image check: ok")
	}
	return false, err
}

func pushCmd(args []string, stdout, stderr io.Writer) (bool, error) {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dir, ref string
	fs.StringVar(&dir, "dir", "", "the directory image build wrote")
	fs.StringVar(&ref, "ref", "", "where to push: REGISTRY/REPOSITORY:TAG")
	if err := fs.Parse(args); err != nil {
		return true, err
	}
	if dir == "" || ref == "" {
		return true, fmt.Errorf("needs -dir and -ref")
	}
	tag, err := name.NewTag(ref, name.StrictValidation)
	if err != nil {
		return true, fmt.Errorf("-ref %q: %w", ref, err)
	}
	img, err := tarball.ImageFromPath(dir+"/phalanx-image.tar", nil)
	if err != nil {
		return false, err
	}
	if err := remote.Write(tag, img, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return false, err
	}
	d, err := img.Digest()
	if err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "pushed %s@%s\n", tag, d)
	return false, nil
}
