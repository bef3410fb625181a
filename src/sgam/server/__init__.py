"""sgam as a service: the HTTP API (FastAPI) and the MCP server, installed with
``sgam[server]``. Both are thin skins over ``AsyncMemory`` and ``sgam.boundary``."""

from .app import DEFAULT_MAX_BODY, create_app
from .mcp import ApiKeyVerifier, build_mcp, fixed_caller

__all__ = ["DEFAULT_MAX_BODY", "ApiKeyVerifier", "build_mcp", "create_app", "fixed_caller"]
