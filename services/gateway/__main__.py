"""``python -m services.gateway``: run the gateway (GATEWAY_PORT, default 8080)."""
import uvicorn

from shared import logs
from shared.settings import get_settings

s = get_settings()
logs.configure("gateway", s.log_level)  # JSON lines, uvicorn's error and access logs included
uvicorn.run("services.gateway.main:app", host=s.gateway_host, port=s.gateway_port, log_level=s.log_level.lower(),
            log_config=None)
