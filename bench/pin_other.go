//go:build !linux

package bench

import "errors"

func pinToOneCPU() (restore func(), err error) {
	return nil, errors.New("bench: pinning to one CPU needs Linux")
}
