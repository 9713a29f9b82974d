# Stand-in (see verl/__init__.py). verl's own __init__ also imports AgentLoopManager, AgentLoopWorker
# and its two built-in loops, which need Ray and torch; the bridge imports none of them.
from .agent_loop import AgentLoopBase, AsyncLLMServerManager

__all__ = ["AgentLoopBase", "AsyncLLMServerManager"]
