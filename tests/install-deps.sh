#!/usr/bin/env bash
# install-deps.sh — makes sure what scanmap needs is installed.
#
#   tests/install-deps.sh build   what building scanmap and mapping the example need
#   tests/install-deps.sh test    that, plus the tools the test suite checks against (default)
#
# Installs the missing Debian/Ubuntu packages with apt-get when run as root;
# otherwise prints the exact command to run and exits 1.  Exits 0 when
# nothing is missing.
set -euo pipefail

level=${1:-test}
case $level in
build | test) ;;
*)
	echo "usage: $0 [build|test]" >&2
	exit 2
	;;
esac

missing=()

# need PACKAGE CHECK...: PACKAGE is missing unless CHECK succeeds.
need() {
	local pkg=$1
	shift
	if ! "$@" >/dev/null 2>&1; then
		missing+=("$pkg")
	fi
}
have() { command -v "$1"; }
# fuzz_links: clang links a libFuzzer target.
fuzz_links() {
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
		clang -fsanitize=fuzzer -x c - -o /dev/null
}
# header H: the C compiler finds H.
header() { printf '#include <%s>\n' "$1" | cc -E -x c -; }

need build-essential header stdio.h
need make have make
need pkg-config have pkg-config
need libhts-dev header htslib/sam.h
need zlib1g-dev header zlib.h
# ISA-L inflates gzip input about twice as fast as zlib; optional (the
# build falls back to zlib), so only where the distribution has it.
if apt-cache show libisal-dev >/dev/null 2>&1; then
	need libisal-dev header isa-l/igzip_lib.h
fi
need samtools have samtools
if [[ $level == test ]]; then
	need dwgsim have dwgsim         # reads with known origin
	need emboss have water          # independent Smith-Waterman
	need picard-tools have PicardCommandLine  # ValidateSamFile
	need gawk have gawk             # tests use gawk's and() (Debian then points awk at gawk)
	need clang have clang           # make fuzz: libFuzzer targets (tests/check.mk)
	need libclang-rt-dev fuzz_links # libFuzzer's runtime
	need snakemake have snakemake   # workflow/Snakefile (tests/integration/workflow.sh)
	need man-db have man            # the man page renders cleanly (tests/integration/install.sh)
	need bwa have bwa               # split reads compared with bwa mem's (tests/cli/split_reads.sh)
fi

if ((${#missing[@]} == 0)); then
	exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if ! have apt-get >/dev/null 2>&1; then
	echo "install-deps: missing packages (Debian names): ${missing[*]}" >&2
	echo "install-deps: this is not a Debian/Ubuntu system: install their equivalents, then rerun." >&2
	exit 1
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run this as root, then rerun:" >&2
	echo "    sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]} (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# shellcheck disable=SC2086
if ! { apt-get update -q && $cmd; } >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "install-deps: apt-get failed (full log: $log)" >&2
	exit 1
fi
rm -f "$log"
