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

// ours lists the module's packages, each with the module packages it
// imports (test files excluded), by path inside the module.
func ours(t *testing.T) map[string][]string {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...").Output()
	require.NoError(t, err)
	pkgs := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		require.NoError(t, dec.Decode(&p))
		name := strings.TrimPrefix(p.ImportPath, module)
		pkgs[name] = nil
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				pkgs[name] = append(pkgs[name], rest)
			}
		}
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

func TestNoArrowRunsBackUp(t *testing.T) {
	for pkg, imports := range ours(t) {
		for _, imp := range imports {
			switch {
			case strings.HasPrefix(pkg, "internal/") && !strings.HasPrefix(imp, "internal/"):
				t.Errorf("%s imports %s: internal/ holds leaves, which import no other package of ours", pkg, imp)
			case pkg == "protocol" && !strings.HasPrefix(imp, "internal/"):
				t.Errorf("protocol imports %s: the wire types sit under both processes", imp)
			case under(pkg, hostSide...) && under(imp, parentSide...):
				t.Errorf("%s (host side) imports %s (parent side)", pkg, imp)
			case under(pkg, parentSide...) && under(imp, hostSide...):
				t.Errorf("%s (parent side) imports %s (host side)", pkg, imp)
			case !under(pkg, apps...) && under(imp, apps...):
				t.Errorf("%s imports %s: libraries never import the commands, benches, examples or tests", pkg, imp)
			}
		}
	}
}
