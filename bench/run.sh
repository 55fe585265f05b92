#!/usr/bin/env bash
# Runs omnik's Go benchmarks and prints per-operation costs. Run on a quiet machine;
# figures are costs per operation (ns, KB), never pass/fail assertions.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench 'BenchmarkVUStart|BenchmarkEmptyIteration' -benchtime 3000x ./js/
go test -run '^$' -bench . -benchmem ./engine/
go test -run '^$' -bench . -benchmem ./metrics/
go test -run '^$' -bench . -benchmem ./modules/omni/sse ./modules/omni/chunk
