#!/usr/bin/env bash
# install-oracles.sh — install the external "oracle" tools legalfuzz checks
# candidate programs against. Run by `make oracles`; safe to re-run.
#
#   ptxas 12.4          Debian trixie non-free nvidia-cuda-toolkit, unpacked privately
#   LLVM/MLIR 19        Debian bookworm main (system apt, needs root)
#   LLVM 22 (+MLIR 22)  Debian trixie, unpacked privately with trixie's own glibc,
#                       run through that root's dynamic loader (host glibc is too old)
#
# Everything private lives under $LEGALFUZZ_ORACLES_DIR (default <repo>/.oracles):
#   bin/      stable wrapper names (ptxas, llc-22, mlir-opt-19, ...)
#   cache/    downloaded .debs, private apt state, install.log
#   cuda-12.4/, llvm-22/   extracted roots (only ever replaced whole, via mv)
#
# The system's apt sources are never modified: trixie is reached through a
# private sources list passed with -o Dir::Etc::SourceList=... .
#
# Environment:
#   LEGALFUZZ_ORACLES_DIR     where to install (default <repo>/.oracles)
#   LEGALFUZZ_DEBIAN_MIRROR   Debian mirror URI (default: the one the system uses)
#   LEGALFUZZ_ORACLES_SUITE   Debian suite for the private tools (default trixie)
#   LEGALFUZZ_ORACLES_RETRY=1 retry optional tools previously found unavailable
#   LEGALFUZZ_ORACLES_VERBOSE=1  show apt/dpkg output instead of logging it
#
# Exit status: 0 when ptxas 12.4, mlir-opt-19, llc-19, llvm-mc-19 and llc-22
# all work; 1 otherwise.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$SCRIPT_DIR")
ORACLES=${LEGALFUZZ_ORACLES_DIR:-$REPO/.oracles}
mkdir -p "$ORACLES"
ORACLES=$(cd "$ORACLES" && pwd -P) # wrappers embed absolute, symlink-free paths
BIN=$ORACLES/bin
CACHE=$ORACLES/cache
DEBS=$CACHE/debs
APTDIR=$CACHE/apt
LOG=$CACHE/install.log
SUITE=${LEGALFUZZ_ORACLES_SUITE:-trixie}
VERBOSE=${LEGALFUZZ_ORACLES_VERBOSE:-0}
RETRY_OPTIONAL=${LEGALFUZZ_ORACLES_RETRY:-0}
ARCH=$(dpkg --print-architecture 2>/dev/null || echo unknown)
LLVM19=/usr/lib/llvm-19/bin

CUDA_ROOT=$ORACLES/cuda-12.4
L22_ROOT=$ORACLES/llvm-22
# Packages for the LLVM 22 root. llc-22 needs trixie's glibc (>= 2.38) and the
# trixie builds of libLLVM's shared-library deps (found by trial: the loader's
# "cannot open shared object file" errors, then `ld.so --list`).
L22_PKGS=(llvm-22 libllvm22 libc6 libstdc++6 libgcc-s1 libz3-4 libedit2 libbsd0
	libmd0 libtinfo6 libffi8 libxml2 liblzma5 libzstd1 zlib1g)
M22_PKGS=(mlir-22-tools libmlir-22) # optional, layered into the same root
L22_TOOLS=(llc llvm-mc llvm-as llvm-dis llvm-link opt) # exposed as bin/<tool>-22
M22_TOOLS=(mlir-opt mlir-translate)          # only these MLIR binaries are kept
L19_TOOLS=(mlir-opt mlir-translate llc llvm-mc llvm-link FileCheck not) # not: lit tests of corpus export

mkdir -p "$BIN" "$CACHE" "$DEBS"

# One run at a time: two concurrent `make oracles` would race on the roots.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$ORACLES/.lock"
	flock 9
fi
: >"$LOG"
# Leftovers of a run that was killed (SIGKILL skips the EXIT trap). Safe to
# drop: we hold the lock, and roots only ever appear complete via mv.
rm -rf "$ORACLES"/.cuda.* "$ORACLES"/.llvm-22.* "$ORACLES"/*.old.* "$DEBS"/.dl.* "$BIN"/*.tmp.*

TMPS=()
cleanup() { if ((${#TMPS[@]})); then rm -rf "${TMPS[@]}"; fi; }
trap cleanup EXIT

note() { echo "install-oracles: $*" >&2; }

# run_q CMD...: run quietly, output appended to $LOG (unless verbose).
run_q() {
	if [[ $1 == apt_private ]]; then echo "+ apt-get ${APT_OPTS[*]} ${*:2}" >>"$LOG"; else echo "+ $*" >>"$LOG"; fi
	if [[ $VERBOSE == 1 ]]; then
		"$@" 2>&1 | tee -a "$LOG"
		return "${PIPESTATUS[0]}"
	fi
	"$@" >>"$LOG" 2>&1
}

show_log() {
	note "last lines of $LOG:"
	tail -n 15 "$LOG" | sed 's/^/    /' >&2
}

# retry CMD...: networked commands get 3 tries; mirrors hiccup.
retry() {
	local i
	for i in 1 2 3; do
		if run_q "$@"; then return 0; fi
		((i < 3)) && { note "attempt $i/3 failed, retrying: ${*:1:3} ..."; sleep $((i * 3)); }
	done
	show_log
	return 1
}

# sq STRING: single-quote for a POSIX sh wrapper.
sq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# put_file PATH MODE: write stdin to PATH atomically, only if it changed
# (wrappers may be executing concurrently in a fuzzing run).
put_file() {
	local path=$1 mode=$2 tmp
	tmp=$(mktemp "$path.tmp.XXXXXX")
	cat >"$tmp"
	chmod "$mode" "$tmp"
	if [[ -f $path && ! -L $path ]] && cmp -s "$tmp" "$path"; then
		rm -f "$tmp"
	else
		mv -f "$tmp" "$path"
	fi
}

# link NAME TARGET: stable symlink in bin/ (replaced atomically).
link() {
	local name=$1 target=$2
	[[ -L $BIN/$name && $(readlink "$BIN/$name") == "$target" ]] && return 0
	ln -sfn "$target" "$BIN/$name.tmp.$$" && mv -Tf "$BIN/$name.tmp.$$" "$BIN/$name"
}

# version_line CMD...: first meaningful line of `CMD --version`, or fail.
version_line() {
	local out
	out=$("$@" --version 2>&1) || return 1
	out=$(printf '%s\n' "$out" | grep -m1 -iE 'release [0-9]|version [0-9]') || return 1
	printf '%s\n' "$out" | sed 's/^[[:space:]]*//'
}

# ---------------------------------------------------------------------------
# Private apt (trixie) — never touches /etc/apt or /var/lib/apt.

debian_mirror() {
	if [[ -n ${LEGALFUZZ_DEBIAN_MIRROR:-} ]]; then
		echo "$LEGALFUZZ_DEBIAN_MIRROR"
		return
	fi
	local f u
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		# One-line "deb [opts] URI suite ..." and deb822 "URIs: a b" forms; the
		# main archive is the URI ending in /debian (not debian-security).
		u=$(awk '
			/^[[:space:]]*deb[[:space:]]/ { sub(/\[[^]]*\]/, ""); print $2 }
			/^[[:space:]]*URIs:/ { for (i = 2; i <= NF; i++) print $i }
		' "$f" | grep -m1 -E '^(https?|file)://.*/debian/?$' || true)
		if [[ -n $u ]]; then
			echo "${u%/}"
			return
		fi
	done
	echo "http://deb.debian.org/debian"
}

APT_OPTS=()
APT_UPDATED=0
private_apt_setup() {
	((${#APT_OPTS[@]})) && return 0
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial"
	local signed=""
	[[ -r /usr/share/keyrings/debian-archive-keyring.gpg ]] &&
		signed="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
	echo "deb ${signed}$(debian_mirror) $SUITE main contrib non-free" >"$APTDIR/sources.list"
	APT_OPTS=(
		-o "Dir::Etc::SourceList=$APTDIR/sources.list"
		-o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$APTDIR/lists"
		-o "Dir::Cache::archives=$APTDIR/archives"
		# Keep apt's binary caches private too, else the system's pkgcache.bin
		# would be rebuilt from trixie lists.
		-o "Dir::Cache::pkgcache="
		-o "Dir::Cache::srcpkgcache="
		# AppStream metadata is useless here (~8 MB).
		-o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
		-q
	)
	# As root apt drops to _apt, which cannot write into our cache dir.
	[[ $EUID == 0 ]] && APT_OPTS+=(-o "APT::Sandbox::User=root")
	return 0
}

# apt_private ARGS...: apt-get on the private config.
apt_private() { apt-get "${APT_OPTS[@]}" "$@"; }

# private_update: refresh the private trixie lists, at most once per run
# (a failure is remembered, so the next tool does not wait on it again).
private_update() {
	((APT_UPDATED == 0)) || return $((APT_UPDATED < 0))
	private_apt_setup
	note "updating private $SUITE package lists ($(debian_mirror))"
	APT_UPDATED=-1
	# --error-on=any: plain `apt-get update` exits 0 when the mirror is down.
	retry apt_private --error-on=any update || return 1
	APT_UPDATED=1
}

# cached_deb PKG: path of the cached .deb for PKG, if any.
cached_deb() {
	local f
	f=$(find "$DEBS" -maxdepth 1 \( -name "${1}_*_${ARCH}.deb" -o -name "${1}_*_all.deb" \) | sort -V | tail -n1)
	[[ -n $f ]] && echo "$f"
}

# fetch_debs PKG...: make sure $DEBS holds a .deb for every PKG. Downloads
# land in a temp dir and are moved in only when apt-get succeeded, so a
# cut-off download never sits in the cache.
fetch_debs() {
	local missing=() p tmp
	for p in "$@"; do
		cached_deb "$p" >/dev/null || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	private_update || return 1
	tmp=$(mktemp -d "$DEBS/.dl.XXXXXX")
	TMPS+=("$tmp")
	note "downloading ${missing[*]}"
	# apt-get download writes into the current directory.
	(cd "$tmp" && retry apt_private download "${missing[@]/%//$SUITE}") || return 1
	mv -f "$tmp"/*.deb "$DEBS"/
	rm -rf "$tmp"
}

# extract_debs DIR PKG...: dpkg -x every cached PKG into DIR.
extract_debs() {
	local dir=$1 p
	shift
	for p in "$@"; do
		run_q dpkg -x "$(cached_deb "$p")" "$dir" || return 1
	done
}

# install_root ROOT TMPDIR: replace ROOT by the fully built TMPDIR in one mv,
# so a root that exists is always complete.
install_root() {
	local root=$1 tmp=$2 old
	if [[ -e $root ]]; then
		old=$(mktemp -d "$root.old.XXXXXX")
		TMPS+=("$old")
		mv -T "$root" "$old/root"
	fi
	mv -T "$tmp" "$root"
	[[ -z ${old:-} ]] || rm -rf "$old"
}

# ---------------------------------------------------------------------------
# ptxas 12.4

ptxas_ok() {
	local v
	v=$(version_line "$BIN/ptxas" 2>/dev/null) && [[ $v == *"release 12.4"* ]]
}

write_cuda_wrappers() {
	local t
	for t in ptxas nvdisasm cuobjdump; do
		[[ -x $CUDA_ROOT/usr/bin/$t ]] || continue
		put_file "$BIN/$t" 755 <<EOF
#!/bin/sh
# Generated by scripts/install-oracles.sh: CUDA 12.4 $t (Debian nvidia-cuda-toolkit).
exec $(sq "$CUDA_ROOT/usr/bin/$t") "\$@"
EOF
	done
}

install_ptxas() {
	[[ -d $CUDA_ROOT ]] && write_cuda_wrappers
	ptxas_ok && return 0
	if [[ $ARCH != amd64 ]]; then
		note "ptxas: only amd64 is supported (this is $ARCH)"
		return 1
	fi
	fetch_debs nvidia-cuda-toolkit || { note "ptxas: download failed"; return 1; }
	local tmp
	tmp=$(mktemp -d "$ORACLES/.cuda.XXXXXX")
	TMPS+=("$tmp")
	note "extracting nvidia-cuda-toolkit"
	extract_debs "$tmp/x" nvidia-cuda-toolkit || { show_log; return 1; }
	# Keep only the self-contained binaries we use (the package is ~200 MB
	# unpacked; ptxas/nvdisasm/cuobjdump need nothing but libc).
	mkdir -p "$tmp/root/usr/bin"
	local t
	for t in ptxas nvdisasm cuobjdump; do
		[[ -x $tmp/x/usr/bin/$t ]] && mv "$tmp/x/usr/bin/$t" "$tmp/root/usr/bin/"
	done
	install_root "$CUDA_ROOT" "$tmp/root"
	write_cuda_wrappers
	ptxas_ok || { note "ptxas: installed but '$BIN/ptxas --version' does not say release 12.4"; return 1; }
}

# ---------------------------------------------------------------------------
# LLVM/MLIR 19 from bookworm main (system packages)

l19_ok() { [[ -x $LLVM19/mlir-opt && -x $LLVM19/llc && -x $LLVM19/llvm-mc && -x $LLVM19/FileCheck ]]; }

install_llvm19() {
	local pkgs=(mlir-19-tools llvm-19 llvm-19-tools) # llvm-19-tools has FileCheck
	if ! l19_ok; then
		if [[ $EUID != 0 ]]; then
			note "LLVM 19 missing and not root; install it with:"
			note "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${pkgs[*]}"
		else
			note "installing ${pkgs[*]} (system apt)"
			export DEBIAN_FRONTEND=noninteractive
			if ! { retry apt-get -q update &&
				retry apt-get -q install -y --no-install-recommends -o DPkg::Lock::Timeout=300 "${pkgs[@]}"; }; then
				note "LLVM 19: apt-get install failed"
			fi
		fi
	fi
	local t
	for t in "${L19_TOOLS[@]}"; do
		if [[ -x $LLVM19/$t ]]; then link "$t-19" "$LLVM19/$t"; else rm -f "$BIN/$t-19"; fi
	done
	# lit (llvm-19-tools ships it as a script, not a command) runs the MLIR
	# tests that corpus export writes.
	local litpy=/usr/lib/llvm-19/build/utils/lit/lit.py
	if [[ -f $litpy ]] && command -v python3 >/dev/null 2>&1; then
		put_file "$BIN/lit-19" 755 <<EOF
#!/bin/sh
# Generated by scripts/install-oracles.sh: LLVM 19's lit from llvm-19-tools.
# Debian patches lit so that an unexpected pass (XPASS) does not fail the run;
# upstream lit fails it, and so does this wrapper: an XPASS is how a tool
# upgrade that fixed an XFAIL bug shows.
out=\$(mktemp) || exit 2
python3 $(sq "$litpy") "\$@" >"\$out" 2>&1
rc=\$?
cat "\$out"
if [ \$rc -eq 0 ] && grep -q '^XPASS: ' "\$out"; then rc=1; fi
rm -f "\$out"
exit \$rc
EOF
	else
		rm -f "$BIN/lit-19"
	fi
	l19_ok
}

# ---------------------------------------------------------------------------
# LLVM 22 (+ optional MLIR 22) from trixie, with trixie's glibc

M22_SKIP=$CACHE/mlir-22.unavailable # why mlir-opt-22 was skipped; delete to retry

write_l22_wrapper() { # NAME PATH-IN-ROOT
	local loader=$L22_ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
	local libs=$L22_ROOT/usr/lib/x86_64-linux-gnu:$L22_ROOT/lib/x86_64-linux-gnu:$L22_ROOT/usr/lib/llvm-22/lib:/usr/lib/x86_64-linux-gnu
	put_file "$BIN/$1" 755 <<EOF
#!/bin/sh
# Generated by scripts/install-oracles.sh: Debian $SUITE LLVM 22 $(basename "$2"), run with
# that root's own glibc through its loader (the host's glibc is too old).
exec $(sq "$loader") --library-path $(sq "$libs") $(sq "$L22_ROOT$2") "\$@"
EOF
}

write_l22_wrappers() {
	local t
	for t in "${L22_TOOLS[@]}" "${M22_TOOLS[@]}"; do
		if [[ -x $L22_ROOT/usr/lib/llvm-22/bin/$t ]]; then
			write_l22_wrapper "$t-22" "/usr/lib/llvm-22/bin/$t"
		else
			rm -f "$BIN/$t-22"
		fi
	done
}

llc22_ok() {
	local out
	out=$("$BIN/llc-22" --version 2>&1) && [[ $out == *"LLVM version 22"* && $out == *nvptx* ]]
}
mlir22_ok() { version_line "$BIN/mlir-opt-22" >/dev/null 2>&1; }

# want_mlir22: should this run (still) try to provide mlir-opt-22?
want_mlir22() { [[ $RETRY_OPTIONAL == 1 || ! -e $M22_SKIP ]]; }

install_llvm22() {
	[[ -d $L22_ROOT ]] && write_l22_wrappers
	if llc22_ok && { mlir22_ok || ! want_mlir22; }; then return 0; fi
	if [[ $ARCH != amd64 ]]; then
		note "LLVM 22: only amd64 is supported (this is $ARCH)"
		return 1
	fi
	fetch_debs "${L22_PKGS[@]}" || { note "LLVM 22: download failed"; return 1; }

	# MLIR 22 is optional: a failure here only costs mlir-opt-22.
	local pkgs=("${L22_PKGS[@]}") with_mlir=0
	if want_mlir22; then
		rm -f "$M22_SKIP"
		if fetch_debs "${M22_PKGS[@]}"; then
			pkgs+=("${M22_PKGS[@]}")
			with_mlir=1
		else
			echo "mlir-22-tools/libmlir-22 could not be downloaded from $SUITE" >"$M22_SKIP"
		fi
	fi

	local tmp
	tmp=$(mktemp -d "$ORACLES/.llvm-22.XXXXXX")
	TMPS+=("$tmp")
	note "extracting LLVM 22 root (${#pkgs[@]} packages)"
	extract_debs "$tmp/root" "${pkgs[@]}" || { show_log; return 1; }
	# Drop what we never run: docs, and MLIR's big extra binaries
	# (mlir-transform-opt alone is 60 MB).
	rm -rf "$tmp/root/usr/share/doc" "$tmp/root/usr/share/man" "$tmp/root/usr/share/lintian"
	local f keep t
	for f in "$tmp/root/usr/lib/llvm-22/bin"/mlir-*; do
		[[ -e $f ]] || continue
		keep=0
		for t in "${M22_TOOLS[@]}"; do [[ $(basename "$f") == "$t" ]] && keep=1; done
		((keep)) || rm -f "$f"
	done
	# Report sonames the root lacks (it would fall back to the host's libs).
	local loader=$tmp/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 nf
	nf=$("$loader" --library-path "$tmp/root/usr/lib/x86_64-linux-gnu" --list \
		"$tmp/root/usr/lib/llvm-22/bin/llc" 2>&1 | grep 'not found' || true)
	[[ -z $nf ]] || note "LLVM 22: libraries missing from the root: $(echo "$nf" | awk '{print $1}' | xargs)"

	install_root "$L22_ROOT" "$tmp/root"
	write_l22_wrappers
	if ((with_mlir)) && ! mlir22_ok; then
		local why
		why=$("$BIN/mlir-opt-22" --version 2>&1 | head -n1 || true)
		echo "mlir-opt-22 does not run: $why" >"$M22_SKIP"
	fi
	if [[ -e $M22_SKIP ]]; then
		note "optional mlir-opt-22 skipped: $(head -n1 "$M22_SKIP") (LEGALFUZZ_ORACLES_RETRY=1 to retry)"
		rm -f "$BIN/mlir-opt-22" "$BIN/mlir-translate-22"
	fi
	llc22_ok || {
		note "LLVM 22: installed but llc-22 does not run:"
		"$BIN/llc-22" --version 2>&1 | head -n3 | sed 's/^/    /' >&2 || true
		return 1
	}
}

# ---------------------------------------------------------------------------
# Summary

rel() { [[ $1 == "$REPO"/* ]] && echo "${1#"$REPO"/}" || echo "$1"; }

# report NAME REQUIRED WHY-IF-MISSING: one summary line; returns 1 if a
# required tool does not work.
FAILED=0
report() {
	local name=$1 required=$2 why=$3 v
	if [[ -x $BIN/$name ]] && v=$(version_line "$BIN/$name" 2>/dev/null); then
		printf '%-18s %-32s %s\n' "$name" "$(rel "$BIN/$name")" "$v"
	elif [[ $required == 1 ]]; then
		printf '%-18s MISSING: %s\n' "$name" "$why"
		FAILED=1
	elif [[ -n $why ]]; then
		printf '%-18s MISSING (optional): %s\n' "$name" "$why"
	fi
}

main() {
	local rc=0
	install_ptxas || rc=1
	install_llvm19 || rc=1
	install_llvm22 || rc=1
	((rc == 0)) || note "some installs failed; log: $(rel "$LOG")"

	local p
	p=" (rerun to install; log: $(rel "$LOG"))"
	report ptxas 1 "no working CUDA 12.4 ptxas$p"
	ptxas_ok || { [[ -x $BIN/ptxas ]] && { echo "ptxas is not release 12.4" >&2; FAILED=1; }; }
	report nvdisasm 0 ""
	report cuobjdump 0 ""
	report mlir-opt-19 1 "needs root: apt-get install --no-install-recommends mlir-19-tools"
	report mlir-translate-19 0 "apt-get install --no-install-recommends mlir-19-tools"
	report llvm-link-19 0 "apt-get install --no-install-recommends llvm-19"
	report llc-19 1 "needs root: apt-get install --no-install-recommends llvm-19"
	report llvm-mc-19 1 "needs root: apt-get install --no-install-recommends llvm-19"
	report FileCheck-19 0 "apt-get install --no-install-recommends llvm-19-tools"
	report llc-22 1 "no working LLVM 22 root$p"
	llc22_ok || { [[ -x $BIN/llc-22 ]] && { echo "llc-22 is not LLVM 22 with NVPTX" >&2; FAILED=1; }; }
	local t
	for t in llvm-mc llvm-as llvm-dis opt; do report "$t-22" 0 ""; done
	report mlir-opt-22 0 "$(head -n1 "$M22_SKIP" 2>/dev/null || true)"
	report mlir-translate-22 0 ""
	return "$FAILED"
}

main "$@"
