#!/usr/bin/env bash
# One seed of the learning comparison of docs/hf-models.md: a Hugging Face model folder (a small
# random-initialised Qwen2, scripts/hf/make-agent-model.py) against our tiny transformer, each
# through collect → sft → train at the same wall-clock budget, evaluated on the same test tasks.
#
#   bash experiments/hf-learning/run.sh ENV SEED MODEL_DIR [OUT_ROOT]
#
# Budgets (minutes, per phase, both policies): SFT_MINUTES (default 3), RL_MINUTES (default 3).
# Demos: the env's oracle on DEMOS train episodes (default 200). Evaluation: EVAL test episodes
# (default 30) at the end of RL. Writes OUT_ROOT/ENV/{demos.jsonl,hf-sSEED-*,tf-sSEED-*} and
# prints one JSON line per policy: {env, seed, policy, sftLoss, testSuccessRate, rlSteps, ...}.
set -euo pipefail
ENV=$1; SEED=$2; MODEL=$3; ROOT=${4:-runs/hf-learning}
SFT_MINUTES=${SFT_MINUTES:-3}; RL_MINUTES=${RL_MINUTES:-3}; DEMOS=${DEMOS:-200}; EVAL=${EVAL:-30}
A="node bin/actorgym.js"
OUT=$ROOT/$ENV; mkdir -p "$OUT"
[ -f "$OUT/demos.jsonl" ] || $A collect --env "$ENV" --agent oracle --episodes "$DEMOS" --out "$OUT/demos.jsonl" >&2
COMMON_RL="--env $ENV --seed $SEED --schedule fixed:${HORIZON:-20} --tasks-per-step 8 --group-size 4 --steps 1000 --max-minutes $RL_MINUTES --eval-episodes $EVAL --checkpoint-every 0 --no-dashboard --backend wasm --json"
run_hf() {
  $A sft --env "$ENV" --seed "$SEED" --policy "hf:$MODEL" --finetune full --demos "$OUT/demos.jsonl" --epochs 1000 --max-minutes "$SFT_MINUTES" --lr 1e-3 --minibatch 8 \
    --eval-episodes 0 --out "$OUT/hf-s$SEED-sft" --no-dashboard --backend wasm --json > "$OUT/hf-s$SEED-sft.json"
  $A train $COMMON_RL --init "$OUT/hf-s$SEED-sft" --algo grpo --lr 1e-4 --max-new-tokens 24 --out "$OUT/hf-s$SEED-rl" > "$OUT/hf-s$SEED-rl.json"
}
run_tf() {
  $A sft --env "$ENV" --seed "$SEED" --demos "$OUT/demos.jsonl" --epochs 1000 --max-minutes "$SFT_MINUTES" \
    --eval-episodes 0 --out "$OUT/tf-s$SEED-sft" --no-dashboard --backend wasm --learner-threads 1 --json > "$OUT/tf-s$SEED-sft.json"
  $A train $COMMON_RL --init "$OUT/tf-s$SEED-sft" --algo grpo --learner-threads 1 --out "$OUT/tf-s$SEED-rl" > "$OUT/tf-s$SEED-rl.json"
}
# The two policies side by side, one core each.
run_hf 2> "$OUT/hf-s$SEED.log" & HF=$!
run_tf 2> "$OUT/tf-s$SEED.log" & TF=$!
wait $HF; wait $TF
for P in hf tf; do
  node -e '
    const fs = require("fs"); const [out, p, env, seed] = process.argv.slice(1);
    const sft = JSON.parse(fs.readFileSync(`${out}/${p}-s${seed}-sft.json`, "utf8"));
    const rl = JSON.parse(fs.readFileSync(`${out}/${p}-s${seed}-rl.json`, "utf8"));
    console.log(JSON.stringify({ env, seed: Number(seed), policy: p, sftEpochs: sft.epochs, sftLoss: sft.trainLoss, rlSteps: rl.steps,
      testSuccessRate: rl.testSuccessRate, testMeanReward: rl.testMeanReward, testEpisodes: rl.evaluation?.episodes, sftSeconds: sft.trainSeconds, rlSeconds: rl.trainSeconds }));
  ' "$OUT" "$P" "$ENV" "$SEED"
done
