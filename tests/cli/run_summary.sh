#!/usr/bin/env bash
# run_summary.sh — tests/run.sh ends with its "N passed, N failed, N skipped" line
# and exits 1 also when it stops early: missing dependencies, a failed build.
# Runs a copy of run.sh in a scratch tree whose install-deps.sh and Makefile
# are stand-ins that fail.
source "$(dirname "$0")/lib.bash"

tree=$tmp/tree
mkdir -p "$tree/tests"
cp tests/run.sh "$tree/tests/run.sh"

# Dependencies missing: install-deps.sh fails.
printf '#!/bin/sh\necho "install-deps: missing packages: foo" >&2\nexit 1\n' >"$tree/tests/install-deps.sh"
chmod +x "$tree/tests/install-deps.sh"
run bash "$tree/tests/run.sh"
expect_status 1 "missing dependencies"
check "missing dependencies: summary line last" test "$(tail -n 1 "$tmp/out")" = "0 passed, 1 failed, 0 skipped"
expect_out "FAIL dependencies" "missing dependencies: named"

# The build fails.
printf '#!/bin/sh\nexit 0\n' >"$tree/tests/install-deps.sh"
printf 'all:\n\t@echo "cc: error: something"; false\n' >"$tree/Makefile"
run bash "$tree/tests/run.sh"
expect_status 1 "failed build"
check "failed build: summary line last" test "$(tail -n 1 "$tmp/out")" = "0 passed, 1 failed, 0 skipped"
expect_out "FAIL build" "failed build: named"

# A build that succeeds with no tests: 0 of everything, exit 0.
printf 'all:\n\t@echo built\n' >"$tree/Makefile"
run bash "$tree/tests/run.sh"
expect_status 0 "no tests"
check "no tests: summary line last" test "$(tail -n 1 "$tmp/out")" = "0 passed, 0 failed, 0 skipped"

finish
