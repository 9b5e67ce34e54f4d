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
// so the resident set becomes what the host actually runs. A mapping with
// a page the process wrote (writable data, read-only data the loader
// relocated) is left alone: dropping it would bring back the file's bytes.
// It returns the size of the mappings it released.
func releaseStartupPages() int {
	exe, err := os.Executable()
	if err != nil {
		return 0
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	type mapping struct {
		start, end uint64
		clean      bool // ours, private, not writable, no page copied
	}
	var maps []mapping
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := bytes.Cut(f[0], []byte{'-'}); ok && len(f) >= 5 {
			start, err1 := strconv.ParseUint(string(lo), 16, 64)
			end, err2 := strconv.ParseUint(string(hi), 16, 64)
			perms := f[1]
			ours := len(f) >= 6 && string(f[5]) == exe && len(perms) == 4 && perms[1] != 'w' && perms[3] == 'p'
			maps = append(maps, mapping{start, end, ours && err1 == nil && err2 == nil && end > start})
			continue
		}
		// Anonymous pages in a private file mapping are copies the
		// process wrote.
		if n := len(maps); n > 0 && len(f) >= 2 && string(f[0]) == "Anonymous:" && string(f[1]) != "0" {
			maps[n-1].clean = false
		}
	}
	released := 0
	for _, m := range maps {
		if !m.clean {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), syscall.MADV_DONTNEED); errno == 0 {
			released += int(m.end - m.start)
		}
	}
	return released
}
