#!/usr/bin/env bash
# Demonstrations → SFT → RL on one env, 3 seeds (docs/training-sft.md). Skips what is done,
# so a re-run continues. Usage: bash experiments/sft-rl/run.sh ENV [OUT=runs/sft-rl]
# Per-env flags live in experiments/sft-rl/ENV.env (SFT_FLAGS, RL_FLAGS, COLLECT_FLAGS, RANDOM_FLAGS,
# SEEDS).
set -euo pipefail
env_id=$1
out=${2:-runs/sft-rl}/$env_id
here=$(dirname "$0")
# shellcheck source=/dev/null
source "$here/$env_id.env"
ag() { node bin/actorgym.js "$@"; }
mkdir -p "$out"
[ -s "$out/demos.jsonl" ] || ag collect --env "$env_id" --agent oracle --split train --only-success $COLLECT_FLAGS --out "$out/demos.jsonl" --json > "$out/collect.json"
for seed in ${SEEDS:-0 1 2}; do
  [ -s "$out/random-s$seed.json" ] || ag rollout --env "$env_id" --agent random --split test --seed "$seed" ${RANDOM_FLAGS:-} --json > "$out/random-s$seed.json"
  [ -s "$out/sft-s$seed.json" ] || ag sft --env "$env_id" --demos "$out/demos.jsonl" --seed "$seed" $SFT_FLAGS \
    --learner-threads 1 --no-dashboard --json --out "$out/sft-s$seed" > "$out/sft-s$seed.json" 2> "$out/sft-s$seed.log"
  [ -s "$out/rl-s$seed.json" ] || ag train --env "$env_id" --init "$out/sft-s$seed" --seed "$seed" $RL_FLAGS \
    --learner-threads 1 --no-dashboard --json --out "$out/rl-s$seed" > "$out/rl-s$seed.json" 2> "$out/rl-s$seed.log"
done
