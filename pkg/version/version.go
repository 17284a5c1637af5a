// Package version says which build of phalanx is running. Release builds stamp it with
// -ldflags (the Makefile and the Dockerfile do); a binary built with `go install
// module@version` reports the module version Go recorded; anything else is "dev".
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at build time:
//
//	go build -ldflags "-X github.com/phalanx-dev/phalanx/pkg/version.gitVersion=v0.1.0 \
//	  -X github.com/phalanx-dev/phalanx/pkg/version.gitCommit=$(git rev-parse HEAD)"
var (
	gitVersion = "dev"
	gitCommit  = ""
)

// Info describes the running build. The field names follow Kubernetes' version.Info.
type Info struct {
	GitVersion string `json:"gitVersion"`
	GitCommit  string `json:"gitCommit"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

// Get returns the running build's Info.
func Get() Info {
	return resolve(gitVersion, gitCommit, debug.ReadBuildInfo)
}

// resolve fills what the stamps leave unset from the build information Go recorded.
func resolve(stampedVersion, stampedCommit string, read func() (*debug.BuildInfo, bool)) Info {
	info := Info{
		GitVersion: stampedVersion,
		GitCommit:  stampedCommit,
		GoVersion:  runtime.Version(),
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
	}
	bi, ok := read()
	if !ok {
		return info
	}
	if info.GitVersion == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		info.GitVersion = bi.Main.Version
	}
	if info.GitCommit == "" {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				info.GitCommit = s.Value
			}
		}
	}
	return info
}

// String is what `phalanx version` and `phalanx --version` print after "phalanx ".
func (i Info) String() string {
	commit := i.GitCommit
	if commit == "" {
		commit = "unknown commit"
	} else if len(commit) > 12 {
		commit = "commit " + commit[:12]
	} else {
		commit = "commit " + commit
	}
	return fmt.Sprintf("%s (%s, %s, %s)", i.GitVersion, commit, i.GoVersion, i.Platform)
}
