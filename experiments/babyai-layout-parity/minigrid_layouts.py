"""Prints, one JSON line per (level, seed), the grid minigrid generates at reset(seed=seed):
mission, agent position and direction, carried object, and every non-wall object.

    PYTHONPATH=STUBS:MINIGRID:GYMNASIUM python3 minigrid_layouts.py LEVEL[,LEVEL...] FIRST COUNT

MINIGRID and GYMNASIUM are checkouts of minigrid v2.4.0 and gymnasium v0.29.1 (AgentGym's
agentenv-babyai pins minigrid<2.5.0, gymnasium<1.0.0); see README.md for STUBS.
"""
import json
import sys

import gymnasium as gym
import minigrid

minigrid.register_minigrid_envs()


def describe(obj):
    out = {"type": obj.type, "color": obj.color}
    if obj.type == "door":
        out["state"] = "locked" if obj.is_locked else ("open" if obj.is_open else "closed")
    if obj.type == "box" and obj.contains is not None:
        out["contains"] = describe(obj.contains)
    return out


levels, first, count = sys.argv[1].split(","), int(sys.argv[2]), int(sys.argv[3])
for level in levels:
    # minigrid 2.4.0 registers GoToObjS6 only as v1 (v0 had room_size 4 by mistake); ours is v1.
    version = "v1" if level == "GoToObjS6" else "v0"
    for seed in range(first, first + count):
        # A new env per item, as agentenv-babyai's reset: a reused env keeps state between resets
        # (LevelGen's locked_room).
        env = gym.make(f"BabyAI-{level}-{version}")
        env.reset(seed=seed)
        u = env.unwrapped
        objects = []
        for j in range(u.height):
            for i in range(u.width):
                obj = u.grid.get(i, j)
                if obj is not None and obj.type != "wall":
                    objects.append({**describe(obj), "x": i, "y": j})
        print(json.dumps({
            "level": level, "seed": seed, "mission": u.mission,
            "agent": [int(u.agent_pos[0]), int(u.agent_pos[1]), int(u.agent_dir)],
            "carrying": describe(u.carrying) if u.carrying else None,
            "objects": objects,
        }, sort_keys=True))
