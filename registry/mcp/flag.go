package mcp

import (
	"fmt"
	"strings"
)

// ParseFlag reads a server from its command-line spelling, as in
// `codemode-host run --mcp 'NAME=COMMAND ARGS…'`:
//
//	everything=npx -y @modelcontextprotocol/server-everything
//	files=mcp-server-filesystem '/tmp/my dir'
//	remote=https://example.com/mcp
//
// The part after '=' is split into words like a shell does for plain
// words, 'single' and "double" quotes and backslash escapes (no variables,
// no globs). A value that starts with http:// or https:// is a streamable
// HTTP URL. Only Name and Command/Args or URL are set. Safe from any
// goroutine.
func ParseFlag(s string) (ServerConfig, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(rest) == "" {
		return ServerConfig{}, fmt.Errorf("mcp: --mcp %q: want NAME=COMMAND ARGS… or NAME=URL", s)
	}
	cfg := ServerConfig{Name: strings.TrimSpace(name)}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") {
		cfg.URL = rest
	} else {
		words, err := splitWords(rest)
		if err != nil {
			return ServerConfig{}, fmt.Errorf("mcp: --mcp %q: %v", s, err)
		}
		cfg.Command, cfg.Args = words[0], words[1:]
	}
	if err := cfg.check(); err != nil {
		return ServerConfig{}, err
	}
	return cfg, nil
}

// splitWords splits s into words as a shell does for plain words, quotes
// and backslashes.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if escaped {
		return nil, fmt.Errorf("trailing backslash")
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("no command")
	}
	return words, nil
}
