package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	module := func(v string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: v}, Settings: settings}, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123"}
	tests := []struct {
		name                    string
		version, commit         string
		read                    func() (*debug.BuildInfo, bool)
		wantVersion, wantCommit string
	}{
		{"stamped wins", "v0.2.0", "abc", module("v0.1.0", rev), "v0.2.0", "abc"},
		{"go install module@version", "dev", "", module("v0.1.0", rev), "v0.1.0", "0123456789abcdef0123"},
		{"local build", "dev", "", module("(devel)"), "dev", ""},
		{"no build info", "dev", "", none, "dev", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolve(tt.version, tt.commit, tt.read)
			if got.GitVersion != tt.wantVersion || got.GitCommit != tt.wantCommit {
				t.Errorf("got %s %q, want %s %q", got.GitVersion, got.GitCommit, tt.wantVersion, tt.wantCommit)
			}
			if got.GoVersion == "" || !strings.Contains(got.Platform, "/") {
				t.Errorf("go version %q, platform %q", got.GoVersion, got.Platform)
			}
		})
	}
}

func TestString(t *testing.T) {
	i := Info{GitVersion: "v0.1.0", GitCommit: "0123456789abcdef", GoVersion: "go1.26.0", Platform: "linux/amd64"}
	if got, want := i.String(), "v0.1.0 (commit 0123456789ab, go1.26.0, linux/amd64)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	i.GitCommit = ""
	if got, want := i.String(), "v0.1.0 (unknown commit, go1.26.0, linux/amd64)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
