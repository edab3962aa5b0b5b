#!/usr/bin/env bash
# interrupt.sh — an interrupted run leaves nothing under the output's name
# (io/outfile.h): for SAM, BAM and CRAM, SIGTERM, SIGINT, SIGHUP and SIGQUIT
# mid-run remove the temporary file and end the process with the signal's
# status (128 + N); SIGKILL and a crash (SIGSEGV) leave only the temporary
# file; SIGXFSZ (the file size limit, a full disk's cousin) likewise removes
# it; an earlier file under the name is removed as well.  `scanmap index -o`
# behaves the same.  A run that is let finish renames its output into place.
source "$(dirname "$0")/lib.bash"

refseq=$(random_seq 30000 71)
printf '>chr1\n%s\n' "$refseq" >"$tmp/ref.fa"
for ((k = 0; k < 200; k++)); do
	fastq_record "r$k" "${refseq:$((k * 9)):150}"
done >"$tmp/reads.fq"
# Background jobs of a shell without job control ignore SIGINT: with it,
# they get the signals as a terminal would send them.
set -m

# start_run OUT: starts a mapping run into OUT in the background ($pid),
# reading from a FIFO that this shell holds open, so the run maps what it
# was given and then waits for more: it is interrupted mid-run, whatever
# the machine's speed.  Returns once the temporary file exists.
start_run() {
	local out=$1 name=${1##*/} dir=${1%/*}
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	"$SCANMAP" map -o "$out" "$tmp/ref.fa" "$tmp/fifo" 2>"$tmp/err" &
	pid=$!
	exec 3>"$tmp/fifo"
	cat "$tmp/reads.fq" >&3
	for ((w = 0; w < 400; w++)); do
		compgen -G "$dir/.$name.tmp.*" >/dev/null && break
		sleep 0.05
	done
	sleep 0.2
}

# stop_run SIG: sends SIG, closes the FIFO, sets $status.
stop_run() {
	kill -s "$1" "$pid"
	wait "$pid"
	status=$?
	exec 3>&-
}

for ext in sam bam cram; do
	for sig in TERM INT HUP QUIT; do
		out=$tmp/out.$ext
		echo stale >"$out"
		start_run "$out"
		check "$ext $sig: the earlier file untouched while running" test "$(cat "$out")" = stale
		stop_run "$sig"
		expect_status $((128 + $(kill -l "$sig"))) "$ext: SIG$sig ends the run with the signal's status"
		check "$ext $sig: no file under the output's name" test ! -e "$out"
		check "$ext $sig: temporary file removed" bash -c "! compgen -G '$tmp/.out.$ext.tmp.*'"
	done
done

for sig in KILL SEGV; do
	start_run "$tmp/out.bam"
	stop_run "$sig"
	expect_status $((128 + $(kill -l "$sig"))) "SIG$sig: the signal's status"
	check "SIG$sig: no file under the output's name" test ! -e "$tmp/out.bam"
	rm -f "$tmp"/.out.bam.tmp.*
done

# The file size limit: SIGXFSZ at the first write past 20 KiB.
run bash -c "ulimit -f 20; exec '$SCANMAP' map -o '$tmp/big.sam' '$tmp/ref.fa' '$tmp/reads.fq'"
expect_status $((128 + $(kill -l XFSZ))) "file size limit: SIGXFSZ's status"
check "file size limit: no output, no temporary file" bash -c "! compgen -G '$tmp/*big.sam*'"

# scanmap index -o, killed while it writes.
bigref=$(random_seq 100000 72)
printf '>big\n%s\n' "$bigref" >"$tmp/big.fa"
run bash -c "ulimit -f 20; exec '$SCANMAP' index -o '$tmp/big.smi' '$tmp/big.fa'"
expect_status $((128 + $(kill -l XFSZ))) "index -o past the file size limit: SIGXFSZ's status"
check "index -o: no index, no temporary file" bash -c "! compgen -G '$tmp/*big.smi*'"

# Let finish: the output appears under its name, with the usual permissions.
run "$SCANMAP" map -o "$tmp/done.bam" "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "an uninterrupted run"
check "its output is under the name" samtools quickcheck "$tmp/done.bam"
check "no temporary file left" bash -c "! compgen -G '$tmp/.done.bam.tmp.*'"
check "permissions follow the umask" test "$(stat -c %a "$tmp/done.bam")" = "$(printf '%o' $((0666 & ~$(umask))))"
# Through a symbolic link: the target is replaced, the link kept.
ln -s done.bam "$tmp/link.bam"
run "$SCANMAP" map -o "$tmp/link.bam" "$tmp/ref.fa" "$tmp/reads.fq"
expect_status 0 "-o a symbolic link"
check "the link is still a link" test -L "$tmp/link.bam"

finish
