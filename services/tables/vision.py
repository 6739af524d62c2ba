"""The vision LLM call: one page image → markdown, over any OpenAI-compatible chat
completions endpoint that accepts ``image_url`` content (seed 000, "Option A")."""
from __future__ import annotations

import base64

from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionMessageParam

from shared.retry import call_with_retry
from shared.settings import Settings

PROMPT = (
    "Convert this page to Markdown. For any tables:\n"
    "- Use proper markdown table syntax with |---|---| alignment\n"
    "- Preserve all column headers and row labels\n"
    "- Do not modify or translate the content\n"
    "- If a table spans multiple pages, note it"
)


class VisionClient:
    """Async client for the configured vision model (``settings.vision_endpoint``).

    Args:
        settings: ``vision_*`` (falling back to ``llm_*``), ``vision_timeout_s``,
            ``vision_max_tokens``.
    """

    def __init__(self, settings: Settings) -> None:
        base, model, key = settings.vision_endpoint
        self.model = model
        self.max_tokens = settings.vision_max_tokens
        self.settings = settings
        self.client = AsyncOpenAI(base_url=base, api_key=key, timeout=settings.vision_timeout_s, max_retries=0)

    async def page_markdown(self, png: bytes) -> str:
        """Send one page image (PNG bytes) and return the model's markdown answer.

        Raises ``openai.OpenAIError`` (connection, timeout, HTTP error) or ``ValueError``
        when the answer is empty.
        """
        url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": [
            {"type": "text", "text": PROMPT},
            {"type": "image_url", "image_url": {"url": url}},
        ]}]
        resp = await call_with_retry(self.settings, lambda: self.client.chat.completions.create(
            model=self.model, temperature=0, max_tokens=self.max_tokens, messages=messages),
            attempts=self.settings.vision_retry_attempts)
        text = (resp.choices[0].message.content or "") if resp.choices else ""
        if not text.strip():
            raise ValueError("the vision model returned an empty answer")
        return text

    async def close(self) -> None:
        """Close the HTTP connections."""
        await self.client.close()
