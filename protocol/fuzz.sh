#!/bin/sh
# Runs every fuzz target of package protocol in turn (go test can fuzz only
# one target per run). Usage: protocol/fuzz.sh [fuzztime]   (default 10s)
#   CI:        protocol/fuzz.sh 30000x   (a count: timed runs can fail with
#              "context deadline exceeded" when a worker is busy at the end)
#   make fuzz: protocol/fuzz.sh 5m
# New crashers land in protocol/testdata/fuzz/<Target>/ and then run as
# seeds in every plain `go test`: keep them.
set -eu
cd "$(dirname "$0")"
t="${1:-10s}"
for target in FuzzDecode FuzzValidate FuzzFrameReader FuzzValidJSON FuzzFastDecode FuzzEncodeDecode; do
	echo "== $target ($t)"
	go test . -run '^$' -fuzz "^${target}\$" -fuzztime "$t" -fuzzminimizetime 10s
done
