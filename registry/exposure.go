package registry

import (
	"fmt"

	"github.com/codemode-host/codemode-host/protocol"
)

// Exposure says where a tool is offered: in the model's initial tool list,
// through tool_search, and to Code Mode scripts. The zero value is Direct.
//
//	exposure           initial list  tool_search  Code Mode
//	Direct             yes           no           yes
//	Deferred           no            yes          yes
//	CodeModeOnly       no            no           yes
//	DirectModelOnly    yes           no           no
//	DeferredModelOnly  no            yes          no
//	Hidden             no            no           no (dispatch only)
type Exposure uint8

// The six exposures.
const (
	// Direct tools are in the initial tool list and callable from scripts.
	Direct Exposure = iota
	// Deferred tools are found with tool_search and callable from scripts.
	Deferred
	// CodeModeOnly tools are only callable from scripts.
	CodeModeOnly
	// DirectModelOnly tools are in the initial list but never in scripts
	// (use it for tools that must not run in a loop, like asking the user).
	DirectModelOnly
	// DeferredModelOnly tools are found with tool_search, never in scripts.
	DeferredModelOnly
	// Hidden tools are registered for dispatch by the agent only. They are
	// never offered to the model or to scripts, and never run in parallel.
	Hidden
)

var exposureNames = [...]string{
	Direct:            protocol.ExposureDirect,
	Deferred:          protocol.ExposureDeferred,
	CodeModeOnly:      protocol.ExposureCodeModeOnly,
	DirectModelOnly:   protocol.ExposureDirectModelOnly,
	DeferredModelOnly: protocol.ExposureDeferredModelOnly,
	Hidden:            protocol.ExposureHidden,
}

// String is the exposure's spelling in files, flags and on the wire
// ("direct", "deferred", "code_mode_only", "direct_model_only",
// "deferred_model_only", "hidden").
func (e Exposure) String() string {
	if int(e) < len(exposureNames) {
		return exposureNames[e]
	}
	return fmt.Sprintf("Exposure(%d)", uint8(e))
}

// ParseExposure reads an exposure's wire spelling; "" means Direct.
func ParseExposure(s string) (Exposure, error) {
	if s == "" {
		return Direct, nil
	}
	for e, name := range exposureNames {
		if name == s {
			return Exposure(e), nil
		}
	}
	return Direct, fmt.Errorf("registry: unknown exposure %q; use one of direct, deferred, code_mode_only, direct_model_only, deferred_model_only, hidden", s)
}

// MarshalText implements encoding.TextMarshaler with the wire spelling.
func (e Exposure) MarshalText() ([]byte, error) {
	if int(e) >= len(exposureNames) {
		return nil, fmt.Errorf("registry: cannot encode unknown exposure %d", uint8(e))
	}
	return []byte(e.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler (see ParseExposure).
func (e *Exposure) UnmarshalText(b []byte) error {
	v, err := ParseExposure(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// IsDirect reports whether the tool is in the model's initial tool list.
func (e Exposure) IsDirect() bool { return e == Direct || e == DirectModelOnly }

// IsDeferred reports whether the tool is found through tool_search.
func (e Exposure) IsDeferred() bool { return e == Deferred || e == DeferredModelOnly }

// InCodeMode reports whether scripts may call the tool. Only these tools
// are ever sent to the host. The rule is protocol.CodeModeCallable's.
func (e Exposure) InCodeMode() bool {
	return int(e) < len(exposureNames) && protocol.CodeModeCallable(exposureNames[e])
}

// Surfaces is the set of places an exposure offers a tool on.
func (e Exposure) Surfaces() Surfaces {
	var s Surfaces
	if e.IsDirect() {
		s |= SurfaceDirect
	}
	if e.IsDeferred() {
		s |= SurfaceDeferred
	}
	if e.InCodeMode() {
		s |= SurfaceCodeMode
	}
	return s
}

// Surfaces is a set of the three independent places a tool can be offered.
type Surfaces uint8

// The three surfaces.
const (
	// SurfaceDirect is the model's initial tool list.
	SurfaceDirect Surfaces = 1 << iota
	// SurfaceDeferred is discovery through tool_search.
	SurfaceDeferred
	// SurfaceCodeMode is calls from Code Mode scripts.
	SurfaceCodeMode
	// AllSurfaces is every surface.
	AllSurfaces = SurfaceDirect | SurfaceDeferred | SurfaceCodeMode
)

// ParseSurface reads one surface as spelled in configuration: "direct",
// "deferred" or "code_mode".
func ParseSurface(s string) (Surfaces, error) {
	switch s {
	case "direct":
		return SurfaceDirect, nil
	case "deferred":
		return SurfaceDeferred, nil
	case "code_mode":
		return SurfaceCodeMode, nil
	}
	return 0, fmt.Errorf("registry: unknown surface %q; use direct, deferred or code_mode", s)
}

// ExposureFor maps the three permissions to an exposure. When both direct
// and deferred are permitted the tool is Direct (it is already in the
// list, so search adds nothing); ExposurePolicy.Exposure makes that choice
// with the session's search setting in mind.
//
//	(direct, deferred, code mode)  →  exposure
//	(0,0,0) Hidden    (0,0,1) CodeModeOnly   (1,0,0) DirectModelOnly
//	(1,x,1) Direct    (0,1,0) DeferredModelOnly  (0,1,1) Deferred
//	(1,1,0) DirectModelOnly
func ExposureFor(direct, deferred, codeMode bool) Exposure {
	switch {
	case direct && codeMode:
		return Direct
	case direct:
		return DirectModelOnly
	case deferred && codeMode:
		return Deferred
	case deferred:
		return DeferredModelOnly
	case codeMode:
		return CodeModeOnly
	}
	return Hidden
}

// ExposurePolicy is how an external source's tools (an MCP server, say)
// are exposed; the zero value exposes them everywhere they can be.
type ExposurePolicy struct {
	// OmitFrom lists the surfaces the tools are left off (the per-server
	// "omit tools from" setting). Default: none.
	OmitFrom Surfaces
	// DirectOnly forces the tools into the initial list only: never
	// deferred, never in Code Mode. Default false.
	DirectOnly bool
	// Search says whether the session offers tool_search. With search, a
	// tool that may be deferred is deferred rather than listed (in
	// code_mode_only only if it may also run in Code Mode); without it,
	// nothing is deferred. Default false.
	Search bool
	// Mode is the session's tool mode. Default ModeDirect.
	Mode Mode
}

// Exposure resolves the policy to one exposure.
func (p ExposurePolicy) Exposure() Exposure {
	allowed := AllSurfaces &^ p.OmitFrom
	if p.DirectOnly {
		allowed &^= SurfaceDeferred | SurfaceCodeMode
	}
	deferOK := allowed&SurfaceDeferred != 0
	if p.Mode == ModeCodeModeOnly {
		deferOK = deferOK && allowed&SurfaceCodeMode != 0
	}
	if p.Search && deferOK {
		allowed &^= SurfaceDirect
	} else {
		allowed &^= SurfaceDeferred
	}
	return ExposureFor(allowed&SurfaceDirect != 0, allowed&SurfaceDeferred != 0, allowed&SurfaceCodeMode != 0)
}

// Mode is how the model is offered tools in a step. The zero value is
// ModeDirect.
type Mode uint8

// The three tool modes.
const (
	// ModeDirect offers tools one call at a time; there is no exec tool.
	ModeDirect Mode = iota
	// ModeCodeMode adds exec and wait to the direct tools. The direct
	// tools are described once, in the tool list; exec declares only the
	// tools the list does not offer (CodeModeOnly) and says in one line
	// that the listed ones are callable from a cell too.
	ModeCodeMode
	// ModeCodeModeOnly offers only exec, wait and *ModelOnly tools: every
	// tool that Code Mode can call is reached through exec, declared once
	// in its description. It is the leanest mode (DefaultAgentMode).
	ModeCodeModeOnly
)

// DefaultAgentMode is the mode agents should use unless they have a reason
// not to: ModeCodeModeOnly, the leanest (README, "Choosing a mode"; `go
// run ./bench/tokens` measures each mode). The zero Mode stays ModeDirect.
const DefaultAgentMode = ModeCodeModeOnly

// String is "direct", "code_mode" or "code_mode_only".
func (m Mode) String() string {
	switch m {
	case ModeDirect:
		return "direct"
	case ModeCodeMode:
		return "code_mode"
	case ModeCodeModeOnly:
		return "code_mode_only"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode reads a mode's spelling; "" means ModeDirect.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "direct":
		return ModeDirect, nil
	case "code_mode":
		return ModeCodeMode, nil
	case "code_mode_only":
		return ModeCodeModeOnly, nil
	}
	return ModeDirect, fmt.Errorf("registry: unknown tool mode %q; use direct, code_mode or code_mode_only", s)
}

// codeMode reports whether exec and wait are offered.
func (m Mode) codeMode() bool { return m == ModeCodeMode || m == ModeCodeModeOnly }
