package docs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// How a block is read into commands: the rules the docs are written to.
func TestCommandsOfABlock(t *testing.T) {
	for _, tc := range []struct {
		name, lang, body string
		want             []command
		err              string
	}{
		{name: "sh: one command a line, comments and blank lines skipped", lang: "sh",
			body: "# build\nmake build\n\nbin/phalanx version   # the version\n",
			want: []command{{line: 2, text: "make build"}, {line: 4, text: "bin/phalanx version   # the version"}}},
		{name: "sh: a backslash goes on on the next line", lang: "sh",
			body: "helm install phalanx charts/phalanx \\\n  --set a=b\nkubectl get pods\n",
			want: []command{{line: 1, text: "helm install phalanx charts/phalanx \\\n  --set a=b"}, {line: 3, text: "kubectl get pods"}}},
		{name: "console: output follows its command, trailing blank lines dropped", lang: "console",
			body: "$ phalanx simulate -f x\nNAME\nweb\n\n$ kubectl apply -f y\n",
			want: []command{{line: 1, text: "phalanx simulate -f x", output: []string{"NAME", "web"}}, {line: 5, text: "kubectl apply -f y"}}},
		{name: "console: echo $? is the status of the command before", lang: "console",
			body: "$ phalanx whatif --snapshot c -f huge.yaml\nPod ml/huge: does not schedule\n$ echo $?\n3\n$ phalanx whatif --snapshot c -f job.yaml\n",
			want: []command{{line: 1, text: "phalanx whatif --snapshot c -f huge.yaml", output: []string{"Pod ml/huge: does not schedule"}, exit: 3},
				{line: 5, text: "phalanx whatif --snapshot c -f job.yaml"}}},
		{name: "console: a comment is no command", lang: "console",
			body: "$ # whatif.kubeconfig: the cluster\n$ phalanx version\n",
			want: []command{{line: 2, text: "phalanx version"}}},
		{name: "console: output before any command", lang: "console", body: "NAME\n$ ls\n", err: "output before any command"},
		{name: "console: echo $? first", lang: "console", body: "$ echo $?\n0\n", err: "no command before it"},
		{name: "console: echo $? without a status", lang: "console", body: "$ make build\n$ echo $?\nyes\n", err: "not a status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := block{file: "page.md", line: 0, lang: tc.lang, lines: strings.Split(strings.TrimSuffix(tc.body, "\n"), "\n")}
			got, err := b.commands()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.want {
				tc.want[i].file = "page.md"
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("commands\n%#v\nwant\n%#v", got, tc.want)
			}
		})
	}
}

func TestCompareOutput(t *testing.T) {
	printed := "NAME   NODE  \nweb-1  a\nweb-2  b\n"
	for _, tc := range []struct {
		name  string
		shown []string
		agree bool
	}{
		{"the same, trailing spaces aside", []string{"NAME   NODE", "web-1  a", "web-2  b"}, true},
		{"a line differs", []string{"NAME   NODE", "web-1  b", "web-2  b"}, false},
		{"fewer lines", []string{"NAME   NODE", "web-1  a"}, false},
		{"more lines", []string{"NAME   NODE", "web-1  a", "web-2  b", "web-3  c"}, false},
		{"cut with a last line ...", []string{"NAME   NODE", "..."}, true},
		{"a line cut with ...", []string{"NAME   NODE", "web-1 ...", "web-2  b"}, true},
		{"a line cut with ... that does not start so", []string{"NAME   NODE", "web-9 ...", "web-2  b"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := compareOutput(tc.shown, printed); (diff == "") != tc.agree {
				t.Errorf("compareOutput: %q, want agreement %v", diff, tc.agree)
			}
		})
	}
}

// The anchors GitHub makes of headings.
func TestHeadingAnchors(t *testing.T) {
	got := headings([]string{
		"# `phalanx whatif`: will it schedule, where, and whom would it preempt?",
		"## kube-scheduler's configuration",
		"## What it may read, and what a snapshot keeps",
		"## Examples",
		"### Examples",
		"#hashtag is no heading",
		"",
	})
	want := map[string]bool{
		"phalanx-whatif-will-it-schedule-where-and-whom-would-it-preempt": true,
		"kube-schedulers-configuration":                                   true,
		"what-it-may-read-and-what-a-snapshot-keeps":                      true,
		"examples":   true,
		"examples-1": true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("anchors %v, want %v", got, want)
	}
}

// Fences: indented ones (in a list item), longer ones, the language, and line numbers.
func TestReadBlocks(t *testing.T) {
	dir := t.TempDir()
	page := "# Page\n\n- item:\n\n  ```yaml\n  spec: {}\n  ```\n\n````console\n$ phalanx version\n```\n````\ntext [link](other.md)\n"
	if err := os.WriteFile(filepath.Join(dir, "page.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks, prose, err := readBlocks(dir, "page.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []block{
		{file: "page.md", line: 5, lang: "yaml", lines: []string{"spec: {}"}},
		{file: "page.md", line: 9, lang: "console", lines: []string{"$ phalanx version", "```"}},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("blocks\n%#v\nwant\n%#v", blocks, want)
	}
	if got := links("page.md", prose); len(got) != 1 || got[0].target != "other.md" || got[0].line != 13 {
		t.Errorf("links %+v, want other.md on line 13", got)
	}
	if _, _, err := readBlocks(dir, "missing.md"); err == nil {
		t.Error("a missing file read without error")
	}
	if err := os.WriteFile(filepath.Join(dir, "open.md"), []byte("```sh\nls\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readBlocks(dir, "open.md"); err == nil || !strings.Contains(err.Error(), "never closed") {
		t.Errorf("an unclosed block: error %v", err)
	}
}
