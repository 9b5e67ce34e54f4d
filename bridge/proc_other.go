//go:build !linux

package bridge

import "os/exec"

// setParentDeathSignal does nothing outside Linux: the host still exits on
// end of file on fd 3.
func setParentDeathSignal(*exec.Cmd) {}
