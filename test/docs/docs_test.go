// Package docs holds README.md and the manual in docs/ to what the code does: every
// command of their code blocks runs as written from the repository root (or is on the
// list of commands that need a cluster, with the reason), its documented output is what
// it prints, and every relative link and anchor resolves.
package docs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// runs are the commands this test runs, by how they start (a command is a prefix or starts
// with it and a space). They need no cluster.
var runs = []string{
	"phalanx simulate",
	"phalanx whatif --snapshot",
	"phalanx version",
	"go run ./cmd/phalanx simulate",
	"go run ./cmd/phalanx whatif --snapshot",
	"make help",
	"make build",
	"bin/phalanx",
}

// notRun are the commands this test leaves alone, by how they start, and why. A command
// of the docs that is neither here nor in runs fails the test: add it to one of them.
var notRun = []struct{ prefix, why string }{
	{"kubectl", "needs a cluster: the e2e tests (test/e2e, make e2e) apply the install, the examples and the read-only role to a real API server"},
	{"helm", "needs a cluster: make verify renders the chart with each values file, and make e2e applies every rendering in a server-side dry run"},
	{"phalanx run", "needs a cluster: make e2e runs phalanx run against real control planes"},
	{"go run ./cmd/phalanx run", "needs a cluster: make e2e runs phalanx run against real control planes"},
	{"phalanx snapshot --kubeconfig", "needs a cluster: make e2e takes snapshots of a real control plane (test/e2e/whatif_test.go)"},
	{"phalanx whatif --kubeconfig", "needs a cluster: make e2e asks a real control plane (test/e2e/whatif_test.go)"},
	{"phalanx snapshot --context", "needs a cluster: make e2e takes snapshots of a real control plane; cmd/phalanx's TestKubeFlagsLoadingRules checks how --context picks it"},
	{"install -m 0755 bin/phalanx", "installs into your home; cmd/phalanx's TestKubectlPlugin runs the binary under kubectl's plugin name"},
	{"ln -sf phalanx", "installs into your home; cmd/phalanx's TestKubectlPlugin runs the binary under kubectl's plugin name"},
	{"curl", "needs phalanx run's listener in a cluster"},
	{"docker", "needs Docker and a registry"},
	{"make image", "needs Docker"},
	{"make test", "runs this test"},
	{"make verify", "CI runs it (.ci/run); it takes minutes"},
	{"make generate", "rewrites the generated files; make verify checks they are current"},
	{"make fuzz", "CI runs it (.ci/run); it takes minutes"},
	{"make e2e", "builds and runs real control planes: CI runs it (.ci/run)"},
	{"make bench", "a benchmark: it reports, it checks nothing"},
	{"make bench-cluster", "a benchmark on real control planes (and Kueue): it reports, it checks nothing; ~15 min"},
	{"make bench-scale", "a benchmark of both schedulers in one process: it reports, it checks nothing; minutes to hours"},
	{"hack/e2e.sh", "builds and runs real control planes"},
}

// startsWith says whether a command is prefix or starts with it and a space.
func startsWith(cmd, prefix string) bool {
	return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
}

// repoRoot is the repository's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no repository root at %s: %v", root, err)
	}
	return root
}

// pages are the Markdown files whose commands and links are checked: README.md and
// docs/*.md (not the decision records of docs/decisions/).
func pages(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, f := range files {
		out = append(out, filepath.Join("docs", filepath.Base(f)))
	}
	return out
}

// documented reads every command of the pages, and fails on a code block that does not
// say whether it holds commands.
func documented(t *testing.T, root string) []command {
	t.Helper()
	var cmds []command
	for _, page := range pages(t, root) {
		blocks, _, err := readBlocks(root, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			switch {
			case commandLangs[b.lang]:
				c, err := b.commands()
				if err != nil {
					t.Error(err)
				}
				cmds = append(cmds, c...)
			case !proseLangs[b.lang]:
				t.Errorf("%s:%d: a code block marked %q: mark commands ```sh (one a line) or ```console ($ before each, then its output), anything else ```yaml, ```json or ```text",
					b.file, b.line, b.lang)
			}
		}
	}
	return cmds
}

// TestDocumentedCommands runs every command of README.md and docs/*.md that needs no
// cluster, exactly as written, from (a copy of) the repository root with phalanx on the
// PATH, and checks its exit status and the output the docs show. The others must be on
// the notRun list.
func TestDocumentedCommands(t *testing.T) {
	root := repoRoot(t)
	cmds := documented(t, root)
	if len(cmds) == 0 {
		t.Fatal("no commands in README.md and docs/*.md")
	}
	if t.Failed() {
		return
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("the docs' commands are bash's: %v", err)
	}
	bin := buildPhalanx(t, root)
	dir := scratchRoot(t, root)
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	for _, c := range cmds {
		name := fmt.Sprintf("%s:%d", c.file, c.line)
		t.Run(name, func(t *testing.T) {
			if why := whyNotRun(c.text); why != "" {
				t.Skip(why)
			}
			if !slices.ContainsFunc(runs, func(p string) bool { return startsWith(c.text, p) }) {
				t.Fatalf("%s\nthis test neither runs this command nor knows why not: add how it starts to runs (it needs no cluster) or to notRun (with the reason) in test/docs/docs_test.go", c)
			}
			if strings.Contains(c.text, "| jq ") {
				if _, err := exec.LookPath("jq"); err != nil {
					t.Skip("needs jq, which is not installed")
				}
			}
			got, code, err := run(t, shell, dir, env, c.text)
			if err != nil {
				t.Fatalf("%s\n%v\n%s", c, err, got)
			}
			if code != c.exit {
				t.Fatalf("%s\nexit status %d, want %d; it printed:\n%s", c, code, c.exit, got)
			}
			if c.output != nil {
				if diff := compareOutput(c.output, got); diff != "" {
					t.Errorf("%s\nprints what the docs do not show: %s\nit printed:\n%s", c, diff, got)
				}
			}
		})
	}
}

// envPrefix matches a variable assignment before a command (`NODES=20000 make ...`).
var envPrefix = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=("[^"]*"|'[^']*'|\S*)\s+`)

func whyNotRun(cmd string) string {
	for envPrefix.MatchString(cmd) {
		cmd = envPrefix.ReplaceAllString(cmd, "")
	}
	for _, n := range notRun {
		if startsWith(cmd, n.prefix) {
			return n.why
		}
	}
	return ""
}

// run runs a command with bash from dir, stdout and stderr together as a terminal shows
// them, and stops it when the test's deadline nears.
func run(t *testing.T, shell, dir string, env []string, text string) (string, int, error) {
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, shell, "-c", text)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return out.String(), -1, fmt.Errorf("stopped at the test's deadline: %w", ctx.Err())
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode(), nil
	case err != nil:
		return out.String(), -1, err
	}
	return out.String(), 0, nil
}

// compareOutput compares the output the docs show with what the command printed, line
// by line, trailing spaces aside. A shown line ending in "..." stands for the lines
// that start with what comes before it; a last line "..." for any lines that follow.
// It returns "" when they agree.
func compareOutput(want []string, got string) string {
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	for i, w := range want {
		w = strings.TrimRight(w, " \t")
		if w == "..." && i == len(want)-1 {
			return ""
		}
		if i >= len(lines) {
			return fmt.Sprintf("the docs show %d lines, it printed %d", len(want), len(lines))
		}
		g := strings.TrimRight(lines[i], " \t")
		if prefix, cut := strings.CutSuffix(w, "..."); cut && strings.HasPrefix(g, prefix) {
			continue
		}
		if g != w {
			return fmt.Sprintf("line %d\n  shown:   %s\n  printed: %s", i+1, w, g)
		}
	}
	if len(lines) > len(want) {
		return fmt.Sprintf("the docs show %d lines, it printed %d (end what is shown with a line \"...\" to cut it)", len(want), len(lines))
	}
	return ""
}

// buildPhalanx builds cmd/phalanx into a directory of its own, put first on the PATH so
// that `phalanx` is this build, as `make build` and an install would make it.
func buildPhalanx(t *testing.T, root string) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "phalanx"), "./cmd/phalanx")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/phalanx: %v\n%s", err, out)
	}
	return bin
}

// scratchRoot is the directory the commands run in: the repository root's entries, linked,
// so that a command reads what it names, and writes (report.html, bin/phalanx) beside
// them without touching the checkout. It is made again at each run, at the same place (in
// the user's cache directory, one per checkout) so that `go run ./cmd/phalanx` reuses the
// packages it compiled there last time (the build cache keys them by directory). Two runs
// of this test at once on one checkout would share it.
func scratchRoot(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	if cache, err := os.UserCacheDir(); err == nil {
		sum := sha256.Sum256([]byte(root))
		dir = filepath.Join(cache, "phalanx-docs-test", hex.EncodeToString(sum[:8]))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case ".git", ".cache", "bin": // a build's output goes to the copy's own bin/
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLinks checks that every relative link of README.md and docs/*.md names a file that
// exists and, with an anchor, a heading of that file.
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	anchors := map[string]map[string]bool{} // by file, relative to root
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		_, prose, err := readBlocks(root, file)
		if err != nil {
			t.Fatal(err)
		}
		anchors[file] = headings(prose)
		return anchors[file]
	}
	checked := 0
	for _, page := range pages(t, root) {
		_, prose, err := readBlocks(root, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(page, prose) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(l.target, "#")
			target := page
			if path != "" {
				target = filepath.Clean(filepath.Join(filepath.Dir(page), path))
				if _, err := os.Stat(filepath.Join(root, target)); err != nil {
					t.Errorf("%s:%d: link to %s: no such file", l.file, l.line, l.target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s:%d: link to %s: an anchor in a file that is not Markdown", l.file, l.line, l.target)
				continue
			}
			if !anchorsOf(target)[anchor] {
				t.Errorf("%s:%d: link to %s: %s has no heading #%s", l.file, l.line, l.target, target, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links in README.md and docs/*.md")
	}
}
