package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// releaseStartupPages drops the clean pages of this executable (code and
// read-only data) from the process's resident set once the host is up.
// Start-up touches a lot of a 70 MB binary that an idle host never touches
// again (V8's initialisation, the CLI, go-plugin's handshake), and when the
// binary's file is wholly in the page cache (a fresh build, a busy machine)
// the kernel maps whole neighbourhoods of every page touched. Dropped
// pages that are needed again come back from the page cache on first use,
// so the resident set becomes what the host actually runs.
//
// Only read-only private mappings of the executable are released, except
// one that ends where a writable mapping of it begins: that is RELRO,
// data the loader relocated and then made read-only, whose pages are
// copies the process wrote (dropping them would bring back the file's
// unrelocated bytes). It reads /proc/self/maps, which unlike smaps costs no
// walk of V8's large reservations (tens of microseconds, not milliseconds),
// so it can run before the host answers its first request. It returns the
// size of the mappings it released.
func releaseStartupPages() int {
	exe, err := os.Executable()
	if err != nil {
		return 0
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0
	}
	type mapping struct {
		start, end uint64
		perms      string
		ours       bool
	}
	var ms []mapping
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 5 {
			continue
		}
		lo, hi, ok := bytes.Cut(f[0], []byte{'-'})
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		ms = append(ms, mapping{start, end, string(f[1]), len(f) >= 6 && string(f[5]) == exe})
	}
	released := 0
	for i, m := range ms {
		clean := m.ours && len(m.perms) == 4 && m.perms[1] != 'w' && m.perms[3] == 'p'
		if relro := i+1 < len(ms) && ms[i+1].ours && ms[i+1].start == m.end && ms[i+1].perms[1] == 'w'; !clean || relro {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), syscall.MADV_DONTNEED); errno == 0 {
			released += int(m.end - m.start)
		}
	}
	return released
}
