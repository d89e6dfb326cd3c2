#!/usr/bin/env bash
# nightly.sh: one night of legalfuzz against a persistent store, then its
# reports. Used by legalfuzz-nightly.service and the CI examples.
#
#   STORE         the bbolt store kept across nights (required)
#   OUT           scratch folder for the campaign (embedded NATS data, fuzz work)
#   PUBLISH       where the night's reports go, one folder per date (optional)
#   DURATION      generation time (default 8h)
#   SUPPRESSIONS  your suppression file, checked into your repository (optional)
#   FLAGS         more flags for both commands, e.g. "--oracle exec:mine=... --policy p.json"
#   CAMPAIGN_FLAGS  more flags for the campaign, e.g. "--domains kindword,mma"
#
# Exit status: 0 nothing new, 1 new (or regressed) unsuppressed buckets, 2 an error.
set -uo pipefail
: "${STORE:?set STORE to the store kept across nights}"
OUT=${OUT:-legalfuzz-out}
DURATION=${DURATION:-8h}
BIN=${BIN:-bin/legalfuzz}
night=$(date -u +%Y-%m-%d)
sup=()
[ -n "${SUPPRESSIONS:-}" ] && sup=(--suppressions "$SUPPRESSIONS")

mkdir -p "$OUT" "$(dirname "$STORE")"
# shellcheck disable=SC2086 # the FLAGS are lists of flags
"$BIN" campaign --db "$STORE" --out "$OUT" --duration "$DURATION" --quiet "${sup[@]}" ${FLAGS:-} ${CAMPAIGN_FLAGS:-}
rc=$?
[ "$rc" -le 1 ] || exit "$rc"

reports="${PUBLISH:-$OUT/reports}/$night"
# shellcheck disable=SC2086
"$BIN" report --db "$STORE" --out "$reports" "${sup[@]}" ${FLAGS:-}
rrc=$?
[ "$rrc" -le 1 ] || exit "$rrc"
echo "nightly $night: report $reports/report.html, JUnit $reports/report.junit.xml"
exit "$rc"
