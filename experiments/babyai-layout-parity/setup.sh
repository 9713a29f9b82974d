#!/usr/bin/env bash
# Prepares what compare.ts runs minigrid with: checkouts of minigrid v2.4.0 and gymnasium v0.29.1
# (the versions AgentGym's agentenv-babyai pins: minigrid<2.5.0, gymnasium<1.0.0) and empty stubs
# for pygame and farama_notifications, which only rendering and a start-up notice import.
# numpy comes from the machine's python3. Usage: bash setup.sh DIR MINIGRID_GIT GYMNASIUM_GIT
# (git directories or URLs), then MINIGRID_PYTHONPATH=DIR/stubs:DIR/minigrid:DIR/gymnasium.
set -euo pipefail
dir=$1 minigrid_git=$2 gymnasium_git=$3
mkdir -p "$dir/stubs/pygame" "$dir/stubs/farama_notifications" "$dir/minigrid" "$dir/gymnasium"
: > "$dir/stubs/pygame/__init__.py"
: > "$dir/stubs/pygame/freetype.py"
echo 'notifications = {}' > "$dir/stubs/farama_notifications/__init__.py"
git --git-dir="$minigrid_git" archive v2.4.0 minigrid | tar -x -C "$dir/minigrid"
git --git-dir="$gymnasium_git" archive v0.29.1 gymnasium | tar -x -C "$dir/gymnasium"
echo "MINIGRID_PYTHONPATH=$dir/stubs:$dir/minigrid:$dir/gymnasium"
