#!/bin/bash
# Issue 30's table, in one run on one core (BENCHMARKS.md §4.9): the yardstick, the ball
# ensemble with and without observers, and Newton's cradles of 5 to 100 balls, for each
# ricochet binary given (e.g. a release build of an older commit, then this one), alternated.
#   benches/per_core.sh target/release/ricochet [/tmp/ricochet-old …]
# Each line: binary, scenario, scenes, seconds, scene-steps/s.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 RICOCHET_BINARY…" >&2; exit 2; }
dir=$(mktemp -d)
sed 's/^trajectories = .*/trajectories = 0/' scenarios/bouncing_balls.toml > "$dir/balls.toml"
cp "$dir/balls.toml" "$dir/balls_observed.toml"
cat >> "$dir/balls_observed.toml" <<'TOML'

[events]
max = 8

[[observe]]
name = "v_min"
signal = "v0"
reduce = "min"

[[observe]]
name = "rises"
signal = "v0"
reduce = "first_above"
threshold = 0.0

[[observe]]
name = "y_min"
signal = "y0"
reduce = "min"
TOML
for b in 5 10 20 50 100; do
    sed "s/^balls = .*/balls = $b/; s/^scenes = .*/scenes = $((200000 / b))/" scenarios/newtons_cradle.toml > "$dir/cradle_$b.toml"
done
export RAYON_NUM_THREADS=1 VK_ICD_FILENAMES=/nonexistent
one() {
    # (The script alternates the rounds itself: one run per row where bench would repeat.)
    local repeat=()
    if "$1" bench --help | grep -q -- --repeat; then repeat=(--repeat 1); fi
    taskset -c 1 "$1" bench "$2" --scenes "$3" --reference-up-to 0 "${repeat[@]}" -q 2>/dev/null | python3 -c "
import json, sys
for r in map(json.loads, sys.stdin):
    print('$1', '$(basename "$2")', r['scenes'], round(r['seconds'], 3), '%.3e' % r['scene_steps_per_second'])"
}
cargo bench --bench yardstick --no-run --locked -q 2>/dev/null
for round in 1 2 3; do
    taskset -c 1 cargo bench --bench yardstick --locked -q -- --noplot yardstick 2>/dev/null | awk '/thrpt/ && !seen++ { sub(/^ */, "yardstick "); print }'
    for bin in "$@"; do one "$bin" "$dir/balls.toml" 200000; done
    for bin in "$@"; do one "$bin" "$dir/balls_observed.toml" 200000; done
done
for b in 5 10 20 50 100; do
    for bin in "$@"; do one "$bin" "$dir/cradle_$b.toml" $((200000 / b)); done
done
rm -r "$dir"
