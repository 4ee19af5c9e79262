#!/usr/bin/env bash
# The learning curve (docs/learning-curve.md): case bases of growing size built from the shared
# games with the same 10 % of games held out, each measured on the same held-out positions
# (the default style, 100 ms a position, 2,000 positions): rapid players rated 1400-1799, and
# the two accounts of the bullet/blitz file. Each step is skipped when its output is there, so
# an interrupted run goes on where it stopped. Usage: scripts/learning-curve.sh OUT_DIR
# (then scripts/learning-curve.py OUT_DIR rapid b030 b060 b120 b230 rapid all, and accounts).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: scripts/learning-curve.sh OUT_DIR}"
mkdir -p "$out"
cd "$out"
P="$root/target/release/precedent"
D="$root/../shared/data"
R=$D/lichess-rapid-2014-2022.pgn.zst
A=$D/lichess-two-accounts-bullet-blitz.pgn.zst
M=$D/masters-otb.pgn.zst
build() { # NAME INPUTS-AND-OPTIONS...
    local n=$1
    shift
    [ -f "$n.cb" ] && return
    "$P" build "$@" --holdout 10 --min-pattern-count 3 -o "$n.cb" --json >"$n.build.json"
}
measure() { # NAME [--casebase FILE]
    local n=$1
    shift
    [ -f "$n.rapid.jsonl" ] || "$P" eval --pgn "$R" --min-elo 1400 --max-elo 1799 --held-out 10 \
        --positions 2000 --movetime 100 --seed 1 --outcomes "$n.rapid.jsonl" "$@" --json >"$n.rapid.json"
    [ -f "$n.accounts.jsonl" ] || "$P" eval --pgn "$A" --player jishanshaikh4 --player DrNykterstein \
        --held-out 10 --positions 2000 --movetime 100 --seed 1 --outcomes "$n.accounts.jsonl" "$@" \
        --json >"$n.accounts.json"
}
build b030 "$R" --min-elo 800 --max-elo 2599 --band-cases 30000
measure b030 --casebase b030.cb
build b060 "$R" --min-elo 800 --max-elo 2599 --band-cases 60000
measure b060 --casebase b060.cb
build b120 "$R" --min-elo 800 --max-elo 2599 --band-cases 120000
measure b120 --casebase b120.cb
# The embedded default (--band-cases 230000, casebases/README.md): its count read from its file.
"$P" info "$root/casebases/default.cb.zst" --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["cases"])' >b230.cases
measure b230
build rapid "$R"
measure rapid --casebase rapid.cb
build all "$R" "$A" "$M"
measure all --casebase all.cb
