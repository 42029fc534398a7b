#!/usr/bin/env bash
# Times the working tree against an earlier revision on one GPU, in one session: the fair way to
# say what a change bought, since two `make table` runs on different days (or machines) differ by
# more than most changes. The base revision is exported with `git archive` (plus .deps/, which
# the sortlab tool's CLI11 may come from), both trees are configured and built side by side, and
# the benchmark program runs alternately (base, new, base, new, ...) so that drift in the GPU's
# clocks or temperature falls on both; compare_json.py then prints one table.
#
#   bash bench/compare/compare_revisions.sh BASE [--target T] [--rounds R] [--out DIR] [--jobs J]
#        [-- benchmark arguments]
#   make compare BASE=8ff8052 TARGET=bench_stage06 ARGS="--sizes=26 --pairs=1"
#
# BASE is any git revision. T (default bench_stage08) is a benchmark target both revisions have;
# R (default 2) the rounds; DIR (default build-compare) holds the base's source, both builds, each
# run's JSON (base-1.json, new-1.json, ...) and comparison.md; J (default: the machine's cores)
# build jobs in all. Everything after `--` goes to the benchmark program (for example
# --benchmark_filter='^device/.*n:268435456'). Environment: CUDA_ARCH (default 90). Without a GPU
# it builds both trees, says so and exits 2 before timing anything.
set -euo pipefail

usage() { sed -n '9,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
base=$1
shift
target=bench_stage08 rounds=2 out=build-compare jobs=$(nproc)
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "compare_revisions.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare_revisions.sh: --rounds takes a whole number" >&2; exit 2; }

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo_root"
git rev-parse --verify --quiet "$base^{commit}" >/dev/null \
  || { echo "compare_revisions.sh: '$base' is not a revision of this repository" >&2; exit 2; }
case "$out" in /*) ;; *) out=$repo_root/$out ;; esac
say() { echo "== compare: $*"; }

say "base $(git rev-parse --short "$base") against the working tree, target $target, $rounds rounds"
rm -rf "$out/base-src"
mkdir -p "$out/base-src"
git archive "$base" | tar -x -C "$out/base-src"
[ -d .deps ] && cp -r .deps "$out/base-src/"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
for side in base new; do
  source_dir=$([ "$side" = base ] && echo "$out/base-src" || echo "$repo_root")
  cmake -S "$source_dir" -B "$out/build-$side" "${generator[@]}" \
    -DSORTLAB_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >"$out/configure-$side.log" 2>&1 \
    || { tail -20 "$out/configure-$side.log"; exit 1; }
done
# Both builds at once, half the jobs each.
half=$(( jobs > 1 ? jobs / 2 : 1 ))
cmake --build "$out/build-base" -j "$half" --target "$target" >"$out/build-base.log" 2>&1 &
base_build=$!
cmake --build "$out/build-new" -j "$half" --target "$target" >"$out/build-new.log" 2>&1 \
  || { grep -E "error|FAILED" "$out/build-new.log" | head -20; exit 1; }
wait "$base_build" || { grep -E "error|FAILED" "$out/build-base.log" | head -20; exit 1; }
say "built $target twice"

if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  echo "compare_revisions.sh: no NVIDIA GPU here: both trees are built in $out, nothing was timed" >&2
  exit 2
fi
rm -f "$out"/base-*.json "$out"/new-*.json
for ((round = 1; round <= rounds; ++round)); do
  for side in base new; do
    program=$(find "$out/build-$side" -type f -name "$target" -perm -u+x | head -1)
    [ -n "$program" ] || { echo "compare_revisions.sh: no program $target in $out/build-$side" >&2; exit 1; }
    say "round $round, $side"
    "$program" "${bench_args[@]}" --benchmark_out="$out/$side-$round.json" \
      --benchmark_out_format=json >"$out/$side-$round.txt" 2>&1 \
      || { tail -5 "$out/$side-$round.txt"; exit 1; }
  done
done
python3 "$repo_root/bench/compare/compare_json.py" --base "$out"/base-*.json --new "$out"/new-*.json \
  | tee "$out/comparison.md"
