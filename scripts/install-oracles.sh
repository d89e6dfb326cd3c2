#!/usr/bin/env bash
# install-oracles.sh — install the external "oracle" tools legalfuzz checks
# candidate programs against. Run by `make oracles`; safe to re-run.
#
#   ptxas 12.4          Debian trixie non-free nvidia-cuda-toolkit, unpacked privately
#   LLVM/MLIR 19        Debian bookworm main (system apt, needs root)
#   LLVM/MLIR 22        Debian trixie       } unpacked privately together with that
#   LLVM/MLIR 23        Debian sid          } suite's own glibc, run through the root's
#   LLVM/MLIR trunk     Debian experimental } dynamic loader (host glibc is too old)
#                       (llvm-N snapshot, N = newest major there; libraries from sid)
#
# Everything private lives under $LEGALFUZZ_ORACLES_DIR (default <repo>/.oracles):
#   llvm/<label>/bin/<tool>   every LLVM installation, one layout (label 19, 22, 23,
#                             trunk; tool mlir-opt, mlir-translate, llc, llvm-mc,
#                             llvm-link, opt, llvm-as, llvm-dis, FileCheck, not)
#   llvm/<label>/toolchain    "key: value" lines: label, version (Debian package
#                             version), source, and for trunk snapshot (date, commit)
#   bin/      flat names: ptxas, nvdisasm, cuobjdump, lit-19, and <tool>-<label>
#             for every llvm/<label>/bin/<tool> (llc-22, mlir-opt-trunk, ...)
#   cache/    downloaded .debs (debs/<suite>/), private apt state per suite
#             (apt/<suite>/), install.log, <what>.unavailable notes
#   cuda-12.4/, llvm-22/, llvm-23/, llvm-trunk/   extracted roots (only ever
#             replaced whole, via mv)
#   tablegen-<label>/  a private root's TableGen sources: llvm-tblgen and the
#             .td files of llvm-N-dev and libmlir-N-dev of the root's own
#             version (nothing else of those ~90 MB of .debs is kept), seen
#             as llvm/<label>/bin/llvm-tblgen and llvm/<label>/include
#
# The system's apt sources are never modified: trixie, sid and experimental
# are reached through private sources lists passed with -o Dir::Etc::...
#
# A private root is kept while it works: 22 and 23 are not upgraded when their
# suite moves on. Trunk is: experimental serves one snapshot at a time, so when
# the snapshot installed is no longer the one served, the served one replaces
# it (with a note naming both). To keep re-runs fast, experimental's package
# lists are refreshed at most every LEGALFUZZ_ORACLES_REFRESH_HOURS.
#
# Environment:
#   LEGALFUZZ_ORACLES_DIR     where to install (default <repo>/.oracles)
#   LEGALFUZZ_DEBIAN_MIRROR   Debian mirror URI (default: the one the system uses)
#   LEGALFUZZ_ORACLES_SUITE   Debian suite for ptxas and LLVM 22 (default trixie)
#   LEGALFUZZ_ORACLES_REFRESH_HOURS  how old experimental's lists and the notes
#                             on unavailable optional tools may get before they
#                             are checked again (default 24; 0: every run)
#   LEGALFUZZ_ORACLES_RETRY=1 retry unavailable optional tools now, and refresh
#   LEGALFUZZ_ORACLES_VERBOSE=1  show apt/dpkg output instead of logging it
#
# Exit status: 0 when ptxas 12.4, mlir-opt-19, llc-19, llvm-mc-19 and llc-22
# all work; 1 otherwise. MLIR 22 and all of LLVM 23 and trunk are optional:
# CI must not fail because sid or experimental is briefly uninstallable.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$SCRIPT_DIR")
ORACLES=${LEGALFUZZ_ORACLES_DIR:-$REPO/.oracles}
mkdir -p "$ORACLES"
ORACLES=$(cd "$ORACLES" && pwd -P) # wrappers embed absolute, symlink-free paths
BIN=$ORACLES/bin
LLVM=$ORACLES/llvm
CACHE=$ORACLES/cache
DEBS=$CACHE/debs
APTROOT=$CACHE/apt
LOG=$CACHE/install.log
SUITE=${LEGALFUZZ_ORACLES_SUITE:-trixie}
VERBOSE=${LEGALFUZZ_ORACLES_VERBOSE:-0}
RETRY_OPTIONAL=${LEGALFUZZ_ORACLES_RETRY:-0}
REFRESH_HOURS=${LEGALFUZZ_ORACLES_REFRESH_HOURS:-24}
ARCH=$(dpkg --print-architecture 2>/dev/null || echo unknown)
LLVM19=/usr/lib/llvm-19/bin

CUDA_ROOT=$ORACLES/cuda-12.4

# The tools an installation exposes in llvm/<label>/bin (those it has).
# llvm-N has the first six, llvm-N-tools FileCheck and not, mlir-N-tools the
# MLIR ones; a private root keeps no other binary (llvm-exegesis and
# mlir-transform-opt alone are 60 MB each).
LLVM_TOOLS=(llc llvm-mc llvm-link opt llvm-as llvm-dis FileCheck not)
MLIR_TOOLS=(mlir-opt mlir-translate)

# Private installations: label -> suite of the LLVM packages, suite of the
# libraries, and the libxml2 package libLLVM links (the soname moved to
# libxml2.so.16 after trixie). The library set was found by trial: the
# loader's "cannot open shared object file" errors, then `ld.so --list`.
# libedit2 brings libbsd0, libmd0 and libtinfo6.
PRIVATE_LABELS=(22 23 trunk)
declare -A PKG_SUITE=([22]=$SUITE [23]=sid [trunk]=experimental)
declare -A LIB_SUITE=([22]=$SUITE [23]=sid [trunk]=sid)
declare -A XML_PKG=([22]=libxml2 [23]=libxml2-16 [trunk]=libxml2-16)
declare -A REQUIRED=([22]=1 [23]=0 [trunk]=0)
LIB_PKGS=(libc6 libstdc++6 libgcc-s1 libz3-4 libedit2 libbsd0 libmd0 libtinfo6
	libffi8 liblzma5 libzstd1 zlib1g)

# Private apt states, one per suite the packages are named in: the suites its
# sources list carries. Experimental holds only the snapshot's own packages;
# what they link comes from sid. Only the ptxas suite needs non-free.
declare -A APT_SUITES=([sid]="sid" [experimental]="sid experimental")
declare -A APT_COMPONENTS=([sid]="main" [experimental]="main")
APT_SUITES[$SUITE]=$SUITE
APT_COMPONENTS[$SUITE]="main contrib non-free"

mkdir -p "$BIN" "$LLVM" "$CACHE" "$DEBS"

# One run at a time: two concurrent `make oracles` would race on the roots.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$ORACLES/.lock"
	flock 9
fi
: >"$LOG"
# Leftovers of a run that was killed (SIGKILL skips the EXIT trap). Safe to
# drop: we hold the lock, and roots only ever appear complete via mv.
rm -rf "$ORACLES"/.cuda.* "$ORACLES"/.llvm-*.* "$ORACLES"/.tablegen-*.* "$ORACLES"/*.old.* "$DEBS"/*/.dl.* \
	"$BIN"/*.tmp.* "$LLVM"/*/*.tmp.* "$LLVM"/*/bin/*.tmp.* "$CACHE"/.probes.*

# Caches of the one-suite layout (flat debs/, one apt/): the .debs came from
# $SUITE; the apt state is cheaper to fetch again than to move.
shopt -s nullglob
old_debs=("$DEBS"/*.deb)
if ((${#old_debs[@]})); then
	mkdir -p "$DEBS/$SUITE"
	mv -f "${old_debs[@]}" "$DEBS/$SUITE"/
fi
shopt -u nullglob
rm -rf "$APTROOT/lists" "$APTROOT/archives" "$APTROOT/sources.list"

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

# put_link PATH TARGET: symlink PATH -> TARGET (replaced atomically).
put_link() {
	local path=$1 target=$2
	[[ -L $path && $(readlink "$path") == "$target" ]] && return 0
	ln -sfn "$target" "$path.tmp.$$" && mv -Tf "$path.tmp.$$" "$path"
}

# version_line CMD...: first meaningful line of `CMD --version`, or fail.
version_line() {
	local out
	out=$("$@" --version 2>&1) || return 1
	out=$(printf '%s\n' "$out" | grep -m1 -iE 'release [0-9]|version [0-9]') || return 1
	printf '%s\n' "$out" | sed 's/^[[:space:]]*//'
}

# stale FILE: FILE is missing or older than REFRESH_HOURS (or a retry is asked).
stale() {
	[[ $RETRY_OPTIONAL == 1 || $REFRESH_HOURS == 0 || ! -e $1 ]] && return 0
	[[ -n $(find "$1" -maxdepth 0 -mmin +$((REFRESH_HOURS * 60)) 2>/dev/null) ]]
}

# Notes on optional things that failed, so that every run does not wait on
# the mirror again: cache/<what>.unavailable holds the reason; it is retried
# once the note is REFRESH_HOURS old, or with LEGALFUZZ_ORACLES_RETRY=1.
unavailable_file() { echo "$CACHE/$1.unavailable"; }
mark_unavailable() { echo "$2" >"$(unavailable_file "$1")"; }
clear_unavailable() { rm -f "$(unavailable_file "$1")"; }
# known_unavailable WHAT: a recent note says WHAT cannot be had (prints why).
known_unavailable() {
	local f
	f=$(unavailable_file "$1")
	[[ -e $f ]] && ! stale "$f" && head -n1 "$f"
}
# unavailable_why WHAT: the note's reason, however old (for the summary).
unavailable_why() { head -n1 "$(unavailable_file "$1")" 2>/dev/null || true; }

# ---------------------------------------------------------------------------
# Private apt, one state per suite — never touches /etc/apt or /var/lib/apt.

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

# apt_state STATE: point APT_OPTS (what apt_private passes) at STATE's
# private sources, lists and caches, creating them.
APT_OPTS=()
apt_state() {
	local state=$1 dir=$APTROOT/$1 signed="" s
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"
	[[ -r /usr/share/keyrings/debian-archive-keyring.gpg ]] &&
		signed="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
	for s in ${APT_SUITES[$state]}; do
		echo "deb ${signed}$(debian_mirror) $s ${APT_COMPONENTS[$state]}"
	done | put_file "$dir/sources.list" 644
	APT_OPTS=(
		-o "Dir::Etc::SourceList=$dir/sources.list"
		-o "Dir::Etc::SourceParts=/dev/null"
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache::archives=$dir/archives"
		# Keep apt's binary caches private too, else the system's pkgcache.bin
		# would be rebuilt from these lists.
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

# apt_private ARGS...: apt-get on the current private state (apt_state).
apt_private() { apt-get "${APT_OPTS[@]}" "$@"; }
# apt_cache ARGS...: apt-cache on the current private state.
apt_cache() { apt-cache "${APT_OPTS[@]}" "$@"; }

# apt_update STATE: select STATE and refresh its lists, at most once per run
# (a failure is remembered, so the next tool does not wait on it again).
declare -A APT_UPDATED=()
apt_update() {
	local state=$1
	apt_state "$state"
	case ${APT_UPDATED[$state]:-} in
	ok) return 0 ;;
	failed) return 1 ;;
	esac
	note "updating private ${APT_SUITES[$state]// /+} package lists ($(debian_mirror))"
	APT_UPDATED[$state]=failed
	# --error-on=any: plain `apt-get update` exits 0 when the mirror is down.
	retry apt_private --error-on=any update || return 1
	APT_UPDATED[$state]=ok
}

# ---------------------------------------------------------------------------
# .deb cache: $DEBS/<suite>/, the files named as apt-get download names them.

# cached_deb SUITE PKG [VERSION]: path of the cached .deb of PKG from SUITE
# (that VERSION, else the newest cached).
cached_deb() {
	local dir=$DEBS/$1 pkg=$2 ver=${3:-*} f
	ver=${ver//:/%3a}
	f=$(find "$dir" -maxdepth 1 \( -name "${pkg}_${ver}_${ARCH}.deb" -o -name "${pkg}_${ver}_all.deb" \) 2>/dev/null | sort -V | tail -n1)
	[[ -n $f ]] && echo "$f"
}

# served_versions STATE PKG...: "pkg suite version" lines for what STATE's
# lists serve (apt-cache madison; lists must be present).
served_versions() {
	apt_state "$1"
	shift
	apt_cache madison "$@" 2>/dev/null |
		awk -F' [|] ' '{ gsub(/ /, "", $1); split($3, u, " "); split(u[2], s, "/"); print $1, s[1], $2 }'
}

# fetch_debs STATE SPEC...: set DEB_FILES to one cached .deb per SPEC
# ("pkg/suite"), downloading what is missing. When STATE's lists can be
# fetched, each package is the exact version its suite serves now, so a root
# never mixes two builds (e.g. llvm-23 from one upload, libllvm23 from the
# next); otherwise the newest cached .deb is used, so a root can be rebuilt
# offline. Downloads land in a temp dir and are moved in only when apt-get
# succeeded, so a cut-off download never sits in the cache.
DEB_FILES=() FETCH_WHY=""
fetch_debs() {
	local state=$1 spec p s v f tmp
	shift
	DEB_FILES=() FETCH_WHY=""
	if ! apt_update "$state"; then
		for spec in "$@"; do
			f=$(cached_deb "${spec#*/}" "${spec%/*}") || {
				FETCH_WHY="$spec is not cached, and the ${APT_SUITES[$state]// /+} lists cannot be fetched"
				note "$FETCH_WHY"
				return 1
			}
			DEB_FILES+=("$f")
		done
		note "using cached .debs (the $state lists cannot be fetched)"
		return 0
	fi
	local -A served=() want=()
	while read -r p s v; do served[$p/$s]=$v; done < <(served_versions "$state" "${@%/*}")
	for spec in "$@"; do
		v=${served[$spec]:-}
		[[ -n $v ]] || { FETCH_WHY="${spec%/*} is not in ${spec#*/}"; note "$FETCH_WHY"; return 1; }
		cached_deb "${spec#*/}" "${spec%/*}" "$v" >/dev/null || want[${spec#*/}]+=" ${spec%/*}=$v"
	done
	for s in "${!want[@]}"; do
		mkdir -p "$DEBS/$s"
		tmp=$(mktemp -d "$DEBS/$s/.dl.XXXXXX")
		TMPS+=("$tmp")
		note "downloading from $s:${want[$s]}"
		# apt-get download writes into the current directory.
		# shellcheck disable=SC2086 # the list is pkg=version words
		(cd "$tmp" && retry apt_private download ${want[$s]}) || { FETCH_WHY="download from $s failed"; return 1; }
		# A new version replaces the cached one (the cache keeps one per package).
		for f in "$tmp"/*.deb; do
			p=$(basename "$f")
			rm -f "$DEBS/$s/${p%%_*}"_*.deb
		done
		mv -f "$tmp"/*.deb "$DEBS/$s"/
		rm -rf "$tmp"
	done
	for spec in "$@"; do
		DEB_FILES+=("$(cached_deb "${spec#*/}" "${spec%/*}" "${served[$spec]}")")
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
	fetch_debs "$SUITE" "nvidia-cuda-toolkit/$SUITE" || { note "ptxas: download failed: $FETCH_WHY"; return 1; }
	local tmp
	tmp=$(mktemp -d "$ORACLES/.cuda.XXXXXX")
	TMPS+=("$tmp")
	note "extracting nvidia-cuda-toolkit"
	run_q dpkg -x "${DEB_FILES[0]}" "$tmp/x" || { show_log; return 1; }
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
# LLVM installations: llvm/<label>/{bin/,toolchain} and the flat bin/<tool>-<label>

# publish_llvm LABEL VERSION SOURCE [SNAPSHOT]: write llvm/LABEL/toolchain and
# point bin/<tool>-LABEL at each tool llvm/LABEL/bin has (callers fill bin/).
publish_llvm() {
	local label=$1 version=$2 source=$3 snapshot=${4:-} dir=$LLVM/$1 t
	{
		echo "label: $label"
		echo "version: $version"
		echo "source: $source"
		[[ -z $snapshot ]] || echo "snapshot: $snapshot"
	} | put_file "$dir/toolchain" 644
	for t in "${LLVM_TOOLS[@]}" "${MLIR_TOOLS[@]}"; do
		if [[ -e $dir/bin/$t ]]; then put_link "$BIN/$t-$label" "$dir/bin/$t"; else rm -f "$BIN/$t-$label"; fi
	done
}

# unpublish_llvm LABEL: there is no working installation LABEL.
unpublish_llvm() {
	local t
	rm -rf "${LLVM:?}/$1"
	for t in "${LLVM_TOOLS[@]}" "${MLIR_TOOLS[@]}"; do rm -f "$BIN/$t-$1"; done
}

# llc_ok LABEL MAJOR: llvm/LABEL's llc runs, is LLVM MAJOR and has NVPTX.
llc_ok() {
	local out
	out=$("$LLVM/$1/bin/llc" --version 2>&1) && [[ $out == *"LLVM version $2."* && $out == *nvptx* ]]
}
mlir_ok() { version_line "$LLVM/$1/bin/mlir-opt" >/dev/null 2>&1; }

# --- LLVM/MLIR 19 from the system's Debian (bookworm) main

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
	local t dir=$LLVM/19 version codename
	version=$(dpkg-query -W -f '${Version}' llvm-19 2>/dev/null || true)
	if [[ ! -x $LLVM19/llc || -z $version ]]; then
		unpublish_llvm 19
	else
		mkdir -p "$dir/bin"
		for t in "${LLVM_TOOLS[@]}" "${MLIR_TOOLS[@]}"; do
			if [[ -x $LLVM19/$t ]]; then put_link "$dir/bin/$t" "$LLVM19/$t"; else rm -f "$dir/bin/$t"; fi
		done
		codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null || true)
		publish_llvm 19 "$version" "Debian ${codename:-system} mlir-19-tools/llvm-19 (system apt)"
	fi
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

# --- Private roots (22, 23, trunk): Debian packages unpacked with their own glibc

root_of() { echo "$ORACLES/llvm-$1"; }

# A root records what it was unpacked from in .packages: "pkg version suite".
root_major() { awk '$1 ~ /^llvm-[0-9]+$/ { sub(/^llvm-/, "", $1); print $1; exit }' "$1/.packages" 2>/dev/null; }
root_version() { awk -v p="llvm-$2" '$1 == p { print $2; exit }' "$1/.packages" 2>/dev/null; }

# snapshot_of VERSION: "YYYY-MM-DD commit" of a Debian LLVM snapshot version
# (1:24~++20261025103442+7e3c57157096-1~exp1 -> 2026-10-25 7e3c57157096).
snapshot_of() {
	sed -nE 's/.*~\+\+([0-9]{4})([0-9]{2})([0-9]{2})[0-9]*\+([0-9a-f]+)-.*/\1-\2-\3 \4/p' <<<"$1"
}

# write_llvm_dir LABEL: llvm/LABEL from its root: one wrapper per tool, run
# with the root's own glibc through its loader (the host's glibc is too old).
write_llvm_dir() {
	local label=$1 root major version suite pkgs t dir=$LLVM/$1
	root=$(root_of "$label")
	major=$(root_major "$root")
	[[ -n $major ]] || return 1
	version=$(root_version "$root" "$major")
	suite=$(awk -v p="llvm-$major" '$1 == p { print $3; exit }' "$root/.packages")
	local loader=$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
	local libs=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu:$root/usr/lib/llvm-$major/lib:/usr/lib/x86_64-linux-gnu
	mkdir -p "$dir/bin"
	for t in "${LLVM_TOOLS[@]}" "${MLIR_TOOLS[@]}"; do
		if [[ -x $root/usr/lib/llvm-$major/bin/$t ]]; then
			put_file "$dir/bin/$t" 755 <<EOF
#!/bin/sh
# Generated by scripts/install-oracles.sh: LLVM $label $t (Debian $suite llvm-$major), run with
# that root's own glibc through its loader (the host's glibc is too old).
exec $(sq "$loader") --library-path $(sq "$libs") $(sq "$root/usr/lib/llvm-$major/bin/$t") "\$@"
EOF
		else
			rm -f "$dir/bin/$t"
		fi
	done
	pkgs=llvm-$major
	[[ -x $root/usr/lib/llvm-$major/bin/mlir-opt ]] && pkgs+=/mlir-$major-tools
	publish_llvm "$label" "$version" "Debian $suite $pkgs, private root" \
		"$([[ $label == trunk ]] && snapshot_of "$version")"
}

# trunk_served: set TRUNK_MAJOR and TRUNK_VERSION to the newest LLVM snapshot
# experimental serves, from its lists as last refreshed; they are refreshed
# when REFRESH_HOURS old (a failed refresh keeps the last answer).
TRUNK_MAJOR="" TRUNK_VERSION=""
trunk_served() {
	local state=${PKG_SUITE[trunk]} names
	local dir=$APTROOT/$state
	local list=$dir/served
	if stale "$dir/checked"; then
		mkdir -p "$dir"
		touch "$dir/checked"
		if apt_update "$state"; then
			names=$(apt_cache pkgnames llvm- 2>/dev/null | grep -E '^llvm-[0-9]+$' || true)
			# shellcheck disable=SC2086 # one package name per word
			[[ -z $names ]] || served_versions "$state" $names |
				awk -v s="$state" '$2 == s { sub(/^llvm-/, "", $1); print $1, $3 }' |
				sort -n -k1,1 | tail -n1 | put_file "$list" 644
		elif [[ -s $list ]]; then
			note "LLVM trunk: could not refresh experimental's package lists; using those of $(date -r "$list" +%F)"
		fi
	fi
	[[ -s $list ]] && read -r TRUNK_MAJOR TRUNK_VERSION <"$list"
	[[ -n $TRUNK_MAJOR ]]
}

# install_private LABEL: provide llvm/LABEL from a private root of Debian
# PKG_SUITE[LABEL]'s llvm-N, llvm-N-tools and (optional) mlir-N-tools, with
# LIB_SUITE[LABEL]'s libraries. A root that works is kept, except that trunk
# follows the snapshot experimental serves.
install_private() {
	local label=$1 root major pkg_suite=${PKG_SUITE[$1]} lib_suite=${LIB_SUITE[$1]} why
	root=$(root_of "$label")
	[[ -f $root/.packages ]] && write_llvm_dir "$label"
	if [[ $ARCH != amd64 ]]; then
		mark_unavailable "llvm-$label" "only amd64 is supported (this is $ARCH)"
		return 1
	fi
	if [[ $label == trunk ]]; then
		if ! trunk_served; then
			if llc_ok trunk "$(root_major "$root")"; then
				note "LLVM trunk: experimental's lists are unknown; keeping what is installed"
				return 0
			fi
			mark_unavailable llvm-trunk "no LLVM snapshot found in experimental's package lists (or they cannot be fetched)"
			return 1
		fi
		major=$TRUNK_MAJOR
	else
		major=$label
	fi

	# Keep a root that works and has what is wanted.
	local want_mlir=1 current=1 old_version
	known_unavailable "mlir-$label" >/dev/null && want_mlir=0
	old_version=$(root_version "$root" "$(root_major "$root")")
	# A root without .packages predates this layout (or is not ours): rebuild.
	[[ -f $root/.packages ]] || current=0
	[[ $label != trunk || $old_version == "$TRUNK_VERSION" ]] || current=0
	if ((current)) && llc_ok "$label" "$major" && { ((want_mlir == 0)) || mlir_ok "$label"; }; then
		clear_unavailable "llvm-$label"
		return 0
	fi
	if ((REQUIRED[$label] == 0)) && why=$(known_unavailable "llvm-$label"); then
		# The last try failed recently; keep what works, do not wait on the mirror again.
		[[ -f $root/.packages ]] && llc_ok "$label" "$(root_major "$root")" && return 0
		return 1
	fi
	if [[ $label == trunk && -n $old_version && $old_version != "$TRUNK_VERSION" ]]; then
		note "LLVM trunk: the snapshot installed, $(snapshot_of "$old_version") ($old_version), is gone from experimental;" \
			"installing the one served, $(snapshot_of "$TRUNK_VERSION") ($TRUNK_VERSION)"
	fi

	local core=("llvm-$major/$pkg_suite" "libllvm$major/$pkg_suite") spec
	for spec in "${LIB_PKGS[@]}" "${XML_PKG[$label]}"; do core+=("$spec/$lib_suite"); done
	if ! fetch_debs "$pkg_suite" "${core[@]}"; then
		mark_unavailable "llvm-$label" "llvm-$major: $FETCH_WHY"
		note "LLVM $label: download failed"
		return 1
	fi
	local debs=("${DEB_FILES[@]}") with_mlir=0
	# FileCheck and not (llvm-N-tools) are a convenience: without them (e.g. an
	# offline rebuild from a cache that lacks them) the root is still built.
	if fetch_debs "$pkg_suite" "llvm-$major-tools/$pkg_suite"; then
		debs+=("${DEB_FILES[@]}")
	else
		note "LLVM $label: no FileCheck/not: $FETCH_WHY"
	fi
	# MLIR is optional: a failure here only costs mlir-opt/mlir-translate.
	if ((want_mlir)); then
		clear_unavailable "mlir-$label"
		if fetch_debs "$pkg_suite" "mlir-$major-tools/$pkg_suite" "libmlir-$major/$pkg_suite"; then
			debs+=("${DEB_FILES[@]}")
			with_mlir=1
		else
			mark_unavailable "mlir-$label" "mlir-$major-tools: $FETCH_WHY"
		fi
	fi

	local tmp f keep t
	tmp=$(mktemp -d "$ORACLES/.llvm-$label.XXXXXX")
	TMPS+=("$tmp")
	note "extracting LLVM $label root (${#debs[@]} packages)"
	for f in "${debs[@]}"; do
		run_q dpkg -x "$f" "$tmp/root" || { show_log; return 1; }
		# shellcheck disable=SC2016 # dpkg-deb's ${...} fields
		dpkg-deb -W --showformat '${Package} ${Version} ' "$f" >>"$tmp/root/.packages"
		basename "$(dirname "$f")" >>"$tmp/root/.packages" # the suite: debs/<suite>/
	done
	# Drop what we never run: docs, and every binary but the exposed tools.
	rm -rf "$tmp/root/usr/share/doc" "$tmp/root/usr/share/man" "$tmp/root/usr/share/lintian"
	for f in "$tmp/root/usr/lib/llvm-$major/bin"/*; do
		keep=0
		for t in "${LLVM_TOOLS[@]}" "${MLIR_TOOLS[@]}"; do [[ ${f##*/} == "$t" ]] && keep=1; done
		((keep)) || rm -f "$f"
	done
	# Report sonames the root lacks (it would fall back to the host's libs).
	local loader=$tmp/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 nf=""
	for f in "$tmp/root/usr/lib/llvm-$major/bin"/*; do
		nf+=$("$loader" --library-path "$tmp/root/usr/lib/x86_64-linux-gnu:$tmp/root/usr/lib/llvm-$major/lib" \
			--list "$f" 2>&1 | grep 'not found' || true)
	done
	[[ -z $nf ]] || note "LLVM $label: libraries missing from the root: $(echo "$nf" | awk '{print $1}' | sort -u | xargs)"

	install_root "$root" "$tmp/root"
	write_llvm_dir "$label"
	if ((with_mlir)) && ! mlir_ok "$label"; then
		why=$("$LLVM/$label/bin/mlir-opt" --version 2>&1 | head -n1 || true)
		mark_unavailable "mlir-$label" "mlir-opt-$label does not run: $why"
	fi
	if why=$(known_unavailable "mlir-$label"); then
		note "optional MLIR $label skipped: $why (LEGALFUZZ_ORACLES_RETRY=1 to retry)"
		# From the root too, so that the wrappers and source line leave it out.
		rm -f "$root/usr/lib/llvm-$major/bin"/mlir-*
		write_llvm_dir "$label"
	fi
	if ! llc_ok "$label" "$major"; then
		note "LLVM $label: installed but llc does not run:"
		"$LLVM/$label/bin/llc" --version 2>&1 | head -n3 | sed 's/^/    /' >&2 || true
		mark_unavailable "llvm-$label" "llc of the new root does not run (see $(rel "$LOG"))"
		return 1
	fi
	clear_unavailable "llvm-$label"
}

# --- TableGen sources of a private root (legalfuzz reads the NVVM and NVGPU op
# and intrinsic records from them: the surface it generates from)

tablegen_of() { echo "$ORACLES/tablegen-$1"; }

# tablegen_ok LABEL: llvm/LABEL's llvm-tblgen runs and its include tree has
# the NVVM op and intrinsic definitions.
tablegen_ok() {
	"$LLVM/$1/bin/llvm-tblgen" --version >/dev/null 2>&1 &&
		[[ -f $LLVM/$1/include/mlir/Dialect/LLVMIR/NVVMOps.td && -f $LLVM/$1/include/llvm/IR/IntrinsicsNVVM.td ]]
}

# write_tablegen LABEL: llvm/LABEL/bin/llvm-tblgen (run like the root's other
# tools), llvm/LABEL/include and bin/llvm-tblgen-LABEL, from tablegen-LABEL.
write_tablegen() {
	local label=$1 root tg major
	root=$(root_of "$label")
	tg=$(tablegen_of "$label")
	major=$(root_major "$tg")
	[[ -n $major && -x $tg/usr/lib/llvm-$major/bin/llvm-tblgen ]] || return 1
	local libs=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu:$root/usr/lib/llvm-$major/lib:/usr/lib/x86_64-linux-gnu
	put_file "$LLVM/$label/bin/llvm-tblgen" 755 <<EOF
#!/bin/sh
# Generated by scripts/install-oracles.sh: LLVM $label llvm-tblgen (Debian llvm-$major), run with
# the LLVM root's own glibc through its loader (the host's glibc is too old).
exec $(sq "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2") --library-path $(sq "$libs") $(sq "$tg/usr/lib/llvm-$major/bin/llvm-tblgen") "\$@"
EOF
	put_link "$LLVM/$label/include" "$tg/usr/lib/llvm-$major/include"
	put_link "$BIN/llvm-tblgen-$label" "$LLVM/$label/bin/llvm-tblgen"
}

# install_tablegen LABEL: provide tablegen-LABEL for the private root LABEL,
# from the same version of llvm-N (llvm-tblgen), llvm-N-dev and libmlir-N-dev
# (their .td files only). Kept while it matches the root's version; when the
# suite serves another version than the root's there is none (the .td files
# must be the installation's own). Optional: legalfuzz lists the surface of
# an installation without it as unavailable.
install_tablegen() {
	local label=$1 root tg major version suite
	root=$(root_of "$label")
	tg=$(tablegen_of "$label")
	major=$(root_major "$root")
	[[ -n $major ]] || return 1
	version=$(root_version "$root" "$major")
	suite=$(awk -v p="llvm-$major" '$1 == p { print $3; exit }' "$root/.packages")
	if [[ $(root_version "$tg" "$major") == "$version" ]] && write_tablegen "$label" && tablegen_ok "$label"; then
		clear_unavailable "tablegen-$label"
		return 0
	fi
	known_unavailable "tablegen-$label" >/dev/null && return 1
	if ! fetch_debs "$suite" "llvm-$major/$suite" "llvm-$major-dev/$suite" "libmlir-$major-dev/$suite"; then
		mark_unavailable "tablegen-$label" "llvm-$major-dev: $FETCH_WHY"
		return 1
	fi
	local f v tmp
	for f in "${DEB_FILES[@]}"; do
		v=$(dpkg-deb -f "$f" Version)
		if [[ $v != "$version" ]]; then
			mark_unavailable "tablegen-$label" "$suite serves $(dpkg-deb -f "$f" Package) $v, the root is $version"
			return 1
		fi
	done
	tmp=$(mktemp -d "$ORACLES/.tablegen-$label.XXXXXX")
	TMPS+=("$tmp")
	mkdir -p "$tmp/root"
	note "extracting LLVM $label TableGen sources (llvm-tblgen and the .td files)"
	for f in "${DEB_FILES[@]}"; do
		echo "+ dpkg-deb --fsys-tarfile $f | tar -x llvm-tblgen '*.td'" >>"$LOG"
		# GNU tar's wildcards match across "/": every .td below include/
		# (llvm-N-dev's are in usr/include/llvm-N, linked from the llvm-N
		# root's include/llvm). A package has only some of the members asked
		# for; tar names the others in the log.
		dpkg-deb --fsys-tarfile "$f" | tar -x -C "$tmp/root" --wildcards \
			"./usr/lib/llvm-$major/bin/llvm-tblgen" "./usr/lib/llvm-$major/include/*.td" \
			"./usr/include/llvm-$major/*.td" "./usr/lib/llvm-$major/include/llvm" >>"$LOG" 2>&1 || true
		# shellcheck disable=SC2016 # dpkg-deb's ${...} fields
		dpkg-deb -W --showformat '${Package} ${Version} ' "$f" >>"$tmp/root/.packages"
		echo "$suite" >>"$tmp/root/.packages"
	done
	install_root "$tg" "$tmp/root"
	if ! { write_tablegen "$label" && tablegen_ok "$label"; }; then
		mark_unavailable "tablegen-$label" "llvm-tblgen-$label does not run or the .td files are missing (see $(rel "$LOG"))"
		return 1
	fi
	clear_unavailable "tablegen-$label"
	# The -dev .debs serve once per version: the cache does not keep them.
	rm -f "$DEBS/$suite/llvm-$major-dev_"*.deb "$DEBS/$suite/libmlir-$major-dev_"*.deb
}

# ---------------------------------------------------------------------------
# Summary

rel() { [[ $1 == "$REPO"/* ]] && echo "${1#"$REPO"/}" || echo "$1"; }

# probe_all: `--version` of every bin/ name at once, into $PROBES/<name>
# (empty: it does not run). One at a time, the ~45 tools take ~4 s.
PROBES=""
probe_all() {
	local f
	PROBES=$(mktemp -d "$CACHE/.probes.XXXXXX")
	TMPS+=("$PROBES")
	for f in "$BIN"/*; do
		[[ -x $f && $f != *.tmp.* ]] || continue
		version_line "$f" >"$PROBES/${f##*/}" 2>/dev/null &
	done
	wait
}

# report NAME REQUIRED WHY-IF-MISSING: one summary line; returns 1 if a
# required tool does not work.
FAILED=0
report() {
	local name=$1 required=$2 why=$3 v
	if [[ -x $BIN/$name && -s $PROBES/$name ]] && v=$(<"$PROBES/$name"); then
		printf '%-20s %-36s %s\n' "$name" "$(rel "$BIN/$name")" "$v"
	elif [[ $required == 1 ]]; then
		printf '%-20s MISSING: %s\n' "$name" "$why"
		FAILED=1
	elif [[ -n $why ]]; then
		printf '%-20s MISSING (optional): %s\n' "$name" "$why"
	fi
}

# report_llvm LABEL REQUIRED WHY-IF-MISSING [WHY-NOT-REPLACED]: one line for
# the installation (label, version, snapshot or source), and why the one
# installed could not be replaced (trunk whose snapshot is gone).
report_llvm() {
	local label=$1 f=$LLVM/$1/toolchain version snapshot source
	if [[ -f $f ]]; then
		version=$(sed -n 's/^version: //p' "$f")
		snapshot=$(sed -n 's/^snapshot: //p' "$f")
		source=$(sed -n 's/^source: //p' "$f")
		printf '%-20s %-36s %s\n' "llvm/$label" "$version" "${snapshot:+snapshot $snapshot; }$source${4:+; NOT REPLACED: $4}"
	elif [[ $2 == 1 ]]; then
		printf '%-20s MISSING: %s\n' "llvm/$label" "$3"
	else
		printf '%-20s MISSING (optional): %s\n' "llvm/$label" "$3"
	fi
}

main() {
	local rc=0 label
	install_ptxas || rc=1
	install_llvm19 || rc=1
	for label in "${PRIVATE_LABELS[@]}"; do
		if ! install_private "$label"; then
			((REQUIRED[$label] == 0)) || rc=1
			# Without a root that runs, tools of a half-built one must not be found.
			llc_ok "$label" "$(root_major "$(root_of "$label")")" || unpublish_llvm "$label"
		fi
		if [[ -e $LLVM/$label/toolchain ]] && ! install_tablegen "$label"; then
			note "optional LLVM $label TableGen sources skipped: $(unavailable_why "tablegen-$label")"
		fi
	done
	((rc == 0)) || note "some installs failed; log: $(rel "$LOG")"

	local p why t again
	probe_all
	p=" (rerun to install; log: $(rel "$LOG"))"
	again=" (tried again after ${REFRESH_HOURS} h, or now with LEGALFUZZ_ORACLES_RETRY=1; log: $(rel "$LOG"))"
	report ptxas 1 "no working CUDA 12.4 ptxas$p"
	ptxas_ok || { [[ -x $BIN/ptxas ]] && { echo "ptxas is not release 12.4" >&2; FAILED=1; }; }
	report nvdisasm 0 ""
	report cuobjdump 0 ""
	report_llvm 19 1 "needs root: apt-get install --no-install-recommends mlir-19-tools llvm-19 llvm-19-tools"
	report mlir-opt-19 1 "needs root: apt-get install --no-install-recommends mlir-19-tools"
	report mlir-translate-19 0 "apt-get install --no-install-recommends mlir-19-tools"
	report llvm-link-19 0 "apt-get install --no-install-recommends llvm-19"
	report llc-19 1 "needs root: apt-get install --no-install-recommends llvm-19"
	report llvm-mc-19 1 "needs root: apt-get install --no-install-recommends llvm-19"
	report FileCheck-19 0 "apt-get install --no-install-recommends llvm-19-tools"
	for label in "${PRIVATE_LABELS[@]}"; do
		why=$(unavailable_why "llvm-$label")
		if [[ -n $why && ${REQUIRED[$label]} == 0 ]]; then why+=$again; else why="${why:-no working LLVM $label root}$p"; fi
		report_llvm "$label" "${REQUIRED[$label]}" "$why" "$(unavailable_why "llvm-$label")"
		# An optional installation that is missing says so once, above.
		[[ -e $LLVM/$label/toolchain || ${REQUIRED[$label]} == 1 ]] || continue
		report "llc-$label" "${REQUIRED[$label]}" "$why"
		for t in llvm-mc llvm-link opt llvm-as llvm-dis FileCheck; do report "$t-$label" 0 ""; done
		why=$(unavailable_why "mlir-$label")
		report "mlir-opt-$label" 0 "${why:+$why$again}"
		report "mlir-translate-$label" 0 ""
		why=$(unavailable_why "tablegen-$label")
		report "llvm-tblgen-$label" 0 "${why:+$why$again}"
	done
	if ! llc_ok 22 22; then [[ -x $BIN/llc-22 ]] && { echo "llc-22 is not LLVM 22 with NVPTX" >&2; FAILED=1; }; fi
	return "$FAILED"
}

main "$@"
