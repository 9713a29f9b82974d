# Stand-in for the `verl` package (volcengine/verl at commit b178a3cd56f58b2d502255daba591e92833930a7,
# 2026-01-29), holding only what bridges/verl/actorgym_agent_loop.py imports. verl itself cannot be
# installed on actorgym's CI machines; see bridges/verl/README.md.
