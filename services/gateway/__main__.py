"""``python -m services.gateway``: run the gateway (GATEWAY_PORT, default 8080)."""
import logging

import uvicorn

from shared.settings import get_settings

s = get_settings()
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
uvicorn.run("services.gateway.main:app", host=s.gateway_host, port=s.gateway_port, log_level="warning")
