#!/usr/bin/env bash
# install.sh — `make install` and `make uninstall` into a scratch DESTDIR.
#
# Checks: make install PREFIX=/usr DESTDIR=D puts bin/scanmap, share/man/man1/scanmap.1,
# lib/libscanmap.a (and include/scanmap.h when the tree has mapper/scanmap.h) under
# D/usr; the installed binary maps the bundled example to the same records as
# ./scanmap and reports the same --version (version and build line); the man page
# renders with `man -l` without warnings and names every option of `scanmap map
# --help`; make uninstall removes every installed file.  Also: a tree without git
# (as `git archive` makes it) takes its version from the VERSION file.
source "$(dirname "$0")/common.bash"

dest=$WORK/dest
prefix=/usr
note "make install PREFIX=$prefix DESTDIR=$dest"
make install PREFIX="$prefix" DESTDIR="$dest" >"$WORK/install.log" 2>&1 ||
	{ tail -n 20 "$WORK/install.log" >&2; fail "make install failed"; }
files=(bin/scanmap share/man/man1/scanmap.1 lib/libscanmap.a)
[[ -f mapper/scanmap.h ]] && files+=(include/scanmap.h)
for f in "${files[@]}"; do
	[[ -f $dest$prefix/$f ]] || fail "make install did not install $prefix/$f"
done
[[ -x $dest$prefix/bin/scanmap ]] || fail "installed scanmap is not executable"
note "installed: ${files[*]}"

bin=$dest$prefix/bin/scanmap
[[ $("$bin" --version) == "$("$SCANMAP" --version)" ]] ||
	fail "installed --version differs: $("$bin" --version | tr '\n' ' ') vs $("$SCANMAP" --version | tr '\n' ' ')"
"$bin" --version | sed -n 2p | grep -Eq '^CUDA engine: (yes|no) .*, ISA-L: (yes|no)' ||
	fail "--version's second line does not say what the build holds: $("$bin" --version)"
note "$("$bin" --version | tr '\n' ' ')"

# The installed binary, run from elsewhere, maps the example as ./scanmap does.
(cd "$WORK" && "$bin" map -t 2 -o installed.sam "$ROOT/examples/lambda_8k.fa.gz" "$ROOT/examples/reads.fq") \
	2>"$WORK/installed.err" || { cat "$WORK/installed.err" >&2; fail "installed scanmap failed on the example"; }
"$SCANMAP" map -t 2 -o "$WORK/built.sam" examples/lambda_8k.fa.gz examples/reads.fq 2>/dev/null ||
	fail "./scanmap failed on the example"
cmp -s <(grep -v '^@PG' "$WORK/installed.sam") <(grep -v '^@PG' "$WORK/built.sam") ||
	fail "the installed binary's records differ from ./scanmap's"
[[ $(grep -vc '^@' "$WORK/installed.sam") == 200 ]] || fail "the example did not give 200 records"
note "installed binary: the example's 200 records, identical to ./scanmap's"

# The man page: renders cleanly, carries the version, documents every option
# (an item per option).
if command -v man >/dev/null 2>&1; then
	man_page=$dest$prefix/share/man/man1/scanmap.1
	MANWIDTH=80 man --warnings -l "$man_page" >"$WORK/man.txt" 2>"$WORK/man.err" ||
		{ cat "$WORK/man.err" >&2; fail "man -l failed on the installed page"; }
	[[ ! -s $WORK/man.err ]] || { cat "$WORK/man.err" >&2; fail "man -l warns about the page"; }
	grep -qF "scanmap $("$bin" --version | awk 'NR == 1 { print $2 }')" "$WORK/man.txt" ||
		fail "the man page does not carry the version"
	missing=()
	for opt in $("$bin" map --help | grep -oE '^ +(-[A-Za-z]|--[a-z-]+)' | tr -d ' '); do
		# an item of its own: the option at the start of an indented line
		grep -qE -- "^ +(-[A-Za-z], )?$opt( |,|\$)" "$WORK/man.txt" || missing+=("$opt")
	done
	((${#missing[@]} == 0)) || fail "the man page lacks options of 'scanmap map --help': ${missing[*]}"
	note "man page: renders without warnings, every option of 'scanmap map --help' is in it"
else
	note "man not installed: the page's rendering not checked"
fi

note "make uninstall"
make uninstall PREFIX="$prefix" DESTDIR="$dest" >"$WORK/uninstall.log" 2>&1 ||
	{ tail -n 20 "$WORK/uninstall.log" >&2; fail "make uninstall failed"; }
left=$(find "$dest" -type f)
[[ -z $left ]] || fail "make uninstall left: $left"

# Version without git: a tree as `git archive` writes it (no .git) reads VERSION.
if git rev-parse --show-toplevel >/dev/null 2>&1; then
	mkdir -p "$WORK/tarball"
	git archive HEAD | tar -x -C "$WORK/tarball" || fail "git archive failed"
	cp Makefile VERSION "$WORK/tarball/"   # as in the working tree, committed or not
	v=$(make -s -C "$WORK/tarball" version cuda=0) || fail "make version failed in the unpacked tree"
	[[ $v == "$(cat VERSION)" ]] || fail "a tree without git reports version '$v', VERSION says $(cat VERSION)"
	note "a git archive tree reports version $v (the VERSION file)"
fi
echo "ok"
