// Package sourcemap decodes the "mappings" of a version 3 source map and
// maps generated positions back to original ones. It handles single-source
// maps, which is what a TypeScript cell produces. A Map is immutable and
// safe for concurrent use.
package sourcemap

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// segment maps a generated column to an original position (all 0-based).
type segment struct {
	genCol, srcLine, srcCol int
}

// Map maps generated lines and columns back to the original source.
type Map struct {
	lines [][]segment // by generated line
}

// Parse decodes a source map's JSON.
func Parse(data []byte) (*Map, error) {
	var raw struct {
		Version  int      `json:"version"`
		Sources  []string `json:"sources"`
		Mappings string   `json:"mappings"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("sourcemap: %w", err)
	}
	if raw.Version != 3 {
		return nil, fmt.Errorf("sourcemap: version %d is not supported; want 3", raw.Version)
	}
	return decode(raw.Mappings)
}

var errVLQ = errors.New("sourcemap: malformed VLQ in mappings")

func decode(mappings string) (*Map, error) {
	m := &Map{lines: [][]segment{nil}}
	var srcLine, srcCol, source, genCol int
	fields := make([]int, 0, 5)
	for i := 0; i < len(mappings); {
		switch mappings[i] {
		case ';':
			m.lines = append(m.lines, nil)
			genCol = 0
			i++
			continue
		case ',':
			i++
			continue
		}
		fields = fields[:0]
		for i < len(mappings) && mappings[i] != ',' && mappings[i] != ';' {
			v, n, err := vlq(mappings[i:])
			if err != nil {
				return nil, err
			}
			fields = append(fields, v)
			i += n
		}
		genCol += fields[0]
		if len(fields) >= 4 {
			source += fields[1]
			srcLine += fields[2]
			srcCol += fields[3]
			last := len(m.lines) - 1
			m.lines[last] = append(m.lines[last], segment{genCol: genCol, srcLine: srcLine, srcCol: srcCol})
		}
	}
	_ = source
	for _, l := range m.lines {
		sort.SliceStable(l, func(a, b int) bool { return l[a].genCol < l[b].genCol })
	}
	return m, nil
}

const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var digit [256]int8

func init() {
	for i := range digit {
		digit[i] = -1
	}
	for i := 0; i < len(base64); i++ {
		digit[base64[i]] = int8(i)
	}
}

// vlq reads one base64 VLQ value and returns it with the bytes it used.
func vlq(s string) (int, int, error) {
	var result, shift int
	for i := 0; i < len(s); i++ {
		d := digit[s[i]]
		if d < 0 || shift > 30 {
			return 0, 0, errVLQ
		}
		result |= int(d&31) << shift
		if d&32 == 0 {
			if result&1 != 0 {
				return -(result >> 1), i + 1, nil
			}
			return result >> 1, i + 1, nil
		}
		shift += 5
	}
	return 0, 0, errVLQ
}

// Original maps a 1-based generated line and column to the 1-based
// original position of the segment that covers it (the last one starting
// at or before the column). ok is false when nothing maps there.
func (m *Map) Original(line, col int) (int, int, bool) {
	if m == nil || line < 1 || line > len(m.lines) {
		return 0, 0, false
	}
	segs := m.lines[line-1]
	// The last segment that starts at or before the column.
	i := sort.Search(len(segs), func(i int) bool { return segs[i].genCol > col-1 }) - 1
	if i < 0 {
		if len(segs) == 0 {
			return 0, 0, false
		}
		i = 0
	}
	s := segs[i]
	return s.srcLine + 1, s.srcCol + 1, true
}
