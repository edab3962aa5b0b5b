# timed.sh — the GPU benchmarks' timer, sourced by gpu_seeded_bench.sh and gpu_multi_bench.sh.
# timed FILE CMD...: runs CMD (stdout and stderr as the caller redirects
# them) and writes "SECONDS PEAK_MB" to FILE: its wall time (the Python
# wrapper's start-up not included) and its peak resident memory.  The
# earlier runs' SAM (gigabytes) is flushed to disk and removed first, so
# that no run pays for another's writeback, and each writes a new file, as a
# pipeline does: ext4 (auto_da_alloc) makes the close() of a file that was
# truncated and rewritten wait for its writeback, ~3 s for 3.5 GB on the GPU
# machine, whichever tool wrote it.
timed() {
	local file=$1
	shift
	sync
	python3 -c 'import resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.call(sys.argv[2:])
t1 = time.monotonic()
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
open(sys.argv[1], "w").write("%.2f %d\n" % (t1 - t0, peak))
sys.exit(rc)' "$file" "$@"
}
