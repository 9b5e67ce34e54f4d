// Package layout checks the package picture README's Layout table draws:
// internal/ holds leaves, protocol sits under both processes, and the host
// side and the parent side never import each other.
package layout

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/codemode-host/codemode-host/"

// sides of the protocol: a package of one side never imports the other's.
var (
	hostSide   = []string{"hostserver", "runtime", "jsbindings"}
	parentSide = []string{"bridge", "registry", "render"}
	// apps use the libraries; no library uses them.
	apps = []string{"cmd", "bench", "examples", "test"}
)

// under reports whether pkg is dir or a package inside it.
func under(pkg string, dirs ...string) bool {
	for _, d := range dirs {
		if pkg == d || strings.HasPrefix(pkg, d+"/") {
			return true
		}
	}
	return false
}

// pkgImports is one package's module imports, by path inside the module
// (test files excluded): the ones it names, and every one it depends on.
type pkgImports struct {
	direct, deps []string
}

// ours lists the module's packages with their module imports.
func ours(t *testing.T) map[string]pkgImports {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"...").Output()
	require.NoError(t, err)
	pkgs := map[string]pkgImports{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	inModule := func(paths []string) []string {
		var in []string
		for _, imp := range paths {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				in = append(in, rest)
			}
		}
		return in
	}
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
			Deps       []string
		}
		require.NoError(t, dec.Decode(&p))
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = pkgImports{direct: inModule(p.Imports), deps: inModule(p.Deps)}
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

func TestNoArrowRunsBackUp(t *testing.T) {
	for pkg, imports := range ours(t) {
		for _, imp := range imports.direct {
			switch {
			case strings.HasPrefix(pkg, "internal/") && !strings.HasPrefix(imp, "internal/"):
				t.Errorf("%s imports %s: internal/ holds leaves, which import no other package of ours", pkg, imp)
			case pkg == "protocol" && !strings.HasPrefix(imp, "internal/"):
				t.Errorf("protocol imports %s: the wire types sit under both processes", imp)
			case !under(pkg, apps...) && under(imp, apps...):
				t.Errorf("%s imports %s: libraries never import the commands, benches, examples or tests", pkg, imp)
			}
		}
		// Through any package between them, too (tsdecl, toolsearch): a
		// parent never builds in the host's code, nor the host a parent's.
		for _, dep := range imports.deps {
			switch {
			case under(pkg, hostSide...) && under(dep, parentSide...):
				t.Errorf("%s (host side) depends on %s (parent side)", pkg, dep)
			case under(pkg, parentSide...) && under(dep, hostSide...):
				t.Errorf("%s (parent side) depends on %s (host side)", pkg, dep)
			}
		}
	}
}
